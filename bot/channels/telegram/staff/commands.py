"""Commands a staff member gives in a conversation's topic, on its ticket.

    /assign              the ticket to me (ticket_assign, user)      /assign group 3   to group 3
    /status in_progress  or on_hold (ticket_update)
    /note TEXT           an internal occurrence, never relayed to the subscriber
    /close               lists the closing causes; /close CODE SOLUTION finishes the ticket, tells
                         the subscriber (with the satisfaction survey when the ticket has one) and
                         hands the chat back to the bot
    /bot                 hands the chat back to the bot without closing the ticket

No ticket (a person linked to no customer): ``/close`` is ``/bot``; the others say there is none.

The ticket is assigned with the operator's ticket mode (``ISPBOT_TICKET_MODE``, a code of
``get_tickets_mode``). An ISP refusal is shown in the topic with the ISP's own words; an outage is
said so and nothing is changed, so the command can simply be given again.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Protocol

from flows.coordinator import IspCoordinator
from flows.events import Command
from flows.policy import Policy
from sqlalchemy.ext.asyncio import AsyncSession

from bot.channels.telegram.render import ApiCall
from bot.channels.telegram.staff.topic import Staff, Topic
from bot.i18n import Translations, plain_text
from bot.isp import IspApiError, IspTransportError
from bot.isp.models import v2_requests
from bot.store import Handoffs, Origin, StaffHandoff

log = logging.getLogger(__name__)

_CLOSE = re.compile(r"(\d+)\s+(.+)", re.DOTALL)


class Desk(Protocol):
    """What the commands use of the staff desk (``desk.py``, which imports this module)."""

    coordinator: IspCoordinator
    policy: Policy
    translations: Translations
    handoffs: Handoffs

    def text(self, key: str, /, **variables: object) -> str: ...

    async def language_of(self, session: AsyncSession, chat_id: int) -> str: ...

    async def mirror(self, session: AsyncSession, case: StaffHandoff, content: str, origin: Origin,
                     attendant: str) -> None: ...

    async def hand_back(self, session: AsyncSession, case: StaffHandoff, *, ticket_closed: bool) -> None: ...


@dataclass(frozen=True, slots=True)
class CommandContext:
    """Where a command is given: the desk, the transaction, the handoff, its topic, who gave it."""

    desk: Desk
    session: AsyncSession
    case: StaffHandoff
    topic: Topic
    staff: Staff


async def run_command(at: CommandContext, command: Command) -> list[ApiCall]:
    desk, topic = at.desk, at.topic
    handler = _COMMANDS.get(command.name)
    if handler is None:
        return [topic.send(desk.text("staff.unknown_command"))]
    if not at.case.identified and handler is not _bot:
        if handler is _close:  # nothing to close in the ISP: ending the conversation is what is meant
            return await _bot(at, "")
        return [topic.send(desk.text("staff.no_ticket"))]
    try:
        return await handler(at, command.args.strip())
    except IspTransportError:
        return [topic.send(desk.text("staff.isp_unavailable"))]
    except IspApiError as refused:
        return [topic.send(desk.text("staff.isp_refused", reason=refused.description or str(refused.code)))]


async def _assign(at: CommandContext, args: str) -> list[ApiCall]:
    desk, session, case, topic, staff = at.desk, at.session, at.case, at.topic, at.staff
    words = args.split()
    if len(words) == 2 and words[0] == "group" and words[1].isdigit():
        target_type, target = v2_requests.TargetType.GROUP, words[1]
    else:
        target_type, target = v2_requests.TargetType.USER, staff.system_user
    await desk.coordinator.assign_ticket(
        case.ticket_id, mode=desk.policy.ticket_mode, target_type=target_type, target=target,
    )
    await desk.handoffs.answered(session, case.id)
    return [topic.send(desk.text("staff.assigned", ticket=case.ticket_id, target=target))]


async def _status(at: CommandContext, args: str) -> list[ApiCall]:
    desk, case, topic = at.desk, at.case, at.topic
    try:
        status = v2_requests.TicketStatus(args)
    except ValueError:
        status = v2_requests.TicketStatus.NONE
    if status is v2_requests.TicketStatus.NONE:
        return [topic.send(desk.text("staff.status_usage"))]
    await desk.coordinator.set_ticket_status(case.ticket_id, status)
    return [topic.send(desk.text("staff.status_set", ticket=case.ticket_id, status=status.value))]


async def _note(at: CommandContext, args: str) -> list[ApiCall]:
    desk, case, topic, staff = at.desk, at.case, at.topic, at.staff
    if not args:
        return [topic.send(desk.text("staff.note_usage"))]
    await desk.coordinator.add_occurrence(case.ticket_id, args, staff.system_user)
    return [topic.send(desk.text("staff.noted", ticket=case.ticket_id))]


async def _close(at: CommandContext, args: str) -> list[ApiCall]:
    desk, session, case, topic, staff = at.desk, at.session, at.case, at.topic, at.staff
    ticket = await desk.coordinator.ticket(case.ticket_id)
    causes = await desk.coordinator.active_causes(ticket.Tipo if ticket else None)
    chosen = _CLOSE.fullmatch(args)
    cause = next((c for c in causes if chosen and c.Codigo == int(chosen.group(1))), None)
    if chosen is None or cause is None or cause.Codigo is None:
        listed = [{"code": c.Codigo, "name": c.Nome or c.Descricao or ""} for c in causes]
        return [topic.send(desk.text("staff.close_usage", ticket=case.ticket_id, causes=listed))]
    await desk.coordinator.finish_ticket(
        case.ticket_id, cause=cause.Codigo, solution=chosen.group(2).strip(), user=staff.system_user,
    )
    desk.coordinator.forget(case.customer_code)
    survey = await desk.coordinator.survey_link(case.ticket_id)
    protocol = (ticket.Protocolo if ticket else None) or case.ticket_id
    language = await desk.language_of(session, case.chat_id)
    told = desk.translations.render(language, "human.closed", protocol=protocol, survey=survey or "")
    await desk.mirror(session, case, plain_text(told), Origin.SYSTEM, staff.system_user)
    await desk.hand_back(session, case, ticket_closed=True)
    return [
        ApiCall("sendMessage", {"chat_id": case.chat_id, "text": told, "parse_mode": "HTML"}),
        topic.send(desk.text("staff.closed", ticket=case.ticket_id, survey=bool(survey))),
        topic.close(),
    ]


async def _bot(at: CommandContext, args: str) -> list[ApiCall]:
    desk, session, case, topic = at.desk, at.session, at.case, at.topic
    await desk.hand_back(session, case, ticket_closed=False)
    language = await desk.language_of(session, case.chat_id)
    told = desk.translations.render(language, "human.back_to_bot")
    return [
        ApiCall("sendMessage", {"chat_id": case.chat_id, "text": told, "parse_mode": "HTML"}),
        topic.send(desk.text("staff.handed_back")),
        topic.close(),
    ]


_COMMANDS = {"assign": _assign, "status": _status, "note": _note, "close": _close, "bot": _bot}
