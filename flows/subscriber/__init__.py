"""The subscribers' flows, one module each. A flow defined in a module here is found by itself
(``discover``): its commands work. ``MENU`` names the flows the menu offers, in order (each button's
label is the template ``menu.<name>``; a name no flow has fails when the bot starts)."""

from __future__ import annotations

import sys

from flows.engine import RoleFlows
from flows.flow import discover

MENU = (
    "bills", "new_ticket", "my_tickets", "connection", "contracts", "human", "my_contacts", "help", "language",
    "my_data", "unlink",
)


def subscriber_flows() -> RoleFlows:
    return RoleFlows.of(discover(sys.modules[__name__]), menu=MENU)
