#!/usr/bin/env python3
"""Boards of the past: "board #N" is `tabula board` of the
position the game's own mails showed at move N.

usage: past_boards.py TABULA SOURCE_DIR

Games of chess, checkers and backgammon are played by mail with seeded
random moves (tests/harness/bymail.py). While they are played, the first
mail of each game that says "Move number: #N" gives the position at move N
(its "Position:" line). Afterwards every "board #N" mail must show that
position string and, drawn, exactly what `tabula board -g GAME -s 0
POSITION` draws (the last move's mark "[p]" read as " p ", backgammon's
"Last:" line left out: a position string has no last move). "history full" of a long game stays within the
size cap and says where its boards stop. Prints "N passed, M failed".
"""
import os
import random
import re
import subprocess
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests", "harness"))
import bymail  # noqa: E402

A, B = "alice@example.org", "bob@example.org"
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)


def positions_seen(t, num):
    """{N: position} from the first mail of game num showing "#N"."""
    seen = {}
    for msg in t.mails:
        if not re.search(r"\[tabula %d " % num, str(msg["Subject"])):
            continue
        body = bymail.text(msg)
        n = re.search(r"^Move number: #(\d+)", body, re.M)
        pos = bymail.position(body)
        if n and pos and int(n.group(1)) not in seen:
            seen[int(n.group(1))] = pos
    return seen


def unmarked(text):
    """The board without what a position string cannot hold: the last
    move's marks ("[p]", "[22]", a checkers capture's "(23)"),
    backgammon's "Last:" line and the order of its dice."""
    text = re.sub(r"^ Last: .*\n", "", text, flags=re.M)
    # the dice as rolled ("to play 24") come back from gnubg's Match ID
    # in the other order ("42"): the position string does not keep it
    text = re.sub(r" to play (\d)(\d)\.", lambda m: " to play %s." % "".join(
        sorted(m.group(1) + m.group(2))), text)
    text = re.sub(r"\(( ?[0-9A-Za-z]{1,2})\)", r" \1 ", text)
    return re.sub(r"\[([^\]\n]{1,3})\]", r" \1 ", text)


def compare(t, game, num, plies):
    seen = positions_seen(t, num)
    check("%s: mails showed moves #%d to #%d" % (game, min(seen), max(seen)),
          len(seen) >= 3, sorted(seen))
    for n in sorted(seen):
        t.deliver(A, "board #%d" % n, reply=t.game_last[(A, num)])
        msg = t.last[A]
        body = bymail.text(msg)
        drawn = subprocess.run([TABULA, "board", "-g", game, "-s", "0", seen[n]],
                               capture_output=True, text=True, timeout=60).stdout.rstrip("\n")
        ok = ("the board at move #%d" % n in str(msg["Subject"])
              and bymail.position(body) == seen[n] and drawn
              and unmarked(drawn) in unmarked(body))
        check("%s game %d: board #%d is `tabula board` of %s" % (game, num, n, seen[n]), ok,
              "%s\n%s\n--- tabula board:\n%s" % (msg["Subject"], body, drawn))
    last = max(seen) + 1
    t.deliver(A, "board #%d" % (last + 1), reply=t.game_last[(A, num)])
    check("%s: board #%d (not reached) is refused" % (game, last + 1),
          "There is no board at move" in bymail.text(t.last[A]), bymail.text(t.last[A]))


def main():
    work = tempfile.mkdtemp(prefix="tabula-past-boards-")
    rng = random.Random(18)
    t = bymail.Table(TABULA, work)
    plan = [("chess", 70), ("checkers", 16), ("backgammon", 16)]
    for game, plies in plan:
        num = bymail.play(t, game, A, B, rng, plies)
        compare(t, game, num, plies)
        if game == "chess":
            t.deliver(A, "history full", reply=t.game_last[(A, num)])
            msg = t.last[A]
            body = bymail.text(msg)
            boards = body.count("    a  b  c  d  e  f  g  h\n 8")
            check("chess: history full has at most 60 boards (%d)" % boards,
                  0 < boards <= 60, boards)
            check("chess: history full says where the boards stop",
                  "No more boards here" in body and 'board #' in body, body[-2000:])
            check("chess: history full within 102 KB (%d bytes)" % len(msg.raw),
                  len(msg.raw) < 102 * 1024, len(msg.raw))
    return finish(work)


if __name__ == "__main__":
    sys.exit(main())
