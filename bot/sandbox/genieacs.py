"""A fake GenieACS NBI (an httpx transport) answering as ``lib/nbi.ts`` does, with the routers and
ONUs of the vendors Brazilian ISPs deploy: the tests' ACS and the demo's (``ispbot demo``).

``FakeGenieAcs`` says what it answers, ``Model`` each vendor's paths, where each comes from and how
sure it is; ``tr098_device`` and ``tr181_device`` build devices, ``demo_acs`` the demo's.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qs, unquote

import httpx

ACS_URL = "http://acs.example.net:7557"  # where the tests' bots and the demo's reach it
STAMP = "2026-11-29T06:00:00.000Z"
LAST_INFORM = "2026-11-29T06:55:00.000Z"
WAN = "InternetGatewayDevice.WANDevice.1"


def leaf(value: Any, *, writable: bool = False, kind: str = "xsd:string", at: str = STAMP) -> dict[str, Any]:
    return {"_value": value, "_type": kind, "_writable": writable, "_timestamp": at}


def obj(children: dict[str, Any] | None = None, *, writable: bool = False) -> dict[str, Any]:
    return {"_object": True, "_writable": writable, "_timestamp": STAMP, **(children or {})}


@dataclass(frozen=True, slots=True)
class Model:
    """A vendor's TR-098 ONU as its firmware lays it out.

    The vendors' paths (``MODELS``), and where each comes from. The best source found is the per-model
    files of Anlix's Flashman (a Brazilian ISPs' ACS front end driving GenieACS; its
    ``controllers/external-genieacs/cpe-models/``), cross-checked with GenieACS virtual parameters and
    provisions ISPs publish:

    - **Huawei** (EG8145V5, HG8145V5): the receive power at ``WANDevice.1.X_GponInterafceConfig.RXPower``
      (the firmware's spelling), in dBm; the Wi-Fi key at ``WLANConfiguration.{i}.PreSharedKey.1.
      PreSharedKey`` (Flashman's EG8145V5 model sets the passphrase there). Confidence: high for the
      optical path (Flashman and many independent provisions), medium for the key.
    - **ZTE** (F670L, sold in Brazil as Multilaser F670L): ``WANDevice.1.X_ZTE-COM_WANPONInterfaceConfig.
      RXPower`` in tenths of a microwatt (Flashman converts it as 10·log10(raw·0.0001)); the key at
      ``PreSharedKey.1.KeyPassphrase``. Confidence: high. Older ZTE firmwares' ``X_ZTE-COM_
      GponInterfaceConfig.RxPower`` in dBm (named in the issue and in one published provision) is read too;
      confidence: low (no model file confirms it), so the fake does not build it.
    - **Fiberhome** (HG6143D, HG6145F): ``WANDevice.1.X_FH_GponInterfaceConfig.RXPower`` in dBm
      (Flashman converts nothing: ``parseFloat``); the key at ``PreSharedKey.1.KeyPassphrase``.
      Confidence: high for these models; the AN5506 ONUs were found in no model file, only under the
      same ``X_FH_`` path in ISPs' provisions for FiberHome generally (medium).
    - **Intelbras** (WiFiber 121 AC, 1200R): the receive power at Huawei's misspelt
      ``X_GponInterafceConfig.RXPower``, in dBm; the key on the
      configuration itself (``WLANConfiguration.{i}.KeyPassphrase``, Flashman's TR-098 default), the
      2.4 GHz network on instance 6 and the 5 GHz on instance 1 (Flashman's 121 AC remaps them so): a
      reason instances are discovered, never assumed. Confidence: medium-high (Flashman, and an ISP's
      code naming the AX1800 "typo de fábrica"). ``X_ITBS_ORG_GponInterfaceConfig.RXPower``, seen in one
      ISP's list only, is not built.
    - **TR-181** (any Device:2 router): ``Device.Optical.Interface.{i}.OpticalSignalLevel``, an int in
      thousandths of a dBm (TR-181: "dBm/1000"; Broadcom's CMS fills it in steps of 2 over
      -65536..65534); SSIDs and access points linked by ``SSIDReference``; the key at ``Device.WiFi.
      AccessPoint.{i}.Security.KeyPassphrase``. Confidence: high.
    """

    manufacturer: str
    oui: str
    product: str
    optical: str  # the object under WANDevice.1 holding the receive power
    rx: str  # the receive power's parameter, as the firmware spells it
    rx_type: str  # its CWMP type
    key: str  # where a network's WPA key sits under WLANConfiguration.{i}
    wlan_numbers: tuple[int, ...]  # the instance of each network, 2.4 GHz first

    @property
    def rx_path(self) -> str:
        return f"{WAN}.{self.optical}.{self.rx}"


MODELS = {
    "huawei": Model("Huawei Technologies Co., Ltd", "00E0FC", "EG8145V5", "X_GponInterafceConfig", "RXPower",
                    "xsd:string", "PreSharedKey.1.PreSharedKey", (1, 5)),
    "zte": Model("ZTE", "D058C0", "F670L", "X_ZTE-COM_WANPONInterfaceConfig", "RXPower", "xsd:unsignedInt",
                 "PreSharedKey.1.KeyPassphrase", (1, 5)),
    "fiberhome": Model("FiberHome", "FHTT", "HG6145F", "X_FH_GponInterfaceConfig", "RXPower", "xsd:string",
                       "PreSharedKey.1.KeyPassphrase", (1, 5)),
    "intelbras": Model("Intelbras", "ITBS", "WiFiber 121 AC", "X_GponInterafceConfig", "RXPower", "xsd:string",
                       "KeyPassphrase", (6, 1)),
}
VENDORS = tuple(MODELS)


def _ids(manufacturer: str, oui: str, product: str, serial: str) -> dict[str, Any]:
    return {"_Manufacturer": manufacturer, "_OUI": oui, "_ProductClass": product, "_SerialNumber": serial}


def _nest(path: str, node: dict[str, Any]) -> dict[str, Any]:
    """``a.b.c`` -> objects a and b holding ``c: node``."""
    head, _, rest = path.partition(".")
    return {head: obj(_nest(rest, node)) if rest else node}


def _hosts(hosts: tuple[tuple[str, bool], ...]) -> dict[str, Any]:
    return {str(n): obj({"HostName": leaf(name), "Active": leaf(active, kind="xsd:boolean")})
            for n, (name, active) in enumerate(hosts, start=1)}


def tr098_device(serial: str, *, vendor: str = "huawei", login: str = "", rx: Any = "-21.4",
                 ssids: tuple[str, ...] = ("Casa", "Casa-5G"), connected: bool = True,
                 hosts: tuple[tuple[str, bool], ...] = (("celular-maria", True), ("", True), ("tv-sala", False)),
                 guest_off: bool = False) -> dict[str, Any]:
    """A TR-098 ONU of ``vendor`` (``MODELS``): one WLANConfiguration per SSID on the vendor's
    instances and key path, a PPP connection, hosts (name, active) and the optical reading ``rx``
    as the firmware reports it (ZTE's in tenths of a microwatt); ``guest_off`` adds a disabled guest
    network."""
    model = MODELS[vendor]
    names = [*ssids, *(("Visitantes",) if guest_off else ())]
    numbers = [*model.wlan_numbers, *range(max(model.wlan_numbers) + 1, max(model.wlan_numbers) + 1 + len(names))]
    wlans: dict[str, Any] = {}
    for number, name in zip(numbers, names, strict=False):
        wlan = {"SSID": leaf(name, writable=True),
                "Enable": leaf(name != "Visitantes", writable=True, kind="xsd:boolean"),
                **_nest(model.key, leaf("", writable=True))}
        wlans[str(number)] = obj(wlan)
    wan_device = {
        "WANConnectionDevice": obj({"1": obj({"WANPPPConnection": obj({"1": obj({
            "Username": leaf(login, writable=True),
            "ConnectionStatus": leaf("Connected" if connected else "Disconnected"),
        })})})}),
        model.optical: obj({model.rx: leaf(rx, kind=model.rx_type)}),
    }
    return {
        "_id": f"{model.oui}-{model.product.replace(' ', '%20')}-{serial}",
        "_deviceId": _ids(model.manufacturer, model.oui, model.product, serial),
        "_lastInform": LAST_INFORM,
        "InternetGatewayDevice": obj({
            "WANDevice": obj({"1": obj(wan_device)}),
            "LANDevice": obj({"1": obj({"WLANConfiguration": obj(wlans), "Hosts": obj({"Host": obj(_hosts(hosts))})})}),
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
            "Hosts": obj({"Host": obj(_hosts(hosts))}),
        }),
    }


Trace = Callable[[str, dict[str, Any]], Awaitable[None]]


@dataclass
class FakeGenieAcs(httpx.AsyncBaseTransport):
    """The NBI, over the documents of ``devices``.

    What the NBI does (read in genieacs's ``lib/nbi.ts``):

    - ``GET``/``HEAD /devices/?query=<JSON>&projection=``: a JSON list and a ``total`` header; a query's
      parameter paths match their ``_value`` (GenieACS's ``query.expand``), ``$or`` lists alternatives;
      a query that is no JSON: 400.
    - ``POST /devices/<id>/tasks?connection_request&timeout=<ms>``: a body that is no JSON: 400; no such
      device: 404 "No such device". The task is inserted first, then the device is asked to connect:
      one ``online`` takes it in the session the request starts (200, the task as JSON); one that does
      not connect within ``timeout`` has it queued (202 "Task queued but not processed"), taken when it
      next informs (``connect``); one ``faulting`` refuses it (202 "Task faulted", the fault kept until
      the task is deleted: ``DELETE /tasks/<id>``). Setting a parameter that is not writable faults
      (CWMP 9008). Without ``connection_request``: 202, queued.
    - ``delay``: every answer takes that long (the NBI waiting on a device's session, a slow network):
      a task is inserted before the wait, as the NBI does, and the transport reports its body sent
      (httpcore's ``trace`` extension), so a client that gives up meanwhile knows the task is there.
    - ``down``: the connection refused; ``slow``: no answer in time; ``credentials``: HTTP basic asked.

    Devices are documents as the NBI keeps them: objects with ``_object``, ``_writable``,
    ``_timestamp``; parameters with ``_value``, ``_type``, ``_writable``, ``_timestamp``; ``_id``,
    ``_deviceId`` and ``_lastInform`` at the top. ``live`` holds what a device reports when read again
    (``getParameterValues``, ``refreshObject``): a fresh optical reading, say.
    """

    devices: dict[str, dict[str, Any]] = field(default_factory=dict)
    online: set[str] = field(default_factory=set)  # devices that answer a connection request
    faulting: set[str] = field(default_factory=set)  # devices that fault every task
    live: dict[str, dict[str, Any]] = field(default_factory=dict)  # by device: path -> value read again
    credentials: tuple[str, str] | None = None
    down: bool = False
    slow: bool = False
    delay: float = 0.0  # seconds every answer takes (see the module's docstring)
    queued: list[dict[str, Any]] = field(default_factory=list)  # tasks waiting for their device
    faults: list[dict[str, Any]] = field(default_factory=list)  # faulted tasks, until deleted
    done: list[dict[str, Any]] = field(default_factory=list)  # tasks devices took, in order
    requests: list[httpx.Request] = field(default_factory=list)
    answered: int = 0  # requests whose answer went out whole (the others were cut by the client)

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
        path = request.url.raw_path.decode().split("?", 1)[0]  # still encoded: an id is decoded once, as the NBI does
        params = {k: v[0] for k, v in parse_qs(request.url.query.decode(), keep_blank_values=True).items()}
        parts = path.strip("/").split("/")
        if len(parts) == 3 and parts[0] == "devices" and parts[2] == "tasks" and request.method == "POST":
            return await self._task(request, unquote(parts[1]), params)
        if self.delay:
            await asyncio.sleep(self.delay)
        self.answered += 1
        if path in ("/devices", "/devices/"):
            return self._devices(request.method, params)
        if len(parts) == 2 and parts[0] == "tasks" and request.method == "DELETE":
            before = len(self.faults) + len(self.queued)
            task_id = unquote(parts[1])
            self.faults = [t for t in self.faults if t["_id"] != task_id]
            self.queued = [t for t in self.queued if t["_id"] != task_id]
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

    async def _task(self, request: httpx.Request, device_id: str, params: dict[str, str]) -> httpx.Response:
        try:
            task = json.loads(request.content)
        except ValueError as exc:
            return httpx.Response(400, text=f"SyntaxError: {exc}")
        if device_id not in self.devices:
            return httpx.Response(404, text="No such device")
        task = {**task, "device": device_id, "_id": secrets.token_hex(12), "timestamp": _now()}
        self.queued.append(task)  # inserted before the device is asked, as the NBI does
        trace: Trace | None = request.extensions.get("trace")
        if trace is not None:
            await trace("http11.send_request_body.complete", {"request": request})
        if self.delay:
            await asyncio.sleep(self.delay)  # cut here, the task stays queued for the device's next inform
        self.answered += 1
        headers = {"Content-Type": "application/json"}
        if "connection_request" not in params or device_id not in self.online:
            return httpx.Response(202, headers=headers, text=json.dumps(task),
                                  extensions={"reason_phrase": b"Task queued but not processed"})
        self.queued.remove(task)
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
            found = [(_node(device, path), value) for path, value, *_ in task.get("parameterValues", [])]
            nodes = [(node, value) for node, value in found if node is not None and node.get("_writable")]
            if len(nodes) < len(found):
                return False  # 9008: attempt to set a non-writable parameter
            for node, value in nodes:
                node.update(_value=value, _timestamp=_now())
        elif name in ("getParameterValues", "refreshObject"):
            wanted = task.get("parameterNames") or [task.get("objectName", "")]
            for path, value in self.live.get(task["device"], {}).items():
                asked = any(path == w or path.startswith(w.rstrip(".") + ".") for w in wanted)
                if asked and (reading := _node(device, path)) is not None:
                    reading.update(_value=value, _timestamp=_now())
        elif name != "reboot":
            return False
        device["_lastInform"] = _now()
        self.done.append(task)
        return True


def demo_acs(equipment: list[dict[str, Any]], logins: dict[int, str]) -> FakeGenieAcs:
    """The demo's ACS: a Huawei ONU, online, for every piece of equipment the sandbox ISP lists with
    a serial number (as its product says), its fiber signal and hosts told apart by the serial, and
    the contract's PPPoE login (``logins``, by customer) as its PPP user. Nothing of it is kept
    between runs: a Wi-Fi changed in one demo is back to "Casa" in the next."""
    acs = FakeGenieAcs()
    for row in equipment:
        serial = str(row.get("serial") or "")
        if not serial:
            continue
        spread = sum(map(ord, serial)) * 7919  # the same serial, the same reading, run after run
        rx = round(-17.0 - spread % 110 / 10, 1)  # -17.0 to -27.9 dBm: good, some weak
        name = str(row.get("customer_name") or "").split(" ")[0].casefold() or "casa"
        device = acs.add(tr098_device(
            serial, login=logins.get(int(row.get("customer_id") or 0), ""), rx=str(rx),
            ssids=(f"{name.title()}-Fibra", f"{name.title()}-Fibra-5G"),
            hosts=((f"celular-{name}", True), ("smart-tv", True), ("", True), ("notebook", False)),
        ))
        acs.live[device] = {MODELS["huawei"].rx_path: str(round(rx - 0.3, 1))}  # read again: a breath lower
    return acs


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
