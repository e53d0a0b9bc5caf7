"""My data ("Meus dados", LGPD art. 18): what the bot holds about the person, and deleting what no
rule requires keeping, after a confirmation.

Told: the link (customer, contract, how it was proved and when), the language kept, the messages
kept for the staff's card, how many contacts are on record, and where transcripts go (a ticket's
conversation is copied into the ticket's history in the ISP system; a person of the staff reads
theirs in the staff group). Deleted: every link of the chat (past ones too), its outage watches,
its language, the kept messages, the notices it was sent and refused, and where it stood
(``Context.forget_chat``). The notices refused ("parar avisos") are shown. Kept, and said so:
the contact history, for the regulation's term (``KEPT_YEARS``), and what the ISP's own system holds.
"""

from __future__ import annotations

from flows.contacts import DATA_DELETED
from flows.context import KEPT_YEARS, Context
from flows.flow import TO_MENU, YES_NO, Answer, Chosen, Flow, Option, StepEvent, Steps, Unexpected
from flows.subscriber.notice_choices import refused_groups


class MyData(Flow):
    name = "my_data"
    requires_link = False  # someone not linked holds little, but may ask as well
    commands = ("meusdados", "dados", "privacidade", "mydata", "privacy", "misdatos", "privacidad")
    steps = Steps(begin=("confirm",), confirm=(YES_NO, TO_MENU))

    async def begin(self, ctx: Context) -> None:
        link = ctx.link
        contacts = await ctx.records.history(KEPT_YEARS)
        options = [Option(True, key="my_data.button_delete"), Option(False, key="my_data.button_keep")]
        ctx.reply.ask(
            "confirm", "my_data.held", options, columns=2,
            linked=link is not None and link.customer_code is not None,
            customer=link.customer_code if link is not None else None,
            contract=link.contract if link is not None else None,
            proof=link.proof.value if link is not None else "",
            since=link.proved_at.astimezone(ctx.coordinator.zone) if link is not None else None,
            language=ctx.state.language or "", recent=len(ctx.staff.recent), contacts=len(contacts), years=KEPT_YEARS,
            ticket=ctx.current_ticket,
            refused=[ctx.text(f"notices.button_{group}") for group in refused_groups(await ctx.records.opt_outs())],
        )

    async def confirm(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=True) | Answer(value=True):
                await ctx.records.record(self.name, DATA_DELETED)
                await ctx.records.forget_chat()
                ctx.reply.say("my_data.deleted", years=KEPT_YEARS)
                ctx.to_menu()  # an unlinked chat goes on to linking: its greeting follows
            case Chosen(value=False) | Answer(value=False):
                ctx.reply.say("my_data.kept")
                ctx.to_menu()
            case _:
                raise Unexpected("my_data.pick_a_button")
