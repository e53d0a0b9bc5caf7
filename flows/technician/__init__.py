"""The field technicians' flows, one module each, imported below and found by ``discover`` like the
subscribers'. A chat becomes a technician's only by redeeming an invite (``flows/subscriber/join.py``).

The technician works on one ticket at a time, "the ticket in hand" (the chat's current ticket):
the agenda puts a ticket in hand, ``ticket.py`` shows it with the actions, and each action flow
(status, occurrence, checklist, materials, appointment, finish) acts on it and comes back to it.
``tickets.py`` holds the reads every action shares, and refuses a ticket not assigned to the
technician. ISP reads here are not cached: technicians are few and act on what just changed.
"""

from __future__ import annotations

import sys

from flows.engine import RoleFlows
from flows.flow import discover
from flows.technician import (  # noqa: F401 - their flows, for discover
    agenda,
    appointment,
    checklist,
    finish,
    help,
    materials,
    menu,
    occurrence,
    service_orders,
    status,
    ticket,
    tickets,
    work,
)

MENU = ("agenda", "ticket")  # the menu's buttons, in order (labels: ``technician.menu_<name>``)


def technician_flows() -> RoleFlows:
    return RoleFlows.of(discover(sys.modules[__name__]), menu=MENU)
