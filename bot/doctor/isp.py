"""The ISP side of ``ispbot doctor``: the web service reachable, the key valid, the operations the bot
needs permitted, and the key's environment.

Codes the spec leaves open, read as the sandbox answers them (``bot.sandbox.codes``): 97 is the
spec's invalid or inactive key (both generations); 96 an operation the key may not call. Any other
refusal of a probe proves the call was permitted: the service got past the key's permissions to
validate the request (see ``bot.doctor.operations`` for why no probe can change anything).

The key's environment is read from the tickets the bot recorded (``environment`` says why).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.doctor.operations import Need, needed_operations, probe_payload, refuses_empty
from bot.doctor.report import Finding, Status, bounded, fail, ok, origin, warn
from bot.isp import IspClient, IspSettings
from bot.isp.catalog import Kind
from bot.isp.envelope import unwrap
from bot.isp.errors import Generation, IspApiError, IspTransportError
from bot.isp.filters import F

INVALID_KEY, NOT_PERMITTED = 97, 96
WEB_SERVICES = "Company > Parameters > Web Services"
ISP_FIX = "check ISPBOT_ISP_BASE_URL and the network"


@dataclass(frozen=True)
class Answer:
    """What one probe found: the operation may be called, may not, the key is refused, or no answer."""

    permitted: bool = False
    invalid_key: bool = False
    transport: str = ""  # the transport failure, without secrets (the client builds it from the URL's host)


def doctor_settings(isp_settings: IspSettings, seconds: float) -> IspSettings:
    """The operator's settings with no retries and no circuit: each probe is asked once, within ``seconds``."""
    update = {"retries": 0, "timeout": min(isp_settings.timeout, seconds), "breaker_threshold": 1_000_000}
    return isp_settings.model_copy(update=update)


class Prober:
    """Asks each operation's probe once: the key's first calls count among the operations' probes."""

    def __init__(self, client: IspClient) -> None:
        self.client = client
        self._answers: dict[str, Answer] = {}

    async def ask(self, need: Need) -> Answer:
        if need.name not in self._answers:
            self._answers[need.name] = await self._probe(need)
        return self._answers[need.name]

    async def _probe(self, need: Need) -> Answer:
        op = need.operation
        payload = probe_payload(op)
        try:
            body = await self.client.transport.send(op.generation, op.name, payload, idempotent=op.kind is Kind.QUERY)
            unwrap(op, body)
        except IspApiError as exc:
            if exc.code == INVALID_KEY:
                return Answer(invalid_key=True)
            return Answer(permitted=exc.code != NOT_PERMITTED)
        except IspTransportError as exc:
            return Answer(transport=str(exc))
        return Answer(permitted=True)


def _first_probe(needs: Sequence[Need], generation: Generation) -> Need | None:
    """The cheapest probe of a generation: a query, one that asks for no row or needs no parameter."""
    mine = [n for n in needs if n.operation.generation is generation and probe_payload(n.operation) is not None]
    mine.sort(key=lambda n: (n.operation.kind is not Kind.QUERY, not n.operation.filterable,
                             refuses_empty(n.operation), n.name))
    return mine[0] if mine else None


async def reachable(prober: Prober) -> list[Finding]:
    """One cheap call per generation: the address answers the web service and accepts the key."""
    settings = prober.client.settings
    calls = {g: _first_probe(needed_operations(), g) for g in Generation}
    asked = {g: need for g, need in calls.items() if need is not None}
    answers = dict(zip(asked, await asyncio.gather(*(prober.ask(n) for n in asked.values())), strict=True))
    problems = []
    for generation, answer in answers.items():
        v1 = generation is Generation.V1
        where = f"generation {generation} at {origin(settings.v1_url if v1 else settings.v2_url, path=True)}"
        path = "ISPBOT_ISP_V1_PATH" if v1 else "ISPBOT_ISP_V2_PATH"
        if answer.transport:
            problems.append(f"{where}: {answer.transport}; check ISPBOT_ISP_BASE_URL, {path} and the network")
    if problems:
        return [fail("isp", "; ".join(problems))]
    if any(answer.invalid_key for answer in answers.values()):
        refused = (
            "the web service refused the integration key (code 97: invalid or inactive): set ISPBOT_ISP_KEY "
            f"to an active key of {WEB_SERVICES}"
        )
        return [fail("isp", refused)]
    generations = " and ".join(f"{g} ({asked[g].name})" for g in answers)
    return [ok("isp", f"{origin(settings.base_url)} answers generation {generations}; the key is accepted")]


