#!/usr/bin/env python3
"""A backgammon match as one record that GNU Backgammon reads back.

usage: match_records.py TABULA SOURCE_DIR

A 3-point match is played by mail (tests/harness/bymail.py: `tabula
deliver`, real dice, any legal play, seeded choices), so that it has every
cube action and both sides of the Crawford rule whatever the dice:
  game 1: alice doubles, bob takes, bob redoubles, alice drops: 0-2, the
          next game is the Crawford game;
  game 2: the Crawford game (no cube): bob resigns a single game: 1-2;
  game 3: post-Crawford: alice doubles, bob takes, and the game is played
          to its last checker borne off: the match ends there.
Then `tabula export` of any game of the match prints the whole match as one
Jellyfish .mat (docs/records.md): the header lines eXtreme Gammon reads
(`; [Crawford "On"]`, `[Jacoby]`, `[Beaver]`, `[EventDate]`, the players),
" 3 point match", every game in order with the score before it and the
Crawford game marked (the same file is attached to the mail that ends the
match); its dice lines verify with
tools/tabula-verify-dice.py as one match. A money game with jacoby=on
stays one game of a "0 point match" and says `[Jacoby "On"]`. GNU Backgammon (`gnubg -t`,
`import mat`) reads it without a warning, reaches after every game the
position tabula's store holds for that game (its Position ID), and the
final match score tabula's last mail says.
Without gnubg the gnubg checks SKIP and the test exits 77 (ctest's skip);
with TABULA_REQUIRE_TOOLS=1 that fails. Prints "N passed, M failed".
"""
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests", "harness"))
import bymail  # noqa: E402
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)

GNUBG = os.environ.get("GNUBG", "/usr/games/gnubg")
VERIFIER = os.path.join(SRC, "tools", "tabula-verify-dice.py")
REQUIRE_TOOLS = os.environ.get("TABULA_REQUIRE_TOOLS") == "1"
SKIP = 77  # ctest's SKIP_RETURN_CODE for this test (tests/CMakeLists.txt)
A, B = "alice@example.org", "bob@example.org"
CUBE_QUESTION = 'reply "roll", or "double"'


class Match:
    """The match's games as its players see them by mail."""

    def __init__(self, t, rng):
        self.t, self.rng = t, rng
        self.games = []

    def current(self):
        """The newest game alice has mail about: the match's game in play."""
        return max(g for (who, g) in self.t.game_last if who == A)

    def to_act(self, num):
        """(who, what) in game num: "over", "doubled", "cube", "move"."""
        for who in (A, B):
            msg = self.t.game_last.get((who, num))
            if msg is not None and bymail.over(msg):
                return None, "over"
        for who in (A, B):
            msg = self.t.game_last.get((who, num))
            if msg is None:
                continue
            body = bymail.text(msg)
            if "You have been doubled" in body:
                return who, "doubled"
            if CUBE_QUESTION in body:
                return who, "cube"
            if "It is your turn" in body and bymail.position(body):
                return who, "move"
        return None, None

    def answer(self, who, num, words):
        self.t.deliver(who, words, reply=self.t.game_last[(who, num)])

    def play(self, num, decide, limit=600):
        """Answers every mail of game num until decide(who, what, n) says
        "stop" (n counts the turns so far); decide gives the words to
        send, or None for the usual answer (a legal play, "roll",
        "take"). Returns (who, what) where it stopped, or (None, "over")."""
        for n in range(limit):
            who, what = self.to_act(num)
            if what == "over":
                return None, "over"
            if who is None:
                raise RuntimeError("nobody to act in game %d:\n%s" % (num, "\n----\n".join(
                    bymail.text(self.t.game_last[(w, num)]) for w in (A, B)
                    if (w, num) in self.t.game_last)))
            words = decide(who, what, n)
            if words == "stop":
                return who, what
            if words is None:
                if what == "move":
                    body = bymail.text(self.t.game_last[(who, num)])
                    words = self.rng.choice(bymail.legal(TABULA, "backgammon",
                                                         bymail.position(body)))
                else:
                    words = "roll" if what == "cube" else "take"
            self.answer(who, num, words)
        raise RuntimeError("game %d: no end in %d mails" % (num, limit))

    def resign(self, num, loser):
        """loser resigns a single game at a turn of theirs; the other accepts."""
        self.play(num, lambda who, what, n: "stop" if who == loser and what == "move" else None)
        self.answer(loser, num, "resign")
        winner = B if loser == A else A
        msg = self.t.game_last[(winner, num)]
        if "offers to resign" in str(msg["Subject"]):
            self.answer(winner, num, "accept")


