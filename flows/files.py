"""Files a person sends (a payment receipt), fetched from the channel only when a flow needs them.

A channel that can fetch files gives the engine a ``FileSource``; the bytes go straight to the ISP and
are never logged, never stored: a flow holds them for one call and lets them go.
"""

from __future__ import annotations

from typing import Protocol


class FileTooLarge(Exception):
    """The file is larger than the limit the flow asked for."""


class FileUnavailable(Exception):
    """The channel could not give the file (gone, or this channel cannot fetch files)."""


class FileSource(Protocol):
    async def fetch(self, ref: str, *, limit: int) -> bytes:
        """The file's bytes; ``FileTooLarge`` past ``limit`` bytes, ``FileUnavailable`` when it cannot."""
        ...
