"""Flows walked on WhatsApp through the webhook, the processor and the fake Cloud API."""

from __future__ import annotations

import pytest
from bot.sandbox import DEMO_IDENTITIES, Sandbox
from bot.store import Database

from tests.whatsapp.harness import MARIA_WA_ID, running_whatsapp

pytestmark = pytest.mark.asyncio


async def test_a_subscriber_links_by_tax_id_with_the_number_whatsapp_vouches_for(
    database: Database, sandbox: Sandbox,
) -> None:
    async with running_whatsapp(database, sandbox) as bot:
        chat = bot.chat(MARIA_WA_ID)
        await chat.say("oi")
        assert "titular" in chat.text
        await chat.tap("CPF/CNPJ")
        await chat.say(DEMO_IDENTITIES.customer_cpf)
        assert "cadastro confirmado" in chat.text.lower(), chat.text
