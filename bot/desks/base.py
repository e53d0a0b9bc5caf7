"""The desk port: what the bot asks of a staff desk (Telegram forum topics, Chatwoot), and how a desk
reports back. The engine decides everything (``flows.desk``, ``flows.staff``); a desk only carries
it, after the turn committed (``bot.desks.worker``), so a desk's HTTP never holds a chat's lock.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, Protocol

from flows.desk import DeskChat, DeskPost

from bot.reads import Read


class DeskUnavailable(Exception):
    """The desk cannot be reached now (network, 5xx, 429, a timeout): the job is tried again later.
    Its message names what an operator could check; it never carries a person's words."""


class DeskRefused(Exception):
    """The desk refused the job for good (4xx: a conversation deleted, a bad token): the job is set
    aside and logged with this message (which names what to fix, never a person's words)."""


class Desk(Protocol):
    """One staff desk, called by ``bot.desks.worker`` outside any transaction, one job at a time per
    subscriber chat and in the order the engine wrote them: ``open`` before the posts that follow it,
    ``close`` last. A job is done at least once: after a crash mid-job it runs again, so each method
    must tolerate a repeat (re-opening returns the same conversation when it can; a repeated post is
    a duplicate message, no worse). Raise ``DeskUnavailable`` to be retried (with a growing delay),
    ``DeskRefused`` to be set aside; anything else counts as unavailable.

    Out (the engine's jobs, ``flows.desk``):
    - ``open(chat, title, reason)``: the chat is handed to the staff: create its conversation (or find
      the chat's existing one) and mark it as waiting for a person (Chatwoot: status ``open``, the
      team or inbox of the settings; Telegram: a forum topic named ``title``). Returns the desk's
      reference of it (a topic's thread id, a conversation id, as text), kept with the handoff: the
      ``ref`` of later posts, of ``close`` and of the ``StaffEvent``s the desk reports.
    - ``post(ref, chat, post)``: one message into the conversation, in order. ``post.kind`` says whose
      words (``flows.desk.PostKind``): SUBSCRIBER is incoming (the person's), STAFF and BOT are
      outgoing (already sent to the person: show them as sent, never send them again), CARD and
      NOTE are private to the staff and must never reach the person. ``post.text`` is the templates'
      Telegram HTML; ``post.attachment`` a message of the subscriber's channel to copy when the desk
      can (else the text describes it). ``ref`` is None only for desks that ``follow_every_chat``,
      for a chat not handed over yet: the desk finds or makes the chat's conversation, left with the
      bot (Chatwoot: ``pending``).
    - ``close(ref, chat, resolved)``: the chat is the bot's again (``resolved``: its ticket was
      finished). Telegram closes the topic; Chatwoot resolves, or returns it to ``pending``.
    - ``notify(chat, text)``: a word to the staff about the person, whether or not the chat is handed
      over (a cancel, a suspension, a deadline close to its end); private, never the person's to see.
      Telegram: a message in the staff group's general topic; Chatwoot: a private note in the
      person's conversation (made ``pending`` when it has none; its status is left as it is).
    ``chat`` (``DeskChat``) says whose conversation: chat id, the subscriber's channel and language,
    the name staff see, ticket, customer code, contract, attributes to show (tax id masked).

    In (what staff do), ``read(payload)``, as a channel reads its updates: the processor offers the
    desk every stored inbox row first; the desk answers None for a row not its own (the channel reads
    it), else a ``Read`` of the ``flows.events`` ``StaffEvent`` it made of it, naming the
    conversation by the same ``ref``: ``StaffReply`` (a reply meant for the person; never a private
    note), ``StaffCommand`` (/assign, /status, /note, /close, /bot: ``name`` and ``args``; a desk may
    read them from private notes) and ``Resolved`` (the desk's own "resolve"). Each is stored in the
    inbox before the desk's webhook is answered (deduplicated by the desk's message id) and run as
    ``Incoming(chat_id=<the desk's ordering key>, event=...)`` by the processor like any update: the
    engine finds the chat by ``ref``, acts for the staff member (``StaffMember``: a linked staff chat,
    or the ISP user the desk vouches for), answers the subscriber on their own channel and the staff
    with NOTE posts. A desk never calls the ISP and never writes to the database itself.
    """

    name: ClassVar[str]  # "telegram", "chatwoot": as ISPBOT_STAFF_DESK names it
    # True: every message of every chat is posted (a shared inbox keeps whole histories); False: only
    # while the chat is handed over (a forum topic per handoff).
    follows_every_chat: ClassVar[bool]

    async def open(self, chat: DeskChat, title: str, reason: str) -> str: ...

    async def post(self, ref: str | None, chat: DeskChat, post: DeskPost) -> None: ...

    async def close(self, ref: str, chat: DeskChat, *, resolved: bool) -> None: ...

    async def notify(self, chat: DeskChat, text: str) -> None: ...

    def read(self, payload: Mapping[str, Any]) -> Read | None:
        """Never raises: a row of the desk's that cannot be read comes back with ``failed``."""
        ...
