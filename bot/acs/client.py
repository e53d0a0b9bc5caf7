"""GenieACS's NBI over HTTP (httpx, with a transport seam for tests): devices found by query, tasks
posted to a device with a connection request.

What the NBI does, read in its source (``lib/nbi.ts``): ``GET /devices/?query=<JSON>&projection=a,b``
answers a JSON list; ``POST /devices/<id>/tasks?connection_request&timeout=<ms>`` inserts the task,
asks the device to connect and waits: **200** when the device took the task in a session, **202**
with the reason "Task queued but not processed" when it did not connect in time (or the connection
request failed: the reason says why), and **202 "Task faulted"** when the device refused it (a fault
stays on record and the task would be retried: it is deleted, ``DELETE /tasks/<id>``); **404** "No
such device"; **400** a task it cannot read.

A turn never waits on the ACS longer than ``ISPBOT_ACS_TIMEOUT`` in all (``for_turn`` says how).
"""

from __future__ import annotations

import asyncio
import copy
import json
import logging
from enum import StrEnum
from typing import Any
from urllib.parse import quote

import httpx

from bot.acs.device import PPP_USERNAME, Device
from bot.acs.errors import AcsOutOfTime, AcsRefused, AcsUnavailable, AcsUnknownDevice
from bot.acs.settings import AcsSettings

log = logging.getLogger("bot.acs")
FAULTED = "Task faulted"


class TaskOutcome(StrEnum):
    APPLIED = "applied"  # 200: the device took it now
    QUEUED = "queued"  # 202: it takes it when it next connects
    UNCONFIRMED = "unconfirmed"  # the device connected, but its session outlasted our wait


