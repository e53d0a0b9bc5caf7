"""The proof helpers: CPF/CNPJ check digits, Brazilian phones, constant-time secret comparison."""

from __future__ import annotations

import pytest
from flows.identity import (
    Phone,
    masked_tax_id,
    normalise_phone,
    normalise_tax_id,
    plausible_login,
    plausible_tax_id,
    same_phone,
    same_secret,
    valid_cnpj,
    valid_cpf,
)
from hypothesis import given
from hypothesis import strategies as st


def _dv(digits: str, weights: list[int]) -> str:
    rest = sum(int(d) * w for d, w in zip(digits, weights, strict=True)) % 11
    return "0" if rest < 2 else str(11 - rest)


def make_cpf(base: str) -> str:
    first = _dv(base, list(range(10, 1, -1)))
    return base + first + _dv(base + first, list(range(11, 1, -1)))


def make_cnpj(base: str) -> str:
    first = _dv(base, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
    return base + first + _dv(base + first, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])


def digits(n: int) -> st.SearchStrategy[str]:
    return st.text(alphabet="0123456789", min_size=n, max_size=n).filter(lambda s: len(set(s)) > 1)


cpfs = digits(9).map(make_cpf).filter(lambda s: len(set(s)) > 1)
cnpjs = digits(12).map(make_cnpj).filter(lambda s: len(set(s)) > 1)


def punctuate_cpf(value: str) -> str:
    return f"{value[:3]}.{value[3:6]}.{value[6:9]}-{value[9:]}"


def punctuate_cnpj(value: str) -> str:
    return f"{value[:2]}.{value[2:5]}.{value[5:8]}/{value[8:12]}-{value[12:]}"


# ---- tax ids ------------------------------------------------------------------------------------
@given(cpfs)
def test_every_generated_cpf_validates_with_or_without_punctuation(cpf: str) -> None:
    assert valid_cpf(cpf)
    assert normalise_tax_id(cpf) == cpf
    assert normalise_tax_id(punctuate_cpf(cpf)) == cpf
    assert normalise_tax_id(f" CPF: {punctuate_cpf(cpf)} ") == cpf


@given(cnpjs)
def test_every_generated_cnpj_validates_with_or_without_punctuation(cnpj: str) -> None:
    assert valid_cnpj(cnpj)
    assert normalise_tax_id(punctuate_cnpj(cnpj)) == cnpj


ALNUM = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def make_alnum_cnpj(base: str) -> str:
    """The Receita Federal's rule, written independently: each character worth its ASCII code - 48."""
    def dv(chars: str, weights: list[int]) -> str:
        rest = sum((ord(c) - 48) * w for c, w in zip(chars, weights, strict=True)) % 11
        return "0" if rest < 2 else str(11 - rest)
    first = dv(base, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
    return base + first + dv(base + first, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])


alnum_cnpjs = st.text(alphabet=ALNUM, min_size=12, max_size=12).filter(
    lambda s: any(c.isalpha() for c in s)).map(make_alnum_cnpj)


def test_the_receita_federal_example_of_an_alphanumeric_cnpj() -> None:
    assert valid_cnpj("12ABC34501DE35")
    assert normalise_tax_id("12.ABC.345/01DE-35") == "12ABC34501DE35"
    assert normalise_tax_id("cnpj: 12.abc.345/01de-35") == "12ABC34501DE35"
    assert normalise_tax_id("CPF/CNPJ 12ABC34501DE35") == "12ABC34501DE35"
    assert normalise_tax_id("12ABC34501DE36") is None
    assert normalise_tax_id("12ABC34501DE3A") is None  # the check digits are digits
    assert normalise_tax_id("12ÁBC34501DE35") is None  # an accented letter is no CNPJ character


