"""Files people send, fetched from Telegram (getFile, then the download) only when a flow needs them.

The bytes are returned to the flow and nothing else: never logged, never written anywhere.
"""

from __future__ import annotations

from flows.files import FileTooLarge, FileUnavailable
from telegram.error import NetworkError, TelegramError

from telegram import Bot


class TelegramFiles:
    def __init__(self, bot: Bot) -> None:
        self.bot = bot

    async def fetch(self, ref: str, *, limit: int) -> bytes:
        try:
            file = await self.bot.get_file(ref)
            if file.file_size is not None and file.file_size > limit:
                raise FileTooLarge(ref)
            data = bytes(await file.download_as_bytearray())
        except NetworkError:
            raise  # the engine says so and asks again; the person need not send it again
        except TelegramError as exc:  # gone, or too big for bots to fetch
            raise FileUnavailable(type(exc).__name__) from None
        if len(data) > limit:
            raise FileTooLarge(ref)
        return data
