"""The router and its Wi-Fi through the ISP's ACS, as a subscriber sees them, against a fake GenieACS
NBI that answers as the real one does (bot/sandbox/genieacs.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import FixedClock, Sandbox
from bot.sandbox.genieacs import MODELS, FakeGenieAcs, tr098_device, tr181_device

from tests.flows.harness import Desk, TestChat, make_desk
from tests.flows.test_new_ticket import quiet_customer, tickets_of
from tests.store.dbtools import ScratchDatabase

PASSWORD = "Casa#Nova2026"
ACS_TIMEOUT = 2.0  # ISPBOT_ACS_TIMEOUT of these tests' bot
WLAN = "InternetGatewayDevice.LANDevice.1.WLANConfiguration"
KEY = WLAN + ".{}.PreSharedKey.1.PreSharedKey"  # Huawei's, the fake's default vendor
SSID = WLAN + ".{}.SSID"


@dataclass
class Acs:
    desk: Desk
    nbi: FakeGenieAcs
    serial: str

    async def chat(self) -> TestChat:
        return await self.desk.linked_chat()


def maria_serial(sandbox: Sandbox) -> str:
    return next(str(e["serial"]) for e in sandbox.store.rows("equipment") if e["customer_id"] == D.customer)


async def new_wifi_password(chat: TestChat, again: str | None = PASSWORD) -> None:
    """Ask for the Wi-Fi password's change, type it, and type ``again`` (None: not yet)."""
    await chat.command("wifi")
    await chat.tap("Senha do Wi-Fi")
    await chat.say(PASSWORD)
    if again is not None:
        await chat.say(again)


@pytest.fixture
async def acs(sandbox: Sandbox, database: ScratchDatabase, clock: FixedClock) -> AsyncIterator[Acs]:
    nbi = FakeGenieAcs()
    desk = make_desk(sandbox, database, clock, acs=nbi, acs_timeout=ACS_TIMEOUT)
    yield Acs(desk, nbi, maria_serial(sandbox))
    await desk.client.aclose()


async def test_without_an_acs_nothing_of_it_shows(desk: Desk) -> None:
    chat = await desk.linked_chat()
    assert not any("roteador" in b.casefold() for b in chat.buttons)
    await chat.command("roteador")  # the router's command is the connection check, as before
    assert "Meu roteador" not in chat.text and "Sinal da fibra" not in chat.text


async def test_the_wifi_password_is_changed_on_both_networks_and_kept_nowhere(acs: Acs) -> None:
    device = acs.nbi.add(tr098_device(acs.serial, guest_off=True))
    chat = await acs.chat()
    assert any("Meu roteador" in b for b in chat.buttons)
    await chat.say("quero trocar a senha do wi-fi")
    await chat.tap("Senha do Wi-Fi")
    assert "guardo a senha" in chat.text
    await chat.say("curta")
    assert "8 a 63 caracteres" in chat.text and "tinha 5" in chat.text
    await chat.say(PASSWORD)
    assert "C•••••••••••6" in chat.text  # never echoed whole
    await chat.say(PASSWORD)
    assert "aplicada" in chat.text and "2 redes" in chat.text
    assert [acs.nbi.value(device, KEY.format(n)) for n in (1, 5, 6)] == [PASSWORD, PASSWORD, ""]  # guest left off
    assert all(PASSWORD not in str(r) for r in chat.history)
    (task,) = acs.nbi.done
    assert task["name"] == "setParameterValues"


async def test_two_different_passwords_change_nothing(acs: Acs) -> None:
    device = acs.nbi.add(tr098_device(acs.serial))
    chat = await acs.chat()
    await new_wifi_password(chat, PASSWORD + "x")
    assert "não ficaram iguais" in chat.text
    assert acs.nbi.value(device, KEY.format(1)) == "" and acs.nbi.done == []
    await chat.say(PASSWORD)
    await chat.say(PASSWORD)
    assert acs.nbi.value(device, KEY.format(1)) == PASSWORD


