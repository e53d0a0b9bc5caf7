"""``Identity`` (``ctx.identity``): who a chat is, and proving it.

A chat is linked to a customer it proved to be (``link_customer``: a contact's phone, a PPPoE
password), or made the chat of an ISP system user by a single-use invite (``redeem_invite``,
``link_system_user``); it chooses among the customer's contracts, or unlinks. Every attempt at
proving who the chat is counts against limits per chat and per person tried (``locked``,
``begin_attempt``, ``record_attempt``: ``Policy.link_max_failures``, ``link_target_max_failures``).
The link itself, once made, is the chat's (``ctx.link``, ``ctx.customer``).
"""

from __future__ import annotations

from datetime import datetime

from bot import metrics
from bot.store import Database, InviteError, Proof, Reservation, Role, utcnow
from sqlalchemy.ext.asyncio import AsyncSession

from flows.chat import LINK_FAILED, Chat, Repositories
from flows.contacts import LINKED, UNLINKED
from flows.identity import target_ref
from flows.records import Records
from flows.replies import RoleMenu
from flows.speech import Replies


class InviteRefused(Exception):
    """An invite code that cannot be used; ``reason`` says why, for the logs (unknown, used, expired,
    revoked): the person is told one plain thing."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Identity:
    def __init__(
        self, chat: Chat, session: AsyncSession, repos: Repositories, *, records: Records, reply: Replies,
        database: Database | None = None, reservations: list[int] | None = None,
    ) -> None:
        self._chat = chat
        self._session = session
        self._repos = repos
        self._records = records
        self._reply = reply
        # Where a link attempt is counted before the ISP is asked, in a transaction of its own
        # (``begin_attempt``), and the attempts so counted in this turn, for the engine to take
        # back if the turn ends without an answer.
        self._database = database
        self.reservations = reservations if reservations is not None else []
        self._attempt: Reservation | None = None

    # ---- links -----------------------------------------------------------------------------------
    async def link_customer(self, customer: int, proof: str, *, authentication: int | None = None,
                            contract: int | None = None) -> None:
        """Link the chat to a customer it proved to be; ``proof`` is "contact_phone" or "pppoe_password"."""
        chat = self._chat
        chat.link = await self._repos.links.link(
            self._session, chat.chat_id, role=Role.SUBSCRIBER, proof=Proof(proof), customer_code=customer,
            authentication_id=authentication, contract=contract,
        )
        if self._records.contact is not None:  # the contact so far was this customer's too
            await self._records.identify(customer)
            await self._records.record(chat.state.flow or "link", LINKED)

    async def redeem_invite(self, code: str) -> tuple[Role, str]:
        """Use a single-use invite for this chat: the role and system user it was issued for.
        Raises ``InviteRefused`` (unknown, used, expired, revoked)."""
        try:
            invite = await self._repos.invites.redeem(self._session, code, self._chat.chat_id)
        except InviteError as exc:
            raise InviteRefused(type(exc).__name__) from exc
        return invite.role, invite.system_user

    async def link_system_user(self, role: Role, system_user: str) -> None:
        """Make this chat the chat of an ISP system user (after an invite); its role changes now."""
        chat = self._chat
        chat.link = await self._repos.links.link(
            self._session, chat.chat_id, role=role, proof=Proof.INVITE, system_user=system_user,
        )
        chat.state.role = role
        chat.state.current_ticket = None
        self._reply.replies.append(RoleMenu(role.value, chat.language))

    async def choose_contract(self, contract: int) -> None:
        chat = self._chat
        await self._repos.links.choose_contract(self._session, chat.chat_id, contract)
        chat.link = await self._repos.links.active(self._session, chat.chat_id)

    async def unlink(self) -> bool:
        chat = self._chat
        chat.link = None
        chat.state.current_ticket = None
        unlinked = await self._repos.links.unlink(self._session, chat.chat_id)
        if unlinked:
            await self._records.record(chat.state.flow or "unlink", UNLINKED)
        return unlinked

    # ---- attempts and their limits ---------------------------------------------------------------
    def target(self, kind: str, value: str) -> str:
        """How the person a link attempt tries (a tax id, a PPPoE login) is named in the database."""
        return target_ref(self._chat.policy.link_target_key, kind, value)

    async def recent_failures(self) -> int:
        """This chat's failed attempts within the policy's window."""
        state = self._chat.state
        since = utcnow() - self._chat.policy.link_window
        marker = state.data.get(LINK_FAILED, "")
        if marker is None or (marker and datetime.fromisoformat(marker) < since):
            state.data[LINK_FAILED] = None
            return 0  # none since they were last counted, or only older than the window
        failures = await self._repos.attempts.failures_since(self._session, self._chat.chat_id, since)
        if failures == 0:
            state.data[LINK_FAILED] = None
        return failures

    async def locked(self, target: str | None = None) -> bool:
        """Linking is locked for this chat, or for the person ``target`` names (whatever chat tried)."""
        policy = self._chat.policy
        if await self.recent_failures() >= policy.link_max_failures:
            return True
        return target is not None and await self._target_failures(target) >= policy.link_target_max_failures

    async def begin_attempt(self, target: str | None = None) -> bool:
        """Count an attempt at proving who this chat is (at the person ``target`` names) before the
        ISP is asked, or False, counting nothing, when the chat or the target is locked.

        Counted atomically in a short transaction of its own, committed at once (not the turn's,
        which holds the chat while the ISP answers): however many chats try one person at the same
        moment, no more get through than the limit. The attempt is a failure until
        ``record_attempt(True)`` says otherwise; the engine takes it back if the turn fails.
        """
        at = utcnow()
        chat_id, policy = self._chat.chat_id, self._chat.policy

        async def reserve(session: AsyncSession) -> Reservation | None:
            return await self._repos.attempts.reserve(
                session, chat_id, target, since=at - policy.link_window, at=at,
                chat_limit=policy.link_max_failures, target_limit=policy.link_target_max_failures,
            )

        if self._database is None or self._database.single_connection:
            # One connection for everything (an in-memory SQLite): a transaction of its own would be
            # this one; the statement is atomic on SQLite by itself.
            reserved = await reserve(self._session)
        else:
            async with self._database.transaction() as session:
                reserved = await reserve(session)
        if reserved is None:
            return False
        self._attempt = reserved
        self.reservations.append(reserved.id)
        self._chat.state.data[LINK_FAILED] = at.isoformat()  # a failure until settled
        return True

    async def record_attempt(self, succeeded: bool, target: str | None = None) -> None:
        """How an attempt went: the one ``begin_attempt`` counted, or (none counted) a new one."""
        policy = self._chat.policy
        if self._attempt is not None:
            attempt, self._attempt = self._attempt, None
            await self._repos.attempts.settle(self._session, attempt.id, succeeded)
            if not succeeded:
                # The failure that reaches a limit engages a lock: counted once, when it happens.
                if attempt.chat_failures == policy.link_max_failures:
                    metrics.LINK_LOCKS.labels("chat").inc()
                if target is not None and attempt.target_failures == policy.link_target_max_failures:
                    metrics.LINK_LOCKS.labels(target.partition(":")[0]).inc()
            return
        at = utcnow()
        await self._repos.attempts.record(self._session, self._chat.chat_id, succeeded, at=at, target=target)
        if succeeded:
            return
        self._chat.state.data[LINK_FAILED] = at.isoformat()
        # The failure that reaches a limit engages a lock: counted once, when it happens.
        if await self.recent_failures() == policy.link_max_failures:
            metrics.LINK_LOCKS.labels("chat").inc()
        if target is not None and await self._target_failures(target) == policy.link_target_max_failures:
            metrics.LINK_LOCKS.labels(target.partition(":")[0]).inc()

    async def _target_failures(self, target: str) -> int:
        since = utcnow() - self._chat.policy.link_window
        return await self._repos.attempts.target_failures_since(self._session, target, since)
