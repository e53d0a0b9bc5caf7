"""The ISP's own facts: its phone (with the hours it answers), address and web site, for anyone who
asks at any point, linked or not (``ISPBOT_SUPPORT_PHONE``, ``ISPBOT_SUPPORT_HOURS``,
``ISPBOT_ADDRESS``, ``ISPBOT_WEBSITE``). What the operator gave is said, line by line; where they gave
none, that the phone is on the contract and the bills, never an empty line.

Asked at the menu, the facts and the menu again; at another flow's question, the facts and that
question again (``Flow.aside``). Someone not linked is asked again how to prove who they are; asked at
one of linking's own questions, that same question is asked again after the facts
(``flows.subscriber.link``), not the greeting."""

from __future__ import annotations

from flows.context import Context
from flows.flow import TO_MENU, Flow, Steps, Switch


class Company(Flow):
    name = "company"
    commands = ("contato", "contact", "contacto")
    requires_link = False  # the ISP's phone is for anyone
    aside = True  # asked at another question: the facts, and that question again
    steps = Steps(begin=(Switch("link"), TO_MENU))

    async def begin(self, ctx: Context) -> None:
        say_facts(ctx)
        if ctx.link is None:
            ctx.switch("link", again=True)
        else:
            ctx.to_menu()


def say_facts(ctx: Context) -> None:
    """The ISP's phone and hours, address and site, as far as the operator gave them."""
    policy = ctx.policy
    if policy.support_phone or policy.support_hours or policy.address or policy.website:
        ctx.reply.say("company.facts", phone=policy.support_phone, hours=policy.support_hours, address=policy.address,
                      website=policy.website)
    else:
        ctx.reply.say("company.nothing", desk=policy.staff_desk)
