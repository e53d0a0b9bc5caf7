"""The process's own objects, kept out of Python's full garbage collections.

A full collection walks every object the cyclic collector tracks. In a running bot most of them
were made at start (modules, classes, SQLAlchemy's tables and compiled statements, the flows and
their templates) and live as long as the process, so each walk was wasted work that stopped the
event loop while every update in flight waited (bench/RESULTS.md has the pauses measured).
``gc.freeze`` moves them to a generation the collector never walks; what the bot makes later
(updates, turns, replies) is collected as before, less often: each statement and request makes
hundreds of short-lived containers, and at Python's default threshold (700) the young generation
was collected every few updates and the older ones, which walk everything made since, every few dozen.
"""

from __future__ import annotations

import gc

# Allocations less deallocations between collections of the youngest generation (Python's is 700).
YOUNG_THRESHOLD = 10_000


def freeze_startup_objects() -> None:
    """Call once, at start, before serving. Garbage made so far is collected first, so that only
    live objects are frozen (a frozen object is never collected, even when it later becomes garbage)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])
