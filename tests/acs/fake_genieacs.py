"""A fake GenieACS NBI (an httpx transport), answering as ``lib/nbi.ts`` does.

- ``GET``/``HEAD /devices/?query=<JSON>&projection=``: a JSON list and a ``total`` header; a query's
  parameter paths match their ``_value`` (GenieACS's ``query.expand``), ``$or`` lists alternatives.
- ``POST /devices/<id>/tasks?connection_request&timeout=``: 404 "No such device"; 400 on a body that
  is no JSON; a device ``online`` takes the task in the session the request starts (200, the task
  as JSON); one not online gets it queued (202 "Task queued but not processed"), taken by
  ``connect``; one ``faulting`` refuses it (202 "Task faulted", the fault kept until the task is
  deleted: ``DELETE /tasks/<id>``). A parameter not writable faults a ``setParameterValues`` (9008).
- ``down``: the connection refused; ``slow``: no answer in time; ``credentials``: HTTP basic asked.

Devices are documents as the NBI keeps them: objects with ``_object``, ``_writable``,
``_timestamp``; parameters with ``_value``, ``_type``, ``_writable``, ``_timestamp``; ``_id``,
``_deviceId`` and ``_lastInform`` at the top. ``live`` holds what a device reports when read again
(``getParameterValues``, ``refreshObject``): a fresh optical reading, say.
"""

from __future__ import annotations

import base64
import copy
import json
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, unquote

import httpx

ACS_URL = "http://acs.example.net:7557"  # where the tests' bots reach it
STAMP = "2026-11-29T06:00:00.000Z"
LAST_INFORM = "2026-11-29T06:55:00.000Z"


def leaf(value: Any, *, writable: bool = False, kind: str = "xsd:string", at: str = STAMP) -> dict[str, Any]:
    return {"_value": value, "_type": kind, "_writable": writable, "_timestamp": at}


def obj(children: dict[str, Any] | None = None, *, writable: bool = False) -> dict[str, Any]:
    return {"_object": True, "_writable": writable, "_timestamp": STAMP, **(children or {})}


def _ids(manufacturer: str, oui: str, product: str, serial: str) -> dict[str, Any]:
    return {"_Manufacturer": manufacturer, "_OUI": oui, "_ProductClass": product, "_SerialNumber": serial}


VENDORS = {  # manufacturer, OUI, product class, the WANDevice.1 object holding the optical reading
    "huawei": ("Huawei Technologies Co., Ltd", "00E0FC", "HG8145V5", "X_GponInterafceConfig", "RXPower"),
    "zte": ("ZTE", "D058C0", "F670L", "X_ZTE-COM_GponInterfaceConfig", "RxPower"),
    "fiberhome": ("FiberHome", "FHTT", "AN5506-04-FA", "X_FH_GponInterfaceConfig", "RXPower"),
    "intelbras": ("Intelbras", "ITBS", "121AC", "X_ITBS_GponInterfaceConfig", "RXPower"),
}


def tr098_device(serial: str, *, vendor: str = "huawei", login: str = "", rx: Any = "-21.4",
                 ssids: tuple[str, ...] = ("Casa", "Casa-5G"), keyed: bool = True, connected: bool = True,
                 hosts: tuple[tuple[str, bool], ...] = (("celular-maria", True), ("", True), ("tv-sala", False)),
                 guest_off: bool = False) -> dict[str, Any]:
    """A TR-098 ONU of ``vendor``: one WLANConfiguration per SSID (the passphrase under
    ``PreSharedKey.1`` when ``keyed``, else on the configuration itself), a PPP connection, hosts
    (name, active) and the vendor's optical reading; ``guest_off`` adds a disabled guest network."""
    manufacturer, oui, product, optical, rx_name = VENDORS[vendor]
    wlans: dict[str, Any] = {}
    names = [*ssids, *(("Visitantes",) if guest_off else ())]
    for number, name in enumerate(names, start=1):
        wlan = {"SSID": leaf(name, writable=True), "Enable": leaf(not (guest_off and name == "Visitantes"),
                                                                writable=True, kind="xsd:boolean")}
        if keyed:
            wlan["PreSharedKey"] = obj({"1": obj({"KeyPassphrase": leaf("", writable=True)})})
        else:
            wlan["KeyPassphrase"] = leaf("", writable=True)
        wlans[str(number)] = obj(wlan)
    host_nodes = {str(n): obj({"HostName": leaf(name), "Active": leaf(active, kind="xsd:boolean")})
                  for n, (name, active) in enumerate(hosts, start=1)}
    wan_device = {
        "WANConnectionDevice": obj({"1": obj({"WANPPPConnection": obj({"1": obj({
            "Username": leaf(login, writable=True),
            "ConnectionStatus": leaf("Connected" if connected else "Disconnected"),
        })})})}),
        optical: obj({rx_name: leaf(rx)}),
    }
    return {
        "_id": f"{oui}-{product}-{serial}",
        "_deviceId": _ids(manufacturer, oui, product, serial),
        "_lastInform": LAST_INFORM,
        "InternetGatewayDevice": obj({
            "WANDevice": obj({"1": obj(wan_device)}),
            "LANDevice": obj({"1": obj({"WLANConfiguration": obj(wlans), "Hosts": obj({"Host": obj(host_nodes)})})}),
        }),
    }


