import datetime as dt
import time
import zoneinfo

import pytest
import time_machine

from stamper import TimeStamper, process

TS = 1_600_000_000  # 2020-09-13T12:26:40Z


@time_machine.travel(TS, tick=False)
def test_disallows_nothing_and_stamps_float():
    assert {"event": "x", "timestamp": float(TS)} == TimeStamper()(None, None, {"event": "x"})


@time_machine.travel(TS, tick=False)
@pytest.mark.parametrize("fmt, utc, expected", [
    ("iso", True, "2020-09-13T12:26:40Z"),
    ("%Y", True, "2020"),
    ("%H:%M", True, "12:26"),
])
def test_formats_utc(fmt, utc, expected):
    assert TimeStamper(fmt=fmt, utc=utc)(None, None, {})["timestamp"] == expected


@time_machine.travel(dt.datetime(2020, 9, 13, 14, 26, 40,
                                 tzinfo=zoneinfo.ZoneInfo("Europe/Berlin")), tick=False)
@pytest.mark.skipif(not hasattr(time, "tzset"), reason="time-machine travels to a zone "
                    "through time.tzset(), which Windows lacks")
def test_local_time_follows_the_travel_zone():
    # time-machine sets TZ to the destination's zone and calls tzset().
    assert TimeStamper(fmt="iso", utc=False)(None, None, {})["timestamp"] \
        == "2020-09-13T14:26:40+02:00"
    assert time.localtime().tm_hour == 14


def test_context_manager_nested_and_ticking():
    with time_machine.travel(TS, tick=False):
        assert TimeStamper()(None, None, {})["timestamp"] == TS
        with time_machine.travel(0, tick=False):
            assert TimeStamper(fmt="%Y")(None, None, {})["timestamp"] == "1970"
        assert time.time() == TS
    with time_machine.travel(TS):  # ticking
        first = time.time()
        assert TS <= first < TS + 60


def test_fixture_move_to_and_shift(time_machine):
    time_machine.move_to(TS, tick=False)
    assert TimeStamper(fmt="iso")(None, None, {})["timestamp"] == "2020-09-13T12:26:40Z"
    time_machine.shift(dt.timedelta(hours=1))
    assert TimeStamper(fmt="%H")(None, None, {})["timestamp"] == "13"


class TestInAClass:
    @time_machine.travel(TS, tick=False)
    def test_method(self):
        assert process(["a", "b"], TimeStamper())[1]["timestamp"] == TS

    def test_stamps_while_frozen_repeat(self):
        with time_machine.travel(TS, tick=False):
            stamps = [e["timestamp"] for e in process("abc", TimeStamper())]
        assert stamps == [TS] * 3


# Real time: neither tool.

def test_real_stamps_are_close_to_now():
    before = time.time()
    stamp = TimeStamper()(None, None, {})["timestamp"]
    assert before - 1 <= stamp <= time.time() + 1


def test_real_iso_is_parseable_and_increasing():
    events = process(range(100), TimeStamper(fmt="iso"))
    parsed = [dt.datetime.fromisoformat(e["timestamp"].replace("Z", "+00:00")) for e in events]
    assert parsed == sorted(parsed)
    assert abs(parsed[0] - dt.datetime.now(dt.timezone.utc)) < dt.timedelta(seconds=5)


def test_known_failure_key_is_not_renamed():
    # Fails on purpose in both modes (the comparison must see it).
    assert "ts" in TimeStamper(key="timestamp")(None, None, {})
