"""Web-service instances: each access key has its permitted operations, environment and default user.

The real system configures these under Company > Parameters > Web Services; the sandbox seeds a few
well-known ones (``SEEDED_KEYS``) and lets an operator add a production key for every operation.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class Environment(StrEnum):
    HOMOLOGATION = "homologation"  # every validation runs, nothing is persisted, data is fictitious
    PRODUCTION = "production"


#: ``operations`` value meaning "every operation".
ALL = frozenset({"*"})


@dataclass(frozen=True)
class ApiKey:
    key: str
    name: str
    environment: Environment
    default_user: str
    operations: frozenset[str] = ALL
    active: bool = True

    def permits(self, operation: str) -> bool:
        return self.operations is ALL or "*" in self.operations or operation in self.operations


PRODUCTION_KEY = "sandbox-production-key"
HOMOLOGATION_KEY = "sandbox-homologation-key"
RESTRICTED_KEY = "sandbox-restricted-key"
INACTIVE_KEY = "sandbox-inactive-key"

#: The restricted instance: what a subscriber-facing portal typically gets (read-only ticket/finance).
RESTRICTED_OPERATIONS = frozenset(
    {
        "ConsultaClientes",
        "ConsultaContratos",
        "ConsultaDocumentosAbertos",
        "ConsultaLinhaDigitavelBoleto",
        "ConsultaAtendimentos",
        "ConsultaTopicos",
        "get_unpaid_document",
        "get_banking_billet",
        "get_barcode",
        "get_pix_copia_cola",
        "get_pix_qrcode",
        "invoices_issued",
        "invoices_issued_pdf",
    }
)

SEEDED_KEYS: tuple[ApiKey, ...] = (
    ApiKey(PRODUCTION_KEY, "Bot (production)", Environment.PRODUCTION, "ispbot"),
    ApiKey(HOMOLOGATION_KEY, "Bot (homologation)", Environment.HOMOLOGATION, "ispbot.homolog"),
    ApiKey(RESTRICTED_KEY, "Portal (read-only)", Environment.PRODUCTION, "portal", RESTRICTED_OPERATIONS),
    ApiKey(INACTIVE_KEY, "Old integration (inactive)", Environment.PRODUCTION, "legacy", active=False),
)


class KeyRing:
    def __init__(self, keys: Iterable[ApiKey] = SEEDED_KEYS) -> None:
        self._keys = {k.key: k for k in keys}

    def all(self) -> list[ApiKey]:
        return list(self._keys.values())

    def get(self, key: str) -> ApiKey | None:
        """The active key, or None when it is unknown or inactive (both answer the same error)."""
        found = self._keys.get(key)
        return found if found is not None and found.active else None

    def add(self, key: ApiKey) -> ApiKey:
        self._keys[key.key] = key
        return key

    def add_production_key(
        self, key: str | None = None, *, default_user: str = "ispbot", name: str = "Operator key"
    ) -> ApiKey:
        """A production key permitted for every operation (``--key`` of ``ispbot sandbox``)."""
        return self.add(ApiKey(key or secrets.token_hex(16), name, Environment.PRODUCTION, default_user))
