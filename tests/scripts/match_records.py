#!/usr/bin/env python3
"""A backgammon match, and a money game with a beaver, as the records
GNU Backgammon reads back: the .mat and the SGF.

usage: match_records.py TABULA SOURCE_DIR

A 5-point match is played by mail (tests/harness/bymail.py: `tabula
deliver`, the dice of the dice protocol, any legal play, seeded choices),
so that it has every cube action and both sides of the Crawford rule
whatever the dice:
  game 1: alice doubles; bob answers "beaver", which a match refuses (he
          is told why, the double still waits), then takes; bob
          redoubles, alice drops: 0-2;
  game 2: bob doubles, alice drops: 0-3;
  game 3: alice resigns a single game: 0-4, the next game is the
          Crawford game;
  game 4: the Crawford game: bob's "double" is refused; bob resigns: 1-4;
  game 5 on: post-Crawford: alice doubles, bob takes, the game is played
          to its last checker, until the match is decided.
Then `tabula export` of any game of the match prints the whole match as one
Jellyfish .mat and `tabula export --format sgf` as one SGF collection, a
game tree a game (docs/records.md); both are attached to the mail that ends
the match; the .mat's dice lines verify with tools/tabula-verify-dice.py.
A money game with beavers=on: carol doubles, dave beavers, carol takes;
play goes on and carol resigns a single game, 4 points. GNU Backgammon
(`gnubg -t`: `import mat` and `load match`) reads every record without a
warning and reaches, after every game, the position tabula's store holds
for that game, the score tabula's mails gave before each game (the Crawford
game as tabula has it) and the final score.
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

    def __init__(self, t, rng, players=(A, B)):
        self.t, self.rng, self.players = t, rng, players
        self.games = []

    def current(self):
        """The newest game the first player has mail about: the match's game in play."""
        return max(g for (who, g) in self.t.game_last if who == self.players[0])

    def to_act(self, num):
        """(who, what) in game num: "over", "doubled" (a double or a beaver
        to answer), "cube", "move"."""
        for who in self.players:
            msg = self.t.game_last.get((who, num))
            if msg is not None and bymail.over(msg):
                return None, "over"
        for who in self.players:
            msg = self.t.game_last.get((who, num))
            if msg is None:
                continue
            body = bymail.text(msg)
            if "You have been doubled" in body or "Your double was beavered" in body:
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
                    bymail.text(self.t.game_last[(w, num)]) for w in self.players
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
        winner = self.players[1] if loser == self.players[0] else self.players[0]
        msg = self.t.game_last[(winner, num)]
        if "offers to resign" in str(msg["Subject"]):
            self.answer(winner, num, "accept")


def score_shown(msg, length=5):
    """(alice, bob) from "Match to 5: alice@... 1, bob@... 2" in a mail."""
    m = re.search(r"Match to %d: %s (\d+), %s (\d+)" % (length, re.escape(A), re.escape(B)),
                  bymail.text(msg))
    return (int(m.group(1)), int(m.group(2))) if m else None