class AcsClient:
    def __init__(self, settings: AcsSettings, *, http_transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.settings = settings
        auth = None
        if settings.username:
            password = settings.password.get_secret_value() if settings.password is not None else ""
            auth = httpx.BasicAuth(settings.username, password)
        self._http = httpx.AsyncClient(base_url=settings.root, transport=http_transport, auth=auth,
                                       timeout=settings.timeout)
        self._deadline: float | None = None  # the turn's, on the loop's clock (a ``for_turn`` view's)
        self._bounded = False  # a turn's view: its calls share the deadline

    def for_turn(self) -> AcsClient:
        """This client for one turn (same connections): its calls share one deadline, the setting's
        timeout after the first of them. Each call is cut where the deadline falls (``AcsOutOfTime``).
        The NBI is told to wait for the device to connect half of what is left, so a device that does
        not gets its task answered 202 ("queued") before the cut; a task whose answer is cut after its
        body went out (a device whose session outlasts the turn) is ``UNCONFIRMED``: the NBI inserted
        it before waiting, and the device takes it. Nothing is sent once the deadline has passed."""
        view = copy.copy(self)
        view._deadline, view._bounded = None, True
        return view

    def time_left(self) -> float:
        """Seconds this turn may still wait on the ACS (the whole timeout before its first call)."""
        if self._deadline is None:
            return self.settings.timeout
        return max(0.0, self._deadline - asyncio.get_running_loop().time())

    async def aclose(self) -> None:
        await self._http.aclose()

    # ---- reading ---------------------------------------------------------------------------------
    async def query(self, query: dict[str, Any], projection: str | None = None) -> list[Device]:
        params = {"query": json.dumps(query, separators=(",", ":"))}
        if projection:
            params["projection"] = projection
        response = await self._send("GET", "/devices/", params=params)
        try:
            found = response.json()
        except ValueError as exc:
            raise AcsUnavailable("the NBI's answer to /devices/ is not JSON") from exc
        if isinstance(found, dict):  # one object where a list is expected: taken as that list
            found = [found]
        if not isinstance(found, list):
            raise AcsUnavailable("the NBI's answer to /devices/ is not a list")
        return [Device(d) for d in found if isinstance(d, dict)]

    async def find(self, serials: list[str], logins: list[str]) -> list[Device]:
        """The devices of these serial numbers (``_deviceId._SerialNumber``), else of these PPPoE
        logins (the PPP username of either data model)."""
        serials = [s for s in dict.fromkeys(s.strip() for s in serials) if s]
        if serials:
            found = await self.query({"$or": [{"_deviceId._SerialNumber": s} for s in serials]})
            if found:
                return found
        logins = [x for x in dict.fromkeys(x.strip() for x in logins) if x]
        if not logins:
            return []
        return await self.query({"$or": [{path: login} for login in logins for path in PPP_USERNAME.values()]})

    async def device(self, device_id: str) -> Device:
        found = await self.query({"_id": device_id})
        if not found:
            raise AcsUnknownDevice("the NBI knows no such device")
        return found[0]

    async def ping(self) -> int:
        """How many devices the NBI manages (its ``total`` header): it answers, and the credentials work."""
        response = await self._send("HEAD", "/devices/", params={"query": "{}"})
        try:
            return int(response.headers.get("total", "0"))
        except ValueError:
            return 0

    # ---- tasks -----------------------------------------------------------------------------------
    async def task(self, device_id: str, task: dict[str, Any]) -> TaskOutcome:
        """Post ``task`` to the device with a connection request; what became of it."""
        self._start_clock()
        wait_ms = int(self.time_left() * 500)  # the NBI answers 202 before this turn's cut
        path = f"/devices/{quote(device_id, safe='')}/tasks"
        try:
            response = await self._send("POST", path, params={"connection_request": "", "timeout": str(wait_ms)},
                                        json=task)
        except AcsUnavailable as exc:
            # Sent, and inserted by the NBI before it waits on the device: the answer outlasted us.
            if isinstance(exc.__cause__, httpx.ReadTimeout) or (isinstance(exc, AcsOutOfTime) and exc.sent):
                return TaskOutcome.UNCONFIRMED
            raise
        if response.status_code == 200:
            return TaskOutcome.APPLIED
        if response.reason_phrase == FAULTED:
            await self._forget(response)
            raise AcsRefused("the device faulted the task", response.status_code)
        return TaskOutcome.QUEUED

    async def set_values(self, device_id: str, values: list[tuple[str, Any, str]]) -> TaskOutcome:
        return await self.task(device_id, {"name": "setParameterValues", "parameterValues": [list(v) for v in values]})

    async def refresh(self, device_id: str, paths: list[str]) -> TaskOutcome:
        return await self.task(device_id, {"name": "getParameterValues", "parameterNames": paths})

    async def refresh_object(self, device_id: str, path: str) -> TaskOutcome:
        return await self.task(device_id, {"name": "refreshObject", "objectName": path})

    async def reboot(self, device_id: str) -> TaskOutcome:
        return await self.task(device_id, {"name": "reboot"})

    async def _forget(self, response: httpx.Response) -> None:
        """Delete a faulted task, so the device is not asked again and again."""
        try:
            task_id = response.json().get("_id")
        except (ValueError, AttributeError):
            return
        if task_id:
            try:
                await self._send("DELETE", f"/tasks/{quote(str(task_id), safe='')}")
            except (AcsUnavailable, AcsRefused, AcsUnknownDevice):
                log.warning("a faulted task could not be deleted from the ACS")

    def _start_clock(self) -> None:
        if self._bounded and self._deadline is None:
            self._deadline = asyncio.get_running_loop().time() + self.settings.timeout

    async def _send(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        self._start_clock()
        left = self.time_left()
        if left <= 0:  # nothing is sent once the turn's time is spent
            log.warning("the turn's time for the ACS is spent: %s %s not sent", method, path)
            raise AcsOutOfTime(f"no time left in this turn for {method} {path}", sent=False)
        sent = False

        async def trace(event: str, info: object) -> None:  # the transport says when the body went out whole
            nonlocal sent
            sent = sent or event.endswith("send_request_body.complete")

        try:
            # The loop cuts the call where the deadline falls, whatever the phase (httpx's per-phase
            # timeouts would add up).
            async with asyncio.timeout(left):
                response = await self._http.request(method, path, timeout=left, extensions={"trace": trace},
                                                    **kwargs)
        except TimeoutError as exc:
            log.warning("the turn's time for the ACS ran out: %s %s", method, path)
            raise AcsOutOfTime(f"the ACS did not answer {method} {path} in this turn's time", sent=sent) from exc
        except httpx.TimeoutException as exc:
            log.warning("the ACS took longer than %ss: %s %s", self.settings.timeout, method, path)
            raise AcsUnavailable(f"the ACS did not answer {method} {path} in time") from exc
        except httpx.HTTPError as exc:
            log.warning("the ACS could not be reached: %s %s (%s)", method, path, type(exc).__name__)
            raise AcsUnavailable(f"the ACS could not be reached for {method} {path}") from exc
        status = response.status_code
        if status == 404:
            raise AcsUnknownDevice(f"{method} {path}: 404")
        if status >= 500:
            log.warning("the ACS failed: %s %s %d", method, path, status)
            raise AcsUnavailable(f"{method} {path}: {status}")
        if status >= 400:
            log.warning("the ACS refused: %s %s %d", method, path, status)
            raise AcsRefused(f"{method} {path}: {status}", status)
        return response
