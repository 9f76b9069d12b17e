#!/usr/bin/env python3
"""A keyed mail from the right seat that cannot be read gets a reply saying
why; nothing changes; nothing goes to strangers.

usage: unreadable_keyed.py TABULA SOURCE_DIR

A player's mail whose header tabula cannot read as a whole (past a limit,
or not a header by RFC 5322's grammar) still carries what proves whose it
is: the game's key (the +tag of To, or the subject) and the player's own
From. Each of these, from the player, is answered once with
unreadable-mail.txt and its reason, and the game does not change:
  - 1,001 header fields, and 100,000;
  - a Content-Type with 200 parameters;
  - bare CR line ends;
  - a first line without a colon;
  - a first line that starts with a space (a continuation of nothing).
The same mails from another address (a forged From with the player's key)
and as automatic mail (Auto-Submitted) are answered with nothing.
Prints one line per check and "N passed, M failed".
"""
import os
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests"))
import mailcases  # noqa: E402  (the mail client of tests/mailcases.py)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)


def header(sender, last, mid, extra=b""):
    """sender's header answering `last`, as a client writes it, CRLF ends."""
    msg = last["msg"]
    return (("From: %s\r\nTo: %s\r\nSubject: Re: %s\r\nMessage-ID: <%s@example.org>\r\n"
             "Date: Sun, 22 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"
             % (sender, str(msg["Reply-To"]), str(msg["Subject"]), mid)).encode() + extra)


BODY = b"\r\ne4\r\n"


def kinds(sender, last, tag, auto=False):
    """(what, raw) for each kind of unreadable header."""
    a = b"Auto-Submitted: auto-replied\r\n" if auto else b""
    h = lambda extra=b"", n="": header(sender, last, "%s-%s%s" % (tag, n, "a" if auto else ""), a + extra)  # noqa: E731
    params = b"".join(b";\r\n p%d=v%d" % (i, i) for i in range(200))
    out = [
        ("1,001 header fields", h(b"X-Filler: a\r\n" * 1001, "f1001") + BODY),
        ("100,000 header fields", h(b"X-Filler: a\r\n" * 100000, "f100k") + BODY),
        ("200 Content-Type parameters",
         h(b"Content-Type: text/plain; charset=utf-8" + params + b"\r\n", "p200") + BODY),
        ("bare CR line ends", (h(b"", "cr") + BODY).replace(b"\r\n", b"\r")),
        ("a first line without a colon", b"Hello there\r\n" + h(b"", "nocolon") + BODY),
        ("a first line starting with a space", b" folded\r\n" + h(b"", "space") + BODY),
    ]
    return out


def main():
    work = tempfile.mkdtemp(prefix="tabula-unreadable-")
    conv = mailcases.Conversation(TABULA, work)
    conv.deliver(conv.compose("alice@example.org", "new chess with bob@example.org"))
    conv.deliver(conv.reply("alice@example.org", "confirm"))
    conv.deliver(conv.reply("bob@example.org", "accept"))
    last = conv.last_to["alice@example.org"]
    check("the game started", "bob@example.org" in [m["to"] for m in conv.step_mails],
          [m["subject"] for m in conv.step_mails])
    shown = []
    for what, raw in kinds("alice@example.org", last, "own"):
        conv.deliver(raw)
        to_alice = [m for m in conv.step_mails if m["to"] == "alice@example.org"]
        check("%s, from the player: one reply, to her, saying why" % what,
              len(conv.step_mails) == 1 and len(to_alice) == 1 and
              "I could not read your mail" in to_alice[0]["subject"] and
              "Nothing has changed in the game." in to_alice[0]["body"],
              [(m["to"], m["subject"], m["body"][:400]) for m in conv.step_mails] or conv.last_log)
        if to_alice:
            shown.append(to_alice[0]["body"].split("\n\n")[0:3])
        check("%s: nothing changed" % what, conv.snapshot() == conv.before)
        conv.deliver(raw)
        check("%s, delivered again: no second reply" % what, not conv.step_mails,
              [m["subject"] for m in conv.step_mails])
    for what, raw in kinds("mallory@example.net", last, "forged"):
        conv.deliver(raw)
        check("%s, from a stranger with her key: nothing sent, nothing changed" % what,
              not conv.step_mails and conv.snapshot() == conv.before,
              [(m["to"], m["subject"]) for m in conv.step_mails])
    for what, raw in kinds("alice@example.org", last, "auto", auto=True):
        conv.deliver(raw)
        check("%s, automatic: nothing sent" % what, not conv.step_mails,
              [(m["to"], m["subject"]) for m in conv.step_mails])
    p = conv.run("check")
    check("tabula check passes", p.returncode == 0, p.stdout.decode())
    if os.environ.get("TABULA_SHOW"):
        for s in shown:
            print("\n\n".join(s), "\n----")
    return finish(work)


if __name__ == "__main__":
    sys.exit(main())