def play_match(t, rng):
    """The match's course (the docstring); returns (m, scores): the score
    after each game as tabula's mails give it."""
    m = Match(t, rng)
    scores = []
    t.invite(A, "new backgammon match=5 with %s" % B)
    invite = t.last[B]
    t.deliver(B, "accept\nentropy: bob's words", reply=invite)

    # game 1: double, a beaver refused, take, redouble, drop
    g = m.current()
    m.games.append(g)
    state = {"doubled": 0}

    def game1(who, what, n):
        if what == "cube" and who == A and n >= 6 and state["doubled"] == 0:
            state["doubled"] = 1
            return "double"
        if what == "doubled" and who == B and state["doubled"] == 1:
            return "stop"
        if what == "cube" and who == B and state["doubled"] == 2:
            state["doubled"] = 3
            return "double"
        if what == "doubled":
            return "drop"
        return None
    m.play(g, game1)
    doubled = bymail.text(t.game_last[(B, g)])
    check("game 1: the doubled player of a match is not offered a beaver",
          "beaver" not in doubled and "You have been doubled" in doubled, doubled)
    sent = t.deliver(B, "beaver", reply=t.game_last[(B, g)])
    refusal = t.last[B]
    check("game 1: a beaver in a match is refused, bob told why (and nobody else), the "
          "double still waiting", "Beavers are for money games" in bymail.text(refusal) and
          "in a match a double is taken or dropped" in bymail.text(refusal) and
          m.to_act(g) == (B, "doubled") and [to for to, _ in sent] == [B],
          bymail.text(refusal))
    m.answer(B, g, "take")
    state["doubled"] = 2
    m.play(g, game1)
    scores.append(score_shown(t.game_last[(A, g)]))
    check("game 1: a double taken, a redouble dropped: 0-2", scores[-1] == (0, 2),
          bymail.text(t.game_last[(A, g)]))

    # game 2: bob doubles, alice drops
    g = m.current()
    m.games.append(g)
    state = {"doubled": 0}

    def game2(who, what, n):
        if what == "cube" and who == B and state["doubled"] == 0:
            state["doubled"] = 1
            return "double"
        if what == "doubled":
            return "drop"
        return None
    m.play(g, game2)
    scores.append(score_shown(t.game_last[(A, g)]))
    check("game 2: a double dropped: 0-3", scores[-1] == (0, 3),
          bymail.text(t.game_last[(A, g)]))

    # game 3: alice resigns a single game: 0-4
    g = m.current()
    m.games.append(g)
    m.play(g, lambda who, what, n: "stop" if n >= 4 else None)
    m.resign(g, A)
    scores.append(score_shown(t.game_last[(A, g)]))
    check("game 3: alice resigns a single game: 0-4", scores[-1] == (0, 4),
          bymail.text(t.game_last[(A, g)]))

    # game 4: the Crawford game: no double; bob resigns
    g = m.current()
    m.games.append(g)
    m.play(g, lambda who, what, n: "stop" if n >= 4 and who == B and what == "move" else None)
    turn = t.game_last[(B, g)]
    m.answer(B, g, "double")
    check("game 4, the Crawford game: a double is refused",
          "This is the Crawford game" in bymail.text(t.last[B]), bymail.text(t.last[B]))
    t.game_last[(B, g)] = turn  # the refusal shows no board: bob answers his turn's mail
    m.resign(g, B)
    scores.append(score_shown(t.game_last[(A, g)]))
    check("game 4 (the Crawford game): bob resigns a single game: 1-4", scores[-1] == (1, 4),
          bymail.text(t.game_last[(A, g)]))

    # game 5 on: post-Crawford; alice doubles, bob takes, played to the end
    for _ in range(4):
        g = m.current()
        m.games.append(g)
        state = {"doubled": 0}

        def post(who, what, n):
            if what == "cube" and who == A and state["doubled"] == 0:
                state["doubled"] = 1
                return "double"
            return None
        m.play(g, post, limit=1500)
        scores.append(score_shown(t.game_last[(A, g)]))
        if m.current() == g:
            break
    final = scores[-1]
    check("post-Crawford games (a 2-cube each) borne off to the end decide the match",
          final is not None and max(final) >= 5 and m.current() == m.games[-1] and
          "wins the match" in bymail.text(t.game_last[(A, m.games[-1])]),
          (scores, bymail.text(t.game_last[(A, m.games[-1])])))
    return m, scores


def money_beaver(t, rng):
    """carol doubles, dave beavers, carol takes; six turns more, carol resigns."""
    c, d = "carol@example.org", "dave@example.org"
    t.invite(c, "new backgammon beavers=on with %s" % d)
    invite = t.last[d]
    num = int(re.search(r"\[tabula (\d+)", str(invite["Subject"])).group(1))
    t.deliver(d, "accept\nentropy: dave's words", reply=invite)
    m = Match(t, rng, (c, d))
    state = {"doubled": 0, "after": 0}
    seen = {}

    def decide(who, what, n):
        if what == "cube" and who == c and n >= 4 and state["doubled"] == 0:
            state["doubled"] = 1
            return "double"
        if what == "doubled" and who == d:
            seen["offered"] = bymail.text(t.game_last[(d, num)])
            return "beaver"
        if what == "doubled" and who == c:
            seen["beavered"] = t.game_last[(c, num)]
            state["doubled"] = 2
            return "take"
        if state["doubled"] == 2 and what == "move":
            if state["after"] == 0:
                seen["taken"] = t.game_last[(d, num)]
            state["after"] += 1
            if state["after"] > 6 and who == c:
                return "stop"
        return None
    m.play(num, decide)
    m.resign(num, c)
    return num, seen


