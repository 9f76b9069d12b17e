#!/usr/bin/env python3
"""Whole Tables Chess games by mail through the Maildirs, and their dice.

usage: tables_chess_by_mail.py TABULA SOURCE_DIR

Two scripted players answer tabula's mails as a person would: they read the
position from the last mail, pick a legal play (from `tabula moves -g
tableschess`, with a fixed seed) and reply. Each game starts from a race
position given with the invitation (fen=, rules-spec.md section 7, kings on
their point 18 or 19 with company) so that it ends within a few dozen turns.
Checks (must-show 4):
  - a race game ends: a king home (TC-9), the TC-8 draw, or, when a king
    is shut out of its goal, a resignation after 40 mails; the store
    records it and `tabula check` replays every journal;
  - the dice came from tabula-dice-2: the commitment was in the invitation,
    and the standalone verifier passes on the outbox mails alone;
  - the opening roll (TC-6) and the referee's forced and no-move turns
    (section 1.5) happen in whole games from the start as well; a no-move
    turn comes whatever the dice from a position whose entry is closed;
  - no mail shows a board line wider than 72 columns.
Prints "N passed, M failed".
"""
import email
import email.policy
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
VERIFIER = os.path.join(SRC, "tools", "tabula-verify-dice.py")
RACE = "NP3RP7BP13BP16NP17KP18/np3rp6bp13bp16np17kp19:w"
# White cannot play any roll: its pawn on the bar faces Black's block on its
# point 1 (see main).
NOMOVE = "P0N3RP7BP13BP16NP17KP18/np3bp13bp16np17kp19rp24:w"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import bymail  # noqa: E402  (tests/harness/bymail.py)
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)


def play_game(t, white, black, rng, fen=None, limit=40):
    """Plays until the game is over, the player to move resigning after
    `limit` mails (a king can be shut out of its goal for a long time
    before TC-8 draws); returns the invitation's text."""
    t.invite(white, "new tableschess %swith %s" % ("fen=%s " % fen if fen else "", black))
    invite = t.text(black)
    t.deliver(black, "accept\nentropy: %s's words\n" % black, reply=t.last[black])
    for _ in range(limit):
        for who in (white, black):
            if "is over" in str(t.last[who]["Subject"]):
                return invite
        for who in (white, black):
            body = t.text(who)
            if "It is your turn" in body:
                pos = re.search(r"^Position: (\S+)$", body, re.M).group(1)
                plays = bymail.legal(TABULA, "tableschess", pos)
                if not plays:
                    raise RuntimeError("no plays listed for %s" % pos)
                # A racer: home if it can, else a king move when there is
                # one, else anything.
                home = [p for p in plays if re.search(r"K\d+/(\d+/)*24\b", p)]
                king = [p for p in plays if "K" in p]
                t.deliver(who, rng.choice(home or king or plays), reply=t.last[who])
                break
        else:
            raise RuntimeError("nobody to act:\n" + t.text(white) + "\n----\n" + t.text(black))
    for who in (white, black):
        # the limit's last mail may have ended the game (a chance of the dice)
        if "is over" in str(t.last[who]["Subject"]):
            return invite
    for who in (white, black):
        if "It is your turn" in t.text(who):
            t.deliver(who, "resign", reply=t.last[who])
            return invite
    raise RuntimeError("game did not end in %d mails" % limit)


