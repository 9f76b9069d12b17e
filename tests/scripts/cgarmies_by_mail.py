#!/usr/bin/env python3
"""Diceless Chessgammon with different armies by mail (rules-spec §5.7).

usage: cgarmies_by_mail.py TABULA SOURCE_DIR

Two scripted players answer tabula's mails through the Maildirs as a person
would. Checks:
  - a game with armies=rookies/nutty from an endgame given with the invitation
    (fen=, the armies in its "armies:" word) is played to its end: the
    Rookies' Half-Duck leaps off by three (CG-2 by its own move), the Nutty
    Knights' Colonel takes the Short Rook, which comes back to its corner
    (rule 6: where it started), a move out of the bar restriction is refused
    (rule 7), and the players then bear off, picking from `tabula moves`
    (a seeded choice, bearing off first), until the game is over; the moves
    are written in the armies' letters (DA-4, DA-9), every board shows the
    letters and the armies' legend, and `tabula check` replays the journal;
  - a game from the armies' start array (armies=nutty/clobberers): the first
    moves in the armies' letters, a letter of the other army refused
    (da-not-in-army), then a resignation;
  - armies= naming one army only is refused with its reason (cga-bad-armies).
With CGARMIES_MAIL_DUMP=DIR every mail is also written there (NNN.eml).
Prints "N passed, M failed".
"""
import os
import random
import re
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import bymail  # noqa: E402  (tests/harness/bymail.py)
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)

# White (Remarkable Rookies): king e7, Half-Duck c6, Short Rook a5; Black
# (Nutty Knights): Colonel b4, Charging Knight g3, king e2. 13 pieces each off.
ENDGAME = "8/4K3/2H5/S7/1l6/6j1/4k3/8_w_armies:rookies/nutty"
A, B = "alice@example.org", "bob@example.org"


def mine(t, who):
    return "It is your turn" in t.text(who)


def main():
    root = tempfile.mkdtemp(prefix="tabula-cga-")
    t = bymail.Table(TABULA, root)
    rng = random.Random(20261128)
    try:
        # ---- the endgame, to its end
        t.invite(A, "new chessgammon fen=%s with %s" % (ENDGAME, B))
        t.deliver(B, "accept", reply=t.last[B])
        first = t.text(A)
        check("the first board shows the armies' letters and their legend",
              " 6  .  .  H  .  .  .  .  .  6" in first and "Black, Nutty Knights:" in first and
              "H Half-Duck" in first and "armies:rookies/nutty" in first, first)
        t.deliver(A, "Hc6-c9", reply=t.last[A])
        check("CG-2 by the army's move: the Half-Duck leaps off by three",
              "played 1. Hc6-c9" in str(t.last[B]["Subject"]) and "off: 14 of 16" in t.text(B),
              str(t.last[B]["Subject"]) + t.text(B))
        html = bymail.html(t.last[B]) or ""
        check("HTML: the army pieces by their letters, no figurine (DA-4), and the legend",
              'data-piece="H"' not in html and re.search(r'data-piece="l"[^>]*>L</span>', html) and
              re.search(r'data-piece="S"[^>]*>S</span>', html) and
              "Nutty Knights: g Charging Rook" in html,
              html[:3000])
        t.deliver(B, "L:a5", reply=t.last[B])
        check("the Colonel takes the Short Rook: to White's bar, in its letter",
              "White bar: S" in t.text(A), t.text(A))
        t.deliver(A, "Ke8", reply=t.last[A])
        refused = t.text(A)
        check("rule 7: with the Short Rook on the bar, a king's move is refused",
              "Not accepted" in str(t.last[A]["Subject"]) and "on the bar" in refused, refused)
        t.deliver(A, "S@a1", reply=t.last[A])
        check("rule 6: the Short Rook comes back to its corner, written Sa0-a1",
              "played 3. Sa0-a1" in str(t.last[B]["Subject"]) or
              "played 2. Sa0-a1" in str(t.last[B]["Subject"]), str(t.last[B]["Subject"]))
        for _ in range(80):
            if bymail.over(t.last[A]):
                break
            who = A if mine(t, A) else B if mine(t, B) else None
            if who is None:
                raise RuntimeError("nobody to move:\n" + t.text(A) + "\n----\n" + t.text(B))
            moves = bymail.legal(TABULA, "chessgammon", bymail.position(t.text(who)))
            off = [m for m in moves if m.endswith("9")]
            t.deliver(who, rng.choice(off or moves), reply=t.last[who])
        games = t.run("games").stdout.decode()
        check("the endgame is played to its end", bymail.over(t.last[A]) and
              re.search(r"won by borne-off|draw by same-move-number", games), games)
        check("tabula check replays it", t.run("check", check=False).returncode == 0)
        html = bymail.html(t.last[A]) or ""
        check("every mail of the game has its HTML part", html.count("<table") >= 1, html[:400])

        # ---- from the armies' start array
        t.invite("carol@example.org", "new chessgammon armies=nutty/clobberers with dave@example.org")
        t.deliver("dave@example.org", "accept", reply=t.last["dave@example.org"])
        board = t.text("carol@example.org")
        check("DA-2: the armies stand on the chess array's squares",
              " 8  d  w  f  a  k  f  w  d  8" in board and " 1  G  I  J  L  K  J  I  G  1" in board,
              board)
        t.deliver("carol@example.org", "Nc3", reply=t.last["carol@example.org"])
        check("DA-9: a letter of another army is refused, saying so",
              "Your army has no piece written N" in t.text("carol@example.org"),
              t.text("carol@example.org"))
        t.deliver("carol@example.org", "Ic3", reply=t.last["carol@example.org"])
        t.deliver("dave@example.org", "Wd6", reply=t.last["dave@example.org"])
        check("the Fibnif and the Waffle move by their letters",
              "Wb8-d6" in str(t.last["carol@example.org"]["Subject"]),
              str(t.last["carol@example.org"]["Subject"]))
        t.deliver("carol@example.org", "resign", reply=t.last["carol@example.org"])
        check("and the game ends by resignation", bymail.over(t.last["dave@example.org"]))

        # ---- a bad armies= option
        t.invite("erin@example.org", "new chessgammon armies=nutty with frank@example.org")
        check("cga-bad-armies: armies= names both armies",
              "names White's army and Black's" in t.text("erin@example.org"),
              t.text("erin@example.org"))

        dump = os.environ.get("CGARMIES_MAIL_DUMP")
        if dump:
            os.makedirs(dump, exist_ok=True)
            for i, msg in enumerate(t.mails):
                with open(os.path.join(dump, "%03d.eml" % i), "wb") as f:
                    f.write(msg.raw)
    except Exception:
        finish(root, keep=True)
        raise
    return finish(root)


if __name__ == "__main__":
    sys.exit(main())
