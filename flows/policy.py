"""The operator's choices the flows follow (filled from ``ISPBOT_*`` settings by the app)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

from flows.stock import StockCatalog


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
    support_hours: str = ""
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
    # A person's message after this long without one begins a new contact, with a new protocol.
    contact_quiet: timedelta = timedelta(minutes=30)
    # The ISP's products and stock locations as technicians name them (``ISPBOT_STOCK_FILE``).
    stock: StockCatalog = field(default_factory=StockCatalog)