async def test_a_router_that_does_not_answer_gets_it_when_it_connects(acs: Acs) -> None:
    device = acs.nbi.add(tr098_device(acs.serial, vendor="intelbras"), online=False)
    chat = await acs.chat()
    await new_wifi_password(chat)
    assert "não respondeu agora" in chat.text and "quando ele se conectar" in chat.text
    path = WLAN + ".6.KeyPassphrase"  # Intelbras's: on the configuration itself, 2.4 GHz on instance 6
    assert acs.nbi.value(device, path) == ""
    acs.nbi.connect(device)
    assert acs.nbi.value(device, path) == PASSWORD


async def test_the_network_name_is_confirmed_in_words(acs: Acs) -> None:
    device = acs.nbi.add(tr098_device(acs.serial))
    chat = await acs.chat()
    await chat.say("mudar o nome da rede")
    await chat.say("nome da rede")
    assert "Hoje: Casa, Casa-5G" in chat.text
    await chat.say("x" * 33)
    assert "1 a 32 caracteres" in chat.text
    await chat.say("Maria 2026")
    assert "Mudar o nome da rede Wi-Fi para Maria 2026?" in chat.text
    await chat.say("sim, pode")
    assert "agora se chama Maria 2026" in chat.text
    assert [acs.nbi.value(device, SSID.format(n)) for n in (1, 5)] == ["Maria 2026", "Maria 2026"]


async def test_a_tr181_router_is_found_by_the_pppoe_login(acs: Acs) -> None:
    device = acs.nbi.add(tr181_device("OTHER-SERIAL", login=D.pppoe_login))
    for row in acs.desk.sandbox.store.rows("equipment"):
        if row["customer_id"] == D.customer:
            row["serial"] = ""  # the ISP lists no serial: the PPPoE login finds it
    chat = await acs.chat()
    await new_wifi_password(chat)
    assert "aplicada" in chat.text
    assert acs.nbi.value(device, "Device.WiFi.AccessPoint.11.Security.KeyPassphrase") == PASSWORD
    assert acs.nbi.value(device, "Device.WiFi.AccessPoint.12.Security.KeyPassphrase") == PASSWORD


# Each vendor's key paths, written out as the sources name them (bot/sandbox/genieacs.py says which).
VENDOR_KEYS = {
    "huawei": [f"{WLAN}.{n}.PreSharedKey.1.PreSharedKey" for n in (1, 5)],
    "zte": [f"{WLAN}.{n}.PreSharedKey.1.KeyPassphrase" for n in (1, 5)],
    "fiberhome": [f"{WLAN}.{n}.PreSharedKey.1.KeyPassphrase" for n in (1, 5)],
    "intelbras": [f"{WLAN}.{n}.KeyPassphrase" for n in (6, 1)],
}


@pytest.mark.parametrize("vendor", [*VENDOR_KEYS, "tr181"])
async def test_the_wifi_password_is_applied_on_every_network_of_each_vendor(acs: Acs, vendor: str) -> None:
    if vendor == "tr181":
        device = acs.nbi.add(tr181_device(acs.serial))
        keys = [f"Device.WiFi.AccessPoint.{n}.Security.KeyPassphrase" for n in (11, 12)]
    else:
        device = acs.nbi.add(tr098_device(acs.serial, vendor=vendor))
        keys = VENDOR_KEYS[vendor]
    chat = await acs.chat()
    await new_wifi_password(chat)
    assert "aplicada" in chat.text and "2 redes" in chat.text
    assert [acs.nbi.value(device, k) for k in keys] == [PASSWORD, PASSWORD]


@pytest.mark.parametrize(("vendor", "raw", "told", "level"), [
    ("huawei", "-21.4", "-21,4 dBm", "bom"),
    ("zte", 95, "-20,22 dBm", "bom"),  # tenths of a microwatt: 9.5 µW
    ("zte", 25, "-26,02 dBm", "fraco"),
    ("fiberhome", "-19.8", "-19,8 dBm", "bom"),
    ("intelbras", "-27.96", "-27,96 dBm", "fraco"),
])
async def test_the_fiber_signal_is_read_fresh_scaled_and_told_in_words(
    acs: Acs, vendor: str, raw: object, told: str, level: str,
) -> None:
    device = acs.nbi.add(tr098_device(acs.serial, vendor=vendor, rx="-10"))  # read again: ``raw``
    acs.nbi.live[device] = {MODELS[vendor].rx_path: raw}
    chat = await acs.chat()
    await chat.tap("Meu roteador")
    await chat.tap("Sinal da fibra")
    assert f"Sinal da fibra agora: {told} — {level}" in chat.text


