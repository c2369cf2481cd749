"""Where duplicate timestamps come from: measured (docs/patch.md).

    python bench/duplicates.py        (needs SQLAlchemy 2.0 and time-machine; not a test)

1. A SQLAlchemy model whose created_at defaults to datetime.utcnow: 5,000
   rows added with add_all and flushed once, then 5,000 rows each flushed
   on its own, on SQLite in memory.  Counts the repeated values each way,
   plain and under monostamp.patch().
2. time-machine's tick=True in a tight loop of time.time() calls: how many
   distinct values, and the cost of a call.
Figures vary by machine; the shape (add_all repeats, a flush per row does
not, monostamp.patch() repeats nothing) is what the docs say.
"""
import datetime
import time

import monostamp

N = 5000


def repeated(values):
    return len(values) - len(set(values))


def sqlalchemy_rows():
    from sqlalchemy import Column, DateTime, Integer, create_engine, select
    from sqlalchemy.orm import Session, declarative_base

    Base = declarative_base()

    class Row(Base):
        __tablename__ = "rows"
        id = Column(Integer, primary_key=True)
        created_at = Column(DateTime, default=datetime.datetime.utcnow)

    def run(per_row):
        engine = create_engine("sqlite://")
        Base.metadata.create_all(engine)
        with Session(engine) as session:
            if per_row:
                for _ in range(N):
                    session.add(Row())
                    session.flush()
            else:
                session.add_all([Row() for _ in range(N)])
                session.flush()
            return list(session.scalars(select(Row.created_at)))

    for label, patched in (("plain", False), ("monostamp.patch()", True)):
        for per_row in (False, True):
            if patched:
                with monostamp.patch():
                    values = run(per_row)
            else:
                values = run(per_row)
            print("SQLAlchemy, %s, %s: %d rows, %d repeated created_at values" % (
                label, "a flush per row" if per_row else "add_all + one flush", len(values),
                repeated(values)))


def time_machine_tick(n=200_000):
    import time_machine
    with time_machine.travel(0, tick=True):
        start = time.perf_counter()
        values = [time.time() for _ in range(n)]
        cost = (time.perf_counter() - start) / n
    print("time-machine travel(tick=True): %d of %d time.time() values distinct in a tight "
          "loop, %.2f us a call" % (len(set(values)), n, cost * 1e6))


if __name__ == "__main__":
    sqlalchemy_rows()
    time_machine_tick()
