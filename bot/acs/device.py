"""A GenieACS device document read as the ISP's technician reads it with the ACS open.

The NBI answers each device as a tree: objects carry ``_object``, ``_writable`` and ``_timestamp``,
parameters ``_value``, ``_type``, ``_writable`` and ``_timestamp``; ``_id``, ``_deviceId`` (with
``_SerialNumber``, ``_Manufacturer``...) and ``_lastInform`` sit at the top. Both data models are
read: TR-098 (``InternetGatewayDevice``) and TR-181 (``Device``). Instances ({i}) are discovered from
the document, never assumed.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

TR098 = "InternetGatewayDevice"
TR181 = "Device"
PPP_USERNAME = {
    TR098: "InternetGatewayDevice.WANDevice.1.WANConnectionDevice.1.WANPPPConnection.1.Username",
    TR181: "Device.PPP.Interface.1.Username",
}
# The WAN session's state, and the word each model uses for "up".
WAN_STATUS = {
    TR098: ("InternetGatewayDevice.WANDevice.1.WANConnectionDevice.1.WANPPPConnection.1.ConnectionStatus",
            "Connected"),
    TR181: ("Device.PPP.Interface.1.Status", "Up"),
}
HOSTS = {TR098: "InternetGatewayDevice.LANDevice.1.Hosts.Host", TR181: "Device.Hosts.Host"}


@dataclass(frozen=True, slots=True)
class OpticalPath:
    """Where a vendor keeps the ONU's received optical power, and in what unit: ``dBm``, ``0.1uW``
    (tenths of a microwatt, told as dBm), ``mdBm`` (thousandths of a dBm: TR-181's
    ``OpticalSignalLevel``). ``{i}`` in a path: its instances, discovered."""

    vendor: str
    path: str
    unit: str


# The vendors' paths, as their firmwares spell them; where each comes from, and how sure it is, is
# written in the sandbox's fake NBI (``bot/sandbox/genieacs.py``), which builds each of them. A
# positive reading on a path in dBm is a firmware reporting microwatts (received power is always
# below 0 dBm on a fiber): it is told in dBm as well.
OPTICAL_PATHS = (
    # Huawei's, and Intelbras's ONUs of the same firmware family ("Interafce" is the firmware's).
    OpticalPath("huawei", "InternetGatewayDevice.WANDevice.1.X_GponInterafceConfig.RXPower", "dBm"),
    OpticalPath("zte", "InternetGatewayDevice.WANDevice.1.X_ZTE-COM_WANPONInterfaceConfig.RXPower", "0.1uW"),
    OpticalPath("zte", "InternetGatewayDevice.WANDevice.1.X_ZTE-COM_GponInterfaceConfig.RxPower", "dBm"),
    OpticalPath("fiberhome", "InternetGatewayDevice.WANDevice.1.X_FH_GponInterfaceConfig.RXPower", "dBm"),
    OpticalPath("intelbras", "InternetGatewayDevice.WANDevice.1.X_ITBS_ORG_GponInterfaceConfig.RXPower", "dBm"),
    OpticalPath("tr181", "Device.Optical.Interface.{i}.OpticalSignalLevel", "mdBm"),
)
# Where a TR-098 network's WPA key is set, under WLANConfiguration.{i}, in the order tried: the
# first the device has writable (else the first it has). Huawei's firmwares take it in
# PreSharedKey.1.PreSharedKey; the standard's passphrase is PreSharedKey.1.KeyPassphrase (the
# configuration's own KeyPassphrase is WEP's on firmwares that have both); some firmwares have only
# the configuration's KeyPassphrase.
KEY_PATHS = ("PreSharedKey.1.KeyPassphrase", "KeyPassphrase", "PreSharedKey.1.PreSharedKey")
HUAWEI_KEY_PATHS = ("PreSharedKey.1.PreSharedKey", *KEY_PATHS[:2])
GOOD_ABOVE = -25.0  # dBm: above this the fiber signal is good
WEAK_DOWN_TO = -28.0  # from -25 to -28 weak; below -28 critical


@dataclass(frozen=True, slots=True)
class WifiNetwork:
    """One Wi-Fi network of the device: where its name and its passphrase are set."""

    ssid_path: str
    passphrase_path: str
    name: str
    enabled: bool | None  # None: the device does not say


@dataclass(frozen=True, slots=True)
class Signal:
    dbm: float
    level: str  # "good", "weak", "critical"
    read_at: datetime | None


def signal_level(dbm: float) -> str:
    """The fiber signal in words: good above -25 dBm, weak from -25 to -28, critical below -28."""
    if dbm > GOOD_ABOVE:
        return "good"
    return "weak" if dbm >= WEAK_DOWN_TO else "critical"


def to_dbm(raw: Any, unit: str) -> float | None:
    """A reading in dBm, from the unit its vendor reports (None when it is no number or no signal)."""
    try:
        value = float(str(raw).strip())
    except ValueError:
        return None
    if not math.isfinite(value) or value == 0:  # 0 is a firmware's "no reading" (no light), never 1 mW on a fiber
        return None
    if unit == "mdBm":
        value /= 1000
    elif unit == "0.1uW":
        if value < 0:
            return None
        value = 10 * math.log10(value / 10_000)
    elif value > 0:  # microwatts (a firmware's unit on a path meant for dBm, or the vendor's own)
        value = 10 * math.log10(value / 1000)
    elif unit == "uW":
        return None
    return round(value, 2)


class Device:
    """One device document of the NBI."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document

    @property
    def id(self) -> str:
        return str(self.document.get("_id", ""))

    @property
    def root(self) -> str:
        return TR181 if TR181 in self.document and TR098 not in self.document else TR098

    @property
    def serial(self) -> str:
        return str(self.document.get("_deviceId", {}).get("_SerialNumber", ""))

    @property
    def model(self) -> str:
        ids = self.document.get("_deviceId", {})
        return " ".join(p for p in (str(ids.get("_Manufacturer", "")), str(ids.get("_ProductClass", ""))) if p)

    @property
    def last_inform(self) -> datetime | None:
        return _time(self.document.get("_lastInform"))

    def node(self, path: str) -> Any:
        node: Any = self.document
        for part in path.split("."):
            if not isinstance(node, dict) or part not in node:
                return None
            node = node[part]
        return node

    def value(self, path: str) -> Any:
        """A parameter's ``_value`` (None when the document lacks it)."""
        node = self.node(path)
        return node.get("_value") if isinstance(node, dict) else None

    def timestamp(self, path: str) -> datetime | None:
        node = self.node(path)
        return _time(node.get("_timestamp")) if isinstance(node, dict) else None

    def has(self, path: str) -> bool:
        return isinstance(self.node(path), dict)

    def instances(self, path: str) -> Iterator[tuple[str, dict[str, Any]]]:
        """The instances of a multi-instance object (``{i}``), by number, as the document has them."""
        node = self.node(path)
        if not isinstance(node, dict):
            return
        for key in sorted((k for k in node if k.isdecimal()), key=int):
            if isinstance(node[key], dict):
                yield f"{path}.{key}", node[key]

    @property
    def ppp_username(self) -> str:
        return str(self.value(PPP_USERNAME[self.root]) or "")

    @property
    def wan_up(self) -> bool | None:
        path, up = WAN_STATUS[self.root]
        status = self.value(path)
        return None if status is None else str(status).strip().casefold() == up.casefold()

    @property
    def wan_status_path(self) -> str:
        return WAN_STATUS[self.root][0]

    def wifi(self) -> list[WifiNetwork]:
        """Every Wi-Fi network of the device (2.4 and 5 GHz, and any other the firmware lists)."""
        found = []
        if self.root == TR098:
            for path, node in self.instances("InternetGatewayDevice.LANDevice.1.WLANConfiguration"):
                passphrase = self._key_path(path)
                found.append(WifiNetwork(f"{path}.SSID", passphrase, _str(node.get("SSID")),
                                         _enabled(node.get("Enable"))))
            return found
        ssids = dict(self.instances("Device.WiFi.SSID"))
        for path, node in self.instances("Device.WiFi.AccessPoint"):
            reference = _str(node.get("SSIDReference")).rstrip(".")
            ssid = reference if reference in ssids else f"Device.WiFi.SSID.{path.rsplit('.', 1)[1]}"
            if ssid not in ssids:
                continue
            found.append(WifiNetwork(f"{ssid}.SSID", f"{path}.Security.KeyPassphrase", _str(ssids[ssid].get("SSID")),
                                     _enabled(ssids[ssid].get("Enable"))))
        return found

    def _key_path(self, configuration: str) -> str:
        order = HUAWEI_KEY_PATHS if "huawei" in self.model.casefold() else KEY_PATHS
        present = [f"{configuration}.{p}" for p in order if self.has(f"{configuration}.{p}")]
        writable = [p for p in present if self.node(p).get("_writable") is True]
        return next(iter(writable or present), f"{configuration}.KeyPassphrase")

    def networks_to_change(self) -> list[WifiNetwork]:
        """The networks a change applies to: the enabled ones (a guest network left off stays off and
        as it was), or all of them when the device does not say which are on."""
        networks = self.wifi()
        enabled = [n for n in networks if n.enabled]
        return enabled or [n for n in networks if n.enabled is None]

    def optical_path(self) -> OpticalPath | None:
        """The vendor's optical receive power path this device has (``{i}``: its first instance)."""
        for known in OPTICAL_PATHS:
            if "{i}" in known.path:
                base, _, leaf = known.path.partition(".{i}.")
                for instance, _node in self.instances(base):
                    if self.has(f"{instance}.{leaf}"):
                        return OpticalPath(known.vendor, f"{instance}.{leaf}", known.unit)
            elif self.has(known.path):
                return known
        return None

    def signal(self) -> Signal | None:
        path = self.optical_path()
        if path is None:
            return None
        dbm = to_dbm(self.value(path.path), path.unit)
        if dbm is None:
            return None
        return Signal(dbm, signal_level(dbm), self.timestamp(path.path))

    def hosts(self) -> list[str] | None:
        """The devices connected to the router (active ones where it says), by name (a host without
        a name is ""); None when the router lists no hosts."""
        path = HOSTS[self.root]
        if not self.has(path):
            return None
        names = []
        for _, node in self.instances(path):
            if _enabled(node.get("Active")) is False:
                continue
            names.append(_str(node.get("HostName")))
        return names


def _str(node: Any) -> str:
    return str(node.get("_value") or "") if isinstance(node, dict) else ""


def _enabled(node: Any) -> bool | None:
    if not isinstance(node, dict) or "_value" not in node:
        return None
    value = node["_value"]
    if isinstance(value, bool):
        return value
    return str(value).strip().casefold() in ("1", "true")


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str) or not value:
        return None
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
