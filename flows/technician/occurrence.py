"""An occurrence on the ticket in hand: the technician's note (or a photo's caption), with where they
are when they shared it lately.

- The position. A flow's data is emptied when another flow begins, so a position shared elsewhere
  cannot be handed over. Two sources instead: a location shared at this flow's question (a live
  location's later positions update it silently), and the newest position the ISP recorded on this
  ticket (a move to "running" sent with the phone's location records one). Either counts when at
  most ``POSITION_FRESH`` old; 0,0 or out of range is never sent.
- A photo counts by its caption (the ticket cannot carry the picture); without one the bot asks for
  words.
- The note is written with ``ctx.write_once``: its read-back looks for an occurrence with the same
  text on the ticket; "check" is the button of the unsure question.
"""

from __future__ import annotations

from flows.context import Context
from flows.events import Location, Media, Text
from flows.flow import FILES, TO_MENU, WORDS, Chosen, Flow, Option, StepEvent, Steps, Switch, Unexpected
from flows.technician.tickets import back_to_ticket, in_hand_or_refuse
from flows.technician.work import (
    MAX_TEXT,
    fresh,
    position_record,
    recorded_position,
    valid_position,
)
from flows.writes import Found, Wait


class Occurrence(Flow):
    name = "occurrence"
    steps = Steps(
        begin=("note", TO_MENU),
        note=(WORDS, FILES, "unsure", Switch("ticket"), TO_MENU),
        unsure=(Switch("ticket"), TO_MENU),
    )

    async def begin(self, ctx: Context) -> None:
        ticket = await in_hand_or_refuse(ctx)
        if ticket is None:
            return
        ctx.data["ticket"] = ticket.Numero
        ctx.reply.ask_location("note", "technician_work.occurrence_ask", number=ticket.Numero)

    async def note(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Location(latitude=lat, longitude=lon, live=live):
                if not valid_position(lat, lon):
                    if live:
                        return
                    raise Unexpected("technician_work.position_invalid")
                ctx.data["position"] = position_record(ctx, lat, lon)
                if not live:  # a live location's later positions are kept without a word
                    ctx.reply.ask_location("note", "technician_work.occurrence_position_noted")
            case Text(text=text) if text.strip():
                await self._record(ctx, text.strip()[:MAX_TEXT])
            case Media(caption=caption) if caption.strip():
                await self._record(ctx, caption.strip()[:MAX_TEXT])
            case Media():
                raise Unexpected("technician_work.occurrence_caption_needed")
            case _:
                raise Unexpected("technician_work.occurrence_write")

    async def unsure(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="check"):
                await self._record(ctx, ctx.data["text"])
            case Chosen(value="back"):
                back_to_ticket(ctx)
            case _:
                raise Unexpected("technician.pick_a_button")

    async def _record(self, ctx: Context, text: str) -> None:
        number = int(ctx.data["ticket"])
        if await in_hand_or_refuse(ctx) is None:  # still theirs and open (reassigned or closed meanwhile?)
            return
        write = ctx.write_once("occurrence", ask=lambda key: self._ask_unsure(ctx, key),
                               unsure="technician_work.occurrence_unsure", wait="technician_work.occurrence_not_yet")
        match await write.recall(lambda tried: ctx.coordinator.find_occurrence(number, text, tried), what=text):
            case Found():
                self._recorded(ctx, number, ctx.data.get("sent_position") is not None)
                return
            case Wait():
                return
        position = fresh(ctx, ctx.data.get("position")) or await recorded_position(ctx, number)
        ctx.data.update(text=text, sent_position=position)  # for "check" after an unknown outcome
        if await write.send(
                lambda: ctx.coordinator.add_occurrence(number, text, ctx.system_user, position), what=text) is not None:
            self._recorded(ctx, number, position is not None)

    def _recorded(self, ctx: Context, number: int, located: bool) -> None:
        ctx.reply.say("technician_work.occurrence_recorded", number=number, located=located)
        back_to_ticket(ctx)

    def _ask_unsure(self, ctx: Context, key: str) -> None:
        options = [Option("check", key="technician_work.button_check"),
                   Option("back", key="technician_work.button_back")]
        ctx.reply.ask("unsure", key, options)