def tr181_device(serial: str, *, login: str = "", signal: int = -19_500, ssids: tuple[str, ...] = ("Casa", "Casa-5G"),
                 connected: bool = True, hosts: tuple[tuple[str, bool], ...] = (("notebook", True),)) -> dict[str, Any]:
    """A TR-181 router: SSIDs and their access points (linked by ``SSIDReference``, numbered apart
    to show the link is followed), the PPP interface, hosts, and the optical level in thousandths of a dBm."""
    ssid_nodes = {str(n): obj({"SSID": leaf(name, writable=True), "Enable": leaf(True, kind="xsd:boolean")})
                  for n, name in enumerate(ssids, start=1)}
    points = {str(n + 10): obj({"SSIDReference": leaf(f"Device.WiFi.SSID.{n}."),
                                "Security": obj({"KeyPassphrase": leaf("", writable=True)})})
              for n in range(1, len(ssids) + 1)}
    host_nodes = {str(n): obj({"HostName": leaf(name), "Active": leaf(active, kind="xsd:boolean")})
                  for n, (name, active) in enumerate(hosts, start=1)}
    return {
        "_id": f"A0B1C2-EX220-{serial}",
        "_deviceId": _ids("TP-Link", "A0B1C2", "EX220", serial),
        "_lastInform": LAST_INFORM,
        "Device": obj({
            "WiFi": obj({"SSID": obj(ssid_nodes), "AccessPoint": obj(points)}),
            "PPP": obj({"Interface": obj({"1": obj({
                "Username": leaf(login, writable=True), "Status": leaf("Up" if connected else "Down"),
            })})}),
            "Optical": obj({"Interface": obj({"1": obj({"OpticalSignalLevel": leaf(signal, kind="xsd:int")})})}),
            "Hosts": obj({"Host": obj(host_nodes)}),
        }),
    }


