"""The WhatsApp sender against the fake Cloud API: the number's throughput and each person's pace
kept, Meta's throttles waited out and sent again, an expired token said plainly, a message outside
the 24-hour window held and counted, never sent against the rule, a file another channel holds
fetched only when sent."""

from __future__ import annotations

import asyncio
import itertools
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from bot import metrics
from bot.channels.whatsapp.client import CloudApi, CloudApiError, UnreadableAnswer
from bot.channels.whatsapp.render import WaCall
from bot.channels.whatsapp.sender import NOTICE_CATCH_UP, Pace, WaSender
from flows.files import FileUnavailable

from tests.telegram_sender.test_sender import VirtualClock, max_in_window
from tests.whatsapp import fake_cloud_api as wa
from tests.whatsapp.fake_cloud_api import FakeCloudApi

pytestmark = pytest.mark.asyncio
BASE = 1 << 53


def text(n: int, body: str = "oi") -> WaCall:
    return WaCall(BASE + n, "message", {"type": "text", "text": {"body": body}}, f"55119000{n:05d}")


class Rig:
    def __init__(self, fake: FakeCloudApi, **limits: Any) -> None:
        self.fake = fake
        self.api = CloudApi(f"{wa.BASE_URL}/{wa.VERSION}", fake.token, fake.phone_number_id,
                            transport=httpx.ASGITransport(app=fake.app))
        self.dead: list[tuple[WaCall, str]] = []
        self.sender = WaSender(self.api, self.address, on_dead=self.keep, **{
            "pair": Pace(burst=1000, every=0.001), "backoff": 0.05, **limits})

    async def address(self, chat_id: int) -> str | None:
        return f"55119000{chat_id - BASE:05d}"

    async def keep(self, call: WaCall, reason: str) -> None:
        self.dead.append((call, reason))

    async def send(self, calls: list[WaCall], within: float = 10.0) -> None:
        futures = await self.sender.submit_all(calls)
        await asyncio.wait_for(asyncio.gather(*futures), within)

    async def close(self) -> None:
        await self.sender.aclose()
        await self.api.aclose()


async def test_the_numbers_throughput_is_kept_without_a_single_130429() -> None:
    rig = Rig(FakeCloudApi(throughput=40), rate=40)
    started = time.monotonic()
    await rig.send([text(n) for n in range(100)])
    took = time.monotonic() - started
    await rig.close()
    assert len(rig.fake.sent) == 100 and rig.fake.errors == {}
    # 40 in any second: the last of 100 goes when the second 40 have had their second, not before, and
    # not far past the bound the throughput sets.
    assert (100 - 40) / 40 * 0.95 <= took <= 100 / 40 * 1.3, took


async def test_each_persons_pace_is_kept_and_holds_back_nobody_else() -> None:
    rig = Rig(FakeCloudApi(pair_limit=(3, 0.25)), pair=Pace(burst=2, every=0.25))
    await rig.send([text(1, f"m{n}") for n in range(4)] + [text(2)])
    await rig.close()
    assert rig.fake.errors == {}
    to_one = [s for s in rig.fake.sent if s.to == "5511900000001"]
    assert [s.text for s in to_one] == ["m0", "m1", "m2", "m3"]  # in order
    other = next(s for s in rig.fake.sent if s.to == "5511900000002")
    assert other.at < to_one[2].at  # not queued behind the paced person
    assert to_one[3].at - to_one[0].at >= 0.45


async def test_the_fake_refuses_as_meta_documents_past_a_burst_of_45_to_one_person() -> None:
    """The benchmarks' fake keeps Meta's pair limit: 45 at once to one person, then 131056 until the
    pace (one every 6 seconds) has paid the burst back; another person is not held back by it."""
    fake = FakeCloudApi(throughput=80, pair_limit=wa.META_PAIR_LIMIT)
    api = CloudApi(f"{wa.BASE_URL}/{wa.VERSION}", fake.token, fake.phone_number_id,
                   transport=httpx.ASGITransport(app=fake.app))
    body = {"type": "text", "text": {"body": "sem internet"}}
    for _ in range(45):
        await api.send("5511900000001", body)
    with pytest.raises(CloudApiError) as refused:
        await api.send("5511900000001", body)
    await api.send("5511900000002", body)
    await api.aclose()
    assert refused.value.code == 131056 and fake.errors == {131056: 1} and len(fake.sent) == 46


