"""A faithful local stand-in of the ISP management system's JSON web service.

Both generations are served on their real paths, with the spec's envelopes and quirks, keys with
environments and permitted operations (``keys.SEEDED_KEYS``), the state rules and error codes of
part 3, a seeded data set of a small ISP, ``Filtro`` evaluated for real, and faults on demand.
Nothing here imports the client (``bot/isp``): the sandbox is what the client is tested against.

Start at ``Sandbox`` (its docstring shows the Python API) and ``server.SandboxServer`` (real HTTP
on a loopback port). Where the spec is silent the sandbox chooses, and each choice is written beside
the rule that makes it: error codes in ``codes``, contracts in ``rules.contracts``, tickets and
service orders in ``rules.tickets``, the finance group in ``rules.billing`` (its answer variants in
``variants``), homologation keys in ``service``.
"""

from bot.sandbox.clock import FixedClock
from bot.sandbox.keys import HOMOLOGATION_KEY, INACTIVE_KEY, PRODUCTION_KEY, RESTRICTED_KEY
from bot.sandbox.sandbox import Sandbox
from bot.sandbox.seed import DEMO_IDENTITIES

__all__ = [
    "DEMO_IDENTITIES",
    "HOMOLOGATION_KEY",
    "INACTIVE_KEY",
    "PRODUCTION_KEY",
    "RESTRICTED_KEY",
    "FixedClock",
    "Sandbox",
]
