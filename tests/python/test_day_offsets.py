"""A local zone whose offset glibc reports as a whole day.

POSIX lets a TZ offset's hours reach 24, and glibc reads TZ=AAA-24 as
+86400 s; the engine refuses such rules, so the local zone falls back to
glibc.  That offset once reached the binding's timezone table, which it
indexed past its end: TZ=AAA-24 crashed now().datetime() with SIGSEGV,
TZ=AAA+24 raised a TypeError about a dict.  Now the core's fallback treats
an offset of a day or more like a zone libc cannot read (UTC), and the
binding refuses one with ValueError wherever it would make a timezone.
Each case runs in a child process: TZ is read at start, and a crash must
fail the test, not end the run.
"""
import subprocess
import sys
from datetime import timedelta

import pytest

from conftest import posix_only

CHILD = r"""
import monostamp, json
from datetime import timedelta
c = monostamp.Clock()
out = {}
for name, stamp in (("default", monostamp.now()), ("clock", c.now())):
    dt = stamp.datetime()
    out[name] = [stamp.offset, dt.utcoffset() // timedelta(seconds=1), stamp.isoformat(),
                 type(dt.tzinfo).__name__]
out["now_datetime"] = monostamp.now_datetime().utcoffset() // timedelta(seconds=1)
out["clock_datetime"] = c.now_datetime().utcoffset() // timedelta(seconds=1)
print(json.dumps(out))
"""


@posix_only("glibc's reading of TZ rules with hh = 24")
@pytest.mark.parametrize("tz", ["AAA-24", "AAA+24", "AAA24", "AAA-24:00:00"])
def test_a_day_offset_from_libc_is_utc_not_a_crash(tz, tmp_path):
    import json
    out = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path, env={"TZ": tz, "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, (out.returncode, out.stderr[-2000:])
    got = json.loads(out.stdout)
    for name in ("default", "clock"):
        offset, dt_offset, text, tzinfo_type = got[name]
        assert offset == 0 and dt_offset == 0, got
        assert text.endswith("+00:00"), got
        assert tzinfo_type == "timezone", got
    assert got["now_datetime"] == 0 and got["clock_datetime"] == 0, got


@posix_only("glibc's reading of TZ rules with hh = 24")
def test_the_offset_below_a_day_still_comes_through(tmp_path):
    # The bound is a day, not less: +23:59 is a real (if odd) offset.
    code = ("import monostamp; s = monostamp.now(); "
            "print(s.offset, s.datetime().utcoffset().total_seconds(), s.isoformat()[-6:])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, cwd=tmp_path, env={"TZ": "AAA-23:59", "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["86340", "86340.0", "+23:59"]


def test_a_stamp_offset_of_a_day_is_refused_with_its_value():
    # The Stamp type keeps its offsets within a day from the start.
    with pytest.raises(ValueError, match="86400"):
        __import__("monostamp").Stamp(0, 86400)
    with pytest.raises(ValueError, match="-86400"):
        __import__("monostamp").Stamp(0, -86400)
    assert __import__("monostamp").Stamp(0, 86399).datetime().utcoffset() == \
        timedelta(seconds=86399)
