"""Support staff answering handed-off conversations in a forum supergroup (see ``desk.py``)."""

from bot.channels.telegram.staff.desk import StaffDesk

__all__ = ["StaffDesk"]