@pytest.mark.parametrize("code", [130429, 131056, 131000])
async def test_a_throttle_or_metas_own_trouble_is_waited_out_and_sent_again(code: int) -> None:
    rig = Rig(FakeCloudApi())
    rig.fake.fail_next(code, count=2, to="5511900000001")
    await rig.send([text(1, "primeira"), text(1, "segunda"), text(2)])
    await rig.close()
    assert rig.fake.errors == {code: 2} and rig.dead == []
    assert [s.text for s in rig.fake.to("5511900000001")] == ["primeira", "segunda"]  # order kept


async def test_an_expired_token_is_said_plainly_and_the_answers_wait_for_a_new_one(
    caplog: pytest.LogCaptureFixture,
) -> None:
    rig = Rig(FakeCloudApi(expired=True))
    futures = await rig.sender.submit_all([text(1)])
    await asyncio.sleep(0.5)
    assert rig.fake.sent == [] and rig.dead == [] and not futures[0].done()
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and "ISPBOT_WHATSAPP_TOKEN" in errors[0] and "expired or revoked" in errors[0]
    assert wa.TOKEN not in caplog.text
    rig.fake.expired = False  # the operator set a new token (here: Meta took the old one back)
    await asyncio.wait_for(futures[0], 10)
    await rig.close()
    assert len(rig.fake.sent) == 1


async def test_a_message_outside_the_24_hour_window_is_held_and_counted_never_sent() -> None:
    rig = Rig(FakeCloudApi(window=True))
    held = metrics.WHATSAPP_HELD.labels("answer")._value.get()
    await rig.send([text(1, "o técnico está a caminho")])
    await rig.close()
    assert rig.fake.sent == [] and rig.fake.errors == {131047: 1}
    ((call, reason),) = rig.dead
    assert call.chat_id == BASE + 1 and "outside the 24-hour window" in reason and "131047" in reason
    assert metrics.WHATSAPP_HELD.labels("answer")._value.get() == held + 1


async def test_a_refused_message_becomes_a_dead_letter_with_metas_reason() -> None:
    rig = Rig(FakeCloudApi())
    rig.fake.fail_next(131026, message="Message undeliverable")
    await rig.send([text(1), text(2)])
    await rig.close()
    ((_, reason),) = rig.dead
    assert reason == "code 131026: Message undeliverable" and len(rig.fake.sent) == 1


async def test_an_unreachable_network_is_tried_again() -> None:
    fake = FakeCloudApi()
    failures = 2

    class Flaky(httpx.AsyncBaseTransport):
        def __init__(self) -> None:
            self.inner = httpx.ASGITransport(app=fake.app)

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            nonlocal failures
            if failures:
                failures -= 1
                raise httpx.ConnectError("refused")
            return await self.inner.handle_async_request(request)

    rig = Rig(fake)
    rig.api = CloudApi(f"{wa.BASE_URL}/{wa.VERSION}", fake.token, fake.phone_number_id, transport=Flaky())
    rig.sender.api = rig.api
    await rig.send([text(1)])
    await rig.close()
    assert len(fake.sent) == 1 and rig.dead == [] and rig.sender.errors == {"network": 2}


async def test_a_file_another_channel_holds_is_fetched_when_sent_and_one_gone_becomes_a_dead_letter() -> None:
    files = {"PHOTO2": b"\xff\xd8 a photo"}

    async def fetch(ref: str) -> bytes:
        if ref not in files:
            raise FileUnavailable("gone")
        return files[ref]

    rig = Rig(FakeCloudApi(), fetch=fetch)
    held = [WaCall(BASE + n, "upload", {"type": "image", "ref": ref, "filename": "photo.jpg", "mime": "image/jpeg"},
                   f"55119000{n:05d}") for n, ref in ((1, "PHOTO2"), (2, "PHOTO9"))]
    await rig.send(held)
    await rig.close()
    (sent,) = rig.fake.sent
    assert sent.type == "image" and rig.fake.uploads[sent.body["image"]["id"]][0] == files["PHOTO2"]
    ((call, reason),) = rig.dead
    assert call.chat_id == BASE + 2 and "could not be fetched" in reason


