"""Linking a chat to a customer, with proof: a tax id plus the chat's own phone (a shared Telegram
contact, or the WhatsApp sender's number the channel vouches for, checked without asking), or a PPPoE
login and password of one of the customer's authentications.

- Nothing tells a guesser whether a tax id or a login exists, not the words nor the time: an unknown
  tax id is asked for the contact like a known one, each step makes the same ISP calls either way
  (``NOBODY`` stands in for no customer), and a login without authentications meets a dummy password.
- What is compared counts as an attempt, atomically before the ISP is asked (``begin_link_attempt``),
  per chat and per person tried (a keyed hash) across chats; a wrong check digit, a contact not the
  sender's own or a character no tax id or login holds is a slip: answered, never counted. Either
  lock gives the same words and when linking is free again; ``ispbot locks clear`` clears them.
- The tax id's customer codes wait in the chat's state for the contact; the password is checked in
  the step it arrives in and kept nowhere. A phone proof asks which contract when there are several.
- Nobody is stuck: buttons for a person and for sales; words read where text is not proof (a password
  is any text), the ISP's facts told and the same question asked again (``FACTS``).
"""

from __future__ import annotations

from typing import Any

from bot.isp import quotable
from bot.isp.models.v1_records import ContractStatus

from flows.chat import PROMPT
from flows.context import Context
from flows.events import Contact, Media, Text
from flows.flow import (
    LOGIN,
    SECRET,
    TAX_ID,
    TO_MENU,
    Answer,
    Chosen,
    Flow,
    Option,
    StepEvent,
    Steps,
    Switch,
    Takes,
    Unexpected,
)
from flows.identity import (
    normalise_phone,
    normalise_tax_id,
    plausible_login,
    plausible_tax_id,
    same_phone,
    same_secret,
)
from flows.intents import SMALL_TALK, default_intents
from flows.speech import prompt_reply
from flows.subscriber.company import say_facts
from flows.subscriber.paid import receipt_of

DEAD = {ContractStatus.CANCELLED, ContractStatus.TRANSFERRED}
# The ISP's phone, hours, address asked at a question of linking: answered here, the question kept.
FACTS = Takes("the ISP's facts, then the question again", but=frozenset({"company"}))
MAX_LOGIN = 64
NOBODY = 0  # a customer code no ISP gives: asked for when a tax id had no customer
# What a person not linked may ask for instead of proving who they are: the intent, the flow.
ELSEWHERE = {"human": "human", "cancel_plan": "human", "sales": "sales"}
ASKED_KEPT = 300


