"""The notices the bot writes first: a bill's reminder, the overdue notice, a payment received, an
outage started (what each says and when: docs/operator-guide.md, "Notices the bot writes first").

A round, as of a moment: the chats linked to customers (with language and opt-outs) from the
database; the ISP read in pages of ``PAGE`` linked customers per listing call, never one call per
subscriber where a listing exists (the amount due today of an overdue bill has none: one read per
customer with an overdue bill). Each chat is told once per (kind, subject): the claim
(``NoticeClaims.claim``) is made in the transaction of the notice, for a bill in the chat's own turn
(a ``Told`` for the bills flow's ``reminded`` step: its buttons work in the conversation that
follows). An opted-out chat is refused; in quiet hours nothing is read or sent; a dry run claims
nothing. The notices go to the channels as they are made, behind the answers to people, and are
made as the channels take them (``send`` waits while the channels have enough in hand).
Choices where the issue was silent: an overdue notice missed goes up to ``CATCH_UP_DAYS`` later, no
later; a payment is told when settled by payment in the last ``PAID_WITHIN_DAYS`` days; every chat
linked to the customer is told; a chat told of an outage hears when it ends.
"""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from decimal import Decimal
from typing import Any

from bot.i18n import DEFAULT_LANGUAGE
from bot.isp import IspError
from bot.isp.models import v1_records
from bot.store import (
    Answered,
    Database,
    NoticeClaims,
    NoticeOptOuts,
    NoticeRounds,
    OutageWatches,
    UpdateTakenError,
    linked_subscribers,
    opted_out,
)
from bot.store.channels import channel_of_chat
from sqlalchemy.ext.asyncio import AsyncSession

from flows.engine import Engine
from flows.events import Incoming, Told
from flows.replies import Message, Notice, Reply

log = logging.getLogger(__name__)

BILL_DUE, BILL_OVERDUE = "bill_due", "bill_overdue"
PAYMENT_RECEIVED, OUTAGE_STARTED = "payment_received", "outage_started"
KINDS = (BILL_DUE, BILL_OVERDUE, PAYMENT_RECEIVED, OUTAGE_STARTED)
PAGE = 500  # linked customers per listing call (a Filtro's IN list stays a few kilobytes)
CATCH_UP_DAYS = 6  # an overdue notice whose day was missed still goes this many days later
PAID_WITHIN_DAYS = 2  # a payment settled longer ago than this is not told
AMOUNT = "amount"  # the template value written as money ("R$ 99,90"), not as a bare number
OUTAGE = "outage:"  # an outage's subject, before the event's id
SEND_BATCH = 50  # notices handed to the channels at a time, so the first go while the round goes on


@dataclass(frozen=True, slots=True)
class NoticeSettings:
    """``ISPBOT_NOTICE_*`` as a round reads them."""

    due_days: int = 3  # 0: no reminders
    overdue_days: int = 1
    quiet: tuple[time, time] | None = (time(21), time(8))

    def quiet_at(self, moment: datetime) -> bool:
        """Whether ``moment`` (in the ISP's zone) falls in the quiet hours."""
        if self.quiet is None:
            return False
        start, end, now = self.quiet[0], self.quiet[1], moment.timetz().replace(tzinfo=None)
        return start <= now < end if start <= end else (now >= start or now < end)


@dataclass(frozen=True, slots=True)
class Planned:
    """One notice a round means to send: a turn of the chat's (``told``: a question with buttons), or
    the text ``key`` with ``variables`` when it asks nothing; ``values``: its template's."""

    kind: str
    subject: str  # "bill:<Sequencia>", "outage:<event id>"
    chat_id: int
    customer_code: int
    values: dict[str, Any]
    told: Told | None = None
    key: str = ""
    variables: dict[str, Any] = field(default_factory=dict)


@dataclass
class RoundReport:
    """What a round did (or, dry, would do)."""

    as_of: datetime
    dry_run: bool = False
    quiet: bool = False
    sent: Counter[str] = field(default_factory=Counter)  # by kind
    held: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    isp_calls: Counter[str] = field(default_factory=Counter)  # by operation
    planned: list[Planned] = field(default_factory=list)  # a dry run's: who would get what

    def details(self) -> dict[str, Any]:
        return {"dry_run": self.dry_run, "quiet": self.quiet, "sent": dict(self.sent), "held": dict(self.held),
                "refused": dict(self.refused), "isp_calls": dict(self.isp_calls)}