class Gate(httpx.AsyncBaseTransport):
    """The fake Cloud API behind a gate: each request waits until the test opens it."""

    def __init__(self, fake: FakeCloudApi) -> None:
        self.inner = httpx.ASGITransport(app=fake.app)
        self.open = asyncio.Event()
        self.arrived = asyncio.Event()  # a request waits at the gate

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.arrived.set()
        await self.open.wait()
        return await self.inner.handle_async_request(request)


def receipt(n: int, wamid: str) -> WaCall:
    return WaCall(BASE + n, "read", {"message_id": wamid})


@pytest.mark.parametrize("first", ["read", "message"])
async def test_a_chats_next_answer_queued_while_one_is_on_its_way_goes_once_after_it(first: str) -> None:
    """A person's messages handled back to back: the second turn's answer is queued while the first's
    request is still on its way. Each request goes once, in order, and every one is settled."""
    fake = FakeCloudApi()
    gate = Gate(fake)
    rig = Rig(fake)
    rig.api = CloudApi(f"{wa.BASE_URL}/{wa.VERSION}", fake.token, fake.phone_number_id, transport=gate)
    rig.sender.api = rig.api
    turn = [receipt(1, "wamid.IN1"), text(1, "primeira")]
    futures = await rig.sender.submit_all(turn if first == "read" else turn[1:])
    await asyncio.wait_for(gate.arrived.wait(), 5)  # the first request is on its way
    futures += await rig.sender.submit_all([receipt(1, "wamid.IN2"), text(1, "segunda")])
    for _ in range(20):
        await asyncio.sleep(0)
    gate.open.set()
    await asyncio.wait_for(asyncio.gather(*futures), 5)
    await rig.sender.drain(1)
    await rig.close()
    assert [s.text for s in fake.to("5511900000001")] == ["primeira", "segunda"]
    assert fake.read == (["wamid.IN1", "wamid.IN2"] if first == "read" else ["wamid.IN2"])
    assert rig.sender._pending == 0


