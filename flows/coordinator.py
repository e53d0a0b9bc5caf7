"""The one door to the ISP (``tests/flows/test_one_door.py``): the reads and writes of the flows
and the staff desk, named for what they mean; each write names its read-back (``flows.writes``).

The ISP server is fragile and a surge (an outage: thousands writing at once) must not multiply
calls. So, like a Home Assistant coordinator in front of a device:

- reference lists (topics, ticket modes, causes) are kept ``REFERENCE_TTL`` seconds;
- what many ask at the same moment (open outages, the customers on a failed NAS, NAS status) is
  kept a few seconds and fetched once however many ask (``TtlCache``; the client coalesces too);
- per-customer reads are kept briefly and dropped as soon as the bot itself changes that customer:
  what the bot just did is never hidden by a cached copy;
- the contracts of everybody an outage affects are read together (``standing_contracts``);
- secrets (``ConsultaAutenticacaoSenha``) and tickets being worked on are never cached.

Every filter is built with ``F``: no text a person typed ever reaches a ``Filtro`` unquoted.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable, Hashable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime
from decimal import Decimal
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from bot.isp import F, IspApiError, IspClient, IspError, quotable
from bot.isp.errors import ErrorName
from bot.isp.models import v1_records, v1_requests, v2_finance, v2_requests, v2_results
from bot.isp.resilience import Clock, TtlCache
from cachetools import TTLCache

from flows.policy import CancelTerms
from flows.writes import CLOCK_SLACK

T = TypeVar("T")

IN_CHUNK = 500  # customer codes per ``IN`` filter of a read shared by everybody in an outage
REFERENCE_TTL = 600.0  # topics, modes, causes: edited by hand in the ISP system, rarely
SURGE_TTL = 20.0  # outages, NAS status: what everybody asks during an outage
CUSTOMER_TTL = 30.0  # a customer's contracts, bills, tickets, online status


# What the task (a turn, and the tasks it starts) awaits before each ISP call: ``before_calls``.
_before_call: ContextVar[Callable[[], Awaitable[None]] | None] = ContextVar("before_isp_call", default=None)


async def _await_before_call() -> None:
    if (hook := _before_call.get()) is not None:
        await hook()


class IspCoordinator:
    def __init__(
        self, client: IspClient, *, zone: ZoneInfo, clock: Clock = time.monotonic,
        wall_clock: Callable[[], datetime] | None = None,
    ) -> None:
        self.client = client
        client.before_call = _await_before_call
        self.zone = zone
        self._wall_clock = wall_clock
        self._reference: TtlCache[Any] = TtlCache(REFERENCE_TTL, clock=clock)
        self._surge: TtlCache[Any] = TtlCache(SURGE_TTL, clock=clock)
        self._customer: TtlCache[Any] = TtlCache(CUSTOMER_TTL, maxsize=4096, clock=clock)
        # Customers the bot itself changed within ``SURGE_TTL``: the reads shared by everybody in an
        # outage may still hold them as they were, so their own read is used (``standing_contracts``).
        self._changed: TTLCache[int, bool] = TTLCache(maxsize=4096, ttl=SURGE_TTL, timer=clock)

    @contextmanager
    def before_calls(self, hook: Callable[[], Awaitable[None]]) -> Iterator[None]:
        """Await ``hook`` before each ISP call this task (and the tasks it starts) makes meanwhile,
        cached answers aside: the engine holds a turn's chat there (``ChatStates.hold``)."""
        token = _before_call.set(hook)
        try:
            yield
        finally:
            _before_call.reset(token)

    def now(self) -> datetime:
        """The ISP's wall clock time: every date sent to the ISP is in its own zone."""
        now = self._wall_clock() if self._wall_clock is not None else datetime.now(self.zone)
        return now.astimezone(self.zone)

    # ---- reference lists ---------------------------------------------------------------------
    async def subscriber_topics(self) -> list[v1_records.TicketTopic]:
        """Active topics shown in the subscriber center, the ones a subscriber may open."""
        where = (F("Central") == "S") & (F("Situacao") == "A")
        return await _get(self._reference, "topics", lambda: self.client.ConsultaTopicos(where))

    async def administrative_topics(self) -> list[v1_records.TicketTopic]:
        """Active administrative (A) topics, also the staff-only ones: for tickets the bot opens itself."""
        where = (F("Tipo") == "A") & (F("Situacao") == "A")
        return await _get(self._reference, "admin_topics", lambda: self.client.ConsultaTopicos(where))

    async def ticket_modes(self) -> list[Any]:
        return await _get(self._reference, "modes", self.client.get_tickets_mode)

    async def system_user(self, login: str) -> v1_records.SystemUser | None:
        """The ISP system user with this login (technicians, staff), or None. Kept briefly: a user
        blocked in the ISP system is refused by the bot within a minute."""
        users = await _get(self._surge, "users", self.client.ConsultaUsuarios)
        return next((user for user in users if user.Usuario == login), None)

    async def closing_causes(self) -> list[v1_records.ClosingCause]:
        return await _get(self._reference, "causes", self.client.ConsultaCausas)

    async def active_causes(self, kind: v1_records.TicketType | None) -> list[v1_records.ClosingCause]:
        """The active closing causes of a type of ticket (every active one when the type is unknown)."""
        return [
            c
            for c in await self.closing_causes()
            if c.Codigo is not None
            and c.Situacao is v1_records.ActiveStatus.ACTIVE
            and (kind is None or c.Tipo == kind)
        ]

    # ---- what everybody asks during an outage --------------------------------------------------
    async def open_outages(self) -> list[v1_records.FailoverEvent]:
        return await _get(self._surge, "outages", lambda: self.client.FailOverEvents(F("Status") == "O"))

    async def nas_status(self) -> dict[str, bool]:
        """Internal IP of each NAS → online."""

        async def load() -> dict[str, bool]:
            rows = await self.client.ConsultaStatusNAS()
            return {row.IPInterno: row.Online == "S" for row in rows if row.IPInterno}

        return await _get(self._surge, "nas", load)

    async def outage_for(
        self, customer: int, nas_hosts: frozenset[str] = frozenset()
    ) -> v1_records.FailoverEvent | None:
        """The open failover event that affects this customer (named in it, or on its NAS), if any."""
        for event in await self.open_outages():
            if str(customer) in _named(event) or (event.Host and event.Host in nas_hosts):
                return event
        return None

    async def outage_on_record(self, customer: int) -> v1_records.FailoverEvent | None:
        """The open failover event that affects this customer as the ISP's records say, without a read
        about the customer: named in the event, or with a PPPoE authentication set on the event's NAS.

        During an outage every subscriber on the failed NAS asks at once; per-customer reads (online
        status, authentications) would cost the ISP two calls each. This costs one read of the open
        events and one per failed NAS, shared by everybody for ``SURGE_TTL`` seconds."""
        for event in await self.open_outages():
            if str(customer) in _named(event) or (event.Host and customer in await self.customers_on_nas(event.Host)):
                return event
        return None

    async def customers_on_nas(self, host: str) -> frozenset[int]:
        """Codes of the customers with a PPPoE authentication set on this NAS (its internal IP)."""

        async def load() -> frozenset[int]:
            rows = await self.client.ConsultaAutenticacao(F("NAS") == host)
            return frozenset(row.Cliente for row in rows if row.Cliente is not None)

        return await _get(self._surge, ("on_nas", host), load)

    async def standing_contracts(self, customer: int) -> list[v1_records.Contract]:
        """The customer's contracts, read to tell their standing before anything else. During an
        outage on record that affects the customer, read for everybody it affects at once (one query
        per ``IN_CHUNK`` customers, shared for ``SURGE_TTL`` seconds): in a surge everybody asks.
        A customer the bot itself changed meanwhile (a cancel, a suspension) gets their own fresh read."""
        if customer not in self._changed:
            for event in await self.open_outages():
                affected = {int(code) for code in _named(event) if code.isdecimal()}
                if event.Host:
                    affected |= await self.customers_on_nas(event.Host)
                if customer in affected:
                    shared = await _get(self._surge, ("contracts_in_outage", event.Id, event.Host),
                                        functools.partial(self._contracts_by_customer, frozenset(affected)))
                    return list(shared.get(customer, []))
        return await self.contracts(customer)

    async def _contracts_by_customer(self, codes: frozenset[int]) -> dict[int, list[v1_records.Contract]]:
        found: dict[int, list[v1_records.Contract]] = {}
        ordered = sorted(codes)
        for start in range(0, len(ordered), IN_CHUNK):
            for contract in await self.contracts_of(ordered[start:start + IN_CHUNK]):
                if contract.Cliente_Codigo is not None:
                    found.setdefault(contract.Cliente_Codigo, []).append(contract)
        return found

    async def outage(self, event_id: int) -> v1_records.FailoverEvent | None:
        """One failover event, open or closed (for telling the watchers it ended)."""
        rows = await self.client.FailOverEvents(F("Id") == event_id)
        return rows[0] if rows else None

    def forget_outages(self) -> None:
        """Drop the open outages kept for everybody (an event ended: nobody may hear of it again)."""
        self._surge.invalidate("outages")

    # ---- one customer --------------------------------------------------------------------------
    async def customer(self, code: int) -> v1_records.Customer | None:
        rows = await self._per_customer(code, "customer", lambda: self.client.ConsultaClientes(F("Codigo") == code))
        return rows[0] if rows else None

    async def customers_by_tax_id(self, tax_id: str) -> list[v1_records.Customer]:
        """Customers registered under a CPF/CNPJ (``normalise_tax_id``'s form). Not cached: used to
        prove identity."""
        return await self.client.ConsultaClientes(F("CNPJ_CNPF") == tax_id)

    async def customers_by_codes(self, codes: Sequence[int]) -> list[v1_records.Customer]:
        """The customers with these codes, in one call whatever their number. Not cached: used to
        prove identity, where the time of an answer must not depend on what was cached."""
        return await self.client.ConsultaClientes(F("Codigo").in_(codes))

    async def authentications_by_login(self, login: str) -> list[v1_records.AuthenticationWithPassword]:
        """PPPoE authentications with their passwords in clear: never cached, never logged."""
        return await self.client.ConsultaAutenticacaoSenha(F("Usuario") == login)

    async def contracts(self, customer: int) -> list[v1_records.Contract]:
        return await self._per_customer(
            customer, "contracts", lambda: self.client.ConsultaContratos(F("Cliente_Codigo") == customer),
        )

    async def open_documents(self, customer: int) -> list[v1_records.OpenDocument]:
        # The spec names the filter of CliFor "Cliente".
        where = (F("Cliente") == customer) & (F("Tipo") == "C")
        return await self._per_customer(customer, "documents", lambda: self.client.ConsultaDocumentosAbertos(where))

    async def digitable_line(self, customer: int, document: v1_records.OpenDocument, *, updated: bool) -> str | None:
        request = v1_requests.DigitableLineQuery(
            CliFor=customer, Tipo="C", Documento=document.Documento, Conta=document.Conta,
            BoletoAtualizado="S" if updated else "N",
        )
        try:
            lines = await self.client.ConsultaLinhaDigitavelBoleto(request)
        except IspApiError as exc:
            if exc.known is ErrorName.DOCUMENT_NOT_FOUND:
                return None
            raise
        return next((line.LinhaDigitavel for line in lines if line.LinhaDigitavel), None)

    # ---- finance (third document): the document's internal code is ``Sequencia`` -------------------
    async def unpaid_documents(self, customer: int) -> list[v2_finance.UnpaidDocument]:
        """Open bills with the amount due today (``value_up``)."""
        return await self._per_customer(
            customer, "unpaid",
            lambda: self.client.get_unpaid_document(v2_finance.GetUnpaidDocument(customer_id=customer)),
        )

    async def issued_after(self, customer: int, document: int, day: date) -> bool:
        """Whether the open bill ``document`` was posted (issued) after ``day``. The open bills carry
        no issue date; ConsultaDocumentosAbertos filters by it (``DataLancto``), so the bill is asked
        for with that condition. A posting date after today (a bill generated ahead of its month)
        says nothing of when it could be paid, and counts as today."""
        where = ((F("Cliente") == customer) & (F("Tipo") == "C") & (F("Sequencia") == document)
                 & (F("DataLancto") > day) & (F("DataLancto") <= self.now().date()))
        return bool(await self.client.ConsultaDocumentosAbertos(where))

    async def pix_code(self, document: int) -> str | None:
        """The bill's PIX copy-and-paste code as the ISP gives it (unchecked), None when its bank issues
        none (code 16). Never cached: a code may be replaced when the bill is updated."""
        try:
            return await self.client.get_pix_copia_cola(v2_finance.GetPixCopiaCola(banking_billet_id=document))
        except IspApiError as exc:
            if exc.known is ErrorName.NO_PIX:
                return None
            raise

    async def pix_image(self, document: int) -> bytes | None:
        """The ISP's own QR image (PNG bytes), None when it has none."""
        try:
            return await self.client.get_pix_qrcode(v2_finance.GetPixQrcode(banking_billet_id=document))
        except IspApiError as exc:
            if exc.known is ErrorName.NO_PIX:
                return None
            raise

    async def bill_pdf(self, document: int) -> v2_finance.BankingBillet | None:
        """The bill as a PDF, fetched each time it is asked for (its link expires); None when the
        document is no longer open (code 5)."""
        try:
            return await self.client.get_banking_billet(v2_finance.GetBankingBillet(document_id=document))
        except IspApiError as exc:
            if exc.known is ErrorName.NO_OPEN_DOCUMENT:
                return None
            raise

    async def notify_payment(self, *, customer: int, document: int, paid_on: date, name: str,
                             content: bytes) -> int | None:
        """Tell the ISP the bill was paid, with the receipt; the ticket it opened. Raises IspApiError
        (``PAYMENT_ALREADY_INFORMED`` for a second notice). A write: never retried blindly."""
        request = v2_finance.SendPaymentNotification.with_receipt(
            document_id=document, customer_id=customer, payment_date=paid_on, name=name, content=content,
        )
        try:
            notice = await self.client.send_payment_notification(request)
        finally:
            self.forget(customer)
        return notice.ticket_id

    async def invoices(self, customer: int, since: date) -> list[v2_finance.Invoice]:
        """Fiscal invoices of model 21 (communication services) issued since ``since``."""
        request = v2_finance.InvoicesIssued(model="21", issue=since, customer_id=customer)
        return await self.client.invoices_issued(request)

    async def invoice_pdf(self, invoice: int) -> v2_finance.InvoicePdf | None:
        items = await self.client.invoices_issued_pdf(v2_finance.InvoicesIssuedPdf(id=[invoice]))
        return next((item for item in items if item.id in (invoice, None)), None)

    async def tickets(self, customer: int) -> list[v1_records.Ticket]:
        """All the customer's tickets, newest first. Open ones have no ``Encerramento_DataHora``;
        filtering that here, not in the ``Filtro``, keeps working whatever an installation stores
        for "not closed" (NULL, '' or a zero date)."""

        async def load() -> list[v1_records.Ticket]:
            rows = await self.client.ConsultaAtendimentos(F("CodigoCliente") == customer)
            return sorted(rows, key=lambda t: t.Numero or 0, reverse=True)

        return await self._per_customer(customer, "tickets", load)

    async def protocol(self, customer: int, ticket: int) -> int | None:
        """The protocol of one of the customer's tickets (the number people are told), or None when
        the ISP cannot say now: asked after a write, when nothing may fail any more."""
        try:
            return next((t.Protocolo for t in await self.tickets(customer) if t.Numero == ticket), None)
        except IspError:
            return None

    async def open_tickets(self, customer: int) -> list[v1_records.Ticket]:
        return [t for t in await self.tickets(customer) if t.Encerramento_DataHora is None]

    async def online(self, customer: int) -> v1_records.CustomerOnline | None:
        rows = await self._per_customer(
            customer, "online", lambda: self.client.ConsultaClienteOnline(F("Codigo") == customer),
        )
        return rows[0] if rows else None

    async def authentications(self, customer: int) -> list[v1_records.Authentication]:
        """The customer's PPPoE authentications (no passwords): the NAS each is set on, also when offline."""
        return await self._per_customer(
            customer, "authentications", lambda: self.client.ConsultaAutenticacao(F("Cliente") == customer),
        )

    # ---- tickets as technicians and staff work them: read now, never cached (a person acts on what
    # just changed; the client still coalesces identical reads in flight) ----------------------------
    async def ticket(self, number: int) -> v1_records.Ticket | None:
        """One ticket as the ISP holds it now: also the read-back of the writes that set a ticket's
        state (its service order, appointment, assignee, closing)."""
        rows = await self.client.ConsultaAtendimentos(F("Numero") == number)
        return rows[0] if rows else None

    async def assigned_tickets(self, user: str) -> list[v1_records.Ticket]:
        """The tickets assigned to this ISP system user, closed ones too."""
        return await self.client.ConsultaAtendimentos(F("Designacao_Usuario") == user)

    async def scheduled_tickets(self, user: str, day: date) -> list[v1_records.Ticket]:
        """The user's tickets with an appointment that day, closed and canceled ones too."""
        where = (F("Designacao_Usuario") == user) & (F("Data_Agendamento") == day)
        return await self.client.ConsultaAtendimentos(where)

    async def tickets_with_order(self, user: str, statuses: Sequence[v1_records.OsStatus]) -> list[v1_records.Ticket]:
        """The user's tickets whose service order is in one of these statuses."""
        where = (F("Designacao_Usuario") == user) & F("Situacao_OS").in_([s.value for s in statuses])
        return await self.client.ConsultaAtendimentos(where)

    async def appointments(self, user: str, day: date) -> list[v2_results.Appointment]:
        """The user's busy slots that day (tickets' appointments and their own calendar)."""
        return await self.client.consult_appointments(v2_requests.ConsultAppointments(user=user, appointment_date=day))

    async def contracts_of(self, customers: Sequence[int]) -> list[v1_records.Contract]:
        """The contracts of these customers, in one call whatever their number."""
        return await self.client.ConsultaContratos(F("Cliente_Codigo").in_(customers))

    async def occurrences(self, ticket: int) -> list[v1_records.TicketOccurrence]:
        return await self.client.ConsultaOcorrenciasAtendimentos(F("Atendimento") == ticket)

    async def find_occurrence(self, ticket: int, text: str, tried: datetime) -> v1_records.TicketOccurrence | None:
        """The occurrence with this text recorded on the ticket since shortly before ``tried`` (the
        moment of a try of ``add_occurrence``), if any: that write's read-back."""
        since = tried.astimezone(self.zone).replace(tzinfo=None) - CLOCK_SLACK
        return next(
            (o for o in await self.occurrences(ticket) if o.Descricao == text and (o.Data is None or o.Data >= since)),
            None,
        )

    async def checklist(self, ticket: int) -> list[v1_records.ChecklistItem]:
        """The ticket's checklist by item: also ``set_checklist_item``'s read-back."""
        rows = await self.client.ConsultaChecklistAtendimentos(F("Atendimento_Numero") == ticket)
        # The filter is the ISP's; the check here keeps another ticket's items out whatever it does.
        return sorted((i for i in rows if i.Atendimento_Numero == ticket), key=lambda i: i.Checklist_Id or 0)

    async def product_models(self, words: str) -> list[v1_records.ProductModel]:
        """Product models whose description or brand contains the words; none for words no filter can
        hold (a backslash), which no model's name has."""
        if not quotable(words):
            return []
        return await self.client.ConsultaModelosProduto(F("Descricao").contains(words) | F("Marca").contains(words))

    # ---- writes (never retried blindly by the client; each drops what it makes stale) -----------
    async def open_ticket(
        self, *, customer: int, contract: int | None, topic: v1_records.TicketTopic, subject: str, description: str,
        mode: str, user: str | None,
    ) -> int:
        """Open a ticket on the customer's initiative; its protocol number."""
        now = self.now()
        request = v1_requests.TicketCreate(
            Data_Abertura=now.strftime("%Y-%m-%d"), Hora_Abertura=now.strftime("%H:%M:%S"), Iniciativa="C",
            Modo=mode, TipoCliente="C", Cliente=customer, Contrato=contract, Tipo=topic.Tipo, Topico=topic.Codigo,
            Assunto=subject, Ocorrencia=description or None, Usuario_Abertura=user,
        )
        try:
            created = await self.client.AtendimentoCadastro(request)
        finally:
            self.forget(customer)
        if created.NumeroAtendimento is None:
            raise ValueError("AtendimentoCadastro answered success without NumeroAtendimento")
        return int(created.NumeroAtendimento)

    async def add_occurrence(
        self, ticket: int, description: str, user: str | None, position: tuple[float, float] | None = None,
    ) -> None:
        """A note on the ticket (with where it was written, when given). It adds a record (sent with
        ``write_once`` or ``send_once``), read back with ``find_occurrence``."""
        latitude = longitude = None
        if position is not None:
            latitude, longitude = Decimal(str(position[0])), Decimal(str(position[1]))
        await self.client.ticket_occurrence_insert(v2_requests.TicketOccurrenceInsert(
            ticket_id=ticket, description=description, user=user, latitude=latitude, longitude=longitude,
        ))

    async def set_checklist_item(self, ticket: int, item: int, checked: bool, user: str) -> None:
        """Check (M) or uncheck (D) a checklist item: it sets a state (sent twice, it changes nothing);
        read back with ``checklist``."""
        mark = v2_requests.ChecklistSet.CHECK if checked else v2_requests.ChecklistSet.UNCHECK
        await self.client.ticket_checklist_update(
            v2_requests.TicketChecklistUpdate(ticket_id=ticket, checklist_id=item, checklist_set=mark, user=user),
        )

    async def add_ticket_item(
        self, *, ticket: int, customer: int, operation: v2_requests.ItemOperation, item: int, contract: int | None,
        serial: str | None, location: int | None, quantity: Decimal,
    ) -> int | None:
        """A stock product consumed or lent on the ticket; the ISP's id of the item. It adds a record
        and no operation reads a ticket's items: an unknown outcome is never sent again."""
        created = await self.client.ticket_item_insert(v2_requests.TicketItemInsert(
            ticket_id=ticket, customer_id=customer, type=v2_requests.ItemType.PRODUCT, operation=operation,
            contract_id=contract, item_id=item, serial_number=serial, location_id=location, quantity=quantity,
        ))
        return created.item_id

    async def move_order(
        self, ticket: int, target: v2_requests.OsStatus, user: str, position: tuple[Decimal, Decimal] | None,
    ) -> None:
        """Move the ticket's service order (with where the technician is, when given): it sets a
        state, read back with ``ticket`` (``Situacao_OS``)."""
        coordinates = None
        if position is not None:
            coordinates = v2_requests.OsCoordinates(latitude=position[0], longitude=position[1])
        await self.client.ticket_os_status_update(
            v2_requests.TicketOsStatusUpdate(ticket_id=ticket, new_status=target, coordinates=coordinates, user=user),
        )

    async def schedule_visit(
        self, ticket: int, when: datetime, duration: str, status: v2_requests.AppointmentStatus, *, moving: bool,
    ) -> None:
        """Give the ticket an appointment, or move (``moving``) the one it has, canceled ones too (the
        ISP refuses to move one that does not exist): it sets a state, read back with ``ticket``."""
        fields = dict(ticket_id=ticket, appointment_date=when.date(), appointment_time=when.strftime("%H:%M"),
                      duration=duration, appointment_status=status)
        if moving:
            await self.client.ticket_appointment_update(v2_requests.TicketAppointmentUpdate.model_validate(fields))
        else:
            await self.client.ticket_appointment_insert(v2_requests.TicketAppointmentInsert.model_validate(fields))

    async def assign_ticket(
        self, ticket: int, *, mode: str, target_type: v2_requests.TargetType, target: str,
    ) -> None:
        """Assign the ticket to a system user or a group (``target`` is then the group's id) with a
        ticket mode: it sets a state, read back with ``ticket`` (``Designacao_Usuario`` or
        ``Designacao_Grupo_Id``)."""
        await self.client.ticket_assign(v2_requests.TicketAssign(
            ticket_id=ticket, mode_assign=mode, target_type=target_type, target_id=target,
        ))

    async def set_ticket_status(self, ticket: int, status: v2_requests.TicketStatus) -> None:
        """Put an open ticket in progress or on hold: it sets a state (sent twice, it changes nothing)
        that no query reads back, so an unknown outcome can only be told as such."""
        await self.client.ticket_update(v2_requests.TicketUpdate(ticket_id=ticket, status=status))

    async def finish_ticket(self, ticket: int, *, cause: int, solution: str, user: str) -> list[int]:
        """Close the ticket; the numbers of the tickets the ISP opened because of it. Read back with
        ``ticket``: closed, with this ``Solucao``. The caller, who knows the customer, ``forget``s it."""
        result = await self.client.ticket_finish(v2_requests.TicketFinish(
            ticket_id=ticket, cause_id=cause, solution=solution, user=user,
        ))
        return [t.ticket_id for t in result.new_tickets if t.ticket_id is not None]

    async def unblock_contract(self, customer: int, contract: int) -> None:
        try:
            await self.client.contract_unblock(v2_requests.ContractUnblock(customer_id=customer, contract_id=contract))
        finally:
            self.forget(customer)

    async def survey_link(self, ticket: int) -> str | None:
        """The ticket's satisfaction-survey link, or None (no survey, or the ISP cannot say now: asked
        once the ticket is closed, when nothing may fail any more)."""
        try:
            links = await self.client.generate_questionare_link(v2_requests.GenerateQuestionareLink(ticket=ticket))
        except IspError:
            return None
        return next((link.generate_questionare_link for link in links if link.generate_questionare_link), None)

    def forget(self, customer: int) -> None:
        """Drop what is cached about a customer (after a write, or when told it changed)."""
        for what in ("customer", "contracts", "documents", "unpaid", "tickets", "online"):
            self._customer.invalidate((customer, what))
        self._changed[customer] = True

    async def _per_customer(self, customer: int, what: str, load: Callable[[], Awaitable[T]]) -> T:
        return await _get(self._customer, (customer, what), load)

    # ---- the subscriber's rights: cancel, suspend, restart, paid bills ------------------------------
    async def cancel_reasons(self) -> list[v1_records.CancellationReason]:
        """The ISP's list of cancellation reasons (``ConsultaMotivosCancelamento``)."""
        return await _get(self._reference, "cancel_reasons", self.client.ConsultaMotivosCancelamento)

    async def competitors(self) -> list[v1_records.Competitor]:
        return await _get(self._reference, "competitors", self.client.ConsultaConcorrencia)

    async def cancel_contract(
        self, *, customer: int, contract: int, reason: int, competitor: int | None, terms: CancelTerms,
    ) -> str:
        """``contract_cancel`` with the operator's billing choices; the ISP's message. Raises IspApiError
        (``INVALID_CONTRACT_STATUS``-like code 38 when the state allows no cancelling). A state write:
        after a lost answer the contract is read back (``flows.writes.WriteState``), never resent blindly."""
        request = v2_requests.ContractCancel(
            customer_id=customer, contract_id=contract, reason_id=reason, cancel_competition_id=competitor,
            billing=v2_requests.CancelBilling(
                future_cancel=terms.future_billing, cancellation_period_action=terms.period_action,
                reason_id=terms.reversal_reason,
            ),
            pre_billing=v2_requests.CancelPreBilling(
                cancel=terms.pre_billing, cancellation_period_action=terms.pre_billing_action,
            ),
            fine=v2_requests.CancelFine(account_id=terms.fine_account, historic_id=terms.fine_history),
            os=(v2_requests.WithdrawalOrder(open=True, target_type=v2_requests.OsTargetType.TOPIC,
                                            target_id=terms.withdrawal_topic)
                if terms.withdrawal_topic else None),
        )
        try:
            return await self.client.contract_cancel(request)
        finally:
            self.forget(customer)

    async def suspend_contract(self, *, customer: int, contract: int, days: int, start: date, user: str | None) -> str:
        """``contract_suspend_temporary``; raises IspApiError (20: one is already scheduled)."""
        request = v2_requests.ContractSuspendTemporary(
            customer_id=customer, contract_id=contract, duration=days, start_date=start.isoformat(), user=user,
        )
        try:
            return await self.client.contract_suspend_temporary(request)
        finally:
            self.forget(customer)

    async def cancel_suspension(self, *, customer: int, contract: int, user: str | None) -> str:
        """``contract_suspend_temporary_cancel``; raises IspApiError (12: none is scheduled)."""
        request = v2_requests.ContractSuspendTemporaryCancel(customer_id=customer, contract_id=contract, user=user)
        try:
            return await self.client.contract_suspend_temporary_cancel(request)
        finally:
            self.forget(customer)

    async def sessions(self, customer: int) -> list[v2_results.OnlineSession]:
        """The customer's access sessions now. Never cached: asked to see a session drop and come back."""
        return await self.client.get_online_customer(v2_requests.GetOnlineCustomer(customer_id=customer))

    async def disconnect(self, customer: int, session: v2_results.OnlineSession, server: int) -> str:
        """Drop one session so the equipment dials in again (``disconnect_online_customer``)."""
        request = v2_requests.DisconnectOnlineCustomer(
            customer_id=customer, server_id=server, nas_ip_address=session.nas_ip_address or "",
            session_id=session.session_id or "",
        )
        try:
            return await self.client.disconnect_online_customer(request)
        finally:
            self.forget(customer)

    async def equipment(self, customer: int) -> list[v2_results.CustomerEquipment]:
        """The equipment the ISP lists for the customer, active ones only."""
        request = v2_requests.GetEquipmentCustomer(customer_id=customer, equipment_status="active")
        return await self._per_customer(customer, "equipment", lambda: self.client.get_equipment_customer(request))

    async def paid_documents(self, customer: int, since: date, until: date) -> list[v1_records.SettledDocument]:
        """The customer's documents settled by payment (``Motivo`` PAGTO) due from ``since`` to ``until``
        (both included), oldest due date first."""
        where = (
            (F("Movimento.Cliente") == customer) & (F("Movimento.Tipo") == "C")
            & (F("Movimento.Data") >= since) & (F("Movimento.Data") <= until)
        )
        rows = await self.client.ConsultaDocumentosBaixados(where)
        paid = [r for r in rows if r.Motivo is v1_records.SettlementReason.PAYMENT]
        return sorted(paid, key=lambda r: (r.DataVencimento or date.min, r.Sequencia or 0))

    # ---- the notice round (``flows.notices``): reads of many customers, never cached ------------
    # A round reads as of its moment and counts its calls (``RoundReport.isp_calls``), so a cached
    # copy would both hide a change and skew the count. The caller pages the customers (one call each).
    async def open_bills_of(self, customers: Sequence[int], first: date, last: date) -> list[v1_records.OpenDocument]:
        """The open bills (``Tipo`` C) of these customers dated from ``first`` to ``last`` (both
        included), in one call whatever their number."""
        # The spec names the filter of CliFor "Cliente".
        where = (F("Tipo") == "C") & F("Cliente").in_(customers) & F("Data").between(first, last)
        return await self.client.ConsultaDocumentosAbertos(where)

    async def payments_of(self, customers: Sequence[int], since: date) -> list[v1_records.SettledDocument]:
        """The bills of these customers settled by payment (``MotivoBaixa`` PAGTO) on ``since`` or
        later, in one call whatever their number."""
        where = ((F("Movimento.Tipo") == "C") & F("Movimento.Cliente").in_(customers)
                 & (F("Movimento.DataBaixa") >= since) & (F("Movimento.MotivoBaixa") == "PAGTO"))
        return await self.client.ConsultaDocumentosBaixados(where)

    async def amounts_due_today(self, customer: int) -> list[v2_finance.UnpaidDocument]:
        """The customer's open bills with the amount due today (``value_up``), read now: unlike
        ``unpaid_documents``, neither taken from nor left in the per-customer cache."""
        return await self.client.get_unpaid_document(v2_finance.GetUnpaidDocument(customer_id=customer))

    async def outages_open_now(self) -> list[v1_records.FailoverEvent]:
        """The open failover events, read now: unlike ``open_outages``, not the copy shared in a surge."""
        return await self.client.FailOverEvents(F("Status") == "O")


def _named(event: v1_records.FailoverEvent) -> set[str]:
    """The customer codes the event names itself."""
    return {code.strip() for code in (event.AffectedCustomers or "").split(",")}


async def _get(cache: TtlCache[Any], key: Hashable, load: Callable[[], Awaitable[T]]) -> T:
    """A cached value with its loader's type (the caches hold values of many types)."""
    value: T = await cache.get_or_load(key, load)
    return value
