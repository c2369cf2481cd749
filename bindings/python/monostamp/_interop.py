"""Stamps in JSON and SQLite: the Python half of Stamp's datetime-user API.

Neither is on a hot path, so both are Python: json_default() is handed to
json.dumps, and register_sqlite() registers an adapter and a converter with
the sqlite3 module.  The text is Stamp.isoformat()'s, all nine digits and
the offset: Stamp.fromisoformat() takes it back exactly.
"""
import sys

# From the extension (imported by the package before this module), not the
# package, which imports this one: taken from sys.modules, as the extension
# has no stub for mypy to find.
Stamp = sys.modules["monostamp._monostamp"].Stamp


def json_default(obj):
    """A Stamp as its isoformat() text, for json.dumps(..., default=json_default).

    Anything else is TypeError, as json.dumps itself raises for an object
    it cannot write.
    """
    if isinstance(obj, Stamp):
        return obj.isoformat()
    raise TypeError("Object of type %s is not JSON serializable" % type(obj).__name__)


def _to_stamp(data):
    # sqlite3 hands converters bytes; text from another writer that is no
    # stamp raises fromisoformat's ValueError, naming the text.
    return Stamp.fromisoformat(data.decode("utf-8"))


def register_sqlite(typename="stamp", classes=(Stamp,)):
    """Registers Stamp with the sqlite3 module, process-wide.

    A Stamp (and each class in `classes`: sqlite3 matches adapters by exact
    type, so list your subclasses) goes into SQLite as its isoformat() text,
    and a column declared `typename` (case-insensitive) comes back as a
    Stamp when the connection is opened with
    detect_types=sqlite3.PARSE_DECLTYPES (or PARSE_COLNAMES and
    'AS "x [stamp]"').  The text orders by wall time only among stamps of
    one offset: to sort across offsets, store utc_ns in a column of its own.
    """
    import sqlite3  # not at import time: monostamp does not need it

    if not isinstance(typename, str) or not typename:
        raise TypeError("typename must be a non-empty str, not %r" % (typename,))
    for cls in classes:
        if not (isinstance(cls, type) and issubclass(cls, Stamp)):
            raise TypeError("classes must hold Stamp and its subclasses, not %r" % (cls,))
        sqlite3.register_adapter(cls, Stamp.isoformat)
    sqlite3.register_converter(typename, _to_stamp)