Send = Callable[[list[Notice]], Awaitable[None]]


class NoticeRound:
    def __init__(self, engine: Engine, settings: NoticeSettings | None = None) -> None:
        self.engine = engine
        self.database: Database = engine.database
        self.coordinator = engine.coordinator
        self.settings = settings or NoticeSettings()
        self.claims = NoticeClaims()
        self.rounds = NoticeRounds()

    async def run(
        self, *, now: datetime | None = None, dry_run: bool = False, send: Send | None = None,
        channels: Collection[str] | None = None,
    ) -> RoundReport:
        """One round as of ``now`` (the ISP's clock by default). ``send`` takes the notices as they
        are made (the processor's ``send_round``: it returns once the channels have room); a dry run
        sends and claims nothing. ``channels``: those this process sends on (None: any); a chat on
        another is held, unclaimed, for a process that runs its channel."""
        now = (now or self.coordinator.now()).astimezone(self.coordinator.zone)
        report = RoundReport(now, dry_run=dry_run, quiet=self.settings.quiet_at(now))
        async with self.database.transaction() as session:
            round_id = await self.rounds.start(session, now, self.coordinator.now(), dry_run=dry_run)
        try:
            if not report.quiet or dry_run:
                await self._round(report, send, channels)
        finally:
            async with self.database.transaction() as session:
                await self.rounds.finish(
                    session, round_id, self.coordinator.now(), sent=report.sent.total(), held=report.held.total(),
                    refused=report.refused.total(), isp_calls=report.isp_calls.total(), details=report.details(),
                )
        log.info("notice round as of %s%s: %d sent, %d held, %d refused, %d ISP calls", now.isoformat(),
                 " (dry run)" if dry_run else "", report.sent.total(), report.held.total(), report.refused.total(),
                 report.isp_calls.total())
        return report

    async def _round(self, report: RoundReport, send: Send | None, channels: Collection[str] | None) -> None:
        async with self.database.transaction() as session:
            subscribers = await linked_subscribers(session)
            opt_outs = await NoticeOptOuts().of_chats(session, [chat for chat, _, _ in subscribers])
        chats: dict[int, list[int]] = defaultdict(list)
        languages: dict[int, str] = {}
        for chat_id, customer, language in subscribers:
            chats[customer].append(chat_id)
            languages[chat_id] = language or DEFAULT_LANGUAGE
        batch: list[Notice] = []
        async for notice in self._plan(report, report.as_of, chats):
            if opted_out(opt_outs.get(notice.chat_id, set()), notice.kind):
                report.refused[notice.kind] += 1
            elif channels is not None and channel_of_chat(notice.chat_id) not in channels:
                report.held[notice.kind] += 1
            elif report.dry_run:
                report.planned.append(notice)
                (report.held if report.quiet else report.sent)[notice.kind] += 1
            else:
                told = await self._tell(notice, languages[notice.chat_id])
                if told:
                    report.sent[notice.kind] += 1
                    batch += told
                if len(batch) >= SEND_BATCH and send is not None:
                    await send(batch)
                    batch = []
        if batch and send is not None:
            await send(batch)

    # ---- what to tell -------------------------------------------------------------------------
    async def _plan(self, report: RoundReport, now: datetime, chats: dict[int, list[int]]) -> AsyncIterator[Planned]:
        """Every notice due as of ``now`` for the linked customers, none already claimed: a page of
        customers at a time, so the first are told while the next page is read (at 10,000 linked
        customers the round reads 42 listings). The open outages come with the first page."""
        failed: set[str] = set()  # a kind the ISP could not read is read again next round, not page by page
        for number, page in enumerate(_pages(sorted(chats))):
            planned: list[Planned] = []
            for reader in (self._outages, self._bills, self._payments):
                if reader.__name__ in failed or (reader == self._outages and number):
                    continue
                try:
                    planned += await reader(report, now.date(), page, chats)
                except IspError as exc:  # the others still go
                    failed.add(reader.__name__)
                    log.warning("a notice round could not read the ISP (%s): %s", reader.__name__, type(exc).__name__)
            for notice in await self._unclaimed(planned):
                yield notice

    async def _unclaimed(self, planned: list[Planned]) -> list[Planned]:
        """Those not claimed yet (the claim itself, in each turn, settles a race)."""
        by_kind: dict[str, set[str]] = defaultdict(set)
        for notice in planned:
            by_kind[notice.kind].add(notice.subject)
        taken: set[tuple[str, str, int]] = set()
        async with self.database.transaction() as session:
            for kind, subjects in by_kind.items():
                taken |= {(kind, s, c) for s, c in await self.claims.claimed(session, kind, subjects)}
        return [n for n in planned if (n.kind, n.subject, n.chat_id) not in taken]

    async def _bills(
        self, report: RoundReport, today: date, customers: list[int], chats: dict[int, list[int]],
    ) -> list[Planned]:
        settings = self.settings
        first_overdue = today - timedelta(days=settings.overdue_days + CATCH_UP_DAYS)
        last_overdue = today - timedelta(days=settings.overdue_days)
        last_due = today + timedelta(days=settings.due_days)
        documents: list[v1_records.OpenDocument] = []
        for page in _pages(customers):
            report.isp_calls["ConsultaDocumentosAbertos"] += 1
            documents += await self.coordinator.open_bills_of(page, first_overdue, last_due)
        due = [d for d in documents
               if settings.due_days and d.Vencimento is not None and today <= d.Vencimento <= last_due]
        overdue = [d for d in documents if d.Vencimento is not None and first_overdue <= d.Vencimento <= last_overdue]
        planned = [
            _bill_notice(BILL_DUE, d, chat, None, ())
            for d in due if d.CliFor in chats and d.Sequencia for chat in chats[d.CliFor]
        ]
        overdue = [d for d in overdue if d.CliFor in chats and d.Sequencia]
        if not overdue:
            return planned
        blocked = await self._blocked(report, sorted({d.CliFor for d in overdue if d.CliFor is not None}))
        today_of: dict[int, dict[int, str]] = {}  # customer: their bills' amounts due today
        for document in overdue:
            customer = document.CliFor or 0
            if customer not in today_of:
                today_of[customer] = await self._due_today(report, customer)
            amount = today_of[customer].get(document.Sequencia or 0)
            contracts = _contracts_of(document, blocked.get(customer, set()))
            planned += [_bill_notice(BILL_OVERDUE, document, chat, amount, contracts) for chat in chats[customer]]
        return planned

    async def _blocked(self, report: RoundReport, customers: list[int]) -> dict[int, set[int]]:
        """The blocked contracts of these customers, one listing per page."""
        blocked: dict[int, set[int]] = defaultdict(set)
        for page in _pages(customers):
            report.isp_calls["ConsultaContratos"] += 1
            for contract in await self.coordinator.contracts_of(page):
                if contract.Situacao_Codigo is v1_records.ContractStatus.BLOCKED and contract.Numero is not None:
                    blocked[contract.Cliente_Codigo or 0].add(contract.Numero)
        return blocked

    async def _due_today(self, report: RoundReport, customer: int) -> dict[int, str]:
        """The customer's bills' amounts due today (interest and fine included); none when the ISP cannot say."""
        report.isp_calls["get_unpaid_document"] += 1
        try:
            unpaid = await self.coordinator.amounts_due_today(customer)
        except IspError:
            return {}
        return {d.id: str(d.value_up) for d in unpaid if d.id is not None and d.value_up is not None}

    async def _payments(
        self, report: RoundReport, today: date, customers: list[int], chats: dict[int, list[int]],
    ) -> list[Planned]:
        since = today - timedelta(days=PAID_WITHIN_DAYS)
        planned: list[Planned] = []
        for page in _pages(customers):
            report.isp_calls["ConsultaDocumentosBaixados"] += 1
            for paid in await self.coordinator.payments_of(page, since):
                if paid.Motivo is not v1_records.SettlementReason.PAYMENT or not paid.Sequencia:
                    continue
                amount = paid.ValorBaixado or paid.ValorOriginal or Decimal(0)
                planned += [
                    Planned(PAYMENT_RECEIVED, f"bill:{paid.Sequencia}", chat, paid.CodigoPessoa or 0,
                            {AMOUNT: amount, "due": paid.DataVencimento}, key="bills.notice_paid",
                            variables={"value": amount, "due": paid.DataVencimento})
                    for chat in chats.get(paid.CodigoPessoa or 0, [])
                ]
        return planned

    async def _outages(
        self, report: RoundReport, today: date, customers: list[int], chats: dict[int, list[int]],
    ) -> list[Planned]:
        del today, customers  # an open event is told whenever it began
        report.isp_calls["FailOverEvents"] += 1
        events = await self.coordinator.outages_open_now()
        planned: list[Planned] = []
        for event in events:
            if event.Id is None:
                continue
            affected = {int(c) for c in (event.AffectedCustomers or "").split(",") if c.strip().isdecimal()}
            if event.Host:
                report.isp_calls["ConsultaAutenticacao"] += 1
                affected |= await self.coordinator.customers_on_nas(event.Host)
            planned += [
                Planned(OUTAGE_STARTED, f"{OUTAGE}{event.Id}", chat, customer, {"since": event.DownTime},
                        key="outages.started", variables={"since": event.DownTime})
                for customer in sorted(affected & chats.keys()) for chat in chats[customer]
            ]
        return planned

    # ---- telling one chat ---------------------------------------------------------------------
    async def _tell(self, planned: Planned, language: str) -> list[Notice]:
        """The notice, claimed in the transaction that makes it (none when another round or process
        claimed it first): the chat's own turn when it asks something, else its text alone (the chat
        stays where it was). A chat told of an outage is on the list to hear when it ends."""
        translations = self.engine.translations
        values = {name: translations.money(language, value) if name == AMOUNT else translations.plain(language, value)
                  for name, value in planned.values.items()}
        if planned.told is None:
            async with self.database.transaction() as session:
                if not await self._claim(session, planned):
                    return []
                if planned.subject.startswith(OUTAGE):
                    await OutageWatches().watch(session, planned.chat_id, int(planned.subject.removeprefix(OUTAGE)))
            text = translations.render(language, planned.key, **planned.variables)
            return [Notice(planned.chat_id, Message(text), planned.kind, values, language)]
        return [Notice(planned.chat_id, reply, planned.kind, values, language) for reply in await self._turn(planned)]

    async def _claim(self, session: AsyncSession, planned: Planned) -> bool:
        return await self.claims.claim(session, kind=planned.kind, subject=planned.subject, chat_id=planned.chat_id,
                                       customer_code=planned.customer_code, at=self.coordinator.now())

    async def _turn(self, planned: Planned) -> list[Reply]:
        """The chat's turn for the notice (``Told``), claimed in its transaction; its replies."""
        assert planned.told is not None  # noqa: S101 - called for a turn's notices only
        claim_it = self._claim

        async def claim(session: AsyncSession, _: list[Reply], __: list[Notice]) -> Answered | None:
            if not await claim_it(session, planned):
                raise UpdateTakenError(planned.chat_id)  # told already: this turn is undone
            return None

        incoming = Incoming(planned.chat_id, planned.told, channel=channel_of_chat(planned.chat_id))
        try:
            return (await self.engine.turn(incoming, within=claim)).replies
        except UpdateTakenError:
            return []


