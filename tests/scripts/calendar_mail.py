#!/usr/bin/env python3
"""The iCalendar part of "your move" mails (rules-spec TM-10), read by
Python's icalendar (Debian python3-icalendar, scripts/deps.sh test).

usage: calendar_mail.py TABULA [SOURCE_DIR]

A player who wrote `calendar on` gets, with each mail that asks for a
move, a text/calendar part (RFC 6047 iMIP, METHOD:PUBLISH) holding one
VEVENT (RFC 5545) that ends at the deadline, with a VALARM a day before.
When the deadline moves (a vacation), the next mail's event has the same
UID and a higher SEQUENCE, so a calendar replaces the first event; the
opponent, who did not ask, gets no part; `calendar off` ends them.
Exit 77 (skipped) without the icalendar module, unless
TABULA_REQUIRE_TOOLS=1.
"""
import datetime
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
import mailcases  # noqa: E402  (the mail client and conversation of tests/mailcases.py)
from testkit import check, finish  # noqa: E402

try:
    import icalendar
except ImportError:  # Debian's package, when Python is not Debian's own
    sys.path.append("/usr/lib/python3/dist-packages")
    try:
        import icalendar
    except ImportError:
        print("python3-icalendar is not installed (scripts/deps.sh test)")
        sys.exit(1 if os.environ.get("TABULA_REQUIRE_TOOLS") == "1" else 77)

UTC = datetime.timezone.utc


def calendar_parts(mail):
    return [p for p in mail["msg"].walk() if p.get_content_type() == "text/calendar"]


def event_of(part):
    cal = icalendar.Calendar.from_ical(part.get_payload(decode=True))
    events = [c for c in cal.walk() if c.name == "VEVENT"]
    return cal, events


def main():
    tabula = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="tabula-calendar.")
    conv = mailcases.Conversation(tabula, work)
    conv.use_clock()  # Monday 2026-11-23 09:00 UTC

    def send(sender, body):
        conv.deliver(conv.compose(sender, body))

    def reply(sender, body, game=None):
        conv.deliver(conv.reply(sender, body, game=game))

    send("alice@example.org", "new chess days=3 with bob@example.org")
    conv.deliver(mailcases.confirm_answers(conv.outbox, lambda i: "<cal-confirm@example.org>")[0])
    reply("alice@example.org", "calendar on")
    check("calendar on is answered",
          any("Calendar events are on" in m["subject"] for m in conv.step_mails))
    reply("bob@example.org", "accept")
    mine = [m for m in conv.step_mails if m["to"] == "alice@example.org"]
    parts = calendar_parts(mine[0]) if mine else []
    check("the start mail to alice holds one text/calendar part", len(parts) == 1,
          [m["subject"] for m in conv.step_mails])
    if len(parts) != 1:
        return finish(work)
    part = parts[0]
    check("RFC 6047: Content-Type text/calendar; method=PUBLISH",
          part.get_param("method", header="content-type") == "PUBLISH", part["Content-Type"])
    cal, events = event_of(part)
    check("METHOD:PUBLISH, VERSION 2.0, one VEVENT",
          str(cal.get("method")) == "PUBLISH" and str(cal.get("version")) == "2.0"
          and len(events) == 1)
    ev = events[0]
    first_uid, first_seq = str(ev.get("uid")), int(ev.get("sequence"))
    deadline = datetime.datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
    check("the event ends at the deadline, 2026-11-26 09:00 UTC",
          ev.decoded("dtend") == deadline, ev.decoded("dtend"))
    alarms = [c for c in ev.walk() if c.name == "VALARM"]
    check("one VALARM, 24 hours before the end",
          len(alarms) == 1 and alarms[0].decoded("trigger") == datetime.timedelta(hours=-24)
          and str(alarms[0].get("action")) == "DISPLAY")
    check("the summary names the game", "game 1" in str(ev.get("summary")), ev.get("summary"))
    bob = [m for m in conv.step_mails if m["to"] == "bob@example.org"]
    check("bob did not ask: no part", bob and not calendar_parts(bob[0]))

    # the deadline moves: a vacation, then a mail that asks for the move
    reply("alice@example.org", "vacation 2026-11-24 2026-11-25", game="1")
    reply("alice@example.org", "board", game="1")
    mine = [m for m in conv.step_mails if m["to"] == "alice@example.org"]
    parts = calendar_parts(mine[0]) if mine else []
    check("the board mail holds the event again", len(parts) == 1)
    if parts:
        _, events = event_of(parts[0])
        ev = events[0]
        check("the moved deadline, 2026-11-28 09:00 UTC, replaces the first event: same UID,"
              " higher SEQUENCE",
              ev.decoded("dtend") == datetime.datetime(2026, 11, 28, 9, 0, tzinfo=UTC)
              and str(ev.get("uid")) == first_uid and int(ev.get("sequence")) > first_seq,
              (ev.decoded("dtend"), str(ev.get("uid")), first_uid, ev.get("sequence"), first_seq))
    reply("alice@example.org", "calendar off", game="1")
    reply("alice@example.org", "board", game="1")
    mine = [m for m in conv.step_mails if m["to"] == "alice@example.org"]
    check("calendar off: no part", mine and not calendar_parts(mine[0]))
    return finish(work)


if __name__ == "__main__":
    sys.exit(main())
