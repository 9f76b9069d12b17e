#!/usr/bin/env python3
"""A 3-point backgammon match by mail to its end, through the daemon.

usage: match_by_mail.py TABULA SOURCE_DIR

`tabula serve` runs on a Maildir; alice writes `new backgammon match=3
with bob` (and confirms it by reply, her first request). The dice are real (random), so the players decide by what they
are asked, never by fixed turns, and every game ends within a few mails
whatever the dice: a resignation or a drop ends it. Whatever legal play
exists is played (the first `tabula moves` lists).
  game 1: bob resigns a gammon, alice accepts: 2 points (gammons count), the
          match goes on (a resignation ends the game, not the match);
  game 2: the Crawford game (alice at 2 of 3): no mail asks about the cube,
          `double` is refused with the reason and changes nothing; alice
          resigns, bob takes 1 point;
  game 3: post-Crawford: bob doubles at his first turn, alice drops: 2-2
          (a drop ends the game, not the match);
  game 4: alice doubles, bob takes, bob resigns: 1 point x the 2-cube,
          alice wins the match 4-2 (the cube counts).
Checks: every mail of the match shows "Match to 3: ..." with the score as
a recount from the store's journal (written here: resignations, drops and
takes read from the journal entries, not from tabula's code) says it; the
dice of all four games verify with tools/tabula-verify-dice.py as one
match (one commitment, "Dice match" lines), and a tampered "Dice match"
line fails; `verify` by mail counts every roll of the match; `tabula check`
passes; the match counts once for each player's backgammon rating.
Then, by `tabula deliver`: `resign match` ends a 5-point match at once,
and `new backgammon jacoby=on` scores a gammon with the cube in the middle
as a single game; a match made `private public-comments` keeps both in its
second game (nobody can observe it).
Prints "N passed, M failed".
"""
import glob
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests", "harness"))
from club import Club, body, game_of  # noqa: E402  (tests/harness/club.py)

VERIFIER = os.path.join(SRC, "tools", "tabula-verify-dice.py")
A, B = "alice@example.org", "bob@example.org"
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)


CUBE_QUESTION = 'reply "roll", or "double"'


def position(text):
    m = re.search(r"^Position: (\S+)$", text, re.M)
    return m.group(1) if m else None


