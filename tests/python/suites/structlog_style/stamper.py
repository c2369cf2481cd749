"""A log-event time stamper, in the manner of structlog.processors.TimeStamper."""
import datetime as dt
import time


class TimeStamper:
    """Adds event_dict[key]: "iso" text, "%..." strftime text, or (fmt None)
    the float time.time(); utc=False gives local time."""

    def __init__(self, fmt=None, utc=True, key="timestamp"):
        self.fmt, self.utc, self.key = fmt, utc, key

    def _now(self):
        return dt.datetime.now(dt.timezone.utc) if self.utc else dt.datetime.now().astimezone()

    def __call__(self, logger, name, event_dict):
        if self.fmt is None:
            event_dict[self.key] = time.time()
        elif self.fmt == "iso":
            stamp = self._now().isoformat()
            event_dict[self.key] = stamp.replace("+00:00", "Z") if self.utc else stamp
        else:
            event_dict[self.key] = self._now().strftime(self.fmt)
        return event_dict


def process(events, *processors):
    out = []
    for event in events:
        event_dict = {"event": event}
        for p in processors:
            event_dict = p(None, "info", event_dict)
        out.append(event_dict)
    return out
