"""The ACS client and the device reading against the fake GenieACS NBI, and the doctor's check."""

from __future__ import annotations

import pytest
from bot.acs import (
    AcsClient,
    AcsOutOfTime,
    AcsRefused,
    AcsSettings,
    AcsUnavailable,
    AcsUnknownDevice,
    Device,
    TaskOutcome,
    signal_level,
)
from bot.acs.device import to_dbm
from bot.doctor.acs import acs_findings
from bot.doctor.report import Status
from bot.sandbox.genieacs import ACS_URL, FakeGenieAcs, tr098_device, tr181_device


def client(nbi: FakeGenieAcs, **settings: object) -> AcsClient:
    return AcsClient(AcsSettings(_env_file=None, url=ACS_URL, **settings), http_transport=nbi)  # type: ignore[arg-type]


@pytest.mark.parametrize(("raw", "unit", "dbm"), [
    ("-21.4", "dBm", -21.4),
    (" -27.96 ", "dBm", -27.96),
    ("12", "dBm", -19.21),  # a firmware's microwatts on a dBm path: 12 µW
    (95, "0.1uW", -20.22),  # ZTE's WANPON reading in tenths of a microwatt: 9.5 µW
    ("25", "0.1uW", -26.02),
    ("0", "0.1uW", None),
    (-19_500, "mdBm", -19.5),  # TR-181's OpticalSignalLevel
    ("0", "dBm", None),  # no light at all reads as no reading, not as 0 dBm
    ("", "dBm", None),
    ("nan", "dBm", None),
])
def test_readings_are_told_in_dbm(raw: object, unit: str, dbm: float | None) -> None:
    assert to_dbm(raw, unit) == dbm


def test_levels_follow_the_technicians_thresholds() -> None:
    assert [signal_level(x) for x in (-24.9, -25.0, -28.0, -28.01)] == ["good", "weak", "weak", "critical"]


def test_a_tr098_device_is_read_as_a_technician_reads_it() -> None:
    device = Device(tr098_device("HWTC0001", login="maria.silva", guest_off=True, rx="-26.5"))
    assert device.root == "InternetGatewayDevice" and device.serial == "HWTC0001"
    assert device.ppp_username == "maria.silva" and device.wan_up is True
    assert [n.name for n in device.wifi()] == ["Casa", "Casa-5G", "Visitantes"]
    assert [n.name for n in device.networks_to_change()] == ["Casa", "Casa-5G"]  # the guest network is off
    signal = device.signal()
    assert signal is not None and (signal.dbm, signal.level) == (-26.5, "weak")
    assert device.hosts() == ["celular-maria", ""]  # the inactive TV left out


def test_a_tr181_device_follows_the_ssid_references() -> None:
    device = Device(tr181_device("SER1", connected=False))
    assert device.root == "Device" and device.wan_up is False
    assert [(n.ssid_path, n.passphrase_path) for n in device.wifi()] == [
        ("Device.WiFi.SSID.1.SSID", "Device.WiFi.AccessPoint.11.Security.KeyPassphrase"),
        ("Device.WiFi.SSID.2.SSID", "Device.WiFi.AccessPoint.12.Security.KeyPassphrase"),
    ]
    assert device.signal() is not None and device.signal().dbm == -19.5  # type: ignore[union-attr]


async def test_tasks_answer_200_202_and_faults_as_genieacs_does() -> None:
    nbi = FakeGenieAcs()
    online = nbi.add(tr098_device("A1"))
    offline = nbi.add(tr098_device("B2"), online=False)
    acs = client(nbi)
    assert [d.id for d in await acs.find(["B2", "A1", ""], [])] == [online, offline]
    assert await acs.reboot(online) is TaskOutcome.APPLIED
    assert await acs.reboot(offline) is TaskOutcome.QUEUED and len(nbi.queued) == 1
    nbi.faulting.add(online)
    with pytest.raises(AcsRefused):
        await acs.reboot(online)
    assert nbi.faults == []
    with pytest.raises(AcsUnknownDevice):
        await acs.reboot("no-such-device")
    sent = nbi.requests[1]
    assert sent.url.params["timeout"] == "5000" and "connection_request" in sent.url.params
    nbi.slow = True
    assert await acs.reboot(online) is TaskOutcome.UNCONFIRMED  # sent; the session outlasted the wait
    with pytest.raises(AcsUnavailable):
        await acs.find(["A1"], [])
    await acs.aclose()


async def test_a_turns_calls_share_one_deadline_and_nothing_is_sent_after_it() -> None:
    nbi = FakeGenieAcs()
    device = nbi.add(tr098_device("A1"))
    acs = client(nbi, timeout=1.1)
    turn = acs.for_turn()
    nbi.delay = 0.7  # each answer alone in time, two are not
    assert (await turn.device(device)).serial == "A1"
    assert await turn.reboot(device) is TaskOutcome.UNCONFIRMED  # sent, cut while the NBI waited
    (queued,) = nbi.queued
    assert queued["name"] == "reboot"  # kept by the NBI for the device's next inform
    sent = len(nbi.requests)
    with pytest.raises(AcsOutOfTime) as spent:
        await turn.reboot(device)
    assert not spent.value.sent and len(nbi.requests) == sent  # the turn's time is spent: nothing sent
    assert (await acs.for_turn().device(device)).serial == "A1"  # the next turn has its own time
    await acs.aclose()


async def test_the_doctor_names_what_to_fix() -> None:
    nbi = FakeGenieAcs(credentials=("ispbot", "right"))
    nbi.add(tr098_device("A1"))
    settings = AcsSettings(_env_file=None, url=ACS_URL, username="ispbot", password="wrong")  # type: ignore[arg-type]
    (found,) = await acs_findings(settings, 5, transport=nbi)
    assert found.status is Status.FAIL and "ISPBOT_ACS_PASSWORD" in found.text and "wrong" not in found.text
    settings = AcsSettings(_env_file=None, url=ACS_URL, username="ispbot", password="right")  # type: ignore[arg-type]
    (found,) = await acs_findings(settings, 5, transport=nbi)
    assert found.status is Status.OK and "1 devices" in found.text
    nbi.down = True
    (found,) = await acs_findings(settings, 5, transport=nbi)
    assert found.status is Status.FAIL and "ISPBOT_ACS_URL" in found.text