class Link(Flow):
    name = "link"
    requires_link = False
    resting_steps = frozenset({"method"})  # the greeting's "how will you prove it?": nothing under way yet
    # Proof is used in its turn and forgotten (the login and password too: ``SECRET``): a tax id may be
    # typed at the greeting already, a contact shared; the customer codes and a keyed hash stay.
    private_steps = frozenset({"method", "tax_id", "contact"})
    steps = Steps(
        begin=("locked", "method"),
        locked=(FACTS, "method", Switch("human"), Switch("sales")),
        method=(FACTS, TAX_ID, "tax_id", "login", "contact", "locked", Switch("human"), Switch("sales")),
        tax_id=(FACTS, TAX_ID, "contact", "contract", "method", "locked", TO_MENU, Switch("human"), Switch("sales")),
        contact=(FACTS, "contract", "method", "locked", TO_MENU, Switch("human"), Switch("sales")),
        login=(SECRET, LOGIN, "password", Switch("human"), Switch("sales")),
        password=(SECRET, "contract", "method", "locked", TO_MENU),
        contract=(TO_MENU,),
    )

    async def begin(self, ctx: Context) -> None:
        if not await self._locked(ctx):
            # Back from telling how to reach a person: the question alone, not the whole greeting.
            self._ask_method(ctx, "link.if_customer" if ctx.data.get("again") else "link.greeting")

    async def locked(self, ctx: Context, event: StepEvent) -> None:
        if not self._elsewhere(ctx, event):
            await self.begin(ctx)  # whatever else arrives, say again whether linking is open

    async def method(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="contact"):
                ctx.reply.ask("tax_id", "link.ask_tax_id")
            case Chosen(value="pppoe"):
                ctx.reply.ask("login", "link.ask_login")
            case Answer(kind="tax_id") if self._by_phone(ctx):
                await self.tax_id(ctx, event)  # the tax id typed straight away, alone or in a sentence
            case Text(text=text) if normalise_tax_id(text) is not None and self._by_phone(ctx):
                await self.tax_id(ctx, event)
            case Media() if receipt_of(event) is not None:  # a receipt: whose bill is known after the link
                raise Unexpected("link.receipt_first")
            case _ if self._elsewhere(ctx, event):
                pass
            case Text(text=text) if (name := default_intents().match(ctx.language, text)) is not None:
                if name == "company":  # the ISP's phone, hours: anyone's to know, the question kept
                    self._facts(ctx)
                    return
                if name == "bye":  # leaving: a goodbye, nothing asked again
                    ctx.reply.say("menu.bye")
                    return
                # Bills, the connection...: a customer's request, answered once they are identified.
                key = "link.if_customer" if name in SMALL_TALK else "link.identify_first"
                self._ask_method(ctx, "link.greeting" if name == "greeting" else key)
            case _:
                raise Unexpected("link.pick_method", **self._ways(ctx))

    # ---- proof (a): tax id and the chat's own phone ---------------------------------------------
    async def tax_id(self, ctx: Context, event: StepEvent) -> None:
        if isinstance(event, Answer):  # "meu cpf é 529.982.247-25": read in the sentence, check digits held
            await self._proved_tax_id(ctx, str(event.value))
            return
        if not isinstance(event, Text):
            raise Unexpected("link.tax_id_hint")
        if self._elsewhere(ctx, event):  # "quero falar com um atendente" is no tax id with odd characters
            return
        if not plausible_tax_id(event.text):
            raise Unexpected("link.tax_id_chars")
        tax_id = normalise_tax_id(event.text)
        if tax_id is None:
            raise Unexpected("link.tax_id_typo")
        await self._proved_tax_id(ctx, tax_id)

    async def _proved_tax_id(self, ctx: Context, tax_id: str) -> None:
        target = ctx.identity.target("tax_id", tax_id)
        if await self._locked(ctx, target):
            return
        ctx.data["target"] = target
        ctx.data["customers"] = [c.Codigo for c in await ctx.coordinator.customers_by_tax_id(tax_id) if c.Codigo]
        if ctx.proved_phone is not None:  # the channel's own word for the number: nothing to share
            await self.contact(ctx, Contact(ctx.proved_phone, own=True))
            return
        ctx.reply.ask_contact("contact", "link.ask_contact")

    async def contact(self, ctx: Context, event: StepEvent) -> None:
        if not isinstance(event, Contact) and self._elsewhere(ctx, event):
            return
        if not isinstance(event, Contact):
            raise Unexpected("link.use_contact_button")
        if not event.own:
            raise Unexpected("link.not_own_contact")
        target = ctx.data.get("target")
        if await self._locked(ctx, target) or not await self._attempt(ctx, target):
            return
        phone = normalise_phone(event.phone, international=True)
        # One uncached call whether the tax id had customers or not (NOBODY stands in for none).
        codes = [int(code) for code in ctx.data.get("customers", [])] or [NOBODY]
        for customer in await ctx.coordinator.customers_by_codes(codes):
            phones = (customer.TelCelular, customer.TelResidencial, customer.TelComercial)
            known = [p for p in map(normalise_phone, phones) if p is not None]
            if phone is not None and customer.Codigo in codes and any(same_phone(phone, p) for p in known):
                await self._linked(ctx, customer.Codigo, "contact_phone")
                return
        await self._failed(ctx, target)

    # ---- proof (b): PPPoE login and password ----------------------------------------------------
    async def login(self, ctx: Context, event: StepEvent) -> None:
        # "meu login é maria.silva": the login read in the sentence; else the text as typed is the login.
        login = str(event.value) if isinstance(event, Answer) else event.text.strip() if isinstance(event, Text) else ""
        if not login or len(login) > MAX_LOGIN:
            raise Unexpected("link.login_hint")
        # Only what a real login holds: no space, no backslash (no ``Filtro`` carries it alike under
        # every SQL mode), nothing that storing the chat's state would turn into another character (a
        # lone surrogate became U+FFFD there, and ``maria\ufffd.silva`` reached the ISP).
        if not plausible_login(login) or not quotable(login):
            if self._elsewhere(ctx, event):  # "quero falar com um atendente" is no login with spaces
                return
            raise Unexpected("link.login_chars")
        ctx.data["login"] = login
        ctx.reply.ask("password", "link.ask_password", deleted=ctx.deletes_messages)

    async def password(self, ctx: Context, event: StepEvent) -> None:
        if not isinstance(event, Text) or not event.text:
            raise Unexpected("link.password_hint")
        login = str(ctx.data.get("login", ""))
        target = ctx.identity.target("login", login)
        if await self._locked(ctx, target) or not await self._attempt(ctx, target):
            return
        match = None
        for auth in await ctx.coordinator.authentications_by_login(login):
            secret = auth.Senha.get_secret_value() if auth.Senha is not None else None
            if secret and same_secret(event.text, secret) and auth.Cliente and match is None:
                match = auth
        if match is None:
            same_secret(event.text, "\x00" * len(event.text))  # the same work as a real comparison
            await self._failed(ctx, target)
            return
        await self._linked(ctx, match.Cliente or 0, "pppoe_password", match.Id, match.Contrato)

    # ---- after the proof -------------------------------------------------------------------------
    async def contract(self, ctx: Context, event: StepEvent) -> None:
        choices = [int(c) for c in ctx.data.get("contracts", [])]
        match event:
            case Chosen(value=number) if number in choices:
                pass
            case Text(text=text) if text.strip().isdecimal() and int(text.strip()) in choices:
                number = int(text.strip())
            case _:
                raise Unexpected("link.pick_contract")
        await ctx.identity.choose_contract(number)
        ctx.reply.say("link.contract_chosen", number=number)
        ctx.to_menu()

    async def _linked(self, ctx: Context, customer: int, proof: str, auth: int | None = None,
                      contract: int | None = None) -> None:
        live = [c for c in await ctx.coordinator.contracts(customer) if c.Numero and c.Situacao_Codigo not in DEAD]
        numbers = [c.Numero for c in live]
        if contract not in numbers:
            contract = numbers[0] if len(numbers) == 1 else None
        await ctx.identity.record_attempt(True)  # database writes only after every ISP read
        await ctx.identity.link_customer(customer, proof, authentication=auth, contract=contract)
        ctx.reply.say("link.linked")
        if contract is None and len(live) > 1:
            ctx.data["contracts"] = numbers
            plans = [{"number": c.Numero, "plan": c.Plano_Descricao} for c in live]
            options = [Option(plan["number"], key="link.contract_button", vars=plan) for plan in plans]
            ctx.reply.ask("contract", "link.choose_contract", options)
            return
        ctx.to_menu()

    async def _failed(self, ctx: Context, target: str | None) -> None:
        ctx.data.clear()
        await ctx.identity.record_attempt(False, target)
        if not await self._locked(ctx, target):
            self._ask_method(ctx, "link.failed")

    async def _locked(self, ctx: Context, target: str | None = None) -> bool:
        """Locked for this chat, or for the person tried (``target``) from any chat: the same words."""
        if not await ctx.identity.locked(target):
            return False
        self._say_locked(ctx)
        return True

    async def _attempt(self, ctx: Context, target: str | None) -> bool:
        """Count the attempt before the ISP is asked; False (locked, said so) when a limit was reached
        meanwhile, by another chat trying the same person at the same moment."""
        if await ctx.identity.begin_attempt(target):
            return True
        self._say_locked(ctx)
        return False

    def _say_locked(self, ctx: Context) -> None:
        now = ctx.coordinator.now()
        free = now + ctx.policy.link_window
        ctx.reply.ask("locked", "link.locked", self._other_ways(ctx), at=free, today=free.date() == now.date(),
                      **self._ways(ctx))

    @staticmethod
    def _by_phone(ctx: Context) -> bool:
        """Whether a tax id can be proved here: the channel vouches for the number or can ask for it
        (not a WhatsApp sender whose number WhatsApp withholds: the PPPoE login is left)."""
        return ctx.proved_phone is not None or ctx.asks_contact

    def _ask_method(self, ctx: Context, key: str, **variables: Any) -> None:
        options = [Option("contact", key="link.method_contact")] if self._by_phone(ctx) else []
        options.append(Option("pppoe", key="link.method_pppoe"))
        ctx.reply.ask("method", key, options + self._other_ways(ctx), **(self._ways(ctx) | variables))

    # ---- not a customer, or wanting a person -------------------------------------------------------
    def _elsewhere(self, ctx: Context, event: StepEvent) -> bool:
        """Whether the person asked for a person or the sales team (a button, or words that name
        them): if so the chat goes there and True. Only for text that is not proof."""
        match event:
            case Chosen(value="human" | "sales" as flow, typed=typed):
                ctx.switch(flow, **({"asked": typed.strip()[:ASKED_KEPT]} if typed else {}))
                return True
            case Text(text=text) if (flow := ELSEWHERE.get(default_intents().plainly(ctx.language, text) or "")):
                ctx.switch(flow, asked=text.strip()[:ASKED_KEPT])
                return True
            case Text(text=text) if default_intents().plainly(ctx.language, text) == "company":
                self._facts(ctx)
                return True
        return False

    def _facts(self, ctx: Context) -> None:
        """The ISP's phone, hours, address and site, then the question that was waiting: as it was, or
        at the greeting's question that question alone (not the greeting again)."""
        say_facts(ctx)
        again = prompt_reply(ctx.state.data.get(PROMPT))
        if ctx.state.step == "method" or again is None:
            self._ask_method(ctx, "link.if_customer")
        else:
            ctx.reply.replies.append(again)

    def _other_ways(self, ctx: Context) -> list[Option]:
        """Buttons for a person and for sales, where either leads somewhere (a desk, a phone)."""
        ways = self._ways(ctx)
        options = [Option("human", key="link.button_human")] if ways["human"] else []
        return options + ([Option("sales", key="link.button_sales")] if ways["sales"] else [])

    def _ways(self, ctx: Context) -> dict[str, Any]:
        """What the link's sentences say of other ways: whether a person and the sales team can be
        reached from here (a desk, or a phone), and the support phone and its hours."""
        policy = ctx.policy
        human = policy.staff_desk or bool(policy.support_phone)
        sales = human or bool(policy.sales_phone or policy.sales_address)
        return {"human": human, "sales": sales, "desk": policy.staff_desk, "phone": policy.support_phone,
                "hours": policy.support_hours}