async def permissions(prober: Prober) -> list[Finding]:
    """Every operation the bot needs, probed without side effects."""
    needs = needed_operations()
    probed = [n for n in needs if probe_payload(n.operation) is not None]
    unprobed = [n for n in needs if probe_payload(n.operation) is None]
    answers = await asyncio.gather(*(prober.ask(need) for need in probed))
    refused = [
        need for need, answer in zip(probed, answers, strict=True) if not answer.permitted and not answer.transport
    ]
    unanswered = [need for need, answer in zip(probed, answers, strict=True) if answer.transport]
    findings = []
    if refused:
        names = "; ".join(need.where() for need in refused)
        findings.append(fail(
            "isp-operations",
            f"the key may not call {len(refused)} of the {len(needs)} operations the bot uses: {names}; "
            f"permit them for this key in {WEB_SERVICES}",
        ))
    if unanswered:
        names = ", ".join(need.name for need in unanswered)
        findings.append(fail("isp-operations", f"no answer about {names}: check the ISP web service's logs"))
    if unprobed:
        names = ", ".join(need.name for need in unprobed)
        findings.append(warn("isp-operations", f"not checked (no request that surely changes nothing): {names}"))
    if not findings:
        per = {g: sum(1 for n in needs if n.operation.generation is g) for g in Generation}
        counts = ", ".join(f"{count} of generation {g}" for g, count in per.items() if count)
        findings.append(ok("isp-operations", f"the key may call all {len(needs)} operations the bot uses ({counts})"))
    return findings


async def environment(client: IspClient, tickets: Sequence[int] | None) -> list[Finding]:
    """The key's environment, from the tickets the bot recorded.

    The spec offers no call that tells a homologation key from a production one. The only difference
    is that homologation persists nothing, and finding that out by writing a record would create one
    in production, which the doctor never does. So it reads the evidence the bot already has: the
    tickets its conversations recorded (``chats.current_ticket``, open and past handoffs), newest
    first, looked up with ``ConsultaAtendimentos``. None of them found in the ISP system means a
    homologation key (or a database from another installation); some found means the tickets the bot
    opened were kept. With no ticket recorded yet, the environment is unknown and said so loudly,
    with where the operator reads it (Company > Parameters > Web Services).
    """
    check = "isp-environment"
    if not tickets:
        why = "its database could not be read" if tickets is None else "the bot has recorded no ticket yet"
        return [warn(check, (
            "UNKNOWN: the web service cannot say whether this key is HOMOLOGATION (nothing is persisted) "
            f"or PRODUCTION, and {why}; read the key's environment in {WEB_SERVICES}"
        ))]
    try:
        found: list[Any] = await client.ConsultaAtendimentos(F("Numero").in_(tickets))
    except IspApiError as exc:
        return [warn(check, f"UNKNOWN: looking up the bot's tickets was refused (code {exc.code})")]
    except IspTransportError as exc:
        return [warn(check, f"UNKNOWN: looking up the bot's tickets failed ({exc})")]
    kept = {ticket.Numero for ticket in found} & set(tickets)
    if not kept:
        return [warn(check, (
            f"HOMOLOGATION KEY: NOTHING IS PERSISTED. None of the {len(tickets)} tickets the bot recorded most "
            "recently exists in the ISP system (or this database belongs to another installation); "
            f"set ISPBOT_ISP_KEY to the production key of {WEB_SERVICES} before serving subscribers"
        ))]
    return [ok(check, f"PRODUCTION: {len(kept)} of the {len(tickets)} tickets the bot recorded most recently "
                      "are in the ISP system")]


async def isp_findings(
    isp_settings: IspSettings, seconds: float, tickets: Sequence[int] | None,
) -> list[Finding]:
    """Each step bounded by ``seconds``; the operations and the environment only once the key is accepted."""
    async with IspClient(doctor_settings(isp_settings, seconds)) as client:
        prober = Prober(client)
        found = await bounded("isp", seconds, "the ISP web service", ISP_FIX, reachable(prober))
        if any(f.status is Status.FAIL for f in found):
            return found  # the operations and the environment cannot be asked with this key
        found += await bounded("isp-operations", seconds, "the ISP web service", ISP_FIX, permissions(prober))
        found += await bounded(
            "isp-environment", seconds, "the ISP web service", ISP_FIX, environment(client, tickets),
        )
    return found