def score_shown(msg):
    """(alice, bob) from "Match to 3: alice@... 1, bob@... 2" in a mail."""
    m = re.search(r"Match to 3: %s (\d+), %s (\d+)" % (re.escape(A), re.escape(B)),
                  bymail.text(msg))
    return (int(m.group(1)), int(m.group(2))) if m else None


def play_match(t, rng):
    m = Match(t, rng)
    t.invite(A, "new backgammon match=3 with %s" % B)
    invite = t.last[B]
    t.deliver(B, "accept\nentropy: bob's words", reply=invite)

    # game 1: double, take, redouble, drop
    g = m.current()
    m.games.append(g)
    state = {"doubled": 0}

    def game1(who, what, n):
        if what == "cube" and who == A and n >= 6 and state["doubled"] == 0:
            state["doubled"] = 1
            return "double"
        if what == "cube" and who == B and state["doubled"] == 1:
            state["doubled"] = 2
            return "double"
        if what == "doubled":
            return "take" if who == B else "drop"
        return None
    m.play(g, game1)
    check("game 1: a double taken, a redouble dropped: 0-2",
          score_shown(t.game_last[(A, g)]) == (0, 2), bymail.text(t.game_last[(A, g)]))

    # game 2: the Crawford game; bob resigns after a few turns
    g = m.current()
    m.games.append(g)
    m.play(g, lambda who, what, n: "stop" if n >= 6 else None)
    m.resign(g, B)
    check("game 2 (the Crawford game): bob resigns a single game: 1-2",
          score_shown(t.game_last[(A, g)]) == (1, 2), bymail.text(t.game_last[(A, g)]))

    # game 3: post-Crawford; alice doubles, bob takes, played to the end
    g = m.current()
    m.games.append(g)
    state = {"doubled": 0}

    def game3(who, what, n):
        if what == "cube" and who == A and state["doubled"] == 0:
            state["doubled"] = 1
            return "double"
        return None
    m.play(g, game3, limit=1500)
    final = score_shown(t.game_last[(A, g)])
    check("game 3 (post-Crawford, a 2-cube) borne off to the end decides the match",
          final in ((3, 2), (5, 2), (7, 2), (1, 4), (1, 6), (1, 8)) and m.current() == g,
          bymail.text(t.game_last[(A, g)]))
    return m, final


def gnubg_read(path, ngames):
    """gnubg imports the .mat; after each game, its board; then the score."""
    cmds = path + ".gnubg"
    with open(cmds, "w") as f:
        f.write("set display off\nimport mat %s\n" % path)
        for k in range(ngames):
            # at the game's start its score; "next" stops at the game's end
            f.write("%s\nshow score\nnext 9999\nshow board\n"
                    % ("first game" if k == 0 else "next game"))
        f.write("show score\n")
    p = subprocess.run([GNUBG, "-t", "-q", "-c", cmds], capture_output=True, text=True,
                       timeout=300, stdin=subprocess.DEVNULL)
    return p.stdout + p.stderr