async def test_a_portals_page_instead_of_the_graph_api_is_waited_out_never_a_dead_letter(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A captive portal or a proxy answering 200 with its page: nothing says Meta saw the request, so
    the answers wait and go once the Graph API answers again, with one WARNING line for the streak."""
    rig = Rig(FakeCloudApi(portal=True))
    caplog.set_level(logging.INFO, logger="bot.channels.whatsapp.sender")
    futures = await rig.sender.submit_all([receipt(1, "wamid.IN1"), text(1), text(2), text(3)])
    await asyncio.sleep(0.5)
    assert rig.fake.sent == [] and rig.dead == [] and not any(future.done() for future in futures)
    rig.fake.portal = False
    await asyncio.wait_for(asyncio.gather(*futures), 10)
    await rig.close()
    assert len(rig.fake.sent) == 3 and rig.fake.read == ["wamid.IN1"] and rig.dead == []
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and "not the Graph API's JSON" in warnings[0] and "(200)" in warnings[0], warnings
    assert "<html" not in caplog.text
    assert any("took a request again" in r.getMessage() for r in caplog.records if r.levelno == logging.INFO)


@pytest.mark.parametrize(("status", "body", "content_type"), [
    (200, b"<html><body>Accept the terms</body></html>", "text/html"),  # a captive portal
    (200, b'{"messaging_product": "whatsapp", "messa', "application/json"),  # a body cut short
    (200, b'["whatsapp"]', "application/json"),  # JSON, not an object
    (200, b"{}", "application/json"),  # names no message sent
    (502, b"<html>Bad Gateway</html>", "text/html"),  # a proxy's
    (404, b"<html>Not Found</html>", "text/html"),  # a proxy's, in front of the wrong place
    (403, b'{"detail": "forbidden"}', "application/json"),  # a proxy's JSON, not Meta's error
])
async def test_an_answer_not_in_the_graph_apis_json_is_a_transport_failure(
    status: int, body: bytes, content_type: str,
) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, content=body, headers={"Content-Type": content_type})

    api = CloudApi(f"{wa.BASE_URL}/{wa.VERSION}", wa.TOKEN, wa.PHONE_NUMBER_ID, transport=httpx.MockTransport(answer))
    with pytest.raises(UnreadableAnswer) as unreadable:
        await api.send("5511900000001", {"type": "text", "text": {"body": "oi"}})
    await api.aclose()
    assert isinstance(unreadable.value, httpx.TransportError) and f"({status})" in str(unreadable.value)
    assert "<html" not in str(unreadable.value)


async def test_metas_own_error_stays_metas_refusal_whatever_its_status() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, json={"error": {"message": "Message undeliverable", "code": 131026}})

    api = CloudApi(f"{wa.BASE_URL}/{wa.VERSION}", wa.TOKEN, wa.PHONE_NUMBER_ID, transport=httpx.MockTransport(answer))
    with pytest.raises(CloudApiError) as refused:
        await api.send("5511900000001", {"type": "text", "text": {"body": "oi"}})
    await api.aclose()
    assert refused.value.meaning == "refused" and refused.value.reason == "code 131026: Message undeliverable"


class VirtualCloudApi:
    """Meta's side on the virtual clock: when each message arrived, and to whom."""

    def __init__(self, clock: VirtualClock) -> None:
        self.clock = clock
        self.sent: list[tuple[float, str]] = []

    async def send(self, to: str, body: dict[str, Any]) -> str:
        self.sent.append((self.clock.now, to))
        return f"wamid.OUT{len(self.sent)}"

    async def mark_read(self, message_id: str) -> None:
        return None


def virtual_sender(api: VirtualCloudApi, *, rate: int, sleep: Callable[[float], Awaitable[None]]) -> WaSender:
    """A sender on the virtual clock, each person's pace out of the way; a dead letter fails the test."""

    async def address(chat_id: int) -> str | None:
        return f"55119000{chat_id - BASE:05d}"

    async def dead(call: WaCall, reason: str) -> None:
        raise AssertionError(reason)

    return WaSender(api, address, on_dead=dead, rate=rate, pair=Pace(burst=1000, every=0.001),  # type: ignore[arg-type]
                    clock=api.clock.time, sleep=sleep)


async def test_a_reply_goes_before_a_round_of_notices_spread_over_the_throughput() -> None:
    """200 notices at 20 a second, then a person's answer 3.3 seconds in: the notices go one every
    twentieth of a second (never a burst that fills the second), the answer at the next slot, and the
    number's throughput is never passed."""
    clock = VirtualClock()
    api = VirtualCloudApi(clock)
    sender = virtual_sender(api, rate=20, sleep=clock.sleep)

    async def scenario() -> float:
        notices = await sender.submit_all([text(n) for n in range(200)], notice=True)
        await clock.sleep(3.3)  # a third into a second
        asked = clock.now
        (answer,) = await sender.submit_all([text(999, "resposta")])
        await asyncio.gather(answer, *notices)
        return asked

    asked = await clock.run(scenario())
    await sender.aclose()
    times = [at for at, _ in api.sent]
    answered = next(at for at, to in api.sent if to == "5511900000999")
    assert len(times) == 201 and max_in_window(times, 1.0) <= 20
    assert answered - asked <= 1 / 20  # not behind the notices queued before it, nor a second's burst of them
    notices = [at for at, to in api.sent if to != "5511900000999"]
    # Spread: half a second takes half the second's notices, and those a late schedule catches up.
    assert max_in_window(notices, 0.5) <= 10 + NOTICE_CATCH_UP * 20 + 1
    assert notices[-1] <= 201 / 20  # at the number's pace, the answer's slot included


async def test_a_round_makes_up_for_the_stalls_of_a_busy_loop_within_the_throughput() -> None:
    """A loaded loop wakes the sender late now and then (a tenth of a second, every twentieth wait):
    the notices behind their schedule catch up within the number's throughput, so a round of 400 at
    80 a second still ends at its bound, not a stall's worth later for every stall."""
    clock = VirtualClock()
    api = VirtualCloudApi(clock)
    waits = itertools.count(1)

    async def late_sleep(delay: float) -> None:
        await clock.sleep(delay + (0.1 if next(waits) % 20 == 0 else 0.0))

    sender = virtual_sender(api, rate=80, sleep=late_sleep)

    async def scenario() -> None:
        await asyncio.gather(*await sender.submit_all([text(n) for n in range(400)], notice=True))

    await clock.run(scenario())
    await sender.aclose()
    times = [at for at, _ in api.sent]
    assert len(times) == 400 and max_in_window(times, 1.0) <= 80
    assert times[-1] <= 400 / 80 + 0.1  # one stall's worth at most, not one for each (about 20 of them)
