"""The sandbox's store hands out the next id of a table as one more than its highest, however the
table changed since (inserts, deletes, rows appended by hand), and filling a table stays linear."""

from __future__ import annotations

from bot.sandbox.store import Store


def test_inserted_rows_get_increasing_ids_from_the_start_given() -> None:
    store = Store()
    assert store.next_id("messages", "id", start=100) == 100
    ids = [store.insert("messages", {"id": None, "text": str(n)}, "id")["id"] for n in range(5)]
    assert ids == [1, 2, 3, 4, 5]
    store.insert("messages", {"id": 40}, "id")  # an id given by the caller counts too
    assert store.next_id("messages", "id") == 41


def test_the_next_id_follows_deletes_and_rows_added_by_hand() -> None:
    store = Store({"tickets": [{"Numero": 7}, {"Numero": 9}]})
    assert store.next_id("tickets", "Numero") == 10
    highest = store.find("tickets", Numero=9)
    assert highest is not None
    store.delete("tickets", highest)
    assert store.next_id("tickets", "Numero") == 8
    store.tables["tickets"].append({"Numero": 30})
    assert store.insert("tickets", {"Numero": None}, "Numero")["Numero"] == 31


def test_a_hundred_thousand_inserts_do_not_rescan_the_table() -> None:
    store = Store()
    for _ in range(100_000):
        store.insert("chat_messages", {"id": None}, "id")
    rows = store.rows("chat_messages")
    assert [row["id"] for row in rows[-2:]] == [99_999, 100_000]
    assert len({row["id"] for row in rows}) == 100_000
