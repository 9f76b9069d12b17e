#!/usr/bin/env python3
"""A store that fails a read: the mail is retried, nothing is lost, and
nothing untrue is mailed.

usage: store_failures.py TABULA SOURCE_DIR

A failure is injected by renaming one table of the store between two
polls (its reads and writes then fail as SQLite's "no such table"), and
undone by renaming it back:
  - observers: a new observer's confirmation is not processed (poll fails
    with EX_TEMPFAIL, the mail stays in the inbox, nothing is sent); once
    the table is back the same mail is processed and the earlier observer
    is still one (a failed read never rewrites the list);
  - conditionals: `conditionals` (the list of a player's prepared lines)
    is not answered "no lines" when the lines cannot be read; retried, it
    lists the line;
  - comments_off: a move with a comment is not mailed without knowing
    whether the opponent reads comments; retried, the comment is passed.
Prints one line per check and "N passed, M failed".
"""
import os
import sqlite3
import sys
import tempfile
import shutil

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests"))
import mailcases  # noqa: E402  (the mail client of tests/mailcases.py)

EX_TEMPFAIL = 75
A, B, C, D = "alice@example.org", "bob@example.org", "carol@example.net", "dave@example.net"
results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, "" if ok else "\n    " + str(detail)))


def rename(conv, old, new):
    con = sqlite3.connect(conv.db)
    con.execute("ALTER TABLE %s RENAME TO %s" % (old, new))
    con.commit()
    con.close()


def state(conv):
    """The games, the journal and the outbox (the table under test may be gone)."""
    con = sqlite3.connect(conv.db)
    try:
        return [con.execute(q).fetchall() for q in (
            "SELECT id, phase, state, turn FROM games ORDER BY id",
            "SELECT game, seq, hash FROM journal ORDER BY game, seq",
            "SELECT id FROM outbox ORDER BY id")]
    finally:
        con.close()


def failing_poll(conv, raw, table, what):
    """Delivers raw with `table` gone: the poll must fail and keep the mail,
    sending nothing; then the table comes back and the same mail is
    processed. Returns the mails of the second poll."""
    conv.hold = True
    conv.deliver(raw)  # only into inbox/new
    rename(conv, table, table + "_gone")
    before = state(conv)
    p = conv.run("poll")
    log = p.stderr.decode(errors="replace")
    inbox = os.listdir(os.path.join(conv.inbox, "new"))
    conv.collect()
    check("%s, %s unreadable: the poll fails for a retry (EX_TEMPFAIL), the mail kept, "
          "nothing sent" % (what, table),
          p.returncode == EX_TEMPFAIL and len(inbox) == 1 and not conv.step_mails and
          "will retry" in log and state(conv) == before,
          "rc %d, inbox %s, mails %s\n%s" % (p.returncode, inbox,
                                              [m["to"] for m in conv.step_mails], log))
    rename(conv, table + "_gone", table)
    conv.poll()
    return conv.step_mails


def body_to(mails, who):
    return "\n".join(m["body"] for m in mails if m["to"] == who)


def main():
    work = tempfile.mkdtemp(prefix="tabula-store-failures-")
    conv = mailcases.Conversation(TABULA, work)
    try:
        conv.deliver(conv.compose(A, "new chess with %s" % B))
        conv.deliver(conv.reply(A, "confirm", game="confirm"))
        conv.deliver(conv.reply(B, "accept"))
        conv.deliver(conv.compose(C, "observe 1"))
        conv.deliver(conv.reply(C, "confirm", game="confirm"))
        conv.deliver(conv.compose(D, "observe 1"))

        # observers: dave's confirmation while the list cannot be read
        mails = failing_poll(conv, conv.reply(D, "confirm", game="confirm"), "observers",
                             "an observer's confirmation")
        con = sqlite3.connect(conv.db)
        obs = [r[0] for r in con.execute("SELECT address FROM observers WHERE game = 1"
                                         " ORDER BY id")]
        con.close()
        check("retried: dave observes, and carol still does (the list was not rewritten)",
              obs == [C, D] and D in [m["to"] for m in mails], (obs, [m["to"] for m in mails]))

        # conditionals: the list asked for while the lines cannot be read
        conv.deliver(conv.reply(A, "e4", game="1"))
        conv.deliver(conv.reply(A, "if e5 then Nf3", game="1"))
        mails = failing_poll(conv, conv.reply(A, "conditionals", game="1"), "conditionals",
                             "the list of prepared lines")
        check("retried: the list shows the line",
              "if e5 then Nf3" in body_to(mails, A), body_to(mails, A))

        # comments: whether bob reads them cannot be read
        conv.deliver(conv.reply(B, "d5\n\nA fine opening.", game="1"))
        mails = failing_poll(conv, conv.reply(A, "Nc3\n\nThank you, bob.", game="1"),
                             "comments_off", "a move with a comment")
        check("retried: the move and the comment reach bob",
              "Thank you, bob." in body_to(mails, B), body_to(mails, B))

        p = conv.run("check")
        check("tabula check passes afterwards", p.returncode == 0, p.stdout.decode())
    except mailcases.CaseError as e:
        check("no step fails", False, str(e))
    failed = results.count(False)
    print("%d passed, %d failed" % (len(results) - failed, failed))
    if failed:
        print("(kept %s)" % work)
        return 1
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
