"""Relative times in words, in the manner of humanize.naturaltime/naturalday."""
import datetime as dt

_UNITS = [(365 * 86400, "year"), (30 * 86400, "month"), (86400, "day"), (3600, "hour"),
          (60, "minute"), (1, "second")]


def naturaldelta(value):
    """A timedelta (or seconds) in words: 'a moment', '3 minutes', 'a day'."""
    seconds = abs(value.total_seconds() if isinstance(value, dt.timedelta) else value)
    if seconds < 1:
        return "a moment"
    for size, name in _UNITS:
        if seconds >= size:
            n = int(seconds // size)
            return ("a" + ("n" if name == "hour" else "") + " " + name) if n == 1 \
                else "%d %ss" % (n, name)
    return "a moment"


def naturaltime(value, when=None):
    """'3 minutes ago', '2 hours from now', 'now' for a datetime or a delta."""
    now = when or dt.datetime.now()
    if isinstance(value, dt.datetime):
        delta = now - value
    elif isinstance(value, dt.timedelta):
        delta = value
    else:
        delta = dt.timedelta(seconds=value)
    if abs(delta.total_seconds()) < 1:
        return "now"
    words = naturaldelta(delta)
    return words + (" ago" if delta.total_seconds() > 0 else " from now")


def naturalday(value, fmt="%b %d"):
    """'today', 'yesterday', 'tomorrow', or the date formatted."""
    if isinstance(value, dt.datetime):
        value = value.date()
    delta = value - dt.date.today()
    if delta.days == 0:
        return "today"
    if delta.days == 1:
        return "tomorrow"
    if delta.days == -1:
        return "yesterday"
    return value.strftime(fmt)


def naturaldate(value):
    """naturalday, with the year when the date is far from today."""
    if isinstance(value, dt.datetime):
        value = value.date()
    if abs((value - dt.date.today()).days) >= 5 * 30:
        return naturalday(value, "%b %d %Y")
    return naturalday(value)
