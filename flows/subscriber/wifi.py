"""The Wi-Fi's password and name, changed on the customer's router through the ISP's ACS.

- Without an ACS this flow is the Wi-Fi ticket (``wifi_password``), as before.
- The device is the contract's (``flows.acs.find_device``: by serial, else by PPPoE login; several:
  which one); none found, the ACS down, a change refused: said, a ticket offered.
- The password (WPA2: 8 to 63 printable ASCII characters) is a ``SECRET``: its message is used in
  its turn, deleted from the chat where the channel can, and kept nowhere. It is confirmed by typing
  it again: between the two turns the flow keeps only a keyed hash of it (the policy's key, not in
  the database) and its first and last characters, which is all it ever shows of it.
- The name (1 to 32 characters) is confirmed with a yes or no.
- The change goes to every Wi-Fi network the router has on (2.4 and 5 GHz; a guest network left off
  stays as it was) in one ``setParameterValues``; GenieACS's 200 is "applied", its 202 "the router
  did not answer now: applied when it connects".
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from bot.acs import AcsError

from flows.acs import (
    ACS_NEXT,
    DEVICE,
    NEXT_LEADS,
    OUTCOME_KEYS,
    acs_of,
    answer_next,
    chosen_device,
    current_device,
    find_device,
    offer_ticket,
    tell_failure,
)
from flows.context import Context
from flows.events import Text
from flows.flow import (
    SECRET,
    TO_MENU,
    WORDS,
    YES_NO,
    Answer,
    Chosen,
    Flow,
    Option,
    StepEvent,
    Steps,
    Switch,
    Unexpected,
)

PASSWORD_LENGTH = (8, 63)  # WPA2-PSK's passphrase
NAME_LENGTH = (1, 32)  # an SSID


class Wifi(Flow):
    name = "wifi"
    commands = ("wifi",)
    needs_acs = True
    steps = Steps(
        begin=("which", "what", ACS_NEXT, Switch("wifi_password")),
        which=("what", ACS_NEXT),
        what=("password", "ssid", ACS_NEXT, TO_MENU),
        password=(SECRET, "password_again", "password", ACS_NEXT),
        password_again=(SECRET, "password", ACS_NEXT, TO_MENU),
        ssid=(WORDS, "confirm_ssid", "ssid", ACS_NEXT),
        confirm_ssid=(YES_NO, ACS_NEXT, TO_MENU),
        next=NEXT_LEADS,
    )

    async def begin(self, ctx: Context) -> None:
        if ctx.acs is None:
            ctx.switch("wifi_password")
            return
        if await find_device(ctx, "which") is not None:
            self._ask_what(ctx)

    async def which(self, ctx: Context, event: StepEvent) -> None:
        if await chosen_device(ctx, event) is not None:
            self._ask_what(ctx)

    async def what(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value="password"):
                ctx.reply.ask("password", "router.ask_password", length=PASSWORD_LENGTH, deleted=ctx.deletes_messages)
            case Chosen(value="name"):
                device = await current_device(ctx)
                if device is not None:
                    names = [n.name for n in device.networks_to_change() if n.name]
                    ctx.reply.ask("ssid", "router.ask_name", current=", ".join(dict.fromkeys(names)))
            case Chosen(value="menu"):
                ctx.to_menu()
            case _:
                raise Unexpected("router.pick_a_button")

    async def password(self, ctx: Context, event: StepEvent) -> None:
        typed = _typed(event)
        if not _valid_password(typed):
            raise Unexpected("router.password_rules", length=len(typed))
        salt = secrets.token_hex(8)
        ctx.data["typed"] = {"salt": salt, "hash": _keyed(ctx, salt, typed)}
        ctx.reply.ask("password_again", "router.ask_password_again", masked=_masked(typed), length=len(typed))

    async def password_again(self, ctx: Context, event: StepEvent) -> None:
        typed = _typed(event)
        kept = ctx.data.pop("typed", None) or {}
        if not kept or not hmac.compare_digest(_keyed(ctx, str(kept.get("salt")), typed), str(kept.get("hash"))):
            ctx.reply.ask("password", "router.password_differs", length=PASSWORD_LENGTH)
            return
        await self._apply(ctx, "password", typed)

    async def ssid(self, ctx: Context, event: StepEvent) -> None:
        typed = _typed(event).strip()
        if not NAME_LENGTH[0] <= len(typed) <= NAME_LENGTH[1] or not typed.isprintable():
            raise Unexpected("router.name_rules", length=len(typed))
        ctx.data["name"] = typed
        ctx.reply.ask("confirm_ssid", "router.confirm_name", [Option(True, key="router.button_yes"),
                                                              Option(False, key="router.button_no")], name=typed)

    async def confirm_ssid(self, ctx: Context, event: StepEvent) -> None:
        match event:
            case Chosen(value=True) | Answer(value=True):
                await self._apply(ctx, "name", str(ctx.data["name"]))
            case Chosen(value=False) | Answer(value=False):
                ctx.reply.say("router.kept")
                ctx.to_menu()
            case _:
                raise Unexpected("router.yes_or_no")

    async def next(self, ctx: Context, event: StepEvent) -> None:
        await answer_next(ctx, event)

    def _ask_what(self, ctx: Context) -> None:
        ctx.reply.ask("what", "router.wifi_what", [
            Option("password", key="router.button_password"), Option("name", key="router.button_name"),
            Option("menu", key="router.button_menu"),
        ])

    async def _apply(self, ctx: Context, what: str, value: str) -> None:
        """Set the password or the name on every network the router has on."""
        device = await current_device(ctx)
        if device is None:
            return
        networks = device.networks_to_change()
        if not networks:
            offer_ticket(ctx, "no_wifi")
            return
        paths = [n.passphrase_path if what == "password" else n.ssid_path for n in networks]
        try:
            outcome = await acs_of(ctx).set_values(str(ctx.data[DEVICE]), [(p, value, "xsd:string") for p in paths])
        except AcsError as error:
            tell_failure(ctx, error)
            return
        ctx.reply.say(f"router.{what}_{OUTCOME_KEYS[outcome]}", networks=len(networks),
                      name=value if what == "name" else "")
        ctx.to_menu()


def _typed(event: StepEvent) -> str:
    if not isinstance(event, Text) or not event.text:
        raise Unexpected("router.type_it")
    return event.text


def _valid_password(text: str) -> bool:
    """WPA2's passphrase: 8 to 63 printable ASCII characters (no accents, no emoji)."""
    return PASSWORD_LENGTH[0] <= len(text) <= PASSWORD_LENGTH[1] and all(32 <= ord(c) <= 126 for c in text)


def _masked(text: str) -> str:
    """All a reply ever shows of a password: its first and last characters."""
    return f"{text[0]}{'•' * (len(text) - 2)}{text[-1]}"


def _keyed(ctx: Context, salt: str, text: str) -> str:
    """A keyed hash of a typed password, to tell whether it is typed the same again: the key is the
    policy's (derived from the ISP key), not in the database; the password itself is kept nowhere."""
    return hmac.new(ctx.policy.link_target_key, f"{salt}:{text}".encode(), hashlib.sha256).hexdigest()
