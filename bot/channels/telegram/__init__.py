"""The Telegram channel: engine replies rendered as Bot API calls (``render``) and delivered by a
rate-limited sender that keeps each chat's order and lets chats go concurrently (``sender``)."""

from bot.channels.telegram.render import ApiCall, render, split_html
from bot.channels.telegram.sender import Rate, Sender

__all__ = ["ApiCall", "Rate", "Sender", "render", "split_html"]
