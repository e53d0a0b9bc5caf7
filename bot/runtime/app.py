"""The one place that assembles the bot: database, ISP client, coordinator, engine and its flows.

Channels (the terminal demo now; Telegram and the staff side later) take an ``App`` and feed its
engine. New roles are added to ``role_flows`` below.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime

import httpx
from flows.coordinator import IspCoordinator
from flows.engine import Engine, RoleFlows
from flows.identity import target_key
from flows.staff import staff_flows
from flows.subscriber import subscriber_flows
from flows.technician import technician_flows

from bot import metrics
from bot.isp import IspClient, IspSettings
from bot.settings import BotSettings
from bot.store import Database, Role
from bot.store.migrate import ensure_current


def role_flows() -> dict[Role, RoleFlows]:
    return {Role.SUBSCRIBER: subscriber_flows(), Role.TECHNICIAN: technician_flows(), Role.STAFF: staff_flows()}


@dataclass
class App:
    database: Database
    client: IspClient
    coordinator: IspCoordinator
    engine: Engine
    settings: BotSettings
    owns_client: bool

    async def aclose(self) -> None:
        """Close what the app opened itself (the database belongs to whoever passed it in)."""
        if self.owns_client:
            await self.client.aclose()


async def build_app(
    database: Database, isp: IspClient | IspSettings, settings: BotSettings | None = None, *,
    http_transport: httpx.AsyncBaseTransport | None = None, wall_clock: Callable[[], datetime] | None = None,
) -> App:
    """The bot, ready to handle events. Raises ``DatabaseRevisionError`` (its message says how to fix
    it) on a database that is not at this code's migration head: the bot never writes to a schema it
    does not know."""
    await ensure_current(database)
    settings = settings or BotSettings()
    owns_client = not isinstance(isp, IspClient)
    client = isp if isinstance(isp, IspClient) else IspClient(isp, http_transport=http_transport)
    metrics.watch_isp(client)
    coordinator = IspCoordinator(client, zone=client.settings.zone, wall_clock=wall_clock)
    # The hashes naming people in link_attempts are keyed by the ISP key: every process of the bot,
    # and `ispbot locks`, has it; a stolen database alone does not.
    key = target_key(client.settings.key.get_secret_value())
    policy = replace(settings.policy(), link_target_key=key)
    engine = Engine(database, coordinator, role_flows(), policy=policy)
    return App(database, client, coordinator, engine, settings, owns_client)
