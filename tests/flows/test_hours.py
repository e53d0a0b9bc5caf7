"""The desk's hours as operators write them (ISPBOT_SUPPORT_HOURS): read the way people write them,
in Portuguese, English or Spanish; a text that names no schedule is refused saying how to write it."""

from __future__ import annotations

from datetime import datetime

import pytest
from bot.sandbox.clock import ISP_ZONE
from flows.hours import HoursUnreadable, read_hours

WEEKDAYS_8_TO_18 = (((480, 1080),),) * 5  # each day: its (opens, closes) spans, in minutes


@pytest.mark.parametrize(("written", "days"), [
    ("seg. a sex., 8h às 18h", (*WEEKDAYS_8_TO_18, (), ())),
    ("seg-sex 08:00-18:00; sáb 08:00-12:00", (*WEEKDAYS_8_TO_18, ((480, 720),), ())),
    ("segunda a sexta das 8h às 18h e sábado das 8h às 12h", (*WEEKDAYS_8_TO_18, ((480, 720),), ())),
    ("seg-sex 08:00-12:00, 13:00-18:00", (((480, 720), (780, 1080)),) * 5 + ((), ())),
    ("Mon to Sat, 8 am to 8 pm", (((480, 1200),),) * 6 + ((),)),
    ("lun. a sáb., de 8 a 20 h", (((480, 1200),),) * 6 + ((),)),
    ("todos os dias 8h às 22h", (((480, 1320),),) * 7),
    ("24h", (((0, 1440),),) * 7),
])
def test_hours_are_read_as_people_write_them(written: str, days: tuple[object, ...]) -> None:
    hours = read_hours(written)
    assert hours is not None and hours.days == days


@pytest.mark.parametrize(("written", "said"), [
    ("seg a sex", "no hours in 'seg a sex'"),
    ("8h às 18h", "no days in '8h às 18h'"),
    ("feriados 8h-12h", "'feriados' in 'feriados 8h-12h' is not a day"),
    ("seg 18h-8h", "a closing time is not after its opening time"),
    ("seg 8h", "must come in pairs"),
])
def test_a_text_that_names_no_schedule_is_refused_saying_how_to_write_it(written: str, said: str) -> None:
    with pytest.raises(HoursUnreadable, match=said) as refused:
        read_hours(written)
    assert "seg-sex 08:00-18:00" in str(refused.value) or "closing" in str(refused.value)


def test_open_now_and_the_next_opening_in_the_isp_zone() -> None:
    hours = read_hours("seg-sex 08:00-12:00, 13:00-18:00; sáb 08:00-12:00")
    assert hours is not None
    monday = datetime(2025, 3, 10, 9, 30, tzinfo=ISP_ZONE)
    assert hours.open_at(monday)
    lunch = monday.replace(hour=12, minute=15)
    assert not hours.open_at(lunch) and hours.next_opening(lunch) == monday.replace(hour=13, minute=0)
    saturday_noon = datetime(2025, 3, 15, 12, 0, tzinfo=ISP_ZONE)  # closing time: closed
    assert not hours.open_at(saturday_noon)
    assert hours.next_opening(saturday_noon) == datetime(2025, 3, 17, 8, 0, tzinfo=ISP_ZONE)
    assert read_hours("") is None
