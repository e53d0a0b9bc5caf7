"""Chatwoot's application API, the calls the desk makes: plain httpx, not the ``chatwoot-sdk`` package.
httpx is the bot's HTTP client already (one pool, timeouts, transports the tests swap); the SDK (0.2.0)
is generated code with its own client and none of what matters here: telling a write that may have
landed from one that did not, and checking before trying again.

Writes are not retried blindly. A message carries a ``source_id`` (``ispbot:<key>``, the caller's
key for it): after a timeout or a 5xx the conversation's latest messages are read back and the post is
repeated only when the key is not there. A contact is found by its ``identifier`` (unique in the
account) before it is created, a conversation by its contact's conversations in the inbox. Status,
assignment and attributes set a value, so they are simply tried again. ``ChatwootError.later`` tells
whether a call that still failed may succeed later (Chatwoot down, a wrong token being fixed) or never
will (Chatwoot refused what was sent). The token and personal data never reach an error's text.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from bot.desks.chatwoot.settings import ChatwootSettings

log = logging.getLogger(__name__)

SOURCE_PREFIX = "ispbot:"  # the source_id of what the bot posts: its own echoes are known by it
ATTEMPTS = 3  # tries of one call before it is given back to the caller (a durable job retries later)
PAUSE = 0.5  # seconds before the second try, doubling
LOOK_BACK_PAGES = 3  # pages of 20 messages searched for a post that may have landed
STATUSES = ("open", "resolved", "pending", "snoozed")


class ChatwootError(Exception):
    """A call that failed for good this time. ``later``: trying again later may succeed."""

    def __init__(self, what: str, *, status: int | None = None, later: bool = True) -> None:
        super().__init__(what)
        self.status = status
        self.later = later


class ChatwootGone(ChatwootError):
    """What the call names does not exist (a conversation an administrator deleted)."""

    def __init__(self, what: str) -> None:
        super().__init__(what, status=404, later=False)


class _Unsure(Exception):
    """The request may have been carried out (a timeout, a 5xx): check before sending it again."""


@dataclass(frozen=True, slots=True)
class Contact:
    id: int
    source_id: str  # its contact inbox in the bot's inbox


@dataclass(frozen=True, slots=True)
class File:
    """A file to attach to a message."""

    name: str
    data: bytes = field(repr=False)
    mime: str


@dataclass(frozen=True, slots=True)
class Conversation:
    id: int
    status: str


class ChatwootClient:
    def __init__(
        self, settings: ChatwootSettings, *, transport: httpx.AsyncBaseTransport | None = None,
        attempts: int = ATTEMPTS, pause: float = PAUSE, sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if settings.missing():
            raise ValueError("Chatwoot is not configured: set " + ", ".join(settings.missing()))
        assert settings.url and settings.account_id and settings.inbox_id and settings.api_token  # noqa: S101
        self.account = f"/api/v1/accounts/{settings.account_id}"
        self.inbox_id = settings.inbox_id
        self.attempts = attempts
        self.pause = pause
        self.sleep = sleep
        self.http = httpx.AsyncClient(
            base_url=settings.url, transport=transport, timeout=settings.timeout,
            headers={"api_access_token": settings.api_token.get_secret_value(), "Accept": "application/json"},
        )

    async def aclose(self) -> None:
        await self.http.aclose()

    # ---- reads ---------------------------------------------------------------------------------------
    async def profile(self) -> dict[str, Any]:
        """The user the token belongs to (``id``, ``name``, its ``accounts``)."""
        return await self._retried("GET", "/api/v1/profile")

    async def inbox(self) -> dict[str, Any]:
        """The configured inbox (``channel_type`` is ``Channel::Api`` for the desk's)."""
        return await self._retried("GET", f"{self.account}/inboxes/{self.inbox_id}")

    async def team(self, team_id: int) -> dict[str, Any]:
        return await self._retried("GET", f"{self.account}/teams/{team_id}")

    async def conversation(self, conversation_id: int) -> Conversation:
        found = await self.conversation_json(conversation_id)
        return Conversation(int(found["id"]), str(found.get("status")))

    async def conversation_json(self, conversation_id: int) -> dict[str, Any]:
        """The conversation as Chatwoot shows it (its status, inbox and custom attributes)."""
        return await self._retried("GET", f"{self.account}/conversations/{conversation_id}")

    # ---- contacts and conversations -------------------------------------------------------------------
    async def contact(self, identifier: str, name: str, attributes: dict[str, Any]) -> Contact:
        """The contact with ``identifier`` (created, or its name and attributes brought up to date),
        with its contact inbox in the bot's inbox (``source_id``: the identifier)."""
        found = await self._find_contact(identifier)
        if found is None:
            body = {"name": name, "identifier": identifier, "custom_attributes": attributes}
            try:
                found = (await self._send("POST", f"{self.account}/contacts", body))["payload"]["contact"]
            except (_Unsure, ChatwootError) as exc:
                if isinstance(exc, ChatwootError) and exc.status != 422:
                    raise  # 422: created meanwhile by another process (the identifier is taken)
                found = await self._find_contact(identifier)
                if found is None:
                    raise ChatwootError("Chatwoot did not confirm a new contact; it will be tried again") from None
        elif found.get("name") != name or any(found.get("custom_attributes", {}).get(k) != v
                                               for k, v in attributes.items()):
            await self._retried("PUT", f"{self.account}/contacts/{found['id']}",
                                {"name": name, "custom_attributes": attributes})
        contact_id = int(found["id"])
        # Found or made by its source_id: the same call again keeps one contact inbox.
        box = await self._retried("POST", f"{self.account}/contacts/{contact_id}/contact_inboxes",
                                  {"inbox_id": self.inbox_id, "source_id": identifier})
        return Contact(contact_id, str(box.get("source_id") or identifier))

    async def _find_contact(self, identifier: str) -> dict[str, Any] | None:
        found = await self._retried("GET", f"{self.account}/contacts/search", params={"q": identifier})
        return next((c for c in found.get("payload", []) if c.get("identifier") == identifier), None)

    async def open_conversation(self, contact: Contact, *, status: str, attributes: dict[str, Any]) -> Conversation:
        """The contact's conversation in the inbox (the newest), or a new one with ``status``."""
        _status(status)
        for _ in range(self.attempts):
            found = await self._retried("GET", f"{self.account}/contacts/{contact.id}/conversations")
            mine = [c for c in found.get("payload", []) if c.get("inbox_id") == self.inbox_id]
            if mine:
                newest = max(mine, key=lambda c: int(c["id"]))
                return Conversation(int(newest["id"]), str(newest.get("status")))
            body = {"source_id": contact.source_id, "inbox_id": self.inbox_id, "contact_id": contact.id,
                    "status": status, "custom_attributes": attributes}
            try:
                made = await self._send("POST", f"{self.account}/conversations", body)
            except _Unsure:
                continue  # look again: it may exist now
            return Conversation(int(made["id"]), str(made.get("status", status)))
        raise ChatwootError("Chatwoot did not confirm a new conversation; it will be tried again")

    # ---- writes that set a value ------------------------------------------------------------------------
    async def set_status(self, conversation_id: int, status: str) -> None:
        """``open`` (staff's), ``pending`` (the bot's), ``resolved``; setting it again changes nothing."""
        await self._retried("POST", f"{self.account}/conversations/{conversation_id}/toggle_status",
                            {"status": _status(status)})

    async def assign_team(self, conversation_id: int, team_id: int) -> None:
        await self._retried("POST", f"{self.account}/conversations/{conversation_id}/assignments",
                            {"team_id": team_id})

    async def set_attributes(self, conversation_id: int, attributes: dict[str, Any]) -> None:
        await self._retried("POST", f"{self.account}/conversations/{conversation_id}/custom_attributes",
                            {"custom_attributes": attributes})

    # ---- messages ----------------------------------------------------------------------------------------
    async def post(self, conversation_id: int, content: str, *, key: str, incoming: bool = False,
                   private: bool = False, again: bool = False, files: Sequence[File] = ()) -> int:
        """Post a message once (its id): ``incoming`` is the subscriber's, else the bot's or, with
        ``private``, a note only agents see. ``key`` names it for the caller; ``again``: an earlier
        call with this key may have landed it, so look before posting. ``files`` go as its
        attachments (``multipart/form-data``, ``attachments[]``, as Chatwoot's own screens send them)."""
        source_id = SOURCE_PREFIX + key
        body = {"content": content, "message_type": "incoming" if incoming else "outgoing", "private": private,
                "source_id": source_id}
        path = f"{self.account}/conversations/{conversation_id}/messages"
        if again and (landed := await self._find_message(path, source_id)) is not None:
            return landed
        for attempt in range(self.attempts):
            try:
                return int((await self._send("POST", path, body, files=files))["id"])
            except _Unsure:
                landed = await self._find_message(path, source_id)
                if landed is not None:
                    return landed
                log.info("chatwoot: a message to conversation %d did not land; posting it again", conversation_id)
            if attempt + 1 < self.attempts:
                await self.sleep(self.pause * 2**attempt)
        raise ChatwootError(f"Chatwoot did not take a message to conversation {conversation_id}; it stays queued")

    async def messages_after(self, conversation_id: int, after: int) -> list[dict[str, Any]]:
        """The conversation's messages with an id above ``after``, oldest first (Chatwoot gives at most
        100 a call: ``MessageFinder``'s ``after``)."""
        page = await self._retried("GET", f"{self.account}/conversations/{conversation_id}/messages",
                                   params={"after": after})
        found = [m for m in page.get("payload", []) if isinstance(m, dict) and isinstance(m.get("id"), int)]
        return sorted(found, key=lambda m: int(m["id"]))

    async def messages_before(self, conversation_id: int, before: int | None = None) -> list[dict[str, Any]]:
        """The conversation's 20 messages before ``before`` (None: its latest), oldest first."""
        page = await self._retried("GET", f"{self.account}/conversations/{conversation_id}/messages",
                                   params={"before": before} if before is not None else None)
        found = [m for m in page.get("payload", []) if isinstance(m, dict) and isinstance(m.get("id"), int)]
        return sorted(found, key=lambda m: int(m["id"]))

    async def conversations(self, status: str, page: int = 1) -> list[dict[str, Any]]:
        """One page (25) of the inbox's conversations with ``status``, as agents list them."""
        found = await self._retried("GET", f"{self.account}/conversations", params={
            "inbox_id": self.inbox_id, "status": _status(status), "assignee_type": "all", "page": page})
        data = found.get("data")
        payload = data.get("payload") if isinstance(data, dict) else None
        return [c for c in payload or [] if isinstance(c, dict)]

    async def _find_message(self, path: str, source_id: str) -> int | None:
        before: int | None = None
        for _ in range(LOOK_BACK_PAGES):
            page = await self._retried("GET", path, params={"before": before} if before else None)
            messages = page.get("payload", [])
            for message in messages:
                if message.get("source_id") == source_id:
                    return int(message["id"])
            if len(messages) < 20:
                return None
            before = min(int(m["id"]) for m in messages)
        return None

    # ---- HTTP --------------------------------------------------------------------------------------------
    async def _retried(self, method: str, path: str, body: dict[str, Any] | None = None,
                       params: dict[str, Any] | None = None) -> dict[str, Any]:
        """A call whose repetition changes nothing: tried ``attempts`` times."""
        for attempt in range(self.attempts):
            try:
                return await self._send(method, path, body, params)
            except _Unsure as exc:
                if attempt + 1 == self.attempts:
                    raise ChatwootError(f"Chatwoot did not answer {method} {_shape(path)} ({exc})") from None
                await self.sleep(self.pause * 2**attempt)
        raise AssertionError("unreachable")

    async def _send(self, method: str, path: str, body: dict[str, Any] | None = None,
                    params: dict[str, Any] | None = None, files: Sequence[File] = ()) -> dict[str, Any]:
        try:
            if files:  # a form: its fields as text, each file as attachments[]
                form = {key: str(value).lower() if isinstance(value, bool) else str(value)
                        for key, value in (body or {}).items()}
                parts = [("attachments[]", (file.name, file.data, file.mime)) for file in files]
                response = await self.http.request(method, path, data=form, files=parts, params=params)
            else:
                response = await self.http.request(method, path, json=body, params=params)
        except httpx.ConnectError as exc:
            raise _Unsure(f"cannot connect: {type(exc).__name__}") from None  # never sent: safe to repeat
        except httpx.HTTPError as exc:
            raise _Unsure(type(exc).__name__) from None
        status = response.status_code
        if status >= 500 or status == 429:
            raise _Unsure(f"HTTP {status}")
        what = f"Chatwoot answered {status} to {method} {_shape(path)}"
        if status in (401, 403):
            raise ChatwootError(f"{what}: check ISPBOT_CHATWOOT_API_TOKEN, that its user is an agent of the inbox "
                                "and the account, and that a proxy in front of Chatwoot passes the api_access_token "
                                "header (nginx: underscores_in_headers on)", status=status)
        if status == 404:
            raise ChatwootGone(f"{what}: not found (check ISPBOT_CHATWOOT_ACCOUNT_ID and ISPBOT_CHATWOOT_INBOX_ID)")
        if status >= 400:
            raise ChatwootError(f"{what}: {_reason(response)}", status=status, later=False)
        try:
            answer = response.json()
        except ValueError:
            raise ChatwootError(f"{what}: not JSON; is ISPBOT_CHATWOOT_URL the root of Chatwoot?") from None
        if not isinstance(answer, dict):
            raise ChatwootError(f"{what}: not a JSON object")
        return answer


def _status(status: str) -> str:
    if status not in STATUSES:
        raise ValueError(f"not a Chatwoot conversation status: {status!r}")
    return status


def _shape(path: str) -> str:
    """The path without the account's prefix: what was called, for a log line."""
    return path.split("/accounts/", 1)[-1].split("/", 1)[-1] if "/accounts/" in path else path


def _reason(response: httpx.Response) -> str:
    """Chatwoot's own words for a refusal (``message``, ``error`` or ``errors``), short."""
    try:
        body = response.json()
    except ValueError:
        return "no reason given"
    if isinstance(body, dict):
        for key in ("message", "error", "errors"):
            if body.get(key):
                return str(body[key])[:200]
    return "no reason given"
