"""Telegram refuses connections for a while (nothing listens): every answer is kept and retried with
capped backoff, then delivered once Telegram is back, none lost and none twice. An answer still
undelivered past the horizon (``ISPBOT_TELEGRAM_RETRY_HOURS``) becomes a dead letter that
``ispbot undelivered`` lists and sends again. (The backoff cap and horizon are shortened here.)"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from bot.cli import build_parser
from bot.commands import undelivered as undelivered_cli
from bot.commands.support import run_action
from bot.sandbox import Sandbox
from bot.store.dead_letters import DeadLetters

from tests.store.dbtools import ScratchDatabase
from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import RunningBot, fast_sender_limits, running_bot

HELP = "Eu sou o assistente virtual do seu provedor"
CHATS = list(range(7901, 7921))
OUTAGE = 8.0  # seconds; with the backoff capped at half a second the old sender gave up within 2.5 s


def limits(**extra: Any) -> dict[str, Any]:
    return {**fast_sender_limits(), "network_backoff_cap": 0.5, **extra}


async def post_all(bot: RunningBot, first_id: int) -> list[int]:
    ids = [first_id + n for n in range(len(CHATS))]
    for update_id, chat_id in zip(ids, CHATS, strict=True):
        assert (await bot.post({"update_id": update_id, **tg.text_message(chat_id, "/ajuda")})).status_code == 200
    return ids


def answers(bot: RunningBot, chat_id: int) -> list[bool]:
    return [HELP in (sent.text or "") for sent in bot.api.sent(chat_id)]


async def test_every_answer_is_delivered_once_after_telegram_refused_connections(
    database: ScratchDatabase, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox, mode="webhook", sender_limits=limits()) as bot:
        async with bot.api.unreachable():
            ids = await post_all(bot, 6001)
            await asyncio.sleep(OUTAGE)
            assert all(bot.api.sent(chat) == [] for chat in CHATS)
        await bot.handled_all(ids, within=20)
        for chat in CHATS:
            assert answers(bot, chat) == answers(bot, CHATS[0]) and answers(bot, chat)[0]  # all there, none twice
        async with database.session() as session:
            assert await DeadLetters().all(session) == []



async def ispbot(*argv: str) -> int:
    return await run_action(undelivered_cli.PROG, build_parser().parse_args(list(argv)))


async def test_past_the_horizon_answers_are_dead_letters_listed_and_sent_again(
    on: ScratchDatabase, sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    async with running_bot(on, sandbox, mode="webhook", sender_limits=limits(network_horizon=1.0)) as bot:
        monkeypatch.setenv("ISPBOT_TELEGRAM_TOKEN", bot.api.token)
        monkeypatch.setenv("ISPBOT_TELEGRAM_API_URL", bot.api.base_url)
        async with bot.api.unreachable():
            ids = await post_all(bot, 6101)
            await bot.handled_all(ids, within=20)  # given up: the chats went on
            async with on.session() as session:
                letters = await DeadLetters().all(session)
            assert sorted({letter.chat_id for letter in letters}) == CHATS
            assert await ispbot("undelivered", "resend") == 3  # still unreachable: all kept
            assert "could not be reached" in capsys.readouterr().err

        assert await ispbot("undelivered", "list") == 0
        listed = capsys.readouterr().out
        assert f"{len(letters)} dead letters" in listed and str(CHATS[0]) in listed
        assert HELP not in listed  # never what the answer says
        assert all(bot.api.sent(chat) == [] for chat in CHATS)

        assert await ispbot("undelivered", "resend") == 0
        assert f"{len(letters)} sent" in capsys.readouterr().out
        for chat in CHATS:
            assert answers(bot, chat) == answers(bot, CHATS[0]) and answers(bot, chat)[0]
        assert await ispbot("undelivered", "list") == 0
        assert "No dead letters" in capsys.readouterr().out