def a_play(pos):
    out = subprocess.run([TABULA, "moves", "-g", "backgammon", pos], capture_output=True,
                         text=True, timeout=60).stdout.splitlines()
    words = out[0].split()
    return " ".join(words[len(words) // 2:])


class Match:
    def __init__(self, club):
        self.club = club
        self.game = None
        self.crawford_questions = 0

    def last(self, who):
        return body(self.club.game_mail[(who, self.game)])

    def current(self):
        """The game in play: the newest game number alice has mail about."""
        self.game = max(g for (a, g) in self.club.game_mail if a == A)
        return self.game

    def to_act(self):
        """(who, what): who must answer now in the current game, and what."""
        for who in (A, B):
            text = self.last(who)
            if "You have been doubled" in text:
                return who, "cube-reply"
            if CUBE_QUESTION in text:
                return who, "cube"
            if "It is your turn" in text:
                return who, "move"
        return None, None

    def play_until(self, want, limit=40):
        """Plays (legal plays, "roll" at cube questions) until `want(who,
        what)` is true; returns (who, what)."""
        for _ in range(limit):
            who, what = self.to_act()
            if who and want(who, what):
                return who, what
            if what == "move":
                self.club.play(who, self.game, a_play(position(self.last(who))))
            elif what == "cube":
                self.club.play(who, self.game, "roll")
            else:
                raise RuntimeError("nobody to act in game %s:\n%s\n---\n%s"
                                   % (self.game, self.last(A), self.last(B)))
        raise RuntimeError("game %s: no end in %d mails" % (self.game, limit))


def recount(db, games, length):
    """The match score after each game, from the journal alone."""
    con = sqlite3.connect(db)
    score, after = [0, 0], []
    for g in games:
        rows = con.execute("SELECT seat, kind, text FROM journal WHERE game = ? ORDER BY seq",
                           (g,)).fetchall()
        cube, over = 1, None
        for seat, kind, text in rows:
            if kind == "action" and text == "take":
                cube *= 2
            elif kind == "action" and text == "drop":
                over = (1 - seat, cube)  # the doubler wins the cube before the double
            elif kind == "action" and text.startswith("resign "):
                over = (1 - seat, int(text.split()[1]) * cube)
            elif kind == "resign-match":
                over = (1 - seat, length)
        if over:
            score[over[0]] += over[1]
        after.append(tuple(score))
    con.close()
    return after


def main():
    root = tempfile.mkdtemp(prefix="tabula-match-")
    club = Club(TABULA, root)
    try:
        club.start_daemon()
        m = Match(club)
        club.create(A, "new backgammon match=3 with %s" % B)
        invite = club.last[B]
        check("the invitation says the match", "Match to 3: %s 0, %s 0." % (A, B) in body(invite),
              body(invite))
        club.answer(B, "accept")
        games = [m.current()]

        # game 1: bob resigns a gammon at once; 2 points to alice
        club.play(B, m.game, "resign gammon")
        club.play(A, m.game, "accept")
        over = body(club.game_mail[(A, games[0])])
        check("game 1: a gammon resigned gives 2 points, the Crawford game is next",
              "Match to 3: %s 2, %s 0; %s won this game, the next one is the Crawford game"
              % (A, B, A) in over, over)

        # game 2: the Crawford game
        games.append(m.current())
        check("game 2 started in the same thread of play, a new game number",
              games[1] != games[0] and "Crawford game (no doubling" in m.last(A), m.last(A))
        m.play_until(lambda who, what: what == "move" and who == B)
        before = sqlite3.connect(os.path.join(root, "db")).execute(
            "SELECT count(*) FROM journal").fetchone()[0]
        club.play(B, m.game, "double")
        refusal = m.last(B)
        check("Crawford game: double is refused with the reason",
              "Crawford game" in str(club.game_mail[(B, m.game)]["Subject"] + refusal)
              and "Nobody may double in it" in refusal, refusal)
        after = sqlite3.connect(os.path.join(root, "db")).execute(
            "SELECT count(*) FROM journal").fetchone()[0]
        check("the refused double changed nothing", before == after, (before, after))
        club.play(A, m.game, "resign")
        club.play(B, m.game, "accept")
        crawford_mails = [body(x) for t, x in club.mails if game_of(x["Subject"]) == games[1]]
        check("no mail of the Crawford game asks about the cube",
              not any(CUBE_QUESTION in t for t in crawford_mails), len(crawford_mails))

        # game 3: post-Crawford, bob doubles, alice drops
        games.append(m.current())
        check("game 3 is post-Crawford", "2, %s 1; post-Crawford" % B in m.last(A), m.last(A))
        m.play_until(lambda who, what: who == B and what == "cube")
        club.play(B, m.game, "double")
        club.play(A, m.game, "drop")
        over = body(club.game_mail[(A, games[2])])
        check("post-Crawford: the double is allowed; dropped, the game ends, not the match",
              "Match to 3: %s 2, %s 2; %s won this game, the next one follows" % (A, B, B) in over,
              over)

        # game 4: alice doubles, bob takes, then resigns: 1 x 2 points, alice wins
        games.append(m.current())
        m.play_until(lambda who, what: who == A and what == "cube")
        club.play(A, m.game, "double")
        club.play(B, m.game, "take")
        club.play(B, m.game, "verify")
        verdict = m.last(B)
        club.play(B, m.game, "resign")
        club.play(A, m.game, "accept")
        over = body(club.game_mail[(B, games[3])])
        check("game 4: a single game on a 2-cube is 2 points, alice wins the match 4-2",
              "Match to 3: %s 4, %s 2; %s wins the match" % (A, B, A) in over, over)
        check("no fifth game", m.current() == games[3], m.current())

        # every mail of the match shows the score, and the recount agrees
        after = recount(os.path.join(root, "db"), games, 3)
        check("the journal recount: 2-0, 2-1, 2-2, 4-2", after == [(2, 0), (2, 1), (2, 2), (4, 2)],
              after)
        mails = [(t, x) for t, x in club.mails if game_of(x["Subject"]) in games]
        missing = [str(x["Subject"]) for t, x in mails if "Match to 3: " not in body(x)]
        check("every one of the match's %d mails shows the match score" % len(mails),
              mails and not missing, missing[:5])
        wrong = []
        for t, x in mails:
            g = games.index(game_of(x["Subject"]))
            s = re.search(r"Match to 3: \S+ (\d+), \S+ (\d+)", body(x))
            before_game = (0, 0) if g == 0 else after[g - 1]
            shown = (int(s.group(1)), int(s.group(2)))
            if shown not in (before_game, after[g]):
                wrong.append((str(x["Subject"]), shown))
        check("every score shown is the recount's, before or after its game", not wrong, wrong)

        # the dice: one commitment covers the match
        outbox = sorted(glob.glob(os.path.join(root, "out", "new", "*")))
        text = "".join(open(f, encoding="utf-8").read() for f in outbox)
        commitments = set(re.findall(r"(?m)^Dice commitment: .*", text))
        nrolls = len(set(re.findall(r"(?m)^Dice roll: game %d .*" % games[0], text)))
        p = subprocess.run(["python3", VERIFIER, "--game", str(games[0])] + outbox,
                           capture_output=True, text=True)
        check("one commitment for the match, and every roll of its 4 games verifies",
              len(commitments) == 1 and p.returncode == 0 and p.stdout.strip() ==
              "all %d rolls verify; the 4 games of the match share them" % nrolls,
              "%s %s%s" % (commitments, p.stdout, p.stderr))
        check("verify by mail in game 4 counts the rolls of the whole match so far",
              re.search(r"all (\d+) rolls verify", verdict) and
              int(re.search(r"all (\d+) rolls verify", verdict).group(1)) > 4, verdict)
        tdir = os.path.join(root, "tamper")
        shutil.copytree(os.path.join(root, "out", "new"), tdir)
        for f in glob.glob(os.path.join(tdir, "*")):
            s = open(f, encoding="utf-8").read()
            s = re.sub(r"(Dice match: game \d+ part 3 played as game \d+ from roll )(\d+)",
                       lambda x: x.group(1) + "2", s)
            open(f, "w", encoding="utf-8").write(s)
        p = subprocess.run(["python3", VERIFIER, "--game", str(games[0])] +
                           sorted(glob.glob(os.path.join(tdir, "*"))), capture_output=True, text=True)
        check("a Dice match line that goes back fails the verifier",
              p.returncode == 1 and "match part 3" in p.stdout, p.stdout + p.stderr)

        check("tabula serve stops cleanly", club.stop_daemon() == 0)
        p = club.tabula("check")
        check("tabula check: the matches agree with the journals", p.returncode == 0 and
              "1 match(es) checked, 0 bad" in p.stdout, p.stdout)
        r = club.run("ratings", "backgammon")
        rows = re.findall(r"^\s*\d+\s+\S+\s+\S+\s+\S+\s+(\d+)\s+(\d+)\s+\d+\s+(\d+)\s+(\S+)$", r, re.M)
        check("the match is one rated game for each: alice won it, bob lost it",
              sorted(rows) == sorted([("1", "1", "0", A), ("1", "0", "1", B)]), r)

        # resign match, by deliver
        club.create(A, "new backgammon match=5 with %s" % B)
        club.answer(B, "accept")
        g = m.current()
        club.play(B, g, "resign match")
        over = body(club.game_mail[(A, g)])
        check("resign match: the match is over at once",
              "wins the match: the opponent resigned it" in over and m.current() == g, over)
        club.create(A, "new backgammon with %s" % B)
        club.answer(B, "accept")
        club.play(B, m.current(), "resign match")
        check("resign match outside a match is refused",
              "not part of a match" in m.last(B), m.last(B))

        # Jacoby: a gammon resigned with the cube in the middle is single
        club.create("carol@example.org", "new backgammon jacoby=on with dave@example.org")
        club.answer("dave@example.org", "accept")
        g = max(g for (a, g) in club.game_mail if a == "carol@example.org")
        club.play("dave@example.org", g, "resign gammon")
        club.play("carol@example.org", g, "accept")
        subject = str(club.game_mail[("carol@example.org", g)]["Subject"])
        check("Jacoby: a gammon before any double counts as a single game",
              "White won by resignation" in subject, subject)
        # a private match with public comments stays so in every game: its
        # second game was public (no "private" in its create entry)
        club.create(A, "new backgammon match=3 private public-comments with %s" % B)
        club.answer(B, "accept")
        g1 = m.current()
        club.play(B, g1, "resign gammon")
        club.play(A, g1, "accept")
        g2 = m.current()
        con = sqlite3.connect(os.path.join(root, "db"))
        create = con.execute("SELECT text FROM journal WHERE game = ? AND kind = 'create'",
                             (g2,)).fetchone()[0]
        flags = [t for t in ("private_games", "public_comment_games")
                 if con.execute("SELECT 1 FROM %s WHERE game = ?" % t, (g2,)).fetchone()]
        con.close()
        check("a private public-comments match: game 2 (%d) is both" % g2,
              g2 != g1 and "private public-comments match=3" in create and
              flags == ["private_games", "public_comment_games"], (create, flags))
        out = club.deliver("carol@example.org", "observe %d" % g2)
        check("a private match's game 2 cannot be observed: carol is told why, nobody else hears",
              [to for to, _ in out] == ["carol@example.org"] and
              "Game %d is private" % g2 in body(out[0][1]), [(to, body(x)[:200]) for to, x in out])
        p = club.tabula("check")
        check("tabula check passes at the end", p.returncode == 0, p.stdout)
    except Exception:  # a crash is a failure with its story
        import traceback
        check("the match ran", False, traceback.format_exc())
    finally:
        club.stop_daemon()
    return finish(root)


if __name__ == "__main__":
    sys.exit(main())
