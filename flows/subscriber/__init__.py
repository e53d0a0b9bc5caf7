"""The subscribers' flows, one module each. A flow defined in a module here is found by itself
(``discover``): its commands work; ``MENU`` lists the flows the menu offers, in order (each button's
label is the template ``menu.<name>``)."""

from __future__ import annotations

import sys

from flows.engine import RoleFlows
from flows.flow import discover
from flows.subscriber.bills import Bills
from flows.subscriber.connection import Connection
from flows.subscriber.contracts import Contracts
from flows.subscriber.help import Help
from flows.subscriber.human import Human
from flows.subscriber.language import Language
from flows.subscriber.my_tickets import MyTickets
from flows.subscriber.new_ticket import NewTicket
from flows.subscriber.unlink import Unlink

MENU = (Bills, NewTicket, MyTickets, Connection, Contracts, Human, Help, Language, Unlink)


def subscriber_flows() -> RoleFlows:
    return RoleFlows.of(discover(sys.modules[__name__]), menu=MENU)
