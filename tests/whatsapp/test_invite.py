"""A technician joins on WhatsApp with the same single-use invite: ``ispbot invite technician LOGIN
--whatsapp-number N`` prints a wa.me link whose prefilled text, sent as it is, links that WhatsApp."""

from __future__ import annotations

import re
from urllib.parse import unquote

import pytest
from bot.commands import invites as invites_cli
from bot.sandbox import DEMO_IDENTITIES as D
from bot.sandbox import Sandbox

from tests.app.test_invites_cli import env, isp_url, ispbot, on  # noqa: F401 - fixtures
from tests.store.dbtools import ScratchDatabase
from tests.whatsapp.harness import running_whatsapp


async def test_the_wa_me_link_makes_the_sender_the_technician(
    on: ScratchDatabase, sandbox: Sandbox, capsys: pytest.CaptureFixture[str],  # noqa: F811
) -> None:
    assert await ispbot("invite", "technician", D.technician, "--whatsapp-number", "+55 (11) 94000-0000") == 0
    out = capsys.readouterr().out
    found = re.search(r"https://wa\.me/5511940000000\?text=(\S+)", out)
    assert found, out
    prefilled = unquote(found.group(1))
    assert re.fullmatch(r"/start [A-Za-z0-9_-]{22}", prefilled)
    async with running_whatsapp(on, sandbox) as bot:
        chat = bot.chat("5511977776666")
        await chat.say(prefilled)
        assert "tecnico.joao" in chat.text
        assert any("Chamado em mãos" in title for sent in chat.replies for _, title in sent.options())
        other = bot.chat("5511955554444")  # the link forwarded: single use, it makes nobody else one
        await other.say(prefilled)
        assert "tecnico.joao" not in other.text
        assert not any("Chamado em mãos" in title for sent in other.replies for _, title in sent.options())


async def test_a_malformed_number_is_refused(on: ScratchDatabase, capsys: pytest.CaptureFixture[str]) -> None:  # noqa: F811
    assert await ispbot("invite", "technician", D.technician, "--whatsapp-number", "11 9400") == 2
    assert "--whatsapp-number" in capsys.readouterr().err
    assert invites_cli.WHATSAPP_LINK.startswith("https://wa.me/")
