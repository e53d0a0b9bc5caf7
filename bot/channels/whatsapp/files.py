"""Receipts people send on WhatsApp, downloaded through the media endpoint with the token only when
a flow needs them; the bytes go to the flow and nowhere else (never logged, never stored)."""

from __future__ import annotations

import httpx
from flows.files import FileTooLarge, FileUnavailable

from bot.channels.whatsapp.client import CloudApi, CloudApiError, MediaTooLarge
from bot.channels.whatsapp.updates import MEDIA_PREFIX


class WhatsAppFiles:
    def __init__(self, api: CloudApi, max_bytes: int) -> None:
        self.api = api
        self.max_bytes = max_bytes  # ISPBOT_WHATSAPP_MAX_MEDIA_MB, whatever larger limit a flow asks

    async def fetch(self, ref: str, *, limit: int) -> bytes:
        if not ref.startswith(MEDIA_PREFIX):
            raise FileUnavailable("not a WhatsApp media id")
        limit = min(limit, self.max_bytes)
        try:
            return await self.api.download(ref.removeprefix(MEDIA_PREFIX), limit=limit)
        except MediaTooLarge:
            raise FileTooLarge(ref) from None
        except httpx.TransportError:
            raise  # the engine says so and asks again; the person need not send it again
        except CloudApiError as exc:  # gone (media lives 30 days), or the token is refused
            raise FileUnavailable(f"code {exc.code}") from None
