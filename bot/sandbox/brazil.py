"""Brazilian identifiers the seed needs valid: CPF/CNPJ check digits and the 47-digit boleto line."""

from __future__ import annotations

import random
from datetime import date


def _dv11(digits: str, weights: list[int]) -> str:
    rest = sum(int(d) * w for d, w in zip(digits, weights, strict=True)) % 11
    return "0" if rest < 2 else str(11 - rest)


def cpf(rng: random.Random) -> str:
    while True:
        base = "".join(str(rng.randrange(10)) for _ in range(9))
        if len(set(base)) > 1:  # 111.111.111-11 and friends are refused by every validator
            break
    first = _dv11(base, list(range(10, 1, -1)))
    return base + first + _dv11(base + first, list(range(11, 1, -1)))


def cnpj(rng: random.Random) -> str:
    base = "".join(str(rng.randrange(10)) for _ in range(8)) + "0001"
    first = _dv11(base, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
    return base + first + _dv11(base + first, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])


def valid_cpf(value: str) -> bool:
    if len(value) != 11 or not value.isdigit() or len(set(value)) == 1:
        return False
    first = _dv11(value[:9], list(range(10, 1, -1)))
    return value[9:] == first + _dv11(value[:9] + first, list(range(11, 1, -1)))


def valid_cnpj(value: str) -> bool:
    if len(value) != 14 or not value.isdigit() or len(set(value)) == 1:
        return False
    first = _dv11(value[:12], [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
    return value[12:] == first + _dv11(value[:12] + first, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])


def _mod10(digits: str) -> str:
    total = 0
    for i, d in enumerate(reversed(digits)):
        n = int(d) * (2 if i % 2 == 0 else 1)
        total += n // 10 + n % 10
    return str((10 - total % 10) % 10)


def _barcode_dv(digits43: str) -> str:
    total = sum(int(d) * (2 + i % 8) for i, d in enumerate(reversed(digits43)))
    rest = 11 - total % 11
    return "1" if rest in (0, 10, 11) else str(rest)


def due_factor(due: date) -> int:
    """FEBRABAN due-date factor, with the 2025-02-22 restart at 1000."""
    days = (due - date(1997, 10, 7)).days
    return days if days < 10000 else 1000 + (days - 10000) % 9000


def digitable_line(bank: str, due: date, amount_cents: int, free_field: str) -> str:
    """The 47-digit line of a bill slip (bank 3 digits, currency 9, 25-digit free field)."""
    head = bank + "9"
    tail = f"{due_factor(due):04d}{amount_cents:010d}"
    barcode = head + _barcode_dv(head + tail + free_field) + tail + free_field
    f1 = head + free_field[:5]
    f2 = free_field[5:15]
    f3 = free_field[15:25]
    return f1 + _mod10(f1) + f2 + _mod10(f2) + f3 + _mod10(f3) + barcode[4] + tail


def moved_line(line: str, due: date, amount_cents: int) -> str:
    """The same slip's digitable line (same bank and free field) for another due date and amount."""
    return digitable_line(line[:3], due, amount_cents, line[4:9] + line[10:20] + line[21:31])


def printed_line(line: str) -> str:
    """The 47 digits grouped as a slip prints them: ``00190.00009 02512.345003 ... 1 10030000009990``."""
    return f"{line[:5]}.{line[5:10]} {line[10:15]}.{line[15:21]} {line[21:26]}.{line[26:32]} {line[32]} {line[33:]}"


def mod11(digits: str) -> str:
    """The check digit of an electronic invoice's access key (weights 2..9 from the right)."""
    rest = sum(int(d) * (2 + i % 8) for i, d in enumerate(reversed(digits))) % 11
    return "0" if rest < 2 else str(11 - rest)


FIRST_NAMES = (
    "Ana",
    "Maria",
    "Juliana",
    "Fernanda",
    "Patrícia",
    "Aline",
    "Camila",
    "Amanda",
    "Bruna",
    "Letícia",
    "Beatriz",
    "Larissa",
    "Gabriela",
    "Mariana",
    "Vanessa",
    "José",
    "João",
    "Antônio",
    "Francisco",
    "Carlos",
    "Paulo",
    "Pedro",
    "Lucas",
    "Luiz",
    "Marcos",
    "Luís",
    "Gabriel",
    "Rafael",
    "Daniel",
    "Marcelo",
    "Bruno",
    "Eduardo",
    "Felipe",
    "Rodrigo",
    "Thiago",
    "Gustavo",
    "Mateus",
    "Vinícius",
    "Leonardo",
    "Renata",
)
LAST_NAMES = (
    "Silva",
    "Santos",
    "Oliveira",
    "Souza",
    "Rodrigues",
    "Ferreira",
    "Alves",
    "Pereira",
    "Lima",
    "Gomes",
    "Costa",
    "Ribeiro",
    "Martins",
    "Carvalho",
    "Almeida",
    "Lopes",
    "Soares",
    "Fernandes",
    "Vieira",
    "Barbosa",
    "Rocha",
    "Dias",
    "Nascimento",
    "Andrade",
    "Moreira",
    "Nunes",
    "Marques",
    "Machado",
    "Mendes",
    "Freitas",
)
COMPANY_WORDS = (
    "Padaria",
    "Mercado",
    "Auto Peças",
    "Clínica",
    "Escritório",
    "Farmácia",
    "Pet Shop",
    "Restaurante",
    "Academia",
    "Papelaria",
    "Oficina",
    "Imobiliária",
)
STREETS = (
    "Rua das Flores",
    "Avenida Brasil",
    "Rua XV de Novembro",
    "Rua Sete de Setembro",
    "Avenida Paulista",
    "Rua Tiradentes",
    "Rua São João",
    "Rua Dom Pedro II",
    "Avenida Getúlio Vargas",
    "Rua Santos Dumont",
    "Rua Rui Barbosa",
    "Rua Marechal Deodoro",
    "Avenida Independência",
    "Rua José Bonifácio",
)
NEIGHBORHOODS = (
    "Centro",
    "Jardim América",
    "Vila Nova",
    "Jardim Paulista",
    "Vila Mariana",
    "Bela Vista",
    "Jardim das Flores",
    "Parque Industrial",
    "Vila Rica",
    "Santa Cecília",
)

#: (municipality code, name, UF, CEP prefix (3 digits), latitude, longitude) of the ISP's service area.
CITIES = (
    (3550308, "São Paulo", "SP", "041", -23.5505, -46.6333),
    (3518800, "Guarulhos", "SP", "071", -23.4538, -46.5333),
    (3534401, "Osasco", "SP", "060", -23.5329, -46.7917),
    (3547809, "Santo André", "SP", "091", -23.6639, -46.5383),
    (3548708, "São Bernardo do Campo", "SP", "097", -23.6914, -46.5646),
    (3505708, "Barueri", "SP", "064", -23.5057, -46.8790),
)
MUNICIPALITIES = {code: (name, uf) for code, name, uf, *_ in CITIES} | {
    3304557: ("Rio de Janeiro", "RJ"),
    3106200: ("Belo Horizonte", "MG"),
    4106902: ("Curitiba", "PR"),
    3509502: ("Campinas", "SP"),
    4314902: ("Porto Alegre", "RS"),
}
