"""``Chat``: the chat one turn is for, as every part of a step's context sees it.

Who the chat is (its state, its link, the customer or system user it speaks for, its ticket), its
language and the words of the templates in it (``text``), what its channel can do, the ISP (the
coordinator, ``flows.coordinator``; the ACS) and the policy. ``flows.context.Context`` is this and
its parts (``ctx.reply``, ``ctx.identity``, ``ctx.staff``, ``ctx.records``); each part is given the
chat, never the whole context, so the parts stand beside each other. The keys the turn keeps in
``ChatState.data`` are named here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from bot.acs import AcsClient
from bot.i18n import CHANNEL_NAMES, DEFAULT_LANGUAGE, LANGUAGES, Translations, pick_language, plain_text
from bot.store import (
    ChatState,
    ChatStates,
    Contacts,
    ContestedBills,
    Handoffs,
    Invites,
    Link,
    LinkAttempts,
    Links,
    NoticeClaims,
    NoticeOptOuts,
    OutageWatches,
    RestartWatches,
    TrustUnblocks,
)

from flows.coordinator import IspCoordinator
from flows.files import FileSource, FileUnavailable
from flows.policy import Policy

# Keys of ChatState.data: the flow's own data, the pending question and its buttons' values.
FLOW_DATA = "flow"
PROMPT = "prompt"
CHOICES = "choices"
MISSES = "misses"
RECENT = "recent"  # the person's last few messages, in words: the staff's card shows them
RECENT_KEPT = 5
# When this chat last recorded a failed link attempt (ISO time), or None once its failures were
# counted and there were none: a chat that never failed is not counted again on every turn. Only the
# chat's own turns record its failures (``Identity.record_attempt``, in the transaction that saves
# this), and clearing locks only removes failures, so the marker never hides one.
LINK_FAILED = "link_failed"
# The chat's language was guessed from its text, not set (``flows.chat_language``): kept across flows.
LANGUAGE_GUESSED = "language_guessed"
# What the bot writes into the ISP's system (a ticket's subject and description, an occurrence) is
# read by the ISP's staff there, not by the person: in the default locale's language (Brazilian
# Portuguese, as the staff desk is spoken to), whatever language the chat speaks (``Chat.isp_text``).
ISP_LANGUAGE = DEFAULT_LANGUAGE


@dataclass(frozen=True, slots=True)
class Repositories:
    """The stores a turn reads and writes, each with the turn's session (the engine's)."""

    links: Links
    attempts: LinkAttempts
    watches: OutageWatches
    unblocks: TrustUnblocks
    invites: Invites
    states: ChatStates
    handoffs: Handoffs
    contacts: Contacts = field(default_factory=Contacts)
    restarts: RestartWatches = field(default_factory=RestartWatches)
    opt_outs: NoticeOptOuts = field(default_factory=NoticeOptOuts)
    notices: NoticeClaims = field(default_factory=NoticeClaims)
    contested: ContestedBills = field(default_factory=ContestedBills)


class Chat:
    def __init__(
        self, *, state: ChatState, link: Link | None, coordinator: IspCoordinator, policy: Policy,
        translations: Translations, client_language: str | None, menu: Sequence[str] = (),
        message_id: int | None = None, sender_name: str | None = None, files: FileSource | None = None,
        proved_phone: str | None = None, asks_contact: bool = True, channel: str = "telegram",
        acs: AcsClient | None = None,
    ) -> None:
        self.state = state
        self.link = link
        self.coordinator = coordinator
        self.policy = policy
        self.acs = acs  # the ISP's ACS (GenieACS's NBI, ``bot.acs``), None when there is none
        self._translations = translations
        self._client_language = client_language
        self._files = files
        self.menu = menu  # the names of the flows the menu offers, in order
        self.message_id = message_id  # the channel's reference of the message being handled
        self.sender_name = sender_name  # the name the person gave the channel (Telegram's first name), if any
        self.proved_phone = proved_phone  # the sender's own number, vouched for by the channel (WhatsApp)
        self.asks_contact = asks_contact  # the channel can ask for the person's own contact (Telegram)
        # The channel deletes the person's message of a secret once the turn used it (Telegram's
        # deleteMessage; WhatsApp cannot delete what a person sent, the terminal shows what was typed).
        self.deletes_messages = channel == "telegram"
        self.channel_name = CHANNEL_NAMES.get(channel, CHANNEL_NAMES["telegram"])  # texts' {{ channel }}

    # ---- who and where ---------------------------------------------------------------------------
    @property
    def chat_id(self) -> int:
        return self.state.chat_id

    @property
    def language(self) -> str:
        return self.state.language or pick_language(self._client_language)

    @property
    def data(self) -> dict[str, Any]:
        """The current flow's own data (JSON values only); emptied when another flow begins."""
        flow_data: dict[str, Any] = self.state.data.setdefault(FLOW_DATA, {})
        return flow_data

    @property
    def system_user(self) -> str:
        """The ISP system user a technician's or staff member's chat speaks for."""
        if self.link is None or self.link.system_user is None:
            raise LookupError("this chat is not linked to a system user")
        return self.link.system_user

    @property
    def customer(self) -> int:
        """The linked customer's code (flows with ``requires_link`` always have one)."""
        if self.link is None or self.link.customer_code is None:
            raise LookupError("this chat is not linked to a customer")
        return self.link.customer_code

    @property
    def current_ticket(self) -> int | None:
        return self.state.current_ticket

    def set_current_ticket(self, ticket: int | None) -> None:
        """The ticket this conversation belongs to: its messages are mirrored into it from now on."""
        self.state.current_ticket = ticket

    def set_language(self, language: str) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r}")
        self.state.language = language
        self.state.data.pop(LANGUAGE_GUESSED, None)  # chosen: no text changes it any more

    # ---- the words -------------------------------------------------------------------------------
    def text(self, key: str, /, **variables: Any) -> str:
        """A template in the chat's language."""
        return self.render_in(self.language, key, **variables)

    def text_or(self, key: str, default: str, /, **variables: Any) -> str:
        """``text``, or ``default`` where no template ``key`` exists (a name another part recorded)."""
        return self.text(key, **variables) if self._translations.has(key) else default

    def render_in(self, language: str, key: str, /, **variables: Any) -> str:
        """A template in a given language (the staff's, the ISP's), not the chat's."""
        return self._translations.render(language, key, **{"channel": self.channel_name, **variables})

    def isp_text(self, key: str, /, **variables: Any) -> str:
        """A text the bot writes into the ISP's system (a ticket's subject or description, an
        occurrence): plain text in ``ISP_LANGUAGE``, the language the ISP's staff read there, not the
        chat's. Every such text is a template (``locales/``), never words written in a flow."""
        return plain_text(self.render_in(ISP_LANGUAGE, key, **variables))

    # ---- what the person sent ----------------------------------------------------------------------
    async def fetch_file(self, ref: str, *, limit: int) -> bytes:
        """A file the person sent (see ``flows.files``): held for one call, never stored."""
        if self._files is None:
            raise FileUnavailable("this channel cannot fetch files")
        return await self._files.fetch(ref, limit=limit)