@given(alnum_cnpjs)
def test_every_alphanumeric_cnpj_validates_in_any_case_with_or_without_punctuation(cnpj: str) -> None:
    assert valid_cnpj(cnpj)
    assert normalise_tax_id(cnpj) == cnpj
    assert normalise_tax_id(punctuate_cnpj(cnpj).lower()) == cnpj
    assert normalise_tax_id(f"CNPJ {punctuate_cnpj(cnpj)}") == cnpj


def test_an_alphanumeric_cnpj_whose_digits_alone_are_a_cpf_is_read_as_the_cnpj() -> None:
    assert valid_cpf("71046563408")
    assert normalise_tax_id("7G.10T.465/N634-08") == "7G10T465N63408"
    assert normalise_tax_id("meu cpf é 710.465.634-08") == "71046563408"  # words around a CPF still do


def first_rest(value: str, weights: list[int]) -> int:
    return sum(int(d) * w for d, w in zip(value, weights, strict=False)) % 11


@given(cpfs, st.integers(0, 10), st.integers(1, 9))
def test_a_single_changed_digit_of_a_cpf_is_caught_but_for_the_known_blind_spot(
    cpf: str, position: int, delta: int,
) -> None:
    """Mod-11 catches every single change, except that remainders 0 and 1 both give the check
    digit 0: a change that only moves the remainder between them goes unseen (the algorithm's
    own blind spot, not ours), and never in a check digit."""
    changed = cpf[:position] + str((int(cpf[position]) + delta) % 10) + cpf[position + 1 :]
    if position >= 9 or not valid_cpf(changed):
        assert not valid_cpf(changed)
        assert normalise_tax_id(changed) is None
        return
    weights = list(range(10, 1, -1))
    assert {first_rest(cpf, weights), first_rest(changed, weights)} == {0, 1}


def test_the_cpf_blind_spot_exists() -> None:
    assert valid_cpf("29494689003") and valid_cpf("39494689003")


@given(cnpjs, st.integers(0, 13), st.integers(1, 9))
def test_a_single_changed_digit_of_a_cnpj_is_caught_but_for_the_known_blind_spot(
    cnpj: str, position: int, delta: int,
) -> None:
    changed = cnpj[:position] + str((int(cnpj[position]) + delta) % 10) + cnpj[position + 1 :]
    if position >= 12 or not valid_cnpj(changed):
        assert not valid_cnpj(changed)
        return
    weights = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
    assert {first_rest(cnpj, weights), first_rest(changed, weights)} == {0, 1}


@pytest.mark.parametrize("text", [
    "111.111.111-11", "00000000000", "11111111111111", "5299822472", "529982247250", "", "abc", "52998224725x1",
])
def test_repeated_digits_and_wrong_lengths_are_not_tax_ids(text: str) -> None:
    assert normalise_tax_id(text) is None


def test_known_ids() -> None:
    assert normalise_tax_id("529.982.247-25") == "52998224725"
    assert normalise_tax_id("11.444.777/0001-61") == "11444777000161"
    assert not valid_cpf("52998224726")
    assert not valid_cpf("５２９９８２２４７２５")  # full-width digits are not ASCII digits


# ---- phones -------------------------------------------------------------------------------------
@pytest.mark.parametrize("raw", [
    "11987654321", "(11) 98765-4321", "+55 11 98765-4321", "5511987654321", "+5511987654321",
    "011 98765-4321", "0055 11 98765 4321", "1187654321",  # the mobile before its ninth digit
])
def test_the_same_mobile_however_written(raw: str) -> None:
    assert normalise_phone(raw) == Phone("11", "87654321")


def test_a_telegram_contact_always_carries_its_country() -> None:
    assert normalise_phone("5511987654321", international=True) == Phone("11", "87654321")
    assert normalise_phone("+5511987654321", international=True) == Phone("11", "87654321")
    assert normalise_phone("15551234567", international=True) is None  # the United States, not DDD 15
    assert normalise_phone("11987654321", international=True) is None


