#!/usr/bin/env python3
"""Deadlines by brute force, an oracle for referee/turns/clock.c.

Walks time a minute at a time with Python's datetime, counting a minute
only on days that count (not Saturday or Sunday when weekends are off, not
a vacation day), until days x 24 h have been counted. Shares nothing with
the C code, whose day arithmetic is Hinnant's civil-calendar formulas.

usage: clock_deadlines.py > tests/data/clock/deadlines.txt
"""
import datetime as dt
import random

FMT = "%Y-%m-%dT%H:%M"


def reach(start, days, weekends, vacations):
    need = days * 24 * 60
    t = start
    while need > 0:
        d = t.date()
        if (weekends or d.weekday() < 5) and not any(a <= d <= b for a, b in vacations):
            need -= 1
        t += dt.timedelta(minutes=1)
    return t


def row(start, days, weekends, vacations):
    vac = ",".join("%s..%s" % (a.isoformat(), b.isoformat()) for a, b in vacations) or "-"
    end = reach(start, days, weekends, vacations)
    return "%s %d %s %s %s" % (start.strftime(FMT), days, "on" if weekends else "off", vac,
                               end.strftime(FMT))


def main():
    D, T = dt.date, dt.datetime
    print("# START DAYS WEEKENDS VACATIONS DEADLINE (UTC; vacations inclusive, '-' none)")
    print("# made by tests/oracles/clock_deadlines.py: a minute-by-minute walk")
    fixed = [
        (T(2026, 11, 23, 9), 7, True, []),
        (T(2026, 11, 26, 9), 2, False, []),
        (T(2026, 11, 27, 23), 1, False, []),
        (T(2026, 11, 28, 10), 1, False, []),
        (T(2026, 11, 23, 9), 7, True, [(D(2026, 11, 25), D(2026, 11, 27))]),
        (T(2026, 11, 23, 9), 7, False, [(D(2026, 11, 25), D(2026, 11, 27))]),
        (T(2026, 11, 23, 9), 1, True, [(D(2026, 11, 23), D(2026, 11, 23))]),
        (T(2026, 12, 30, 12), 3, True, [(D(2026, 12, 31), D(2027, 1, 1))]),
        (T(2024, 2, 28, 18), 2, True, []),
        (T(2100, 2, 27, 0), 3, True, []),
    ]
    for r in fixed:
        print(row(*r))
    rng = random.Random(6)
    for _ in range(60):
        start = T(2026, 1, 1) + dt.timedelta(minutes=rng.randrange(3 * 365 * 24 * 60))
        days = rng.choice([1, 2, 3, 5, 7, 10, 14])
        weekends = rng.random() < 0.5
        vacations = []
        day = start.date() + dt.timedelta(days=rng.randrange(-2, 5))
        for _ in range(rng.randrange(3)):
            length = rng.randrange(1, 6)
            vacations.append((day, day + dt.timedelta(days=length - 1)))
            day += dt.timedelta(days=length + rng.randrange(1, 6))
        print(row(start, days, weekends, vacations))


if __name__ == "__main__":
    main()
