"""The typed async client of the ISP management system's JSON web service (both generations).

Nothing here imports the rest of the project. Start at ``client.IspClient``; operations are listed
in ``catalog`` (``OPERATIONS``), requests and records in ``models``, filters in ``filters``, errors
in ``errors``.
"""

from bot.isp.client import IspClient
from bot.isp.errors import (
    CircuitOpenError,
    ErrorName,
    Generation,
    InvalidKeyError,
    InvalidRequestError,
    IspApiError,
    IspBadResponse,
    IspError,
    IspHttpError,
    IspTimeout,
    IspTransportError,
    IspUnreachable,
    NotTheWebServiceError,
)
from bot.isp.filters import F, Filter, quotable, unsafe_raw_filter
from bot.isp.settings import IspSettings

__all__ = [
    "CircuitOpenError",
    "ErrorName",
    "F",
    "Filter",
    "Generation",
    "InvalidKeyError",
    "InvalidRequestError",
    "IspApiError",
    "IspBadResponse",
    "IspClient",
    "IspError",
    "IspHttpError",
    "IspSettings",
    "IspTimeout",
    "IspTransportError",
    "IspUnreachable",
    "NotTheWebServiceError",
    "quotable",
    "unsafe_raw_filter",
]
