"""The ISP's stock as technicians name it: products by the code on their label, and stock locations.

The web service lists neither (``ConsultaModelosProduto`` has models, not products;
``ticket_item_insert`` wants the product's internal id and a location id), so the operator gives the
bot a catalog file (``ISPBOT_STOCK_FILE``), kept as the ISP system shows them::

    products:
      - {code: 1001, id: 1, name: "ONU GPON Huawei HG8145", serial: true}
    locations:
      - {id: 1, name: "Almoxarifado central"}

``code``: printed on the label; ``id``: the ISP system's internal id; ``serial``: serial-controlled
(moves one serial at a time). Without a catalog the technician types the internal id and the
location's id, as the web service takes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from flows.words import normalise


@dataclass(frozen=True, slots=True)
class Product:
    code: int
    id: int
    name: str
    serial: bool


@dataclass(frozen=True, slots=True)
class Location:
    id: int
    name: str


@dataclass(frozen=True, slots=True)
class StockCatalog:
    products: tuple[Product, ...] = ()
    locations: tuple[Location, ...] = ()

    @classmethod
    def from_mapping(cls, raw: Mapping[str, Any] | None, source: str = "the stock catalog") -> StockCatalog:
        """The catalog from its YAML shape; ``ValueError`` naming the entry to fix otherwise."""
        raw = raw or {}
        if not isinstance(raw, Mapping) or set(raw) - {"products", "locations"}:
            raise ValueError(f"{source}: expected a mapping with 'products' and 'locations' lists")
        products = tuple(_entry(Product, entry, f"{source}: products[{n}]", ("code", "id", "name", "serial"))
                         for n, entry in enumerate(raw.get("products") or []))
        locations = tuple(_entry(Location, entry, f"{source}: locations[{n}]", ("id", "name"))
                          for n, entry in enumerate(raw.get("locations") or []))
        for label, keys in (("product code", [p.code for p in products]), ("location id", [x.id for x in locations])):
            twice = sorted({k for k in keys if keys.count(k) > 1})
            if twice:
                raise ValueError(f"{source}: {label} {twice[0]} is listed twice")
        return cls(products, locations)

    def product(self, code: int) -> Product | None:
        """The product whose label shows ``code``."""
        return next((p for p in self.products if p.code == code), None)

    def search(self, words: str) -> list[Product]:
        """Products whose name holds every word (case and accents do not matter), by code."""
        wanted = normalise(words)
        return sorted((p for p in self.products if wanted and all(w in " ".join(normalise(p.name)) for w in wanted)),
                      key=lambda p: p.code)

    def location(self, location: int) -> Location | None:
        return next((x for x in self.locations if x.id == location), None)


def _entry(kind: Any, raw: Any, where: str, fields: tuple[str, ...]) -> Any:
    if not isinstance(raw, Mapping) or set(raw) != set(fields):
        raise ValueError(f"{where}: expected exactly the keys {', '.join(fields)}")
    values = dict(raw)
    for key in fields:
        value = values[key]
        if key == "name":
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{where}: name must be a text")
            values[key] = value.strip()
        elif key == "serial":
            if not isinstance(value, bool):
                raise ValueError(f"{where}: serial must be true or false")
        elif not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise ValueError(f"{where}: {key} must be a whole number above 0")
    return kind(**values)

