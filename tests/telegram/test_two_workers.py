"""Two workers of one bot on one database (as two processes behind a reverse proxy): a chat's
answers keep the order of its updates even when its updates are processed by different workers.
(``test_several_processes`` runs two real processes; here each step is held in place.)"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from bot.sandbox import Sandbox
from bot.store import InboxState
from bot.store.models import InboxRow

from tests.store.dbtools import ScratchDatabase
from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, running_bot

CHAT = 7801
LANGUAGE = "Em qual idioma"  # what "/idioma" answers
MENU = "Olá"  # what "/menu" answers (the welcome, to a chat not linked yet)


def claims_allowed(bot: RunningBot, monkeypatch: pytest.MonkeyPatch, *, now: bool) -> asyncio.Event:
    """While the event is clear the worker claims nothing from the inbox (but keeps recording what
    Telegram accepted); set it to let the worker claim again."""
    processor = bot.processor
    claim = processor.step
    allowed = asyncio.Event()
    if now:
        allowed.set()

    async def step() -> int:
        return await claim() if allowed.is_set() else 0

    monkeypatch.setattr(processor, "step", step)
    return allowed


async def processed(bot: RunningBot, update_id: int) -> InboxRow:
    """Until the update was processed (its answer may not be sent yet); its row."""
    async with asyncio.timeout(10):
        while True:
            row = await bot.inbox_row(update_id)
            if row is not None and row.state == InboxState.DONE.value:
                return row
            await asyncio.sleep(0.01)


async def test_a_chats_next_update_on_another_worker_is_answered_after_the_answer_telegram_held_back(
    database: ScratchDatabase, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Worker A answers the chat's first update, but Telegram holds that answer back (429, retry after
    2 seconds); the chat's next update reaches worker B, which must not answer before A's answer went
    out: the person would read the answers in the wrong order."""
    other_process = database.reopen()
    try:
        async with running_bot(database, sandbox, mode="webhook") as a, \
                running_bot(other_process, sandbox, mode="webhook", api=a.api) as b:
            a_claims = claims_allowed(a, monkeypatch, now=True)
            b_claims = claims_allowed(b, monkeypatch, now=False)
            a.api.fail_next("sendMessage", 429, retry_after=2, chat_id=CHAT)

            first: dict[str, Any] = {"update_id": 500, **tg.text_message(CHAT, "/idioma")}
            assert (await a.post(first)).status_code == 200
            row = await processed(a, 500)
            assert row.answer is not None and a.api.sent(CHAT) == []  # processed; its answer held back
            a_claims.clear()
            b_claims.set()
            assert (await b.post({"update_id": 501, **tg.text_message(CHAT, "/menu")})).status_code == 200

            await b.handled(501, within=15)
            await a.handled(500, within=15)
            answers = [sent.text or "" for sent in a.api.sent(CHAT)]
            assert len(answers) == 2
            assert LANGUAGE in answers[0] and MENU in answers[1]
    finally:
        await other_process.dispose()