def main():
    root = tempfile.mkdtemp(prefix="tabula-tc-")
    t = bymail.Table(TABULA, root)
    rng = random.Random(20261122)
    try:
        pairs = [("alice@example.org", "bob@example.org")]
        invites = []
        for white, black in pairs:
            invites.append(play_game(t, white, black, rng, fen=RACE))
        games = subprocess.run([TABULA, "games", "-c", t.conf], capture_output=True,
                               text=True).stdout
        ended = re.findall(r"won by king-home|draw by stalemate|won by resignation", games)
        print("     (the race game: %s)" % (ended[0] if ended else "?"))
        check("a race game ends (TC-9 king home, TC-8, or resigned after 40 mails)",
              len(ended) == 1, games)
        check("the commitment came with the invitation",
              all("Dice commitment: tabula-dice-2" in i for i in invites))

        # From the start: the opening roll (TC-6) and the first turns; the
        # game is then resigned (whole games from the start last hundreds
        # of turns: see the unit tests' playouts).
        t.invite("gina@example.org", "new tableschess with hugo@example.org")
        t.deliver("hugo@example.org", "accept", reply=t.last["hugo@example.org"])
        first = t.text("gina@example.org") + t.text("hugo@example.org")
        check("TC-6: the opening roll is shown, one die each, then two fresh dice",
              len(re.findall(r"(?m)^Dice roll: game 2 chain 1 roll \d+ key \S+ faces \d \d",
                             first)) >= 2, first)
        for _ in range(4):
            for who in ("gina@example.org", "hugo@example.org"):
                body = t.text(who)
                if "It is your turn" in body:
                    pos = re.search(r"^Position: (\S+)$", body, re.M).group(1)
                    t.deliver(who, rng.choice(bymail.legal(TABULA, "tableschess", pos)),
                              reply=t.last[who])
                    break
        t.deliver("hugo@example.org", "resign", reply=t.last["hugo@example.org"])
        check("a game from the start, resigned",
              "won by resignation" in str(t.last["gina@example.org"]["Subject"]),
              str(t.last["gina@example.org"]["Subject"]))

        # A no-move turn whatever the dice (section 1.5): White's pawn on
        # the bar enters only on point 1 with a 1, or with a 2 by hitting a
        # blot on point 2 (TC-3, TC-5), and nothing else may move before it
        # (7.4); Black's rook and pawn block point 1 (Black's 24) and point 2
        # is empty. The races above pass turns only when their dice say so.
        t.invite("ivan@example.org", "new tableschess fen=%s with judy@example.org" % NOMOVE)
        t.deliver("judy@example.org", "accept", reply=t.last["judy@example.org"])
        passed = t.text("ivan@example.org")
        check("1.5: White's roll with no legal play passes the turn, and says so",
              "cannot move with that roll; the turn passes" in passed, passed)
        t.deliver("ivan@example.org", "resign", reply=t.last["ivan@example.org"])

        p = subprocess.run([TABULA, "check", "-c", t.conf], capture_output=True, text=True)
        check("tabula check replays every journal", p.returncode == 0, p.stdout + p.stderr)

        outbox = sorted(glob.glob(os.path.join(root, "out", "new", "*")))
        text = "".join(open(f, encoding="utf-8").read() for f in outbox)
        for g in "12":
            n = len(set(re.findall(r"(?m)^Dice roll: game %s .*" % g, text)))
            p = subprocess.run(["python3", VERIFIER, "--game", g] + outbox,
                               capture_output=True, text=True)
            check("game %s: the standalone verifier passes on the outbox mails (%d rolls)"
                  % (g, n), n > 0 and p.returncode == 0 and
                  p.stdout.strip() == "all %d rolls verify" % n, p.stdout + p.stderr)
        forced = len(re.findall(r"had one legal play, .*; it was made automatically", text))
        nomove = len(re.findall(r"cannot move with that roll; the turn passes", text))
        print("     (%d mails, %d forced plays, %d no-move turns)" % (len(outbox), forced, nomove))
        # "your move" in a subject only to the player to move: a turn
        # passed for want of a play, or played for the player, leaves the
        # opponent to move again
        told = wrong = 0
        for f in outbox:
            with open(f, "rb") as fh:
                m = email.message_from_bytes(fh.read(), policy=email.policy.default)
            if str(m["Subject"]).endswith(", your move"):
                told += 1
                if "It is your turn" not in m.get_body(preferencelist=("plain",)).get_content():
                    wrong += 1
        check("a subject says 'your move' only to the player to move (%d mails, %d no-move turns)"
              % (told, nomove), told > 0 and nomove > 0 and wrong == 0,
              "%d of %d say 'your move' to a player not to move" % (wrong, told))
        boards = []
        for f in outbox:
            with open(f, "rb") as fh:
                body = email.message_from_bytes(fh.read(), policy=email.policy.default)
            boards += [l for l in body.get_body(preferencelist=("plain",)).get_content().splitlines() if "|" in l]
        wide = [l for l in boards if len(l) > 72]
        check("every board line of every mail is at most 72 columns (%d lines)" % len(boards),
              boards and not wide, "\n".join(wide[:3]))
    except Exception as e:  # a crash is a failure with its story
        check("the games ran", False, repr(e))
    return finish(root)


if __name__ == "__main__":
    sys.exit(main())
