#!/usr/bin/env python3
"""A backgammon play with "roll" after it (rules-spec §1.6).

usage: backgammon_play_roll.py TABULA SOURCE_DIR

help-backgammon.txt says: write "roll" after your play (13/7 8/7 roll)
to answer the next cube question now. Once the line was refused
as unreadable. Played by mail with real random dice, so every assertion
holds for every roll:
  - an illegal play with "roll" is refused and keeps no standing answer
    (a refusal changes nothing);
  - a legal play with "roll" is played, its mail to the player confirms
    the standing answer, the opponent's mail does not mention it;
  - at the player's next turn the referee rolls without asking about the
    cube, and the answer is used up.
Prints "N passed, M failed".
"""
import email
import email.policy
import glob
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

TABULA = sys.argv[1]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)
ASKED = 'reply "roll", or "double"'


class Table:
    def __init__(self, root):
        self.root, self.n, self.seen = root, 0, set()
        self.conf = os.path.join(root, "t.ini")
        with open(self.conf, "w") as f:
            f.write("[tabula]\nstore_path=db\ninbox=in\noutbox=out\naddress=referee@example.org\n"
                    "domain=example.org\nlog_level=1\n")
        self.last = {}

    def deliver(self, who, body, reply=True):
        self.n += 1
        frm = who + "@example.org"
        to, subject = "referee@example.org", "hi"
        if reply:
            to, subject = str(self.last[who]["Reply-To"]), "Re: " + str(self.last[who]["Subject"])
        raw = ("From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <p%d@example.org>\r\n\r\n%s\r\n"
               % (frm, to, subject, self.n, body))
        p = subprocess.run([TABULA, "deliver", "-c", self.conf], input=raw.encode(),
                           capture_output=True, timeout=60)
        if p.returncode != 0:
            raise RuntimeError("deliver: %d %s" % (p.returncode, p.stderr.decode()))
        got = {}
        for path in sorted(glob.glob(os.path.join(self.root, "out", "new", "*"))):
            if path in self.seen:
                continue
            self.seen.add(path)
            with open(path, "rb") as f:
                m = email.message_from_binary_file(f, policy=email.policy.default)
            w = str(m["To"]).split("@")[0]
            self.last[w] = got[w] = m
        return got

    def body(self, who):
        return self.last[who].get_body(preferencelist=("plain",)).get_content()

    def a_play(self, who):
        pos = re.search(r"Position: (\S+)", self.body(who)).group(1)
        out = subprocess.run([TABULA, "moves", "-g", "backgammon", pos], capture_output=True,
                             text=True, check=True).stdout.split("\n")[0].split()
        return " ".join(out[len(out) // 2:])  # "computer canonical": the canonical half

    def autoroll(self, seat):
        con = sqlite3.connect(os.path.join(self.root, "db"))
        try:
            r = con.execute("select 1 from standing_rolls where game = 1 and seat = ?",
                            (seat,)).fetchone()
        finally:
            con.close()
        return r is not None


def main():
    root = tempfile.mkdtemp(prefix="tabula-bgroll.")
    try:
        t = Table(root)
        t.deliver("alice", "new backgammon with bob@example.org", reply=False)
        # Alice's first `new` is confirmed from her address (her
        # reply to the request) before Bob is invited
        t.deliver("alice", "confirm")
        t.deliver("bob", "accept")
        mover = "alice" if "It is your turn" in t.body("alice") else "bob"
        other = "bob" if mover == "alice" else "alice"
        seat = 0 if mover == "alice" else 1
        check("the opening roll is to be played by one player", "It is your turn" in t.body(mover))

        play = t.a_play(mover)
        got = t.deliver(mover, "24/1 roll")
        check("an illegal play with roll is refused",
              mover in got and "Not accepted" in str(got[mover]["Subject"]), str(got))
        check("the refusal keeps no standing roll", not t.autoroll(seat),
              str(t.autoroll(seat)))

        got = t.deliver(mover, play + " roll")
        check("'%s roll' is played" % play,
              mover in got and "accepted" in str(got[mover]["Subject"]), str(got.get(mover)))
        check("the player's mail confirms the standing roll",
              "I will roll for you without asking about the cube" in t.body(mover), t.body(mover))
        check("the opponent is not told of it",
              other in got and "without asking" not in t.body(other), t.body(other))
        check("the standing roll is kept", t.autoroll(seat), str(t.autoroll(seat)))

        # The opponent rolls and plays (or passes); then the player's turn.
        if ASKED in t.body(other):
            t.deliver(other, "roll")
        if "It is your turn" in t.body(other):
            t.deliver(other, t.a_play(other))
        body = t.body(mover)
        check("at the player's next turn the referee rolled without asking",
              ASKED not in body and re.search(r"rolled|cannot move|It is your turn", body), body)
        check("the standing roll is used up", not t.autoroll(seat), str(t.autoroll(seat)))
    except Exception as e:  # a broken step is a failure, never a skip
        check("no exception", False, repr(e))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
