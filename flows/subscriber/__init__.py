"""The subscribers' flows, one module each. A flow defined in a module here (each imported below:
``discover`` names one that is not) is found: its commands work. ``MENU`` names the flows the menu
offers, in order (each button's label is the template ``menu.<name>``; a name no flow has fails when
the bot starts)."""

from __future__ import annotations

import sys

from flows.engine import RoleFlows
from flows.flow import discover
from flows.subscriber import (  # noqa: F401 - their flows, for discover
    bills,
    cancel_plan,
    company,
    connection,
    contest,
    contracts,
    follow_ticket,
    help,
    human,
    invoices,
    join,
    language,
    link,
    menu,
    my_contacts,
    my_data,
    my_tickets,
    new_ticket,
    notice_choices,
    paid,
    papers,
    restart,
    rights,
    router,
    standing,
    statement,
    suspend,
    unlink,
    wifi,
)

MENU = (
    "bills", "new_ticket", "my_tickets", "connection", "router", "contracts", "human", "my_contacts", "help",
    "language", "my_data", "unlink",
)


def subscriber_flows() -> RoleFlows:
    return RoleFlows.of(discover(sys.modules[__name__]), menu=MENU)
