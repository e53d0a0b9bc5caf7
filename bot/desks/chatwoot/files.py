"""Files agents attach in Chatwoot, fetched by the bot so the subscriber gets the file itself on
their channel, never a link to the staff's server.

A webhook's attachment names its file by ``data_url``: Active Storage's redirect to the blob
(``/rails/active_storage/blobs/redirect/<signed id>/<filename>``), which needs no API token (the
signed id is the key) and may lead to a storage service (S3, GCS) that must never see the token:
it is fetched with a client of its own, without it, following the redirect, and never past the
limit a flow asks for.
"""

from __future__ import annotations

import httpx
from flows.files import FileTooLarge, FileUnavailable

URL_SCHEMES = ("https://", "http://")


class ChatwootFiles:
    def __init__(self, timeout: float, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.timeout = timeout
        self.transport = transport

    async def fetch(self, ref: str, *, limit: int) -> bytes:
        if not ref.startswith(URL_SCHEMES):
            raise FileUnavailable("not a Chatwoot attachment's URL")
        async with httpx.AsyncClient(follow_redirects=True, timeout=self.timeout, transport=self.transport,
                                     max_redirects=5) as http, http.stream("GET", ref) as response:
            if response.status_code >= 500 or response.status_code == 429:
                raise httpx.RemoteProtocolError(f"Chatwoot's storage answered {response.status_code}")
            if response.status_code >= 400:
                raise FileUnavailable(f"Chatwoot's storage answered {response.status_code}")
            declared = response.headers.get("content-length", "")
            if declared.isdecimal() and int(declared) > limit:
                raise FileTooLarge(ref)
            data = bytearray()
            async for chunk in response.aiter_bytes():
                data += chunk
                if len(data) > limit:
                    raise FileTooLarge(ref)
            return bytes(data)
