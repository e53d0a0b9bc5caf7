"""Long polling that loses nothing: a batch is in the inbox before the next ``getUpdates`` confirms it.

python-telegram-bot's updater confirms an offset as soon as it has fetched the batch and queues
ahead without bound; here the offset moves only after the batch is stored, and fetching pauses
while the inbox holds ``max_backlog`` unprocessed updates. Updates are fetched as raw JSON and
parsed one by one later, so one Telegram cannot describe to python-telegram-bot (its own sample
updates lack ``is_bot``) is skipped instead of making every ``getUpdates`` fail on the same batch.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from telegram.error import Conflict, Forbidden, InvalidToken, NetworkError, RetryAfter, TelegramError

from bot.channels.telegram import raw
from bot.channels.telegram.failures import describe
from bot.channels.telegram.intake import Intake
from bot.channels.telegram.updates import update_id_of
from telegram import Bot

log = logging.getLogger(__name__)

ALLOWED_UPDATES = ["message", "edited_message", "callback_query", "my_chat_member"]
# Seconds between tries while the database refuses the batch: soon after it is back, the bot goes on.
STORE_RETRY_CAP = 5.0
# Unprocessed updates in the inbox at which fetching pauses (each chat's own share is the intake's).
MAX_BACKLOG = 1000


class FatalPollingError(Exception):
    """Polling cannot go on until the operator fixes something (the message says what)."""


class Poller:
    def __init__(
        self, bot: Bot, intake: Intake, *, timeout: int = 25, limit: int = 100, max_backlog: int = MAX_BACKLOG,
        backlog_wait: Callable[[float], Awaitable[None]] | None = None,
    ) -> None:
        self.bot = bot
        self.intake = intake
        self.timeout = timeout
        self.limit = limit
        self.max_backlog = max_backlog
        self._backlog_wait = backlog_wait or asyncio.sleep
        self.offset: int | None = None

    async def run(self, stop: asyncio.Event) -> None:
        failures = 0
        while not stop.is_set():
            try:
                if await self._backlog() >= self.max_backlog:
                    await self._backlog_wait(1.0)
                    continue
                await self.poll_once()
                failures = 0
            except (InvalidToken, Forbidden) as exc:
                refused = f"Telegram refused the bot token ({exc.message}): check ISPBOT_TELEGRAM_TOKEN"
                raise FatalPollingError(refused) from None
            except Conflict:
                failures += 1
                log.error("another process is polling with this token, or a webhook is set: "
                          "run one polling process per bot (or use ISPBOT_MODE=webhook)")
                await _pause(stop, min(2.0 ** failures, 60.0))
            except RetryAfter as exc:
                await _pause(stop, raw.retry_after_seconds(exc))
            except (NetworkError, TelegramError) as exc:
                failures += 1
                log.warning("getUpdates failed (%s); trying again", describe(exc))
                await _pause(stop, min(2.0 ** failures, 30.0))
            except Exception as exc:  # the database, most likely: nothing was confirmed, so nothing is lost
                failures += 1
                log.error("could not store updates (%s): is the database up? trying again", type(exc).__name__)
                await _pause(stop, min(2.0 ** failures, STORE_RETRY_CAP))

    async def poll_once(self) -> int:
        """One ``getUpdates``: store what came, move the offset past it; how many came."""
        params: dict[str, object] = {"timeout": self.timeout, "limit": self.limit, "allowed_updates": ALLOWED_UPDATES}
        if self.offset is not None:
            params["offset"] = self.offset
        result = await raw.call(self.bot, "getUpdates", params, read_timeout=self.timeout + 10)
        batch = result if isinstance(result, list) else []
        if not batch:
            return 0
        await self.intake.store(batch, "polling")
        ids = [i for i in map(update_id_of, batch) if i is not None]
        if ids:
            self.offset = max(ids) + 1
        return len(batch)

    async def _backlog(self) -> int:
        async with self.intake.database.session() as session:
            return await self.intake.inbox.pending_count(session)


async def _pause(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)

