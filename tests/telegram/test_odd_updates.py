"""An update the routing code cannot make sense of, whatever it raises, is set aside at once (failed,
logged by id) and its chat goes on: it is not claimed again and again ahead of the chat's later updates."""

from __future__ import annotations

import logging

import pytest
from bot.sandbox import Sandbox
from bot.store import Database, InboxState

from tests.telegram import fake_bot_api as tg
from tests.telegram.harness import running_bot

HELP = "Eu sou o assistente virtual do seu provedor"


@pytest.mark.parametrize("odd", [123, ["a"], {"text": "oi"}, True])
async def test_a_text_that_is_not_a_string_is_set_aside_and_the_chat_is_answered_next(
    database: Database, sandbox: Sandbox, odd: object, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO)
    async with running_bot(database, sandbox) as bot:
        update = {**tg.text_message(7501, "x"), "update_id": 5001}
        update["message"]["text"] = odd
        bad = bot.api.push_update(update)
        good = bot.api.push_update({**tg.text_message(7501, "/ajuda"), "update_id": 5002})

        await bot.handled_all([bad, good], within=10)

        row = await bot.inbox_row(bad)
        assert row is not None and row.state == InboxState.FAILED.value and row.attempts == 1
        assert "routed" in (row.last_error or "")
        assert HELP in (bot.api.sent(7501)[0].text or "")  # the first answer is the next update's
    lines = [r for r in caplog.records if getattr(r, "update_id", None) == bad]
    assert [(r.outcome, r.error) for r in lines] == [("skipped", "AttributeError")]  # type: ignore[attr-defined]
    assert [r.levelname for r in lines] == ["WARNING"]  # set aside on purpose: no error of the bot's
    assert all(repr(odd) not in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("coordinates", [("NaN", "NaN"), ("Infinity", 1.0), (91.0, 0.0)])
async def test_a_location_with_impossible_coordinates_is_answered_once_and_never_stays_pending(
    database: Database, sandbox: Sandbox, coordinates: tuple[object, object],
) -> None:
    async with running_bot(database, sandbox) as bot:
        update = {**tg.text_message(7502, "x"), "update_id": 5101}
        del update["message"]["text"]
        update["message"]["location"] = {"latitude": coordinates[0], "longitude": coordinates[1]}
        odd = bot.api.push_update(update)
        good = bot.api.push_update({**tg.text_message(7502, "/ajuda"), "update_id": 5102})
        await bot.handled_all([odd, good], within=10)
        row = await bot.inbox_row(odd)
        assert row is not None and row.state != InboxState.PENDING.value and row.attempts == 1
        assert any(HELP in (sent.text or "") for sent in bot.api.sent(7502))


async def test_a_chat_id_beyond_64_bits_is_set_aside_once_on_either_database(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_bot(database, sandbox) as bot:
        huge = 2**63 + 5
        update = tg.text_message(7503, "oi")
        update["message"]["chat"]["id"] = huge
        update["message"]["from"]["id"] = huge
        odd = bot.api.push_update({**update, "update_id": 5201})
        good = bot.api.push_update({**tg.text_message(7503, "/ajuda"), "update_id": 5202})
        await bot.handled_all([odd, good], within=10)
        row = await bot.inbox_row(odd)
        assert row is not None and row.state == InboxState.FAILED.value and row.attempts == 1
        assert any(HELP in (sent.text or "") for sent in bot.api.sent(7503))


@pytest.mark.parametrize("kind", [
    {"dice": {"emoji": "🎲", "value": 4}},
    {"poll": {"id": "1", "question": "?", "options": [], "total_voter_count": 0, "is_closed": False,
              "is_anonymous": True, "type": "regular", "allows_multiple_answers": False, "allows_revoting": False,
              "members_only": False}},
])
async def test_a_message_the_bot_cannot_read_is_answered_with_what_it_reads(
    database: Database, sandbox: Sandbox, kind: dict[str, object],
) -> None:
    async with running_bot(database, sandbox) as bot:
        update = {**tg.text_message(7504, "x"), "update_id": 5301}
        del update["message"]["text"]
        update["message"].update(kind)
        odd = bot.api.push_update(update)
        await bot.handled_all([odd], within=10)
        row = await bot.inbox_row(odd)
        assert row is not None and row.state != InboxState.PENDING.value
        assert any("Não consigo ler esse tipo de mensagem" in (sent.text or "") for sent in bot.api.sent(7504))