async def test_a_slow_acs_never_holds_a_turn_longer_than_the_setting_and_loses_nothing(acs: Acs) -> None:
    device = acs.nbi.add(tr098_device(acs.serial))
    chat = await acs.chat()
    await new_wifi_password(chat, again=None)
    # Each call now takes 60% of the setting: the turn's reading of the router and its change would
    # take 120% of it in all. The change is cut where the setting's time ends, after the NBI took it.
    acs.nbi.delay = ACS_TIMEOUT * 0.6
    before = len(acs.nbi.requests)
    await chat.say(PASSWORD)
    assert "Mandei a nova senha para o roteador, mas ele não confirmou a tempo" in chat.text
    assert len(acs.nbi.requests) - before == 2 and acs.nbi.answered == before + 1  # the second was cut
    assert acs.nbi.value(device, KEY.format(1)) == ""  # not applied yet, and not lost:
    (queued,) = acs.nbi.queued
    assert queued["name"] == "setParameterValues"
    acs.nbi.connect(device)  # the router's next inform takes it
    assert [acs.nbi.value(device, KEY.format(n)) for n in (1, 5)] == [PASSWORD, PASSWORD]
    assert all(PASSWORD not in str(r) for r in chat.history)


async def test_a_slow_acs_reading_the_signal_tells_the_last_reading(acs: Acs) -> None:
    device = acs.nbi.add(tr098_device(acs.serial, rx="-22.5"))
    acs.nbi.live[device] = {MODELS["huawei"].rx_path: "-27.5"}
    chat = await acs.chat()
    await chat.tap("Meu roteador")
    acs.nbi.delay = ACS_TIMEOUT * 0.6  # reading the router, asking it, reading it back: 180% of the setting
    await chat.tap("Sinal da fibra")
    assert "Sinal da fibra na última leitura: -22,5 dBm — bom" in chat.text  # what the ACS knew, said as such
    assert chat.buttons  # the turn ended with the router's actions offered


async def test_a_critical_signal_offers_a_ticket_that_carries_the_reading(acs: Acs) -> None:
    acs.nbi.add(tr181_device(acs.serial, signal=-29_300))
    chat = await acs.chat()
    await chat.say("como esta o sinal da fibra do meu roteador")
    await chat.tap("Sinal da fibra")
    assert "-29,3 dBm — crítico" in chat.text
    await chat.tap("Abrir chamado")
    await chat.tap("Outro")
    assert "-29,3 dBm (crítico)" in chat.text  # the ticket's description, shown before it is opened


async def test_what_is_connected_and_a_restart(acs: Acs) -> None:
    device = acs.nbi.add(tr098_device(acs.serial))
    chat = await acs.chat()
    await chat.tap("Meu roteador")
    await chat.tap("Aparelhos conectados")
    assert "2 aparelhos conectados ao roteador agora: celular-maria e 1 sem nome" in chat.text
    await chat.tap("Reiniciar roteador")
    await chat.say("agora não")
    assert "não mudei nada" in chat.text and not any(t["name"] == "reboot" for t in acs.nbi.done)
    await chat.tap("Meu roteador")
    await chat.tap("Reiniciar roteador")
    await chat.tap("Sim")
    assert "está reiniciando" in chat.text
    assert acs.nbi.done[-1] == {**acs.nbi.done[-1], "name": "reboot", "device": device}


