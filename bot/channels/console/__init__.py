"""The terminal channel: the demo's chat, with the same engine, flows and sentences as Telegram."""

from bot.channels.console.channel import ConsoleChannel, Identity, terminal_text

__all__ = ["ConsoleChannel", "Identity", "terminal_text"]
