"""Redeeming an invite: ``/start <code>`` from the deep link ``ispbot invite`` printed.

The only way a chat becomes a technician's (or, later, a staff member's). The invite is single-use
and expires; the system user it names must still be active in the ISP system when it is redeemed
(a user blocked after the invite was printed is refused). Failed codes count as failed link
attempts, so guessing is rate-limited like every other proof. A chat linked to a customer is told
to unlink first: one chat speaks for one identity.

Other deep links the ISP may publish (its site's "fale conosco" and "assine já" buttons) begin where
they say: ``?start=atendente`` a person (``human``), ``?start=contratar`` the sales team (``sales``);
any other payload is just the usual greeting.
"""

from __future__ import annotations

import logging
import re

from bot.isp.models.v1_records import UserStatus

from flows.context import Context, InviteRefused, Role
from flows.flow import TO_MENU, Flow, Steps, Switch

log = logging.getLogger(__name__)

INVITE_CODE = re.compile(r"[A-Za-z0-9_-]{22}")  # secrets.token_urlsafe(16), as invites are made
# Roles an invite can make a chat (subscribers prove who they are instead).
JOINABLE = (Role.TECHNICIAN, Role.STAFF)
# Deep links of the ISP's own (``t.me/<bot>?start=<payload>``) and the flow each begins.
DEEP_LINKS = {"atendente": "human", "humano": "human", "suporte": "human",
              "contratar": "sales", "vendas": "sales", "comercial": "sales", "planos": "sales"}


class Join(Flow):
    name = "join"
    requires_link = False
    steps = Steps(begin=(TO_MENU, Switch("human"), Switch("sales")))

    async def begin(self, ctx: Context) -> None:
        code = str(ctx.data.get("payload") or "")
        if (flow := DEEP_LINKS.get(code.casefold())) is not None:
            ctx.switch(flow)
            return
        if not INVITE_CODE.fullmatch(code):
            ctx.to_menu()  # another deep link (the ISP's site, an ad): just the usual greeting
            return
        if ctx.link is not None and ctx.link.role is Role.SUBSCRIBER:
            ctx.reply.say("join.unlink_first")
            ctx.to_menu()
            return
        if await ctx.identity.recent_failures() >= ctx.policy.link_max_failures:
            ctx.reply.say("join.locked", minutes=int(ctx.policy.link_window.total_seconds() // 60))
            ctx.to_menu()
            return
        try:
            role, login = await ctx.identity.redeem_invite(code)
        except InviteRefused as refused:
            await self._refuse(ctx, "join.invalid", reason=refused.reason)
            return
        user = await ctx.coordinator.system_user(login)
        if role not in JOINABLE or user is None or user.Situacao is not UserStatus.ACTIVE:
            log.warning("an invite for %s was refused: the system user is not active", role.value)
            await self._refuse(ctx, "join.user_not_active")
            return
        await ctx.identity.link_system_user(role, login)
        await ctx.identity.record_attempt(succeeded=True)
        ctx.reply.say("join.welcome", user=login)
        ctx.to_menu()

    async def _refuse(self, ctx: Context, key: str, reason: str = "") -> None:
        if reason:
            log.info("an invite code was refused: %s", reason)
        await ctx.identity.record_attempt(succeeded=False)
        ctx.reply.say(key)
        ctx.to_menu()
