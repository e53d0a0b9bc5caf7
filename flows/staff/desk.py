"""What a staff member does in a desk conversation (a forum topic, a Chatwoot conversation), run by
the engine for the subscriber's chat (``flows.deskwork``). A reply reaches the person tagged with the
staff member's name and is mirrored as origin A (their ISP user). Commands act on the ticket:
``/assign`` (to me; ``/assign group 3``), ``/status in_progress|on_hold``, ``/note TEXT`` (internal,
never relayed), ``/close`` (lists the causes; ``/close CODE SOLUTION`` finishes the ticket, tells the
person, with the survey when there is one, and hands back), ``/bot`` (hands back, ticket untouched).
The desk's own "resolve" is ``/bot`` with the survey. No ticket (a person linked to no customer):
``/close`` is ``/bot``; the others say there is none. Every ISP write goes through the coordinator:
a refusal is shown in the ISP's words, an outage said so; a timed-out assignment or closing is read
back (done: told as done; not done: "try again"), any other timed-out write is reported as maybe
done, never resent.
"""

from __future__ import annotations

import re
from urllib.parse import unquote, urlsplit

from bot.i18n import plain_text
from bot.isp.models import v1_records, v2_requests

from flows.context import Context
from flows.deskwork import DeskWork
from flows.events import Resolved, StaffCommand, StaffEvent, StaffReply, describe
from flows.files import FileTooLarge, FileUnavailable
from flows.replies import Copy, Upload

_CLOSE = re.compile(r"(\d+)\s+(.+)", re.DOTALL)
UNSURE = "staff.isp_unsure"
# A staff member's file, at most (WhatsApp takes images of 5 MB, Telegram's bots upload 50 MB; the
# channel refuses what it cannot send, and the staff hear it).
STAFF_FILE_LIMIT = 16 << 20


async def on_desk(ctx: Context, desk: DeskWork, event: StaffEvent) -> None:
    match event:
        case StaffReply():
            await _reply(ctx, desk, event)
        case StaffCommand(name=name, args=args):
            await _command(ctx, desk, name, args.strip())
        case Resolved():
            await _back_to_bot(ctx, desk, told=False, survey=True)


async def _reply(ctx: Context, desk: DeskWork, said: StaffReply) -> None:
    upload = await _staff_file(ctx, desk, said) if said.attachment is None and said.url is not None else None
    if said.text.strip() or upload is None:
        ctx.reply.tell("staff_answer", "human.from_staff", name=desk.staff.name, text=said.text)
    if said.attachment is not None:  # after the words: the engine sends these replies after the notices
        ctx.reply.replies.append(Copy(said.attachment))
    elif upload is not None:
        ctx.reply.replies.append(upload)
    await desk.mirror_staff(said.text or describe(said))
    await desk.answered()


async def _staff_file(ctx: Context, desk: DeskWork, said: StaffReply) -> Upload | None:
    """A file the staff member attached where the desk keeps it (Chatwoot's storage), fetched by the
    bot and sent to the person as a file of their channel: never a link to the staff's server. A file
    that cannot be fetched is said to the staff (the person hears the words alone)."""
    assert said.url is not None  # noqa: S101 - only called with one
    try:
        data = await ctx.fetch_file(said.url, limit=STAFF_FILE_LIMIT)
    except (FileUnavailable, FileTooLarge) as exc:
        desk.note("staff.file_not_sent", too_large=isinstance(exc, FileTooLarge), mb=STAFF_FILE_LIMIT >> 20)
        return None
    name = unquote(urlsplit(said.url).path.rsplit("/", 1)[-1]) or "arquivo"
    caption = "" if said.text.strip() else ctx.text("human.from_staff_file", name=desk.staff.name)
    return Upload("photo" if said.kind == "photo" else "document", data, name[:200], caption)


async def _command(ctx: Context, desk: DeskWork, name: str, args: str) -> None:
    handler = _COMMANDS.get(name)
    if handler is None:
        desk.note("staff.unknown_command")
        return
    if not desk.identified and handler is not _bot:
        if handler is _close:  # nothing to close in the ISP: ending the conversation is what is meant
            await _bot(ctx, desk, "")
        else:
            desk.note("staff.no_ticket")
        return
    await handler(ctx, desk, args)  # the ISP failing is told to the staff by the engine (``flows.staff_turn``)


