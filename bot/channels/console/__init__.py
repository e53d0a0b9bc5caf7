"""The terminal channel: the demo's chat, with the same engine, flows and sentences as Telegram."""

from bot.channels.console.channel import ConsoleChannel, Identity, terminal_text
from bot.channels.console.demo import run_demo

__all__ = ["ConsoleChannel", "Identity", "run_demo", "terminal_text"]