def _pages(customers: Sequence[int]) -> list[list[int]]:
    return [list(customers[start:start + PAGE]) for start in range(0, len(customers), PAGE)]


def _contracts_of(document: v1_records.OpenDocument, blocked: set[int]) -> list[int]:
    """The blocked contracts the bill is for (all the customer's blocked ones when it names none)."""
    named = {int(c) for c in (document.ContratosVinculados or "").split(",") if c.strip().isdecimal()}
    return sorted(blocked & named if named else blocked)


def _bill_notice(
    kind: str, document: v1_records.OpenDocument, chat_id: int, amount: str | None, blocked: Sequence[int],
) -> Planned:
    """A reminder or overdue notice: the bill as the bills flow keeps one (its card's buttons work)."""
    due = document.Vencimento
    item = {
        "document": document.Documento, "account": document.Conta, "id": document.Sequencia,
        "due": due.isoformat() if due else None, "value": str(document.Valor or 0),
        "value_up": amount, "overdue": kind == BILL_OVERDUE,
    }
    values = {AMOUNT: Decimal(amount) if amount else document.Valor, "due": due}
    data = {"kind": kind, "document": item, "blocked": list(blocked)}
    return Planned(kind, f"bill:{document.Sequencia}", chat_id, document.CliFor or 0, values,
                   Told("bills", "reminded", data))