async def test_the_acs_down_slow_or_refusing_gets_a_plain_answer(acs: Acs) -> None:
    device = acs.nbi.add(tr098_device(acs.serial))
    chat = await acs.chat()
    acs.nbi.down = True
    await chat.tap("Meu roteador")
    assert "Não consegui falar agora com o sistema que gerencia o seu roteador" in chat.text
    acs.nbi.down = False
    await chat.tap("Menu")
    await chat.command("wifi")
    await chat.tap("Senha do Wi-Fi")
    await chat.say(PASSWORD)
    acs.nbi.slow = True
    await chat.say(PASSWORD)
    assert "Não consegui falar agora" in chat.text
    acs.nbi.slow = False
    acs.nbi.faulting.add(device)
    await chat.tap("Menu")
    await chat.command("roteador")
    await chat.tap("Reiniciar roteador")
    await chat.tap("Sim")
    assert "recusou o pedido" in chat.text
    assert acs.nbi.faults == []  # the faulted task deleted: not retried at every inform


async def test_no_device_or_several(acs: Acs) -> None:
    chat = await acs.chat()
    await chat.tap("Meu roteador")
    assert "Não encontrei o seu roteador" in chat.text
    await chat.tap("Menu")
    acs.nbi.add(tr098_device(acs.serial))
    acs.nbi.add(tr181_device(acs.serial))
    await chat.tap("Meu roteador")
    assert "Encontrei 2 equipamentos" in chat.text
    await chat.tap("EX220")
    await chat.tap("Aparelhos conectados")
    assert "notebook" in chat.text


async def test_no_internet_looks_at_the_router_first_and_the_ticket_carries_it(acs: Acs) -> None:
    customer = quiet_customer(acs.desk.sandbox)
    serials = [str(e["serial"]) for e in acs.desk.sandbox.store.rows("equipment") if e["customer_id"] == customer]
    login = next(str(a["Usuario"]) for a in acs.desk.sandbox.store.rows("authentications") if a["Cliente"] == customer)
    device = acs.nbi.add(tr098_device(serials[0] if serials else "NO-SERIAL", login=login, vendor="zte",
                                      connected=False))
    acs.nbi.live[device] = {MODELS["zte"].rx_path: 9}  # tenths of a microwatt: 0.9 µW
    chat = await acs.desk.linked_chat(customer)
    await chat.say("estou sem internet")
    assert "Olhei o seu roteador: Sinal da fibra: -30,46 dBm (crítico). Conexão do roteador: caída." in chat.text
    await chat.tap("chamado")
    await chat.tap("Sem conexão")
    await chat.tap("Abrir chamado")
    (opened,) = [t for t in tickets_of(acs.desk.sandbox, customer) if t["Assunto"] == "Sem conexão"]
    told = [str(o) for o in acs.desk.sandbox.store.rows("occurrences") if str(o).find(opened["Numero"]) >= 0]
    assert any("-30,46 dBm (crítico)" in o and "Conexão do roteador: caída" in o for o in told)


async def test_no_internet_without_the_acs_answering_goes_on_as_before(acs: Acs) -> None:
    customer = quiet_customer(acs.desk.sandbox)
    acs.nbi.down = True
    chat = await acs.desk.linked_chat(customer)
    await chat.say("estou sem internet")
    assert "Olhei o seu roteador" not in chat.text and chat.buttons


async def test_the_technicians_order_shows_the_router_and_reads_it_again_on_request(acs: Acs) -> None:
    device = acs.nbi.add(tr098_device(acs.serial, rx="-22.5"))
    chat = await acs.desk.technician_chat()
    await chat.command("agenda")
    await chat.tap("#70001")
    assert "Roteador Huawei Technologies Co., Ltd EG8145V5: sinal -22,5 dBm (bom, lido" in chat.text
    assert "último contato" in chat.text and acs.nbi.done == []  # the card waits on no router
    acs.nbi.live[device] = {"InternetGatewayDevice.WANDevice.1.X_GponInterafceConfig.RXPower": "-28.4"}
    await chat.tap("Ler o roteador")
    assert "Lido agora: Roteador" in chat.text and "-28,4 dBm (crítico" in chat.text
    acs.nbi.online.clear()
    await chat.tap("Ler o roteador")
    assert "o roteador não respondeu: última leitura do ACS" in chat.text and "-28,4 dBm" in chat.text
