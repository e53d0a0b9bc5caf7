"""The bot on WhatsApp: the Cloud API adapter of ``bot.channels.base.Channel``.

httpx alone, not pywa: pywa's async client sends, uploads and parses well, but its webhook handler
answers Meta itself and dispatches to callbacks, while here nothing is acknowledged before the
inbox holds it, the sender keeps the number's throughput and each person's pace, and tests swap the
transport (httpx's seam); the few endpoints used (messages, media) are plain JSON, and the bot
already depends on httpx. The webhook (``bot.web``) hands posts to ``store_posted``: messages go to
the inbox by ``wamid`` with the sender's internal chat id (``bot.store.channels``), statuses are
recorded there and then (a ``failed`` one as a dead letter with Meta's reason). Each answer marks
the person's message read, then goes out as one message (``render``) through ``WaSender``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from flows.events import Choice
from flows.files import FileSource
from flows.replies import Button, Message, Notice, Reply
from sqlalchemy.ext.asyncio import AsyncSession

from bot import metrics
from bot.channels.whatsapp import updates
from bot.channels.whatsapp.client import WINDOW_CODES, CloudApi, CloudApiError, describe
from bot.channels.whatsapp.render import MORE, WaCall, options_message, render, render_turn
from bot.channels.whatsapp.sender import WaSender, held
from bot.channels.whatsapp.settings import WhatsAppSettings
from bot.channels.whatsapp.templates import load_templates
from bot.i18n import pick_language
from bot.logs import chat_ref
from bot.reads import Read
from bot.store import Database, Inbox, utcnow
from bot.store.channels import WHATSAPP, WHATSAPP_WINDOW, ChannelIds
from bot.store.dead_letters import DeadLetters, unstorable

log = logging.getLogger(__name__)


SEND_WORKERS = 32
CHAT_BACKLOG = 20  # messages one person may have waiting; beyond, set aside
DROPPED = "set aside: its chat had too many updates waiting"
HELD_NEWS = timedelta(days=3)  # a held message older than this is no longer news: left for the operator
REMEMBERED = 20_000  # chats whose address and last long list this process keeps in memory
DEAD_LETTER_TRIES = 12
POSTS_AT_ONCE = 100  # webhook posts stored in one transaction at most (as a getUpdates batch on Telegram)


class WhatsAppChannel:
    name = WHATSAPP
    sends_at_once = SEND_WORKERS

    def __init__(
        self, settings: WhatsAppSettings, database: Database, *, api: CloudApi | None = None,
        sender_limits: dict[str, Any] | None = None, staff_files: FileSource | None = None,
    ) -> None:
        """``staff_files``: where the staff desk's files are fetched (Telegram's, for the forum desk)."""
        assert settings.whatsapp_token is not None and settings.whatsapp_phone_number_id is not None  # noqa: S101
        self.settings = settings
        self.database = database
        self.api = api or CloudApi(
            settings.graph_root, settings.whatsapp_token.get_secret_value(), settings.whatsapp_phone_number_id,
        )
        self.ids = ChannelIds()
        path = settings.whatsapp_templates
        self.templates = load_templates(path) if path is not None else {}
        limit = settings.whatsapp_max_media_mb << 20
        fetch = (lambda ref: staff_files.fetch(ref, limit=limit)) if staff_files is not None else None
        self.sender = WaSender(self.api, self._address, on_dead=self._keep_dead_letter, on_held=self._as_template,
                               on_sent=self._sent, fetch=fetch, **{
            "rate": settings.whatsapp_rate, "workers": SEND_WORKERS, **(sender_limits or {}),
        })
        self.inbox: Inbox | None = None
        self._on_stored: Callable[[], None] | None = None
        # chat id: (wa_id or user id), and chat id: (text, options, language) of a list with pages.
        self._addresses: OrderedDict[int, str] = OrderedDict()
        self._pages: OrderedDict[int, tuple[str, list[Button], str]] = OrderedDict()
        # wamid: what was sent (its JSON, without a file's bytes), for a ``failed`` status that comes later.
        self._sent_calls: OrderedDict[str, str] = OrderedDict()
        self._side_tasks: set[asyncio.Task[Any]] = set()  # pages of long lists on their way
        self._posted: list[tuple[dict[str, Any], asyncio.Future[int]]] = []  # webhook posts not stored yet
        self._storing: asyncio.Task[None] | None = None

    def connect(self, inbox: Inbox, on_stored: Callable[[], None]) -> None:
        self.inbox = inbox
        self._on_stored = on_stored

    # ---- the webhook ---------------------------------------------------------------------------
    async def store_posted(self, body: dict[str, Any]) -> int:
        """A webhook post, kept before it is acknowledged: its new messages into the inbox, its
        statuses recorded; how many messages were new. Raises if the database is down.

        Posts that arrive while others are being stored wait and go together in the next transaction
        (at most ``POSTS_AT_ONCE``): in a surge, one commit a post kept SQLite's single writer busy
        with the intake, and the answers waited behind it. A batch that fails is stored post by post,
        so one post's trouble is that post's 503 only."""
        future: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._posted.append((body, future))
        if self._storing is None or self._storing.done():
            self._storing = asyncio.create_task(self._store_waiting(), name="whatsapp-webhook-store")
        return await future

    async def _store_waiting(self) -> None:
        batch: list[tuple[dict[str, Any], asyncio.Future[int]]] = []
        try:
            while self._posted:
                batch = self._posted[:POSTS_AT_ONCE]
                del self._posted[:POSTS_AT_ONCE]
                try:
                    counts = await self._store([body for body, _ in batch])
                except Exception as exc:
                    if len(batch) == 1:
                        _settle(batch[0][1], exc)
                        continue
                    for body, future in batch:
                        try:
                            _settle(future, (await self._store([body]))[0])
                        except Exception as alone:
                            _settle(future, alone)
                    continue
                for (_, future), count in zip(batch, counts, strict=True):
                    _settle(future, count)
        finally:  # stopped midway: the posts not stored are refused (Meta posts them again)
            for _, future in [*batch, *self._posted]:
                _settle(future, RuntimeError("the bot stopped before the post was stored"))

    async def _store(self, bodies: list[dict[str, Any]]) -> list[int]:
        """Posts in one transaction: how many new messages each had."""
        assert self.inbox is not None  # noqa: S101 - connected by the composition root
        number = self.settings.whatsapp_phone_number_id
        items = sorted(((n, item) for n, body in enumerate(bodies) for item in updates.posted(body, number)),
                       key=lambda pair: pair[1].timestamp)  # as if Meta had sent them in one post
        counts = [0] * len(bodies)
        if not items:
            return counts
        now = utcnow()
        messages = [(n, item) for n, item in items if "message" in item.payload]
        statuses = [item for _, item in items if "status" in item.payload]
        templates: list[WaCall] = []  # failed outside the window: their templates go once this is kept
        async with self.database.transaction() as session:
            senders = {item.sender for _, item in items if item.sender is not None}
            # A person named by their number and their user id both: one chat whichever comes next.
            pairs = {(item.payload["wa_id"], item.payload["user_id"]) for _, item in messages
                     if item.payload.get("wa_id") and item.payload.get("user_id")}
            await self.ids.join(session, WHATSAPP, pairs, now)
            chats = await self.ids.chat_ids(session, WHATSAPP, senders, now)
            fresh = await self.ids.new_updates(session, WHATSAPP, [item.key for _, item in messages], now)
            batch, owners = [], {}
            for n, item in messages:
                update_id = fresh.pop(item.key, None)  # popped: a wamid twice in the batch is kept once
                if update_id is not None and item.sender is not None:
                    chat_id = chats[item.sender]
                    batch.append((update_id, chat_id, {**item.payload, "chat_id": chat_id}))
                    owners[update_id] = n
            aside = await self.inbox.over_backlog(session, batch, CHAT_BACKLOG)
            stored = await self.inbox.store_many(session, batch, now, set_aside=aside, reason=DROPPED, channel=WHATSAPP)
            for item in statuses:
                await self._status(session, item, chats.get(item.sender) if item.sender else None, templates)
        if templates:
            await self.sender.submit_all(templates, notice=True)
        for update_id in stored:
            counts[owners[update_id]] += 1
        for result in ("new", "duplicate"):
            count = len(stored) if result == "new" else len(messages) - len(stored)
            if count:
                metrics.INBOX_RECEIVED.labels("whatsapp", result).inc(count)
        if stored and self._on_stored is not None:
            self._on_stored()
        return counts

    async def _status(
        self, session: AsyncSession, item: updates.Posted, chat_id: int | None, templates: list[WaCall],
    ) -> None:
        status = item.payload["status"]
        name = str(status.get("status", "?"))[:16]
        metrics.WHATSAPP_STATUSES.labels(name).inc()
        errors = status.get("errors") if isinstance(status.get("errors"), list) else []
        first = errors[0] if errors and isinstance(errors[0], dict) else {}
        details = (first.get("error_data") or {}).get("details") if isinstance(first.get("error_data"), dict) else None
        reason = f"code {first.get('code')}: {first.get('title') or first.get('message') or ''}" if first else None
        if reason and details:
            reason = f"{reason} ({details})"
        at = datetime.fromtimestamp(item.timestamp, UTC) if item.timestamp else utcnow()
        await self.ids.record_status(session, WHATSAPP, str(status["id"]), chat_id=chat_id, status=name, at=at,
                                     error=reason)
        if name == "failed" and chat_id is not None:
            # Meta may take a message and only then say it was outside the window (131047): its
            # notice's template goes instead, or it is held; any other failure keeps what was sent.
            sent = self._sent_calls.pop(str(status["id"]), None)
            call = WaCall.from_json(json.loads(sent)) if sent is not None else None
            if call is not None and first.get("code") in WINDOW_CODES:
                if (template := self._template_of(call)) is not None:
                    templates.append(template)
                    return
                reason = held(call, reason or "failed")
            method, params = (call.method, call.as_json()) if call is not None else ("whatsapp.failed", {})
            await DeadLetters().add(session, chat_id, method, {**params, "wamid": status["id"]},
                                    error=reason or "failed", now=utcnow())
            log.warning("WhatsApp could not deliver a message to chat %s: %s", chat_ref(chat_id), reason)

    # ---- bot.channels.base.Channel -------------------------------------------------------------
    def read(self, payload: dict[str, Any]) -> Read:
        try:
            read = updates.read(payload)
        except Exception as exc:  # a field of an unexpected type: this update only, never its chat
            return Read("unreadable", failed=f"could not be read ({type(exc).__name__})", error=exc)
        if read.incoming is not None:
            # The number where WhatsApp gives it (every API version sends to it), else the user id.
            address = payload.get("wa_id") or payload.get("user_id")
            if isinstance(address, str):
                self._remember(self._addresses, read.incoming.chat_id, address)
            event = read.incoming.event
            if isinstance(event, Choice) and event.token.startswith(MORE) and read.incoming.chat_id in self._pages:
                # The next page of a long list: the channel's own (the engine's question still
                # stands), sent at once; settled with no answer of the engine's.
                calls = self._page(read.incoming.chat_id, event.token, read.reference)
                task = asyncio.get_running_loop().create_task(self.sender.submit_all(calls))
                self._side_tasks.add(task)
                task.add_done_callback(self._side_tasks.discard)
                return Read("more")
        return read

    async def answer(
        self, session: AsyncSession, read: Read, replies: list[Reply], notices: list[Notice],
    ) -> list[WaCall]:
        assert read.incoming is not None  # noqa: S101 - only what was read is answered
        incoming = read.incoming
        chat_id, to = incoming.chat_id, self._addresses.get(incoming.chat_id)
        language = pick_language(incoming.client_language)
        calls = self._receipt(read)
        calls += await self._held(session, chat_id, to)
        calls += render_turn(replies, chat_id, to, language)
        self._keep_pages(chat_id, replies, language)
        calls += [call for notice in notices for call in self.render_notice(notice)]
        return calls

    def _page(self, chat_id: int, token: str, reference: str | None) -> list[WaCall]:
        """The page of a long list that ``token`` (``MORE`` and its first option) asks for."""
        text, buttons, language = self._pages[chat_id]
        start = int(token.removeprefix(MORE) or 0) if token.removeprefix(MORE).isdecimal() else 0
        bodies = options_message(text, buttons, language=language, start=min(start, len(buttons) - 1))
        to = self._addresses.get(chat_id)
        receipt = [WaCall(chat_id, "read", {"message_id": reference})] if reference else []
        return [*receipt, *(WaCall(chat_id, "message", body, to) for body in bodies[-1:])]

    def forget(self, read: Read) -> list[WaCall]:
        """The Cloud API cannot delete a message a person sent: only what the bot kept is removed."""
        return []

    def render_notice(self, notice: Notice) -> list[WaCall]:
        """The notice's messages, the first carrying its kind's template (for outside the 24-hour
        window) when the operator named one; the others go or are held as they are."""
        to = self._addresses.get(notice.chat_id)
        language = notice.language or pick_language(updates.language_of(to))
        found = self.templates.get(notice.kind)
        template = found.message(language, notice.values) if found is not None else None
        return [replace(call, notice=notice.kind, template=template if index == 0 else None)
                for index, call in enumerate(render(notice.reply, notice.chat_id, to, language))]

    def decode(self, kept: dict[str, Any]) -> WaCall:
        return WaCall.from_json(kept)

    async def send(self, calls: Sequence[WaCall], *, notice: bool = False) -> list[asyncio.Future[Any]]:
        if notice:
            calls = await self._templates_outside_window(calls)
        return await self.sender.submit_all(calls, notice=notice)

    async def _templates_outside_window(self, calls: Sequence[WaCall]) -> Sequence[WaCall]:
        """A notice to someone who has not written in 24 hours goes as its kind's template at once:
        sent as it is, Meta would refuse it (131047), a request and a slot of the number's throughput
        spent for nothing before the template (a round of reminders took twice its time). When the
        person last wrote is read from the inbox (kept longer than the window); one who writes
        meanwhile gets the template all the same, and a refusal still turns to the template."""
        chats = {call.chat_id for call in calls if self._template_of(call, quiet=True) is not None}
        if not chats:
            return calls
        try:
            async with self.database.session() as session:
                open_ = await Inbox().wrote_since(session, chats, utcnow() - WHATSAPP_WINDOW, channel=WHATSAPP)
        except Exception as exc:  # sent as they are: Meta's refusal still turns them to templates
            log.warning("WhatsApp: could not read who wrote in the last 24 hours (%s)", type(exc).__name__)
            return calls
        closed = chats - open_
        if closed:
            log.debug("WhatsApp: %d notice(s) to chats outside the 24-hour window go as their templates",
                      len(closed))
        return [(self._template_of(call, quiet=True) or call) if call.chat_id in closed else call
                for call in calls]

    async def drain(self, within: float) -> None:
        await self.sender.drain(within=within)

    # ---- what only WhatsApp has ----------------------------------------------------------------
    @staticmethod
    def _receipt(read: Read) -> list[WaCall]:
        """The person's message marked read (blue ticks) as the answer goes out."""
        assert read.incoming is not None  # noqa: S101
        wamid = read.reference
        return [WaCall(read.incoming.chat_id, "read", {"message_id": wamid})] if wamid else []

    @staticmethod
    async def _held(session: AsyncSession, chat_id: int, to: str | None) -> list[WaCall]:
        """What was held for the chat outside the 24-hour window (a notice with no template): the
        person wrote, so it goes now, before the answer, if it is recent enough to still be news;
        taken from the dead letters in the turn's transaction, so it goes once. A file's bytes were
        not kept: such a letter stays for ``ispbot undelivered``."""
        letters = await DeadLetters().held(session, chat_id, since=utcnow() - HELD_NEWS)
        taken = {letter.id: WaCall.from_json(letter.params) for letter in letters
                 if letter.params.get("kind") == "message"}
        await DeadLetters().remove(session, list(taken))
        sendable = [replace(call, to=to or call.to) for call in taken.values()]
        if sendable:
            log.info("WhatsApp: %d message(s) held outside the window go to chat %s now that it wrote",
                     len(sendable), chat_ref(chat_id))
        return sendable

    def _keep_pages(self, chat_id: int, replies: list[Reply], language: str) -> None:
        for reply in replies:
            if isinstance(reply, Message):
                buttons = [button for row in reply.buttons for button in row]
                if len(buttons) > 10:
                    self._remember(self._pages, chat_id, (reply.text, buttons, language))
                elif buttons:
                    self._pages.pop(chat_id, None)

    @staticmethod
    def _remember(memory: OrderedDict[Any, Any], key: Any, value: Any) -> None:
        memory[key] = value
        memory.move_to_end(key)
        if len(memory) > REMEMBERED:
            memory.popitem(last=False)

    async def _address(self, chat_id: int) -> str | None:
        """The wa_id or user id to send to: remembered, else read from the database."""
        if (known := self._addresses.get(chat_id)) is not None:
            return known
        async with self.database.session() as session:
            found = await self.ids.external_id(session, chat_id)
        if found is not None:
            self._remember(self._addresses, chat_id, found)
        return found

    async def _as_template(self, call: WaCall, reason: str) -> bool:
        """A message refused as outside the 24-hour window, sent again as its notice's template (True);
        False without one (the sender holds it and counts it)."""
        template = self._template_of(call)
        if template is None:
            return False
        await self.sender.submit_all([template], notice=True)
        return True

    @staticmethod
    def _template_of(call: WaCall, *, quiet: bool = False) -> WaCall | None:
        """The template to send for ``call`` outside the window, if its kind of notice has one
        (said in the log unless ``quiet``)."""
        if call.template is None or call.body.get("type") == "template":
            return None
        if not quiet:
            log.info("WhatsApp: a %s notice to chat %s outside the 24-hour window goes as its template",
                     call.notice, chat_ref(call.chat_id))
        return WaCall(call.chat_id, "message", call.template, call.to, call.notice)

    def _sent(self, call: WaCall, wamid: str) -> None:
        self._remember(self._sent_calls, wamid, json.dumps(_without_bytes(call), separators=(",", ":")))

    async def _keep_dead_letter(self, call: WaCall, error: str) -> None:
        """Keep an undeliverable request for ``ispbot undelivered`` (without a media's bytes)."""
        params = _without_bytes(call)
        for attempt in itertools.count():
            try:
                async with self.database.transaction() as session:
                    await DeadLetters().add(session, call.chat_id, call.method, params, error=error, now=utcnow())
                return
            except Exception as exc:
                if attempt == DEAD_LETTER_TRIES - 1 or unstorable(exc):  # the letter itself: retrying won't help
                    log.error("could not keep a dead letter (%s): a %s to chat %s is lost", type(exc).__name__,
                              call.method, chat_ref(call.chat_id))
                    return
                await asyncio.sleep(min(2.0 ** attempt, 30.0))

    async def start(self) -> None:
        """Check the token and the number (the number's record): a wrong one stops the bot at start.
        A Graph API that cannot be reached now (Meta's or the network's outage, a proxy's page) does
        not: the webhook keeps taking Meta's posts, the answers wait and go once it answers, and
        ``state`` (``/readyz``) says so meanwhile."""
        try:
            record = await self.api.phone_number()
        except httpx.TransportError as exc:
            self.sender.mark_unreachable(describe(exc))
            return
        except CloudApiError as exc:
            if exc.meaning not in ("transient", "throttled"):
                raise
            self.sender.mark_unreachable(f"code {exc.code}, status {exc.status}")
            return
        self.sender.failing = None
        log.info("connected to WhatsApp as %s", record.get("verified_name") or "the configured number")

    def state(self) -> str:
        """"ok" while the Graph API takes requests, else what fails (for ``/readyz`` and ``/healthz``)."""
        return self.sender.failing or "ok"

    async def stop(self) -> None:
        await self.sender.aclose(within=0)
        await self.api.aclose()


def _without_bytes(call: WaCall) -> dict[str, Any]:
    """A request as kept after it left (a dead letter, a message waiting for its status): a file's
    bytes are not kept, and ``ispbot undelivered resend`` says so."""
    params = call.as_json()
    if call.kind == "upload":
        params = {**params, "body": {k: v for k, v in call.body.items() if k != "data"}}
    return params


def _settle(future: asyncio.Future[int], outcome: int | Exception) -> None:
    """A waiting post's answer (its request may have gone already: nothing to tell then)."""
    if future.done():
        return
    if isinstance(outcome, Exception):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


def _words(call: WaCall) -> str:
    """What a message says (its text, the body of its options, a caption), for a template."""
    body = call.body
    kind = str(body.get("type", ""))
    if kind == "text":
        return str(body["text"]["body"])
    if kind == "interactive":
        return str(body["interactive"].get("body", {}).get("text", ""))
    return str(body.get("caption") or (body.get(kind) or {}).get("caption") or "")