def main():
    root = tempfile.mkdtemp(prefix="tabula-matrec-")
    t = bymail.Table(TABULA, os.path.join(root, "t"))
    rng = random.Random(34)
    try:
        m, final = play_match(t, rng)
        games = m.games
        texts = [t.run("export", str(g)).stdout.decode() for g in games]
        text = texts[0]
        path = os.path.join(root, "match.mat")
        with open(path, "w") as f:
            f.write(text)
        print("---- the export of game %d ----\n%s----" % (games[0], re.sub(
            r"(?m)^Dice (roll|entropy|salt|commitment).*\n", "", text)))
        check("the export of every game of the match is the same record",
              all(x == text for x in texts), [len(x) for x in texts])
        files = bymail.attachments(t.game_last[(A, games[-1])])
        check("the mail that ends the match carries the same record",
              [(n, data.decode()) for n, _, data in files] ==
              [("tabula-game-%d.mat" % games[-1], text)], [(n, len(d)) for n, _, d in files])
        for line in ('; [Crawford "On"]', '; [Jacoby "Off"]', '; [Beaver "Off"]',
                     '; [Player 1 "%s"]' % A, '; [Player 2 "%s"]' % B):
            check("the header has %s" % line, line + "\n" in text, text[:800])
        check("the header has the match's date", re.search(
            r'(?m)^; \[EventDate "\d{4}\.\d\d\.\d\d"\]$', text), text[:800])
        check("one match line: 3 point match", re.findall(r"(?m)^ *\d+ point match$", text)
              == [" 3 point match"], text)
        heads = re.findall(r"(?m)^ Game (\d+)(.*)\n (\S+) : (\d+) +(\S+) : (\d+)$", text)
        check("the three games in order, each with the score before it, the Crawford "
              "game marked", heads == [("1", "", "alice", "0", "bob", "0"),
                                       ("2", " (Crawford)", "alice", "0", "bob", "2"),
                                       ("3", "", "alice", "1", "bob", "2")], heads)
        check("the cube actions are in the record",
              all(w in text for w in (" Doubles => 2", " Takes", " Doubles => 4", " Drops")),
              text)
        # a money game keeps its one-game record, and says its Jacoby rule
        money = bymail.play(t, "backgammon", "carol@example.org", "dave@example.org", rng, 4,
                            new_opts="jacoby=on")
        bymail.resign(t, money, "carol@example.org", "dave@example.org")
        mtext = t.run("export", str(money)).stdout.decode()
        check("a money game (jacoby=on) is still one game of a 0 point match, Jacoby on",
              re.findall(r"(?m)^ *\d+ point match$", mtext) == [" 0 point match"] and
              '; [Jacoby "On"]\n' in mtext and "Crawford" not in mtext, mtext[:900])
        p = subprocess.run(["python3", VERIFIER, "--game", str(games[0]), path],
                           capture_output=True, text=True)
        check("the dice lines of the whole match verify", p.returncode == 0 and
              "rolls verify" in p.stdout, p.stdout + p.stderr)

        if not os.access(GNUBG, os.X_OK):
            print("SKIP gnubg is not installed: the match's import check")
            check("gnubg is installed (TABULA_REQUIRE_TOOLS=1)", not REQUIRE_TOOLS)
            status = finish(root)
            return SKIP if status == 0 else status
        out = gnubg_read(path, len(games))
        check("gnubg imports the match without a warning",
              "Position ID" in out and not re.search(r"(?i)warning|unrecognised|not a valid|"
                                                     r"doesn't follow", out), out)
        # the import shows the board it ends at; then one board a game
        ids = re.findall(r"Position ID: (\S+)\s+Match ID\s*: (\S+)", out)[-len(games):]
        scores = re.findall(r"The score \(after (\d+) games?\) is: alice (\d+), bob (\d+) "
                            r"\(match to (\d+) points?(?:, ([^)]*))?\)", out)
        check("gnubg starts each game from tabula's score, the Crawford game as tabula "
              "has it", [(a, b, c, d) for _, a, b, c, d in scores[:3]]
              == [("0", "0", "3", ""), ("0", "2", "3", "Crawford game"),
                  ("1", "2", "3", "post-Crawford play")], scores)
        con = sqlite3.connect(os.path.join(t.root, "db"))
        for k, g in enumerate(games):
            state = con.execute("select state from games where id = ?", (g,)).fetchone()[0]
            pos = state.split(":")
            check("game %d of the match (%d): gnubg's position after it is tabula's %s"
                  % (k + 1, g, pos[0]),
                  len(ids) == len(games) and bymail.gnubg_board(*ids[k]) == bymail.gnubg_board(*pos),
                  "gnubg: %s" % ids)
        con.close()
        check("gnubg's final match score is tabula's %s, after 3 games" % (final,),
              len(scores) == 4 and scores[3][0] == "3" and
              (int(scores[3][1]), int(scores[3][2])) == final, scores)
    except Exception:  # a crash is a failure with its story
        import traceback
        check("the match ran", False, traceback.format_exc())
    return finish(root)


if __name__ == "__main__":
    sys.exit(main())
