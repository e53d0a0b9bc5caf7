"""``Sandbox``: one stand-in ISP (records, keys, clock, settings, faults, call counts) and its app."""

from __future__ import annotations

import functools
import pickle
import threading
from collections import Counter
from datetime import date
from pathlib import Path
from typing import Any

import yaml
from starlette.applications import Starlette

from bot.sandbox import fixtures
from bot.sandbox import seed as seeding
from bot.sandbox.app import build_sandbox_app
from bot.sandbox.clock import Clock, system_clock
from bot.sandbox.faults import Faults
from bot.sandbox.keys import PRODUCTION_KEY, ApiKey, KeyRing
from bot.sandbox.registry import Settings
from bot.sandbox.service import Service
from bot.sandbox.store import Record, Store
from bot.sandbox.variants import Variants


@functools.lru_cache(maxsize=4)
def _seed_bytes(seed: int, day: date) -> bytes:
    # Building the set takes a good fraction of a second; tests build many sandboxes on the same day,
    # each a copy of it: unpickled in a third of the time JSON would take.
    return pickle.dumps(seeding.generate(seed, day).export())


class Sandbox:
    """The stand-in service: its data, keys, clock, faults and answer variants, served as ASGI ``app``.

    ::

        from bot.sandbox import Sandbox, DEMO_IDENTITIES, PRODUCTION_KEY
        from bot.sandbox.clock import FixedClock

        sb = Sandbox.seeded(clock=FixedClock())     # or Sandbox.seeded(), Sandbox.from_file("mine.yaml")
        app = sb.app                                # ASGI app: httpx.ASGITransport(app=sb.app)
        sb.v2("ticket_update", {...})               # one call without HTTP (no faults, not counted)
        sb.call_count("ConsultaClientes")           # calls received over HTTP per operation; sb.reset_calls()
        sb.chat_messages(70001)                     # what chat_messages stored for a ticket, in order
        sb.faults.fail_next(2, "ticket_update")     # HTTP 500; also timeout_next, disconnect_next,
                                                    # not_json_next, html_login_next, go_down/come_back,
                                                    # add_latency(seconds, operation=None), clear()
        sb.settings.min_distance_to_execute = False # the system parameters the rules read
        sb.variants.set(pix_key="emv", data_prefix=True)  # the finance group's answer variants (see
                                                    # bot.sandbox.variants); sb.variants.clear()
        sb.add_production_key("my-key")             # a production key for every operation
        sb.export(); sb.save("mine.json")           # the data set, in the shape from_file loads

        with SandboxServer(sb) as server:           # bot.sandbox.server: real HTTP on a free loopback port
            server.url; server.go_down(); server.come_back()   # go_down: connections refused
    """

    def __init__(
        self,
        store: Store,
        *,
        keys: KeyRing | None = None,
        clock: Clock | None = None,
        settings: Settings | None = None,
    ) -> None:
        self.store = store
        self.keys = keys or KeyRing()
        self.clock: Clock = clock or system_clock
        self.settings = settings or Settings(
            **{k: v for k, v in (store.find("settings", id=1) or {}).items() if k != "id"}
        )
        self.faults = Faults()
        self.variants = Variants()
        self.calls: Counter[str] = Counter()
        self.service = Service(self.store, self.keys, self.clock, self.settings, self.variants)
        self._app: Starlette | None = None
        self._count_lock = threading.Lock()

    # ---- construction ---------------------------------------------------------------------------
    @classmethod
    def seeded(cls, seed: int = seeding.DEFAULT_SEED, **options: Any) -> Sandbox:
        """The seeded data set of the clock's date (``clock=`` pins it; see ``clock.FixedClock``)."""
        clock: Clock = options.get("clock") or system_clock
        store = Store.from_export(pickle.loads(_seed_bytes(seed, clock().date())), copy=False)  # noqa: S301 - made above
        return cls(store, **options)

    @classmethod
    def from_file(cls, path: str | Path, **options: Any) -> Sandbox:
        """An operator's own JSON/YAML fixture, in the shape ``export()`` writes."""
        return cls(fixtures.load(path), **options)

    # ---- what tests and the CLI use -------------------------------------------------------------
    @property
    def app(self) -> Starlette:
        if self._app is None:
            self._app = build_sandbox_app(self)
        return self._app

    def add_production_key(self, key: str | None = None) -> ApiKey:
        """A production key permitted for every operation."""
        return self.keys.add_production_key(key)

    def count(self, operation: str | None, path: str = "") -> None:
        with self._count_lock:
            self.calls[operation or "(malformed)"] += 1

    def call_count(self, operation: str | None = None) -> int:
        """Calls received for ``operation`` (every call when None), faulted ones included."""
        return sum(self.calls.values()) if operation is None else self.calls[operation]

    def reset_calls(self) -> None:
        self.calls.clear()

    def chat_messages(self, ticket_id: int) -> list[Record]:
        """What chat_messages stored for the ticket, in the order received."""
        return [dict(m) for m in self.store.where("chat_messages", ticket_id=ticket_id)]

    def v1(self, operation: str, params: dict[str, Any] | None = None, *, key: str = PRODUCTION_KEY) -> Any:
        """One generation-1.0 call without HTTP (faults and counters do not apply)."""
        return self.service.v1({operation: {"Autenticacao": {"ChaveIntegracao": key}, **(params or {})}})

    def v2(self, operation: str, params: Any = None, *, key: str = PRODUCTION_KEY) -> Any:
        """One generation-2.0 call without HTTP (faults and counters do not apply)."""
        return self.service.v2(key, {operation: params if params is not None else {}})

    def export(self) -> dict[str, Any]:
        return self.store.export()

    def stock_catalog(self) -> dict[str, list[dict[str, Any]]]:
        """Its products and stock locations in the shape of the bot's ``ISPBOT_STOCK_FILE``
        (``flows.stock``): what an operator would copy from the ISP system."""
        return {
            "products": [
                {"code": p["code"], "id": p["id"], "name": p["description"], "serial": bool(p["serial_controlled"])}
                for p in self.store.rows("products")
            ],
            "locations": [{"id": x["id"], "name": x["name"]} for x in self.store.rows("stock_locations")],
        }

    def write_stock_file(self, path: str | Path) -> None:
        """``stock_catalog`` as the YAML file ``ISPBOT_STOCK_FILE`` names."""
        text = yaml.safe_dump(self.stock_catalog(), allow_unicode=True, sort_keys=False)
        Path(path).write_text(text, encoding="utf-8")

    def save(self, path: str | Path) -> None:
        fixtures.dump(self.store, path)