def gnubg_read(path, ngames, load="import mat"):
    """gnubg reads the record (`load`: "import mat" or "load match"); after
    each game, its board; then the score."""
    cmds = path + ".gnubg"
    with open(cmds, "w") as f:
        f.write("set display off\n%s %s\n" % (load, path))
        for k in range(ngames):
            # at the game's start its score; "next" stops at the game's end
            f.write("%s\nshow score\nnext 9999\nshow board\n"
                    % ("first game" if k == 0 else "next game"))
        f.write("show score\n")
    p = subprocess.run([GNUBG, "-t", "-q", "-c", cmds], capture_output=True, text=True,
                       timeout=300, stdin=subprocess.DEVNULL)
    return p.stdout + p.stderr


def gnubg_checks(t, what, path, load, games, names, starts, final):
    """gnubg reads `path` with `load`: no warning; each game starts from the
    score in `starts` ((a, b, what gnubg says after it: "Crawford game",
    "post-Crawford play", "", or None for anything)), ends at tabula's
    position; the final score is `final`. Returns gnubg's output."""
    out = gnubg_read(path, len(games), load)
    check("%s: gnubg reads it (%s) without a warning" % (what, load),
          "Position ID" in out and not re.search(r"(?i)warning|unrecognised|not a valid|"
                                                 r"doesn't follow|not found", out), out)
    # the load shows the board it ends at; then one board a game
    ids = re.findall(r"Position ID: (\S+)\s+Match ID\s*: (\S+)", out)[-len(games):]
    scores = re.findall(r"The score \(after (\d+) games?\) is: %s (\d+), %s (\d+) "
                        r"\((?:match to \d+ points?|money session)(?:, ([^)]*))?\)"
                        % (names[0], names[1]), out)
    check("%s: gnubg starts each game from tabula's score, the Crawford game as tabula has "
          "it" % what, [(int(a), int(b), c if want[2] is not None else None)
                        for (_, a, b, c), want in zip(scores, starts)] == starts,
          (scores, starts))
    con = sqlite3.connect(os.path.join(t.root, "db"))
    for k, g in enumerate(games):
        state = con.execute("select state from games where id = ?", (g,)).fetchone()[0]
        pos = state.split(":")
        check("%s, game %d (%d): gnubg's position after it is tabula's %s"
              % (what, k + 1, g, pos[0]),
              len(ids) == len(games) and bymail.gnubg_board(*ids[k]) == bymail.gnubg_board(*pos),
              "gnubg: %s" % ids)
    con.close()
    check("%s: gnubg's final score is tabula's %s, after %d games" % (what, final, len(games)),
          len(scores) == len(games) + 1 and scores[-1][0] == str(len(games)) and
          (int(scores[-1][1]), int(scores[-1][2])) == final, scores)
    return out


def sgf_games(text):
    """Each game tree's MI, RE and nodes (";W[52...]", ";B[double]" ...)."""
    return [(re.search(r"MI(\[[^]]*\])+", g).group(0),
             (re.search(r"RE\[[^]]*\]", g) or re.match("", "")).group(0),
             re.findall(r"\n;([WB]\[[^]]*\])", g))
            for g in re.split(r"(?m)^\(;", text)[1:]]


def gnubg_sgf(mat):
    """gnubg's own SGF of a .mat: `import mat`, then `save match`."""
    out = mat + ".gnubg.sgf"
    cmds = mat + ".save.gnubg"
    with open(cmds, "w") as f:
        f.write("set display off\nimport mat %s\nsave match %s\n" % (mat, out))
    subprocess.run([GNUBG, "-t", "-q", "-c", cmds], capture_output=True, text=True,
                   timeout=300, stdin=subprocess.DEVNULL)
    with open(out) as f:
        return f.read()


