"""A staff member's private chat: where the work happens (the group's topics) and its commands."""

from __future__ import annotations

from flows.context import Context
from flows.flow import Flow, StepEvent, Steps


class Menu(Flow):
    name = "menu"
    commands = ("menu", "inicio", "help", "ajuda")
    resting = True
    steps = Steps(begin=("idle",), idle=())

    async def begin(self, ctx: Context) -> None:
        ctx.reply.say("staff.menu", user=ctx.system_user)
        ctx.reply.wait("idle")

    async def idle(self, ctx: Context, event: StepEvent) -> None:
        ctx.reply.say("staff.menu", user=ctx.system_user)
        ctx.reply.wait("idle")
