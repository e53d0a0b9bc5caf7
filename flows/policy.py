"""The operator's choices the flows follow (filled from ``ISPBOT_*`` settings by the app)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from flows.hours import HoursUnreadable, WeeklyHours, read_hours
from flows.stock import StockCatalog


@dataclass(frozen=True, slots=True)
class CancelTerms:
    """The operator's billing choices for ``contract_cancel`` (``ISPBOT_CANCEL_*``): future bills
    reversed, the current period (none, cancel, block), pre-billings deleted (cancel, none), the
    reversal's reason, the fine's account and history, and the topic of an equipment-withdrawal
    ticket (0: none asked; the ISP then needs a transitory stock location)."""

    reversal_reason: int
    fine_account: int
    fine_history: int
    future_billing: bool = True
    period_action: str = "none"
    pre_billing: bool = True
    pre_billing_action: str = "cancel"
    withdrawal_topic: int = 0

    @property
    def complete(self) -> bool:
        """Whether the ISP ids every cancel needs are set (without them a person takes the cancel)."""
        return self.reversal_reason > 0 and self.fine_account > 0 and self.fine_history > 0


@dataclass(frozen=True, slots=True)
class Policy:
    # The ISP system user the bot acts as (opening user of tickets, attendant of mirrored messages).
    isp_user: str = "ispbot"
    # Ticket mode the bot's tickets are opened with (a ``code`` of get_tickets_mode: "Telegram").
    ticket_mode: str = "7"
    # Linking: failed attempts per chat within the window before linking locks for the window.
    link_max_failures: int = 5
    link_window: timedelta = timedelta(hours=1)
    # ... and failed attempts at one person (tax id or PPPoE login) from all chats together.
    link_target_max_failures: int = 10
    # Key of the hashes that name those people in the database (flows.identity.target_key).
    link_target_key: bytes = field(default=b"ispbot", repr=False)
    # How a person reaches the ISP without the bot ("" when the operator gave none): its phone and
    # opening hours, named to someone the bot cannot hand to a person (not linked, no staff desk, or
    # linking locked); and its sales team's phone and address (a site or a shop) for prospects.
    support_phone: str = ""
    support_hours: str = ""  # also when the staff desk answers (``desk_hours``)
    # Minutes a person waits per place in line when the desk has answered too few people lately to
    # tell from its own answer times (``flows.queue``).
    handoff_minutes_each: int = 10
    # The ISP's own facts besides that phone, told to anyone who asks at any point (``flows.subscriber.company``).
    address: str = ""
    website: str = ""
    sales_phone: str = ""
    sales_address: str = ""
    # Unblock in trust (contract_unblock on the subscriber's word).
    unblock_enabled: bool = True
    unblock_every: timedelta = timedelta(days=30)
    unblock_max_overdue: int = 2
    unblock_release_minutes: int = 15
    # Largest payment receipt (photo or PDF) the bot takes to send to the ISP, in bytes.
    receipt_max_bytes: int = 5 * 1024 * 1024
    # Misunderstandings in a row before the bot offers a person.
    give_up_after: int = 3
    # A staff desk answers handoffs live (the Telegram channel turns it on when a staff group is set);
    # without one, "talk to a person" opens a ticket the staff answer from the ISP system.
    staff_desk: bool = False
    # The desk keeps every chat's whole history (a shared inbox: Chatwoot), not only handed-off ones
    # (``bot.desks.base.Desk.follows_every_chat``).
    desk_follows_every_chat: bool = False
    # The notice kinds WhatsApp has no approved template for (``ISPBOT_WHATSAPP_TEMPLATES``): outside
    # its 24-hour window such a notice is held, so whoever caused it is not told it reached the person.
    held_outside_window: frozenset[str] = frozenset()
    # A person's message after this long without one begins a new contact, with a new protocol.
    contact_quiet: timedelta = timedelta(minutes=30)
    # The ISP's products and stock locations as technicians name them (``ISPBOT_STOCK_FILE``).
    stock: StockCatalog = field(default_factory=StockCatalog)
    # The ISP's legal name and CNPJ, printed on the papers the bot makes (cancel receipt, yearly statement).
    company: str = ""
    # The ISP's CNPJ (digits): a receipt's payee is checked against it, the company's name and the bill's PIX.
    company_tax_id: str = ""
    # Cancelling in the chat (``contract_cancel``, the decree's "without an attendant"): off, or without
    # the ISP ids of ``cancel_terms``, a person takes it; the one retention offer ("" for none).
    self_cancel: bool = True
    retention_offer: str = ""
    cancel_terms: CancelTerms = field(default_factory=lambda: CancelTerms(0, 0, 0))
    # Temporary suspension: the days a subscriber may ask for, and how far ahead it may start.
    suspend_min_days: int = 30
    suspend_max_days: int = 120
    suspend_start_within_days: int = 30
    # Name (or part of it) of the ticket topic contested charges are opened on ("" : a financial one).
    contest_topic: str = ""
    # Restart my connection: how long the restart watch looks for the session to come back, and how
    # often (``flows.restarts``, after the turn).
    restart_wait_seconds: float = 60.0
    restart_poll_seconds: float = 5.0

    @property
    def desk_hours(self) -> WeeklyHours | None:
        """When the ISP's people answer, read from ``support_hours`` (None: not given, or not a
        schedule; the settings refuse one that is not, so only a hand-made policy meets that)."""
        try:
            return read_hours(self.support_hours)
        except HoursUnreadable:
            return None