async def _assign(ctx: Context, desk: DeskWork, args: str) -> None:
    words = args.split()
    group = len(words) == 2 and words[0] == "group" and words[1].isdecimal()
    target = words[1] if group else desk.system_user

    def landed(ticket: v1_records.Ticket) -> bool:
        return (ticket.Designacao_Grupo_Id if group else ticket.Designacao_Usuario) == target

    write = ctx.write_state(read_back=lambda: ctx.coordinator.ticket(desk.ticket_id), landed=landed,
                            missed=lambda _: desk.note("staff.isp_unavailable"),
                            ask=lambda key: desk.note(key, ticket=desk.ticket_id), unsure=UNSURE)
    target_type = v2_requests.TargetType.GROUP if group else v2_requests.TargetType.USER
    done = await write.send(lambda: ctx.coordinator.assign_ticket(
        desk.ticket_id, mode=ctx.policy.ticket_mode, target_type=target_type, target=target,
    ))
    if done is not None:
        await desk.answered()
        desk.note("staff.assigned", ticket=desk.ticket_id, target=target)


async def _status(ctx: Context, desk: DeskWork, args: str) -> None:
    try:
        status = v2_requests.TicketStatus(args)
    except ValueError:
        status = v2_requests.TicketStatus.NONE
    if status is v2_requests.TicketStatus.NONE:
        desk.note("staff.status_usage")
        return
    await ctx.coordinator.set_ticket_status(desk.ticket_id, status)
    desk.note("staff.status_set", ticket=desk.ticket_id, status=status.value)


async def _note(ctx: Context, desk: DeskWork, args: str) -> None:
    if not args:
        desk.note("staff.note_usage")
        return
    await ctx.coordinator.add_occurrence(desk.ticket_id, args, desk.system_user)
    desk.note("staff.noted", ticket=desk.ticket_id)


async def _close(ctx: Context, desk: DeskWork, args: str) -> None:
    ticket = await ctx.coordinator.ticket(desk.ticket_id)
    causes = await ctx.coordinator.active_causes(ticket.Tipo if ticket else None)
    chosen = _CLOSE.fullmatch(args)
    cause = next((c for c in causes if chosen and c.Codigo == int(chosen.group(1))), None)
    if chosen is None or cause is None or cause.Codigo is None:
        listed = [{"code": c.Codigo, "name": c.Nome or c.Descricao or ""} for c in causes]
        desk.note("staff.close_usage", ticket=desk.ticket_id, causes=listed)
        return
    write = ctx.write_state(read_back=lambda: ctx.coordinator.ticket(desk.ticket_id),
                            landed=lambda fresh: fresh.Encerramento_DataHora is not None,
                            missed=lambda _: desk.note("staff.isp_unavailable"),
                            ask=lambda key: desk.note(key, ticket=desk.ticket_id), unsure=UNSURE)

    async def finish() -> None:
        try:
            await ctx.coordinator.finish_ticket(
                desk.ticket_id, cause=cause.Codigo or 0, solution=chosen.group(2).strip(), user=desk.system_user,
            )
        finally:
            ctx.coordinator.forget(desk.customer_code)  # its open tickets changed

    done = await write.send(finish)
    if done is None:
        return
    survey = await ctx.coordinator.survey_link(desk.ticket_id)
    # The ticket by its own number, labelled a ticket: "protocol" is the contact's (``flows.contacts``).
    ctx.reply.tell("survey" if survey else "ticket_closed", "human.closed", ticket=desk.ticket_id, survey=survey or "")
    await desk.mirror_system(plain_text(ctx.text("human.closed", ticket=desk.ticket_id, survey=survey or "")))
    desk.note("staff.closed", ticket=desk.ticket_id, survey=bool(survey))
    await desk.hand_back(ctx.state, resolved=True)


async def _bot(ctx: Context, desk: DeskWork, args: str) -> None:
    await _back_to_bot(ctx, desk, told=True, survey=False)


async def _back_to_bot(ctx: Context, desk: DeskWork, *, told: bool, survey: bool) -> None:
    """The chat is the bot's again, its ticket left as it is; ``told``: the staff hear it was done
    (a desk's own "resolve" needs no word); ``survey``: the person gets the ticket's survey, if any."""
    link = await ctx.coordinator.survey_link(desk.ticket_id) if survey and desk.identified else None
    ctx.reply.tell("survey" if link else "back_to_bot", "human.back_to_bot", survey=link or "")
    if told:
        desk.note("staff.handed_back")
    await desk.hand_back(ctx.state, resolved=False)


_COMMANDS = {"assign": _assign, "status": _status, "note": _note, "close": _close, "bot": _bot}
