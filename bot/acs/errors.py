"""What can go wrong asking the ACS. Messages carry the HTTP status and the NBI's path only: never
a parameter's value (a Wi-Fi password is one) nor the credentials."""

from __future__ import annotations


class AcsError(Exception):
    """The root: the ACS could not do what was asked."""


class AcsUnavailable(AcsError):
    """The NBI could not be reached, took longer than the setting, or failed (5xx, not JSON)."""


class AcsOutOfTime(AcsUnavailable):
    """The turn's time for the ACS ran out during a call (``sent``: the request had reached the NBI
    whole, so a task was inserted there) or before it (nothing sent)."""

    def __init__(self, message: str, *, sent: bool) -> None:
        super().__init__(message)
        self.sent = sent


class AcsUnknownDevice(AcsError):
    """The NBI knows no such device (404 "No such device"): removed from the ACS meanwhile."""


class AcsRefused(AcsError):
    """The NBI or the device said no: a 4xx other than 404 (a malformed task, wrong credentials), or
    a task the device faulted ("Task faulted")."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status
