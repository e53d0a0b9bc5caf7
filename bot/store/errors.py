"""What the store raises. Callers catch these, never driver or SQLAlchemy exceptions."""

from __future__ import annotations


class StoreError(Exception):
    """Base of the storage layer's own errors."""


class StaleStateError(StoreError):
    """Another writer saved this chat's state first: reload it and run the step again."""

    def __init__(self, chat_id: int, expected_version: int) -> None:
        super().__init__(f"chat {chat_id}: state changed since version {expected_version} was loaded")
        self.chat_id = chat_id
        self.expected_version = expected_version


class UpdateTakenError(StoreError):
    """This update was processed elsewhere meanwhile (its lease ran out): undo this processing."""

    def __init__(self, update_id: int) -> None:
        super().__init__(f"update {update_id} is no longer pending")
        self.update_id = update_id


class DatabaseRevisionError(StoreError):
    """The database schema is not the one this version of ispbot was written for."""


class DatabaseBehindError(DatabaseRevisionError):
    """The database lacks migrations this code needs (or was never migrated)."""


class DatabaseAheadError(DatabaseRevisionError):
    """The database was migrated by a newer ispbot: this older code does not know its revision."""


class DatabaseUnreachableError(DatabaseRevisionError):
    """Whether the schema is this code's cannot be told: the database cannot be reached at all (a
    wrong ``ISPBOT_DATABASE_URL``, the server down, a user it refuses). Its message names the setting
    and where it points, never the password; ``kind`` the driver's or the system's error."""

    def __init__(self, what: str, kind: str = "") -> None:
        super().__init__(what)
        self.kind = kind


class InviteError(StoreError):
    """An invite code cannot be redeemed. The subclasses say why, for the admin's eyes and the logs;
    what the person is told is up to the flow."""


class InviteNotFoundError(InviteError):
    pass


class InviteUsedError(InviteError):
    pass


class InviteExpiredError(InviteError):
    pass


class InviteRevokedError(InviteError):
    pass
