"""The fake Bot API in a process of its own, preloaded with a burst of updates, for the overhead
benchmark: every contender polls the same kind of server, and the server's CPU is not the bot's.

    python -m bench.fake_telegram --updates 5000 --chats 500 --expect-sends 5000 [--latency 0.02] [--rate 100]
        [--telegram-limits]

Prints ``{"port": N}`` once serving, then ``{"first_poll": t, "last_send": t, ...}`` (monotonic
seconds of this process) when ``--expect-sends`` messages were sent, or after ``--within`` seconds
with what it saw, with what a person waited end to end (``answer_p50_ms``, ``answer_p99_ms``: from an
update being offered to the last of its answers); it exits when its standard input closes. The clock
starts at the first ``getUpdates``, so the contenders' start-up (migrations, seeding the sandbox) is
not counted. With ``--rate`` the updates arrive steadily, that many a second, instead of all at once;
with ``--telegram-limits`` the server answers 429 past Telegram's flood limits, as Telegram does
(``tests.telegram.fake_bot_api.TelegramLimits``), and the closing line counts them.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from collections import defaultdict, deque
from collections.abc import Iterable

from tests.telegram import fake_bot_api as tg
from tests.telegram.fake_bot_api import FakeBotApi, Sent, TelegramLimits

TEXT = "/ajuda"  # the full bot answers it without the ISP; an echo bot echoes it


async def serve(
    updates: int, chats: int, expect_sends: int, latency: float, within: float, *, rate: float | None,
    limits: TelegramLimits | None = None,
) -> None:
    burst = [(10_000 + n % chats, tg.text_message(10_000 + n % chats, TEXT)) for n in range(updates)]
    answers = Answers(expect_sends // updates)
    pushed = 0
    async with FakeBotApi(max_poll_timeout=0.25, limits=limits) as api:
        if rate is None:
            for _, update in burst:
                api.push_update(update)
            pushed = updates
        api.latency = latency
        print(json.dumps({"port": int(api.base_url.rsplit(":", 1)[1])}), flush=True)
        first_poll = last_send = None
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            now = time.monotonic()
            if first_poll is None and api.calls["getUpdates"]:
                first_poll = now  # the first poll brings the first batch at once
                answers.offered(chat_id for chat_id, _ in burst[:pushed])
            if rate is not None and first_poll is not None:
                due = min(updates, int((now - first_poll) * rate) + 1)
                for _, update in burst[pushed:due]:
                    api.push_update(update)
                answers.offered(chat_id for chat_id, _ in burst[pushed:due])
                pushed = max(pushed, due)
            answers.seen(api.outgoing_since(answers.followed), now)
            if api.calls["sendMessage"] >= expect_sends:
                last_send = now
                break
            await asyncio.sleep(0.002)
        print(json.dumps({
            "first_poll": first_poll or 0.0, "last_send": last_send or 0.0,
            "sends": api.calls["sendMessage"], "complete": last_send is not None, **answers.percentiles(),
            "too_many_requests": sum(api.too_many_requests.values()),
        }), flush=True)
        # Serve on until the driver lets go (closes stdin), so that the contender stops first.
        await asyncio.to_thread(sys.stdin.read)


class Answers:
    """When each update was offered and when its last answer came: what a person waits, end to end
    (polling, the inbox, the turn, the send), to the resolution of the serving loop (about 2 ms)."""

    def __init__(self, sends_per_update: int) -> None:
        self.sends_per_update = max(1, sends_per_update)
        self.followed = 0  # outgoing calls looked at so far
        self._offered: dict[int | str, deque[float]] = defaultdict(deque)
        self._sends: dict[int | str, int] = defaultdict(int)
        self._waits: list[float] = []

    def offered(self, chat_ids: Iterable[int]) -> None:
        now = time.monotonic()
        for chat_id in chat_ids:
            self._offered[chat_id].append(now)

    def seen(self, sent: list[Sent], now: float) -> None:
        self.followed += len(sent)
        for call in sent:
            self._sends[call.chat_id] += 1
            if self._sends[call.chat_id] % self.sends_per_update == 0 and self._offered[call.chat_id]:
                self._waits.append(now - self._offered[call.chat_id].popleft())

    def percentiles(self) -> dict[str, float]:
        if not self._waits:
            return {}
        waits = sorted(self._waits)

        def at(share: float) -> float:
            return round(1000 * waits[min(len(waits) - 1, int(share * len(waits)))], 1)

        return {"answer_p50_ms": at(0.50), "answer_p99_ms": at(0.99)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--updates", type=int, default=5000)
    parser.add_argument("--chats", type=int, default=500)
    parser.add_argument("--expect-sends", type=int, required=True)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before each Bot API answer")
    parser.add_argument("--within", type=float, default=300.0)
    parser.add_argument("--rate", type=float, default=None, help="updates a second, arriving steadily")
    parser.add_argument("--telegram-limits", action="store_true", help="answer 429 past Telegram's flood limits")
    args = parser.parse_args()
    limits = TelegramLimits() if args.telegram_limits else None
    asyncio.run(serve(
        args.updates, args.chats, args.expect_sends, args.latency, args.within, rate=args.rate, limits=limits,
    ))
    return 0


if __name__ == "__main__":
    sys.exit(main())
