"""The subscribers' flows, one module each. A flow defined in a module here is found by itself
(``discover``): its commands work and, with a ``menu_order``, it has a menu button."""

from __future__ import annotations

import sys

from flows.engine import RoleFlows
from flows.flow import discover


def subscriber_flows() -> RoleFlows:
    return RoleFlows.of(discover(sys.modules[__name__]))
