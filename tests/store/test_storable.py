"""What a JSON column keeps of a person's odd text: NUL and lone surrogates become U+FFFD, anywhere."""

from __future__ import annotations

import json
from typing import Any

import pytest
from bot.store.types import storable_json


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ({"text": "oi\x00"}, {"text": "oi\ufffd"}),
        ({"a\udc80": ["x", {"deep": "y\ud800z"}]}, {"a\ufffd": ["x", {"deep": "y\ufffdz"}]}),
        (["\x00", 1, None, 2.5, True], ["\ufffd", 1, None, 2.5, True]),
        ("plain\x00", "plain\ufffd"),
        # What merely looks like an escape is a person's text, kept as it is.
        ({"text": "\\u0000 typed"}, {"text": "\\u0000 typed"}),
        ({"text": "ção 👍", "n": 0}, {"text": "ção 👍", "n": 0}),
    ],
)
def test_unstorable_characters_are_replaced_and_the_rest_kept(value: Any, kept: Any) -> None:
    assert json.loads(storable_json(value)) == kept
