"""Splitting long content (pieces within the limit, broken between words, nothing lost) and the
retry waits (growing, jittered, capped)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from bot.mirror import MAX_CONTENT, retry_delay, split_content
from hypothesis import given
from hypothesis import strategies as st


def test_short_content_is_one_piece() -> None:
    assert split_content("oi") == ["oi"]
    assert split_content("x" * MAX_CONTENT) == ["x" * MAX_CONTENT]


def test_pieces_break_after_a_space_or_a_line_break_else_at_the_limit() -> None:
    assert split_content("aaaa bbbb cccc", limit=10) == ["aaaa bbbb ", "cccc"]
    assert split_content("aaaa\nbb cccc", limit=10) == ["aaaa\nbb ", "cccc"]
    assert split_content("a" * 25, limit=10) == ["a" * 10, "a" * 10, "a" * 5]
    assert split_content("a " + "b" * 20, limit=10) == ["a bbbbbbbb", "bbbbbbbbbb", "bb"]  # no tiny first piece


@given(st.text(max_size=400), st.integers(min_value=2, max_value=60))
def test_split_never_cuts_nor_loses_anything(content: str, limit: int) -> None:
    pieces = split_content(content, limit)
    assert "".join(pieces) == content
    assert all(0 < len(piece) <= limit for piece in pieces) or pieces == [""]


def test_waits_grow_with_jitter_up_to_the_cap() -> None:
    waits = [retry_delay(n).total_seconds() for n in range(1, 15)]
    assert waits == sorted(waits)
    assert 2 <= waits[0] <= 3 and 4 <= waits[1] <= 5
    assert waits[-1] == 300
    assert retry_delay(3, cap=timedelta(seconds=5)) == timedelta(seconds=5)
    assert len({retry_delay(4).total_seconds() for _ in range(20)}) > 1  # jittered


def test_a_limit_below_two_characters_is_refused() -> None:
    with pytest.raises(ValueError, match="limit"):
        split_content("abc", limit=1)