def main():
    root = tempfile.mkdtemp(prefix="tabula-matrec-")
    t = bymail.Table(TABULA, os.path.join(root, "t"))
    rng = random.Random(34)
    try:
        m, scores = play_match(t, rng)
        games = m.games
        final = scores[-1]
        texts = [t.run("export", str(g)).stdout.decode() for g in games]
        sgfs = [t.run("export", str(g), "--format", "sgf").stdout.decode() for g in games]
        text, sgf = texts[0], sgfs[0]
        path, spath = os.path.join(root, "match.mat"), os.path.join(root, "match.sgf")
        with open(path, "w") as f:
            f.write(text)
        with open(spath, "w") as f:
            f.write(sgf)
        print("---- the export of game %d ----\n%s----" % (games[0], re.sub(
            r"(?m)^Dice (roll|entropy|salt|commitment).*\n", "", text)))
        print("---- the SGF export of game %d ----\n%s----" % (games[0], sgf))
        check("the export of every game of the match is the same record",
              all(x == text for x in texts), [len(x) for x in texts])
        check("the SGF export of every game of the match is the same record",
              all(x == sgf for x in sgfs) and sgf.startswith("(;FF[4]GM[6]"),
              [len(x) for x in sgfs])
        files = bymail.attachments(t.game_last[(A, games[-1])])
        check("the mail that ends the match carries both records, the .mat first",
              [(n, data.decode()) for n, _, data in files] ==
              [("tabula-game-%d.mat" % games[-1], text),
               ("tabula-game-%d.sgf" % games[-1], sgf)], [(n, len(d)) for n, _, d in files])
        p = t.run("export", str(games[0]), "--format", "pgn", check=False)
        check("a format the game has not is refused, the game's formats named",
              p.returncode == 65 and not p.stdout and b"mat (gnubg .mat) sgf (SGF)" in p.stderr,
              (p.returncode, p.stdout, p.stderr))
        for line in ('; [Crawford "On"]', '; [Jacoby "Off"]', '; [Beaver "Off"]',
                     '; [Player 1 "%s"]' % A, '; [Player 2 "%s"]' % B):
            check("the header has %s" % line, line + "\n" in text, text[:800])
        check("the header has the match's date", re.search(
            r'(?m)^; \[EventDate "\d{4}\.\d\d\.\d\d"\]$', text), text[:800])
        check("one match line: 5 point match", re.findall(r"(?m)^ *\d+ point match$", text)
              == [" 5 point match"], text)
        starts = [(0, 0)] + scores[:-1]
        kinds = ["", "", "", "Crawford game"] + ["post-Crawford play"] * (len(games) - 4)
        heads = re.findall(r"(?m)^ Game (\d+)(.*)\n (\S+) : (\d+) +(\S+) : (\d+)$", text)
        check("the games in order, each with the score before it, the Crawford game marked",
              heads == [(str(k + 1), " (Crawford)" if kinds[k] == "Crawford game" else "",
                         "alice", str(a), "bob", str(b)) for k, (a, b) in enumerate(starts)],
              (heads, starts))
        check("the cube actions are in the record, the refused beaver not",
              all(w in text for w in (" Doubles => 2", " Takes", " Doubles => 4", " Drops"))
              and "Beavers" not in text, text)
        roots = re.findall(r"\(;FF\[4\]GM\[6\]CA\[UTF-8\]AP\[tabula\]"
                           r"MI\[length:(\d+)\]\[game:(\d+)\]\[ws:(\d+)\]\[bs:(\d+)\]"
                           r"PW\[alice\]PB\[bob\](?:DT\[[-\d]+\]EV\[[^]]*\]PC\[[^]]*\])?"
                           r"RU\[([^]]*)\](RE\[[WB]\+\d+R?\])?", sgf)
        check("the SGF: a game tree a game, MI with the score before it, RU with the "
              "Crawford game, RE", [r[:5] for r in roots] == [
                  ("5", str(k), str(a), str(b),
                   "Crawford:CrawfordGame" if kinds[k] == "Crawford game" else "Crawford")
                  for k, (a, b) in enumerate(starts)] and all(r[5] for r in roots), roots)
        check("the SGF has the cube actions and the refused beaver not",
              all(w in sgf for w in (";W[double]", ";B[take]", ";B[double]", ";W[drop]")) and
              sgf.count("[double]") == 3 + len(games) - 4, sgf)
        p = subprocess.run(["python3", VERIFIER, "--game", str(games[0]), path],
                           capture_output=True, text=True)
        check("the dice lines of the whole match verify", p.returncode == 0 and
              "rolls verify" in p.stdout, p.stdout + p.stderr)

        # an invitation to a match with beavers is refused, and says why
        t.deliver("erin@example.org", "new backgammon match=5 beavers=on with frank@example.org")
        said = bymail.text(t.last["erin@example.org"])
        check("a match with beavers=on is refused: beavers are for money games",
              "Beavers are for money games" in said, said)

        # a money game with a beaver
        money, seen = money_beaver(t, rng)
        mtext = t.run("export", str(money)).stdout.decode()
        msgf = t.run("export", str(money), "--format", "sgf").stdout.decode()
        mpath, mspath = os.path.join(root, "money.mat"), os.path.join(root, "money.sgf")
        with open(mpath, "w") as f:
            f.write(mtext)
        with open(mspath, "w") as f:
            f.write(msgf)
        print("---- the money game %d as SGF ----\n%s----" % (money, msgf))
        check("money: the doubled player is offered the beaver",
              'reply "take", "drop", or "beaver"' in seen.get("offered", ""),
              seen.get("offered"))
        beavered = seen.get("beavered")
        check("money: the doubler is told of the beaver, the cube at 4 if taken",
              beavered is not None and "dave@example.org beavers" in str(beavered["Subject"])
              and "for 4 times the stake" in bymail.text(beavered) and
              'Your double was beavered: reply "take" or "drop".' in bymail.text(beavered),
              bymail.text(beavered) if beavered is not None else seen)
        over = bymail.text(t.game_last[("carol@example.org", money)])
        t.deliver("carol@example.org", "history",
                  reply=t.game_last[("carol@example.org", money)])
        hist = bymail.text(t.last["carol@example.org"])
        check("money: the history says the beaver in words",
              re.search(r"Black beavers \(takes and redoubles at once, keeping the cube\)\n"
                        r".*White takes", hist), hist)
        taken = seen.get("taken")
        check("money: the beaver taken, dave is told the cube is his at 4",
              taken is not None and "The beaver was taken" in bymail.text(taken) and
              "cube 4, Black's" in bymail.text(taken),
              bymail.text(taken) if taken is not None else seen)
        check("money: carol resigns a single game on a 4-cube: dave wins 4 points",
              re.search(r"Black wins 4 points|Black won 4 points|won 4 points", over), over)
        check("money: the .mat says beavers on, the beaver in dave's column, no take line "
              "after it", '; [Beaver "On"]\n' in mtext and re.search(
                  r"(?m)^ +\d+\)  Doubles => 2 +Beavers => 4\n +\d+\) \d\d: ", mtext)
              and re.findall(r"(?m)^ *\d+ point match$", mtext) == [" 0 point match"], mtext)
        check("money: the SGF has the double, the beaver as dave's double, carol's take",
              ";W[double]\n;B[double]\n;W[take]\n" in msgf and "MI[length:0][game:0]" in msgf
              and re.search(r"RE\[B\+4R\]", msgf), msgf)

        if not os.access(GNUBG, os.X_OK):
            print("SKIP gnubg is not installed: the records' import checks")
            check("gnubg is installed (TABULA_REQUIRE_TOOLS=1)", not REQUIRE_TOOLS)
            status = finish(root)
            return SKIP if status == 0 else status
        full = [(a, b, kinds[k]) for k, (a, b) in enumerate(starts)]
        for load, p_ in (("import mat", path), ("load match", spath)):
            gnubg_checks(t, "the match (%s)" % load.split()[-1], p_, load, games,
                         ("alice", "bob"), full, final)
        # gnubg's own writer, from tabula's .mat, writes what tabula's SGF
        # says: the match information, the result, every node
        for what, mat, ours in (("the match", path, sgf), ("the money game", mpath, msgf)):
            theirs = gnubg_sgf(mat)
            check("%s: gnubg's own SGF of the .mat has tabula's SGF's MI, RE and every "
                  "play and cube action, node for node" % what,
                  sgf_games(theirs) == sgf_games(ours) and len(sgf_games(ours)) > 0,
                  [(k, a, b) for k, (a, b) in enumerate(zip(sgf_games(theirs),
                                                            sgf_games(ours))) if a != b][:3])
        # a money session's score line says gnubg's Jacoby setting: the
        # SGF's RU carries the game's (off); gnubg's .mat import keeps its
        # own (it reads no [Jacoby] tag)
        for load, p_ in (("import mat", mpath), ("load match", mspath)):
            out = gnubg_checks(t, "the money game (%s)" % load.split()[-1], p_, load, [money],
                               ("carol", "dave"), [(0, 0, None)], (0, 4))
        check("the money game (sgf): gnubg plays it without the Jacoby rule, as tabula did",
              "(money session, without Jacoby rule)" in out, out[-600:])
    except Exception:  # a crash is a failure with its story
        import traceback
        check("the match ran", False, traceback.format_exc())
    return finish(root)


if __name__ == "__main__":
    sys.exit(main())
