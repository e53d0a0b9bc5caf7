"""The staff's flows: in their private chat with the bot they only learn where the work happens (the
staff desk, after joining through an invite); at the desk, what they write and their commands are
events the engine runs for the subscriber's chat (``desk.py``)."""

from __future__ import annotations

import sys

from flows.engine import RoleFlows
from flows.flow import discover
from flows.staff import menu  # noqa: F401 - their flows, for discover
from flows.staff.desk import on_desk

MENU: tuple[str, ...] = ()  # no buttons: the staff's menu only says where the work happens


def staff_flows() -> RoleFlows:
    return RoleFlows.of(discover(sys.modules[__name__]), menu=MENU, desk=on_desk)
