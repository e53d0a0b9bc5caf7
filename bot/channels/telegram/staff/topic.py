"""Where a handed-off conversation lives in the staff group, and who speaks there."""

from __future__ import annotations

from dataclasses import dataclass

from bot.channels.telegram.render import ApiCall


@dataclass(frozen=True, slots=True)
class Topic:
    """Where a conversation's staff side lives: the group and the topic's thread id."""

    chat_id: int
    thread_id: int

    def send(self, text: str) -> ApiCall:
        return ApiCall("sendMessage", {
            "chat_id": self.chat_id, "message_thread_id": self.thread_id, "text": text, "parse_mode": "HTML",
        })

    def close(self) -> ApiCall:
        return ApiCall("closeForumTopic", {"chat_id": self.chat_id, "message_thread_id": self.thread_id})


@dataclass(frozen=True, slots=True)
class Staff:
    """A linked staff member: the ISP system user they act as, and the name the subscriber sees."""

    system_user: str
    name: str
