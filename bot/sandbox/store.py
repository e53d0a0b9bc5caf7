"""The sandbox's records: named tables of plain JSON-able dicts, the same shape ``export()`` writes.

Records carry the spec's generation-1.0 field names where a query lists them (a customer is a
``ConsultaClientes`` record), plus lower-case bookkeeping fields the queries never show. Keeping one
plain shape makes an operator's own fixture easy to write and the homologation copy a deep copy.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from copy import deepcopy as _deepcopy
from typing import Any

Record = dict[str, Any]

FORMAT_VERSION = 1


class Store:
    def __init__(self, tables: dict[str, list[Record]] | None = None) -> None:
        self.tables: dict[str, list[Record]] = tables if tables is not None else {}

    def rows(self, table: str) -> list[Record]:
        return self.tables.get(table, [])  # reading never creates a table (homologation compares stores)

    def where(
        self, table: str, test: Callable[[Record], bool] | None = None, **match: Any
    ) -> Iterator[Record]:
        for row in self.rows(table):
            if all(row.get(k) == v for k, v in match.items()) and (test is None or test(row)):
                yield row

    def find(self, table: str, **match: Any) -> Record | None:
        return next(self.where(table, **match), None)

    def next_id(self, table: str, field: str, start: int = 1) -> int:
        ids = [row[field] for row in self.rows(table) if isinstance(row.get(field), int)]
        return max(ids, default=start - 1) + 1

    def insert(self, table: str, record: Record, id_field: str | None = None) -> Record:
        if id_field is not None and record.get(id_field) is None:
            record[id_field] = self.next_id(table, id_field)
        self.tables.setdefault(table, []).append(record)
        return record

    def delete(self, table: str, record: Record) -> None:
        self.rows(table).remove(record)

    def clone(self) -> Store:
        """A scratch copy: homologation runs a write on it and throws it away."""
        return Store(_deepcopy(self.tables))

    def export(self) -> dict[str, Any]:
        return {"format": "ispbot-sandbox", "version": FORMAT_VERSION, "tables": _deepcopy(self.tables)}

    @classmethod
    def from_export(cls, data: Any, *, copy: bool = True) -> Store:
        if not isinstance(data, dict) or not isinstance(data.get("tables"), dict):
            raise ValueError("a sandbox fixture is an object with a 'tables' object (see Sandbox.export())")
        tables: dict[str, list[Record]] = {}
        for name, rows in data["tables"].items():
            if not isinstance(rows, list) or not all(isinstance(r, dict) for r in rows):
                raise ValueError(f"table {name!r} must be a list of objects")
            tables[str(name)] = _deepcopy(rows) if copy else rows
        return cls(tables)