def test_landlines_keep_their_eight_digits() -> None:
    assert normalise_phone("(11) 4004-1234") == Phone("11", "40041234")
    assert normalise_phone("+55 11 3333-4444") == Phone("11", "33334444")


@pytest.mark.parametrize("raw", [
    None, "", "123", "(10) 98765-4321", "11 88765-4321", "11 1234-5678", "+1 555 123 4567", "+55 11 8765",
])
def test_what_is_not_a_brazilian_phone(raw: str | None) -> None:
    assert normalise_phone(raw) is None


def test_same_phone_compares_area_and_number() -> None:
    mobile = normalise_phone("+5511987654321")
    assert mobile is not None
    assert same_phone(mobile, Phone("11", "87654321"))
    assert not same_phone(mobile, Phone("21", "87654321"))  # same number, another city
    assert not same_phone(mobile, Phone("11", "87654322"))
    local = normalise_phone("98765-4321")  # a record typed without its area code
    assert local == Phone(None, "87654321")
    assert same_phone(mobile, local)


@given(st.sampled_from("123456789"), st.sampled_from("123456789"), st.text(alphabet="0123456789", min_size=7,
       max_size=7), st.sampled_from("6789"))
def test_a_mobile_matches_itself_with_and_without_the_ninth_digit(a: str, b: str, rest: str, first: str) -> None:
    old = normalise_phone(f"{a}{b}{first}{rest}")
    new = normalise_phone(f"+55 ({a}{b}) 9{first}{rest}")
    assert old is not None and new is not None and same_phone(old, new)


# ---- secrets ------------------------------------------------------------------------------------
def test_same_secret_is_exact() -> None:
    assert same_secret("Fibra@2025", "Fibra@2025")
    assert not same_secret("Fibra@2025", "fibra@2025")
    assert not same_secret("Fibra@2025", "Fibra@2025 ")
    assert not same_secret("", "x")
    assert same_secret("senha çõ", "senha çõ")  # non-ASCII passwords compare too


# ---- what a person may type ----------------------------------------------------------------------
@pytest.mark.parametrize("login", ["joao.silva", "maria_2@fibra.net", "paoquente-5004", "CLIENTE123", "a"])
def test_logins_as_isps_issue_them_are_plausible(login: str) -> None:
    assert plausible_login(login)


@pytest.mark.parametrize(
    "login",
    ["maria\udc80.silva", "maria\ufffd.silva", "maria\u200b.silva", "maria\x00", "maria\n", "maria silva",
     "maria\\", "x'OR(1)#", "jo\u00e3o", "m\u0430ria", "", "maria\u202e"],
)
def test_logins_with_characters_no_login_holds_are_not(login: str) -> None:
    assert not plausible_login(login)


@pytest.mark.parametrize("text", ["529.982.247-25", " 52998224725\n", "CPF: 529 982 247-25", "11.444.777/0001-61",
                                  "cnpj 12.abc.345/01de-35"])
def test_tax_ids_as_people_write_them_are_plausible(text: str) -> None:
    assert plausible_tax_id(text)


@pytest.mark.parametrize("text", ["529.982.247-25\udc80", "529\ufffd98224725", "529\u200b98224725", "529\x0098224725",
                                  "529\n98224725", "\uff15\uff12\uff19.982.247-25", "529_982_247_25", ""])
def test_tax_ids_with_characters_no_tax_id_holds_are_not(text: str) -> None:
    assert not plausible_tax_id(text)


@pytest.mark.parametrize(("tax_id", "shown"), [
    ("529.982.247-25", "***.982.247-**"),
    ("52998224725", "***982247**"),
    ("12.ABC.345/01DE-35", "**.*BC.345/01DE-**"),
    ("", ""),
    (None, ""),
])
def test_a_tax_id_shown_to_the_staff_hides_its_ends(tax_id: str | None, shown: str) -> None:
    assert masked_tax_id(tax_id) == shown
