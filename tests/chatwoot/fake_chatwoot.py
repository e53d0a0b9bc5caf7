"""A fake Chatwoot for the tests, served over real HTTP on 127.0.0.1: the application API's endpoints
the bot uses, with Chatwoot's rules, and the webhooks an API-channel inbox posts.

    async with FakeChatwoot() as chatwoot:
        settings = chatwoot.settings()          # ISPBOT_CHATWOOT_* pointing here
        ...
        await chatwoot.agent_reply(conversation_id, "Olá, sou a Ana")   # posts a signed webhook

Rules kept as Chatwoot keeps them: every call needs the ``api_access_token`` header of a user of the
account (401 without, 404 for another account's inbox); a contact's ``identifier`` is unique in the
account (422); a conversation's status is one of open, resolved, pending and snoozed; messages are
kept in the order they were created, with ids growing across the installation; an incoming message
reopens a resolved conversation as ``open`` (an API inbox has no agent bot); a private note is a
message like the others, marked ``private``. Every message created (through the API or by an agent)
is posted to the inbox's webhook as ``message_created``, every status change as
``conversation_status_changed``, signed as Chatwoot 4.13+ signs them: ``X-Chatwoot-Signature:
sha256=<hex HMAC-SHA256 of "{timestamp}.{body}">``, ``X-Chatwoot-Timestamp``, ``X-Chatwoot-Delivery``.

Files as Chatwoot keeps them: a message is created as JSON or as ``multipart/form-data`` with its
files in ``attachments[]`` (the content may then be blank); each becomes an attachment whose
``file_type`` follows its content type (``image``, ``audio``, ``video``, else ``file``) and whose
``data_url`` is Active Storage's redirect to the blob (``/rails/active_storage/blobs/redirect/
<signed id>/<filename>``), fetched without the API token. An agent's message may carry files too
(``agent_reply(..., files=[...])``). The list of a conversation's messages reads as
``MessageFinder`` does: the latest 20, ``before`` an id (20), ``after`` an id (100, oldest first);
the inbox's conversations as ``ConversationFinder`` lists them (by status, 25 a page, in ``data``).

Faults on demand: ``fail(path, status)`` answers the next matching call with a 5xx, before or after
doing its work (``after=True``: the write landed, its answer was lost); ``slow(path, seconds)``
delays the next matching answer (the work done first, as a server that is slow to answer).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import itertools
import json
import re
import time
import uuid
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from types import TracebackType
from typing import Any

import httpx
import uvicorn
from bot.sandbox.server import PromptServer
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

Json = dict[str, Any]

TOKEN = "fake-chatwoot-token-of-the-ispbot-user"
WEBHOOK_SECRET = "fake-chatwoot-webhook-secret"
ACCOUNT_ID = 3
INBOX_ID = 7
TEAM_ID = 2
BOT_USER_ID = 11
AGENT_ID = 12
STATUSES = ("open", "resolved", "pending", "snoozed")
MESSAGE_TYPES = ("incoming", "outgoing", "activity", "template")


class _Refusal(Exception):
    def __init__(self, status: int, body: Json) -> None:
        super().__init__(body)
        self.status = status
        self.body = body


@dataclass
class Fault:
    path: str  # a regular expression searched in "METHOD /path"
    status: int = 500
    seconds: float = 0.0
    after: bool = False  # do the work, then fail (or be slow)
    count: int = 1


@dataclass
class Delivery:
    """One webhook the fake posted to the bot, and what the bot answered."""

    event: str
    payload: Json
    status: int | None
    headers: dict[str, str]


@dataclass
class Conversation:
    id: int
    contact_id: int
    source_id: str
    status: str
    custom_attributes: Json = field(default_factory=dict)
    team_id: int | None = None
    assignee_id: int | None = None
    messages: list[Json] = field(default_factory=list)
    last_activity_at: int = field(default_factory=lambda: int(time.time()))


class FakeChatwoot:
    def __init__(self, *, webhook_url: str | None = None, secret: str = WEBHOOK_SECRET) -> None:
        self.token = TOKEN
        self.secret = secret
        self.webhook_url = webhook_url  # where the inbox posts its webhooks (the bot's /chatwoot/webhook)
        self.users: dict[int, Json] = {
            BOT_USER_ID: {"id": BOT_USER_ID, "name": "ispbot", "email": "ispbot@example.com", "type": "user"},
            AGENT_ID: {"id": AGENT_ID, "name": "Ana", "email": "ana@example.com", "type": "user"},
        }
        self.inbox: Json = {"id": INBOX_ID, "name": "ispbot", "channel_type": "Channel::Api", "account_id": ACCOUNT_ID}
        self.other_inboxes: dict[int, Json] = {8: {"id": 8, "name": "site", "channel_type": "Channel::WebWidget"}}
        self.teams = {TEAM_ID: {"id": TEAM_ID, "name": "suporte"}}
        self.contacts: dict[int, Json] = {}
        self.contact_inboxes: dict[str, int] = {}  # source_id -> contact id
        self.conversations: dict[int, Conversation] = {}
        self.calls: list[str] = []  # "METHOD /path" of every authorised call, in order
        self.deliveries: list[Delivery] = []
        self.faults: list[Fault] = []
        self.blobs: dict[str, tuple[bytes, str, str]] = {}  # signed id: (bytes, content type, filename)
        self.blob_fetches: list[str] = []  # signed ids of the blobs fetched, in order
        self._ids = itertools.count(1001)  # message ids, across the installation
        self._contact_ids = itertools.count(501)
        self._conversation_ids = itertools.count(1)
        self._posting: set[asyncio.Task[None]] = set()
        self._webhooks = asyncio.Lock()  # one delivery at a time, in order, as a test reads them
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None
        self._port: int | None = None
        base = r"/api/v1/accounts/{account:int}"
        conversation = base + "/conversations/{conversation:int}"
        self.app = Starlette(routes=[
            Route("/api/v1/profile", self._profile),
            Route(base + "/inboxes/{inbox:int}", self._inbox),
            Route(base + "/teams/{team:int}", self._team),
            Route(base + "/contacts/search", self._search_contacts),
            Route(base + "/contacts", self._create_contact, methods=["POST"]),
            Route(base + "/contacts/{contact:int}", self._update_contact, methods=["PUT", "PATCH"]),
            Route(base + "/contacts/{contact:int}/contact_inboxes", self._create_contact_inbox, methods=["POST"]),
            Route(base + "/contacts/{contact:int}/conversations", self._contact_conversations),
            Route(base + "/conversations", self._create_conversation, methods=["POST"]),
            Route(base + "/conversations", self._list_conversations, methods=["GET"]),
            Route(conversation, self._show_conversation),
            Route(conversation + "/toggle_status", self._toggle_status, methods=["POST"]),
            Route(conversation + "/assignments", self._assign, methods=["POST"]),
            Route(conversation + "/custom_attributes", self._custom_attributes, methods=["POST"]),
            Route(conversation + "/messages", self._messages, methods=["GET", "POST"]),
            Route("/rails/active_storage/blobs/redirect/{signed}/{filename}", self._blob_redirect),
            Route("/rails/active_storage/disk/{signed}/{filename}", self._blob),
        ])

    # ----------------------------------------------------------------- serving

    @property
    def url(self) -> str:
        if self._port is None:
            raise RuntimeError("the fake Chatwoot is not serving")
        return f"http://127.0.0.1:{self._port}"

    def environment(self, **extra: str) -> dict[str, str]:
        """The ``ISPBOT_CHATWOOT_*`` variables that point the bot here."""
        return {
            "ISPBOT_CHATWOOT_URL": self.url, "ISPBOT_CHATWOOT_ACCOUNT_ID": str(ACCOUNT_ID),
            "ISPBOT_CHATWOOT_INBOX_ID": str(INBOX_ID), "ISPBOT_CHATWOOT_API_TOKEN": self.token,
            "ISPBOT_CHATWOOT_WEBHOOK_SECRET": self.secret, **extra,
        }

    async def start(self, port: int = 0) -> FakeChatwoot:
        config = uvicorn.Config(self.app, host="127.0.0.1", port=port, log_level="warning", access_log=False,
                                lifespan="off", timeout_graceful_shutdown=1)
        server = PromptServer(config)  # stopped in milliseconds
        server.capture_signals = contextlib.nullcontext  # type: ignore[method-assign,assignment]
        self._server = server
        self._task = asyncio.create_task(server.serve(), name="fake-chatwoot")
        for _ in range(2000):
            if server.started:
                break
            if self._task.done():
                raise RuntimeError("the fake Chatwoot stopped while starting")
            await asyncio.sleep(0.005)
        else:
            raise RuntimeError("the fake Chatwoot did not start")
        self._port = int(server.servers[0].sockets[0].getsockname()[1])
        return self

    async def stop(self) -> None:
        await self.settle()
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            try:
                await asyncio.wait_for(self._task, 5)
            except TimeoutError:
                self._task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await self._task
        self._server = self._task = None
        self._port = None

    async def __aenter__(self) -> FakeChatwoot:
        return await self.start()

    async def __aexit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                        tb: TracebackType | None) -> None:
        await self.stop()

    async def settle(self) -> None:
        """Wait until every webhook the fake has to post was posted."""
        while self._posting:
            await asyncio.gather(*list(self._posting), return_exceptions=True)

    # ----------------------------------------------------------------- test API

    def fail(self, path: str, status: int = 500, *, after: bool = False, count: int = 1) -> None:
        """The next ``count`` calls matching ``path`` (a regex searched in "METHOD /path") answer ``status``."""
        self.faults.append(Fault(path, status=status, after=after, count=count))

    def slow(self, path: str, seconds: float, *, count: int = 1) -> None:
        """The next ``count`` calls matching ``path`` do their work, then answer after ``seconds``."""
        self.faults.append(Fault(path, status=0, seconds=seconds, after=True, count=count))

    def conversation_of(self, identifier: str) -> Conversation | None:
        """The newest conversation of the contact with this ``identifier``."""
        contact = next((c for c in self.contacts.values() if c.get("identifier") == identifier), None)
        if contact is None:
            return None
        found = [c for c in self.conversations.values() if c.contact_id == contact["id"]]
        return found[-1] if found else None

    def contents(self, conversation_id: int, *, private: bool | None = None) -> list[str]:
        """The messages' contents in order (only the private or public ones when asked)."""
        return [m["content"] for m in self.conversations[conversation_id].messages
                if private is None or m["private"] is private]

    async def agent_reply(self, conversation_id: int, content: str, *, private: bool = False,
                          agent_id: int = AGENT_ID, files: list[tuple[str, bytes, str]] | None = None,
                          webhook: bool = True) -> Json:
        """An agent writes in the conversation (a private note with ``private``), with ``files``
        (filename, bytes, content type) attached; posts the webhook (not with ``webhook=False``: a
        delivery lost, as when the bot was down: Chatwoot does not post an API inbox's again)."""
        conversation = self.conversations[conversation_id]
        message = self._add_message(conversation, content, "outgoing", private, sender=self.users[agent_id],
                                    files=files or [])
        if webhook:
            await self._post(self._message_event(conversation, message))
        return message

    def attachments(self, conversation_id: int) -> list[tuple[str, bytes, str]]:
        """Every file attached to the conversation's messages: (file_type, bytes, filename)."""
        found = []
        for message in self.conversations[conversation_id].messages:
            for attachment in message.get("attachments", []):
                data, _, filename = self.blobs[attachment["signed_id"]]
                found.append((attachment["file_type"], data, filename))
        return found

    async def resolve(self, conversation_id: int, status: str = "resolved") -> None:
        """An agent changes the conversation's status in Chatwoot's screen; posts the webhook."""
        await self._set_status(self.conversations[conversation_id], status, wait=True)

    def signed(self, body: bytes, *, secret: str | None = None, timestamp: int | None = None,
               delivery: str | None = None) -> dict[str, str]:
        """The headers Chatwoot sends with ``body`` (another secret or time to forge one)."""
        stamp = str(int(time.time()) if timestamp is None else timestamp)
        key = (self.secret if secret is None else secret).encode()
        digest = hmac.new(key, stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
        return {"Content-Type": "application/json", "X-Chatwoot-Signature": f"sha256={digest}",
                "X-Chatwoot-Timestamp": stamp, "X-Chatwoot-Delivery": delivery or str(uuid.uuid4())}

    async def post_webhook(self, payload: Json, headers: dict[str, str] | None = None) -> int:
        """Post ``payload`` to the bot as Chatwoot does (``headers`` replaces the signed ones); the status."""
        assert self.webhook_url is not None, "the fake Chatwoot has no webhook_url to post to"
        body = json.dumps(payload).encode()
        sent = headers if headers is not None else self.signed(body)
        async with httpx.AsyncClient(timeout=10) as client:
            try:
                response = await client.post(self.webhook_url, content=body, headers=sent)
                status: int | None = response.status_code
            except httpx.HTTPError:
                status = None
        self.deliveries.append(Delivery(str(payload.get("event")), payload, status, sent))
        return status or 0

    # ----------------------------------------------------------------- HTTP

    async def _call(self, request: Request, work: Any) -> Response:
        if request.headers.get("api_access_token") != self.token:
            return JSONResponse({"errors": ["You need to sign in or sign up before continuing."]}, status_code=401)
        account = request.path_params.get("account")
        if account is not None and account != ACCOUNT_ID:
            return JSONResponse({"error": "You are not authorized to access this account"}, status_code=401)
        name = f"{request.method} {request.url.path}"
        self.calls.append(name)
        fault = next((f for f in self.faults if f.count > 0 and re.search(f.path, name)), None)
        if fault is not None:
            fault.count -= 1
            if not fault.after:
                return JSONResponse({"error": "Internal Server Error"}, status_code=fault.status)
        try:
            raw = await request.body()
            kind = request.headers.get("content-type", "")
            body = _form(kind, raw) if kind.startswith("multipart/form-data") else json.loads(raw) if raw else {}
            if not isinstance(body, dict):
                raise _Refusal(400, {"error": "a JSON object is expected"})
            result = await work(request, body)
        except _Refusal as refusal:
            return JSONResponse(refusal.body, status_code=refusal.status)
        except ValueError:
            return JSONResponse({"error": "malformed JSON"}, status_code=400)
        if fault is not None:
            if fault.seconds:
                await asyncio.sleep(fault.seconds)
            if fault.status:
                return JSONResponse({"error": "Internal Server Error"}, status_code=fault.status)
        return JSONResponse(result)

    def _route(handler: Any) -> Any:  # noqa: N805 - a decorator inside the class body
        async def endpoint(self: FakeChatwoot, request: Request) -> Response:
            return await self._call(request, lambda req, body: handler(self, req, body))
        return endpoint

    @_route
    async def _profile(self, _: Request, __: Json) -> Json:
        user = self.users[BOT_USER_ID]
        return {**user, "account_id": ACCOUNT_ID, "accounts": [{"id": ACCOUNT_ID, "name": "ISP", "role": "agent"}],
                "available_name": user["name"], "role": "agent"}

    @_route
    async def _inbox(self, request: Request, _: Json) -> Json:
        inbox_id = request.path_params["inbox"]
        if inbox_id == INBOX_ID:  # the secret shown to administrators only (Chatwoot 4.13+)
            return {**self.inbox, "webhook_url": self.webhook_url or "", "secret": self.secret}
        if inbox_id in self.other_inboxes:
            return self.other_inboxes[inbox_id]
        raise _Refusal(404, {"error": "Resource could not be found"})

    @_route
    async def _team(self, request: Request, _: Json) -> Json:
        team = self.teams.get(request.path_params["team"])
        if team is None:
            raise _Refusal(404, {"error": "Resource could not be found"})
        return team

    @_route
    async def _search_contacts(self, request: Request, _: Json) -> Json:
        query = request.query_params.get("q", "").strip().lower()
        if not query:
            raise _Refusal(422, {"error": "Specify search string with parameter q"})
        keys = ("name", "email", "phone_number", "identifier")
        found = [c for c in self.contacts.values() if any(query in str(c.get(key) or "").lower() for key in keys)]
        return {"meta": {"count": len(found), "current_page": 1}, "payload": found}

    @_route
    async def _create_contact(self, _: Request, body: Json) -> Json:
        identifier = body.get("identifier")
        if identifier and any(c.get("identifier") == identifier for c in self.contacts.values()):
            raise _Refusal(422, {"message": "Identifier has already been taken", "attributes": ["identifier"]})
        contact_id = next(self._contact_ids)
        contact = {"id": contact_id, "name": body.get("name") or "", "email": body.get("email"),
                   "phone_number": body.get("phone_number"), "identifier": identifier,
                   "custom_attributes": dict(body.get("custom_attributes") or {}),
                   "additional_attributes": dict(body.get("additional_attributes") or {}), "type": "contact"}
        self.contacts[contact_id] = contact
        contact_inbox = None
        if body.get("inbox_id") is not None:
            contact_inbox = self._contact_inbox(contact_id, int(body["inbox_id"]), None)
        return {"payload": {"contact": contact, "contact_inbox": contact_inbox}}

    @_route
    async def _update_contact(self, request: Request, body: Json) -> Json:
        contact = self._contact(request.path_params["contact"])
        for key in ("name", "email", "phone_number"):
            if key in body:
                contact[key] = body[key]
        if "custom_attributes" in body:
            contact["custom_attributes"] = {**contact["custom_attributes"], **(body["custom_attributes"] or {})}
        return {"payload": contact}

    @_route
    async def _create_contact_inbox(self, request: Request, body: Json) -> Json:
        contact_id = self._contact(request.path_params["contact"])["id"]
        return self._contact_inbox(contact_id, int(body.get("inbox_id") or 0), body.get("source_id"))

    @_route
    async def _contact_conversations(self, request: Request, _: Json) -> Json:
        contact_id = self._contact(request.path_params["contact"])["id"]
        return {"payload": [self._conversation_json(c) for c in self.conversations.values()
                            if c.contact_id == contact_id]}

    @_route
    async def _create_conversation(self, _: Request, body: Json) -> Json:
        source_id = str(body.get("source_id") or "")
        if source_id not in self.contact_inboxes:
            raise _Refusal(422, {"error": "source_id is not a contact inbox of this inbox"})
        if int(body.get("inbox_id") or 0) != INBOX_ID:
            raise _Refusal(422, {"error": "Inbox not found"})
        status = body.get("status") or "open"
        if status not in STATUSES:
            raise _Refusal(422, {"error": f"'{status}' is not a valid status"})
        conversation = Conversation(next(self._conversation_ids), self.contact_inboxes[source_id], source_id, status,
                                    dict(body.get("custom_attributes") or {}), body.get("team_id"),
                                    body.get("assignee_id"))
        self.conversations[conversation.id] = conversation
        return self._conversation_json(conversation)

    @_route
    async def _list_conversations(self, request: Request, _: Json) -> Json:
        """ConversationFinder: the account's conversations with ``status`` (open by default; "all"),
        of ``inbox_id`` when given, newest activity first, 25 a ``page``."""
        status = request.query_params.get("status", "open")
        inbox = request.query_params.get("inbox_id")
        page = int(request.query_params.get("page", "1"))
        found = [c for c in self.conversations.values()
                 if status in {"all", c.status} and (inbox is None or int(inbox) == INBOX_ID)]
        found.sort(key=lambda c: c.last_activity_at, reverse=True)
        shown = found[(page - 1) * 25:page * 25]
        return {"data": {"meta": {"all_count": len(found)}, "payload": [self._conversation_json(c) for c in shown]}}

    @_route
    async def _show_conversation(self, request: Request, _: Json) -> Json:
        return self._conversation_json(self._conversation(request))

    @_route
    async def _toggle_status(self, request: Request, body: Json) -> Json:
        conversation = self._conversation(request)
        status = body.get("status") or ("resolved" if conversation.status == "open" else "open")
        if status not in STATUSES:
            raise _Refusal(422, {"error": f"'{status}' is not a valid status"})
        await self._set_status(conversation, status)
        return {"meta": {}, "payload": {"success": True, "current_status": conversation.status,
                                        "conversation_id": conversation.id}}

    @_route
    async def _assign(self, request: Request, body: Json) -> Json:
        conversation = self._conversation(request)
        if "team_id" in body:
            team = self.teams.get(int(body["team_id"])) if body["team_id"] else None
            if body["team_id"] and team is None:
                raise _Refusal(404, {"error": "Resource could not be found"})
            conversation.team_id = team["id"] if team else None
            return team or {}
        user = self.users.get(int(body.get("assignee_id") or 0))
        conversation.assignee_id = user["id"] if user else None
        return user or {}

    @_route
    async def _custom_attributes(self, request: Request, body: Json) -> Json:
        conversation = self._conversation(request)
        conversation.custom_attributes = dict(body.get("custom_attributes") or {})  # replaced, not merged
        return {"custom_attributes": conversation.custom_attributes}

    @_route
    async def _messages(self, request: Request, body: Json) -> Json:
        conversation = self._conversation(request)
        if request.method == "GET":  # MessageFinder
            before, after = request.query_params.get("before"), request.query_params.get("after")
            if after is not None:
                listed = [m for m in conversation.messages if m["id"] > int(after)][:100]
            else:
                listed = [m for m in conversation.messages if before is None or m["id"] < int(before)][-20:]
            return {"meta": {"contact": self.contacts[conversation.contact_id]},
                    "payload": [self._message_json(m) for m in listed]}
        kind = body.get("message_type") or "outgoing"
        if kind not in ("incoming", "outgoing"):
            raise _Refusal(422, {"error": f"'{kind}' is not a valid message_type"})
        files = body.get("attachments[]") or []
        content = body.get("content")
        if content is not None and not isinstance(content, str):
            raise _Refusal(422, {"error": "Content is invalid"})
        if not files and (content is None or not content.strip()):
            raise _Refusal(422, {"error": "Content can't be blank"})
        private = body.get("private") in (True, "true", "1")
        sender = self.contacts[conversation.contact_id] if kind == "incoming" else self.users[BOT_USER_ID]
        message = self._add_message(conversation, content or "", kind, private, sender=sender,
                                    source_id=body.get("source_id"), files=files)
        if kind == "incoming" and conversation.status == "resolved":
            await self._set_status(conversation, "open")  # Message#reopen_conversation, no agent bot
        self._post_later(self._message_event(conversation, message))
        return self._message_json(message)

    # ----------------------------------------------------------------- state

    def _contact(self, contact_id: int) -> Json:
        if contact_id not in self.contacts:
            raise _Refusal(404, {"error": "Resource could not be found"})
        return self.contacts[contact_id]

    def _contact_inbox(self, contact_id: int, inbox_id: int, source_id: str | None) -> Json:
        if inbox_id != INBOX_ID:
            raise _Refusal(422, {"error": "Inbox not found"})
        existing = next((s for s, c in self.contact_inboxes.items() if c == contact_id), None)
        source = source_id or existing or str(uuid.uuid4())
        self.contact_inboxes[source] = contact_id
        return {"source_id": source, "inbox": self.inbox}

    def _conversation(self, request: Request) -> Conversation:
        conversation = self.conversations.get(request.path_params["conversation"])
        if conversation is None:
            raise _Refusal(404, {"error": "Resource could not be found"})
        return conversation

    def _add_message(self, conversation: Conversation, content: str, kind: str, private: bool, *, sender: Json,
                     source_id: str | None = None, files: list[tuple[str, bytes, str]] | None = None) -> Json:
        message: Json = {"id": next(self._ids), "content": content, "message_type": kind, "private": private,
                         "created_at": int(time.time()), "source_id": source_id, "sender": sender,
                         "conversation_id": conversation.id, "content_type": "text", "content_attributes": {}}
        attachments = []
        for filename, data, content_type in files or []:
            signed = uuid.uuid4().hex
            self.blobs[signed] = (data, content_type, filename)
            major = content_type.split("/", 1)[0]
            attachments.append({"id": next(self._ids), "message_id": message["id"], "account_id": ACCOUNT_ID,
                                "file_type": major if major in ("image", "audio", "video") else "file",
                                "extension": filename.rsplit(".", 1)[-1] if "." in filename else None,
                                "file_size": len(data), "signed_id": signed})
        if attachments:
            message["attachments"] = attachments
        conversation.messages.append(message)
        conversation.last_activity_at = message["created_at"]
        return message

    def _attachment_json(self, attachment: Json) -> Json:
        """``Attachment#push_event_data``: the blob's redirect URL (absolute, as ``url_for`` makes it)."""
        filename = self.blobs[attachment["signed_id"]][2]
        url = f"{self.url}/rails/active_storage/blobs/redirect/{attachment['signed_id']}/{filename}"
        shown = {key: value for key, value in attachment.items() if key != "signed_id"}
        return {**shown, "data_url": url, "thumb_url": url if attachment["file_type"] == "image" else ""}

    async def _blob_redirect(self, request: Request) -> Response:
        """Active Storage's redirect controller: no API token, the signed id is the key."""
        signed, filename = request.path_params["signed"], request.path_params["filename"]
        if signed not in self.blobs:
            return Response(status_code=404)
        return RedirectResponse(f"{self.url}/rails/active_storage/disk/{signed}/{filename}", status_code=302)

    async def _blob(self, request: Request) -> Response:
        found = self.blobs.get(request.path_params["signed"])
        if found is None:
            return Response(status_code=404)
        self.blob_fetches.append(request.path_params["signed"])
        return Response(found[0], media_type=found[1])

    async def _set_status(self, conversation: Conversation, status: str, *, wait: bool = False) -> None:
        if conversation.status == status:
            return
        conversation.status = status
        event = {**self._conversation_json(conversation), "event": "conversation_status_changed",
                 "changed_attributes": [{"status": {"current_value": status}}]}
        if wait:
            await self._post(event)
        else:
            self._post_later(event)

    def _conversation_json(self, conversation: Conversation) -> Json:
        contact = self.contacts[conversation.contact_id]
        return {"id": conversation.id, "account_id": ACCOUNT_ID, "inbox_id": INBOX_ID,
                "status": conversation.status, "custom_attributes": dict(conversation.custom_attributes),
                "contact_inbox": {"source_id": conversation.source_id},
                "meta": {"sender": {**contact, "type": "contact"},
                         "assignee": self.users.get(conversation.assignee_id or 0),
                         "team": self.teams.get(conversation.team_id or 0)},
                "channel": "Channel::Api", "messages": [], "updated_at": time.time(),
                "last_activity_at": conversation.last_activity_at, "timestamp": conversation.last_activity_at}

    def _message_json(self, message: Json) -> Json:
        """The API's shape: ``message_type`` as its number, as Chatwoot's views render it."""
        return {**message, "message_type": MESSAGE_TYPES.index(message["message_type"]),
                **self._attachments_json(message)}

    def _attachments_json(self, message: Json) -> Json:
        found = message.get("attachments")
        return {"attachments": [self._attachment_json(a) for a in found]} if found else {}

    def _message_event(self, conversation: Conversation, message: Json) -> Json:
        """``message_created`` as Message#webhook_data renders it: ``message_type`` by name."""
        return {**message, **self._attachments_json(message), "event": "message_created",
                "account": {"id": ACCOUNT_ID, "name": "ISP"},
                "inbox": {"id": INBOX_ID, "name": self.inbox["name"]},
                "conversation": self._conversation_json(conversation)}

    def _post_later(self, payload: Json) -> None:
        if self.webhook_url is None:
            return
        task = asyncio.create_task(self._post(payload))
        self._posting.add(task)
        task.add_done_callback(self._posting.discard)

    async def _post(self, payload: Json) -> None:
        if self.webhook_url is None:
            return
        async with self._webhooks:
            await self.post_webhook(payload)


def _form(content_type: str, body: bytes) -> Json:
    """A multipart form as Rails reads it: text fields as strings, ``name[]`` fields as lists, a file
    as (filename, bytes, content type)."""
    head = f"Content-Type: {content_type}\r\nMIME-Version: 1.0\r\n\r\n".encode()
    fields: Json = {}
    for part in BytesParser(policy=HTTP).parsebytes(head + body).iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True)
        data = payload if isinstance(payload, bytes) else b""
        if not isinstance(name, str):
            continue
        filename = part.get_filename()
        value: Any = (filename, data, part.get_content_type()) if filename is not None else data.decode("utf-8")
        if name.endswith("[]"):
            fields.setdefault(name, []).append(value)
        else:
            fields[name] = value
    return fields
