"""The terminal channel: the demo's chats, through the inbox, the processor and a sender that prints."""

from bot.channels.console.channel import ConsoleChannel, ConsoleChat, Identity, LocalFiles
from bot.channels.console.terminal import Screen, terminal_text

__all__ = ["ConsoleChannel", "ConsoleChat", "Identity", "LocalFiles", "Screen", "terminal_text"]
