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
        # (table, field) -> (rows then, highest id then): a table that grew by insert() alone keeps its
        # highest id without a scan, so filling a table (100,000 chat messages) is not quadratic. Any
        # other change (a delete, a row appended by hand) changes the count and makes it scan again.
        self._highest: dict[tuple[str, str], tuple[int, int | None]] = {}

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
        highest = self._highest_id(table, field)
        return (start - 1 if highest is None else highest) + 1

    def insert(self, table: str, record: Record, id_field: str | None = None) -> Record:
        if id_field is not None and record.get(id_field) is None:
            record[id_field] = self.next_id(table, id_field)
        rows = self.tables.setdefault(table, [])
        known = self._highest.get((table, id_field or ""))
        rows.append(record)
        value = record.get(id_field or "")
        if known is not None and known[0] == len(rows) - 1 and isinstance(value, int):
            self._highest[(table, id_field or "")] = (len(rows), value if known[1] is None else max(known[1], value))
        return record

    def _highest_id(self, table: str, field: str) -> int | None:
        rows = self.rows(table)
        known = self._highest.get((table, field))
        if known is None or known[0] != len(rows):
            ids = [row[field] for row in rows if isinstance(row.get(field), int)]
            known = (len(rows), max(ids, default=None))
            self._highest[(table, field)] = known
        return known[1]

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
