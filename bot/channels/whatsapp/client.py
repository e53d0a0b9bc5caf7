"""The Cloud API over httpx: send a message, upload and download media, read the number's record.

Errors come back as ``CloudApiError`` with Meta's ``code`` (190 token, 130429 throughput, 131056 per
recipient, 131047 outside the 24-hour window...) and what it means for the sender (``meaning``).
Only an answer in the Graph API's JSON is Meta's: a page with status 200 (a proxy, a captive portal),
a truncated body, a proxy's 4xx or 5xx, or a success that names no message is ``UnreadableAnswer``,
an ``httpx.TransportError``, so it is tried again as an unreachable network is, never taken as Meta's
refusal of the message. The token travels in the ``Authorization`` header only, never in a URL or a
log line.
"""

from __future__ import annotations

from typing import Any

import httpx

TIMEOUT = httpx.Timeout(20.0, connect=5.0)
# Meta's codes, as the sender treats them.
TOKEN_CODES = frozenset({190})  # expired, revoked or wrong token
THROTTLED_CODES = frozenset({4, 80007, 130429, 131048})  # the number's or the app's rate: wait, send again
PAIR_CODES = frozenset({131056})  # too many to one person: wait longer for that person only
WINDOW_CODES = frozenset({131047})  # more than 24 hours since the person last wrote: a template only
TRANSIENT_CODES = frozenset({1, 2, 131000, 131016, 133004})  # Meta's own trouble: try again


class CloudApiError(Exception):
    def __init__(self, status: int, code: int | None, message: str, details: str = "") -> None:
        super().__init__(f"WhatsApp refused the request ({status}, code {code}): {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details

    @property
    def meaning(self) -> str:
        """token, throttled, pair, window, transient or refused (a request that will never pass)."""
        code = self.code
        if code in TOKEN_CODES or self.status == 401:
            return "token"
        if code in THROTTLED_CODES or self.status == 429:
            return "throttled"
        if code in PAIR_CODES:
            return "pair"
        if code in WINDOW_CODES:
            return "window"
        if code in TRANSIENT_CODES or self.status >= 500:
            return "transient"
        return "refused"

    @property
    def reason(self) -> str:
        """For a dead letter and the log: Meta's code and words, never the request."""
        return f"code {self.code}: {self.message}"[:200]


NOT_THE_GRAPH_API = "not the Graph API's JSON (a proxy's or portal's page, or a truncated body)"


class UnreadableAnswer(httpx.TransportError):
    """An answer that is not the Graph API's: nothing says Meta saw the request, let alone refused it."""

    def __init__(self, status: int, reason: str, what: str = NOT_THE_GRAPH_API) -> None:
        super().__init__(f"{reason or 'status'} ({status}), {what}")


def describe(exc: httpx.TransportError) -> str:
    """A transport failure for a log line: what answered instead of the Graph API, or the failure's kind."""
    return f"it answered {exc}" if isinstance(exc, UnreadableAnswer) else type(exc).__name__


class MediaTooLarge(Exception):
    pass


class CloudApi:
    def __init__(
        self, graph_root: str, token: str, phone_number_id: str, *,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.root = graph_root
        self.phone_number_id = phone_number_id
        self._http = httpx.AsyncClient(
            headers={"Authorization": f"Bearer {token}"}, timeout=TIMEOUT, transport=transport,
            limits=httpx.Limits(max_connections=64, max_keepalive_connections=32),
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def send(self, to: str, body: dict[str, Any]) -> str:
        """Send a message to a wa_id (digits) or a user id (``BR.…``); its ``wamid``."""
        recipient = {"recipient": to} if "." in to else {"to": to}
        request = {"messaging_product": "whatsapp", "recipient_type": "individual", **recipient, **body}
        answer = await self._json("POST", f"{self.root}/{self.phone_number_id}/messages", json=request)
        messages = answer.get("messages")
        if not isinstance(messages, list) or not messages or not isinstance(messages[0], dict):
            raise UnreadableAnswer(200, "OK", "an answer that names no message sent")
        return str(messages[0].get("id", ""))

    async def mark_read(self, wamid: str) -> None:
        request = {"messaging_product": "whatsapp", "status": "read", "message_id": wamid}
        await self._json("POST", f"{self.root}/{self.phone_number_id}/messages", json=request)

    async def upload(self, data: bytes, mime: str, filename: str) -> str:
        """Upload media for a message; its media id."""
        answer = await self._json(
            "POST", f"{self.root}/{self.phone_number_id}/media",
            data={"messaging_product": "whatsapp", "type": mime}, files={"file": (filename, data, mime)},
        )
        return str(answer["id"])

    async def download(self, media_id: str, *, limit: int) -> bytes:
        """A person's media by its id (its URL first, then the bytes, both with the token);
        ``MediaTooLarge`` past ``limit`` bytes, before or while downloading."""
        record = await self._json("GET", f"{self.root}/{media_id}")
        size = record.get("file_size")
        if isinstance(size, int) and size > limit:
            raise MediaTooLarge(media_id)
        url = record.get("url")
        if not isinstance(url, str):
            raise CloudApiError(200, None, "the media record has no URL")
        data = bytearray()
        async with self._http.stream("GET", url) as response:
            if response.status_code != 200:
                raise CloudApiError(response.status_code, None, "the media could not be downloaded")
            async for chunk in response.aiter_bytes():
                data += chunk
                if len(data) > limit:
                    raise MediaTooLarge(media_id)
        return bytes(data)

    async def phone_number(self) -> dict[str, Any]:
        """The number's record (``display_phone_number``, ``verified_name``...): the doctor's check."""
        return await self._json("GET", f"{self.root}/{self.phone_number_id}")

    async def _json(self, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        response = await self._http.request(method, url, **kwargs)
        try:
            answer = response.json()
        except ValueError:  # a page, or a body cut short (httpx's stream errors are TransportErrors already)
            answer = None
        found = answer.get("error") if isinstance(answer, dict) else None
        if not isinstance(answer, dict) or (response.status_code >= 400 and not isinstance(found, dict)):
            raise UnreadableAnswer(response.status_code, response.reason_phrase)
        if response.status_code >= 400 or "error" in answer:
            error: dict[str, Any] = found if isinstance(found, dict) else {}
            extra = error.get("error_data")
            data: dict[str, Any] = extra if isinstance(extra, dict) else {}
            code = error.get("code") if isinstance(error.get("code"), int) else None
            raise CloudApiError(response.status_code, code, str(error.get("message") or response.reason_phrase),
                                str(data.get("details", "")))
        return answer
