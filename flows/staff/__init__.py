"""The staff's own flows in their private chat with the bot. Staff work in the staff group's forum
topics (``bot/channels/telegram/staff/``: the desk); here they only learn that, after joining through
an invite."""

from __future__ import annotations

import sys

from flows.engine import RoleFlows
from flows.flow import discover
from flows.staff import menu  # noqa: F401 - their flows, for discover

MENU: tuple[str, ...] = ()  # no buttons: the staff's menu only says where the work happens


def staff_flows() -> RoleFlows:
    return RoleFlows.of(discover(sys.modules[__name__]), menu=MENU)