@dataclass
class FakeGenieAcs(httpx.AsyncBaseTransport):
    devices: dict[str, dict[str, Any]] = field(default_factory=dict)
    online: set[str] = field(default_factory=set)  # devices that answer a connection request
    faulting: set[str] = field(default_factory=set)  # devices that fault every task
    live: dict[str, dict[str, Any]] = field(default_factory=dict)  # by device: path -> value read again
    credentials: tuple[str, str] | None = None
    down: bool = False
    slow: bool = False
    queued: list[dict[str, Any]] = field(default_factory=list)  # tasks waiting for their device
    faults: list[dict[str, Any]] = field(default_factory=list)  # faulted tasks, until deleted
    done: list[dict[str, Any]] = field(default_factory=list)  # tasks devices took, in order
    requests: list[httpx.Request] = field(default_factory=list)

    def add(self, document: dict[str, Any], *, online: bool = True) -> str:
        self.devices[document["_id"]] = document
        if online:
            self.online.add(document["_id"])
        return str(document["_id"])

    def value(self, device_id: str, path: str) -> Any:
        node: Any = self.devices[device_id]
        for part in path.split("."):
            node = node[part]
        return node["_value"]

    def connect(self, device_id: str) -> None:
        """The device informs: it takes what was queued for it."""
        for task in [t for t in self.queued if t["device"] == device_id]:
            self.queued.remove(task)
            self._apply(task)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.down:
            raise httpx.ConnectError("connection refused", request=request)
        if self.slow:
            raise httpx.ReadTimeout("no answer", request=request)
        if self.credentials is not None:
            user, password = self.credentials
            expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
            if request.headers.get("authorization") != expected:
                return httpx.Response(401, headers={"WWW-Authenticate": 'Basic realm="GenieACS"'})
        path = request.url.path
        params = {k: v[0] for k, v in parse_qs(request.url.query.decode(), keep_blank_values=True).items()}
        if path in ("/devices", "/devices/"):
            return self._devices(request.method, params)
        parts = path.strip("/").split("/")
        if len(parts) == 3 and parts[0] == "devices" and parts[2] == "tasks" and request.method == "POST":
            return self._task(unquote(parts[1]), request.content, params)
        if len(parts) == 2 and parts[0] == "tasks" and request.method == "DELETE":
            before = len(self.faults) + len(self.queued)
            self.faults = [t for t in self.faults if t["_id"] != parts[1]]
            self.queued = [t for t in self.queued if t["_id"] != parts[1]]
            return httpx.Response(200 if before > len(self.faults) + len(self.queued) else 404)
        return httpx.Response(404, text="404 Not Found")

    def _devices(self, method: str, params: dict[str, str]) -> httpx.Response:
        if method not in ("GET", "HEAD"):
            return httpx.Response(405, headers={"Allow": "GET, HEAD"})
        try:
            query = json.loads(params.get("query", "{}"))
        except ValueError as exc:
            return httpx.Response(400, text=f"SyntaxError: {exc}")
        found = [copy.deepcopy(d) for d in self.devices.values() if _matches(d, query)]
        headers = {"Content-Type": "application/json", "total": str(len(found))}
        if method == "HEAD":
            return httpx.Response(200, headers=headers)
        body = "[\n" + ",\n".join(json.dumps(d) for d in found) + "\n]"
        return httpx.Response(200, headers=headers, text=body)

    def _task(self, device_id: str, body: bytes, params: dict[str, str]) -> httpx.Response:
        try:
            task = json.loads(body)
        except ValueError as exc:
            return httpx.Response(400, text=f"SyntaxError: {exc}")
        if device_id not in self.devices:
            return httpx.Response(404, text="No such device")
        task = {**task, "device": device_id, "_id": secrets.token_hex(12), "timestamp": _now()}
        headers = {"Content-Type": "application/json"}
        if "connection_request" not in params or device_id not in self.online:
            self.queued.append(task)
            return httpx.Response(202, headers=headers, text=json.dumps(task),
                                  extensions={"reason_phrase": b"Task queued but not processed"})
        if device_id in self.faulting or not self._apply(task):
            self.faults.append(task)
            return httpx.Response(202, headers=headers, text=json.dumps(task),
                                  extensions={"reason_phrase": b"Task faulted"})
        return httpx.Response(200, headers=headers, text=json.dumps(task))

    def _apply(self, task: dict[str, Any]) -> bool:
        """Run a task on its device, as its session would: False where the device faults it."""
        device = self.devices[task["device"]]
        name = task.get("name")
        if name == "setParameterValues":
            nodes = [(_node(device, path), value) for path, value, *_ in task.get("parameterValues", [])]
            if any(node is None or not node.get("_writable") for node, _ in nodes):
                return False  # 9008: attempt to set a non-writable parameter
            for node, value in nodes:
                assert node is not None
                node.update(_value=value, _timestamp=_now())
        elif name in ("getParameterValues", "refreshObject"):
            wanted = task.get("parameterNames") or [task.get("objectName", "")]
            for path, value in self.live.get(task["device"], {}).items():
                if any(path == w or path.startswith(w.rstrip(".") + ".") for w in wanted):
                    node = _node(device, path)
                    if node is not None:
                        node.update(_value=value, _timestamp=_now())
        elif name != "reboot":
            return False
        device["_lastInform"] = _now()
        self.done.append(task)
        return True


def _node(document: dict[str, Any], path: str) -> dict[str, Any] | None:
    node: Any = document
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node if isinstance(node, dict) else None


def _matches(document: dict[str, Any], query: dict[str, Any]) -> bool:
    for key, expected in query.items():
        if key == "$or":
            if not any(_matches(document, alternative) for alternative in expected):
                return False
            continue
        if key == "_id":
            found: Any = document.get("_id")
        elif key.startswith("_deviceId."):
            found = document.get("_deviceId", {}).get(key.split(".", 1)[1])
        else:  # a parameter's path: its value (GenieACS's query.expand adds "._value")
            node = _node(document, key)
            found = node.get("_value") if node is not None else None
        if found != expected:
            return False
    return True


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
