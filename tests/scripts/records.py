#!/usr/bin/env python3
"""Records that outside programs read.

usage: records.py TABULA SOURCE_DIR

Games are played by mail (tests/harness/bymail.py), exported with `tabula
export`, and read back by programs that share nothing with tabula:
  - backgammon: GNU Backgammon (`gnubg -t`, `import mat`) imports a game with
    a double, a take, a redouble and a drop, and a game ended by a
    resignation; the position (gnubg's Position ID) and the score it reaches
    equal tabula's; no warning;
  - checkers: the PDN 3.0 grammar and npm rapid-draughts
    (tests/oracles/pdn_read.mjs: no PDN reader for English draughts exists
    in npm or Debian) read the export, every move legal, the final position
    tabula's; a game from a set-up position carries [FEN];
  - chess: pgn-extract reads every PGN export (a random game with an offer
    and a resignation, a mate, an agreed draw without FIDE draws, a game
    from a set-up position), and the FEN it reaches after the last move is
    tabula's final position;
  - the hybrids: a transcript that names the variant; the dice lines of
    every dice game's export verify with tools/tabula-verify-dice.py.
A program that is missing (no gnubg, pgn-extract or node) makes its checks
SKIP, said on a line of their own. Prints "N passed, M failed".
"""
import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests", "harness"))
import bymail  # noqa: E402

GNUBG = os.environ.get("GNUBG", "/usr/games/gnubg")
PGN_EXTRACT = shutil.which("pgn-extract") or "/usr/games/pgn-extract"
ORACLES = os.path.join(SRC, "tests", "oracles")
VERIFIER = os.path.join(SRC, "tools", "tabula-verify-dice.py")
A, B = "alice@example.org", "bob@example.org"
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)


def final_position(t, num):
    return sqlite3.connect(os.path.join(t.root, "db")).execute(
        "select state, result from games where id = ?", (num,)).fetchone()


def export(t, num, root, ext):
    text = t.run("export", str(num)).stdout.decode()
    path = os.path.join(root, "game%d.%s" % (num, ext))
    with open(path, "w") as f:
        f.write(text)
    return text, path


def verify_dice(path, game):
    p = subprocess.run(["python3", VERIFIER, "--game", str(game), path], capture_output=True,
                       text=True)
    return p.returncode == 0 and "rolls verify" in p.stdout, p.stdout + p.stderr


def gnubg_import(path):
    cmds = path + ".gnubg"
    with open(cmds, "w") as f:
        f.write("set display off\nimport mat %s\nshow board\nshow score\n" % path)
    p = subprocess.run([GNUBG, "-t", "-q", "-c", cmds], capture_output=True, text=True,
                       timeout=300, stdin=subprocess.DEVNULL)
    return p.stdout + p.stderr


def backgammon(root):
    t = bymail.Table(TABULA, os.path.join(root, "bg"))
    os.makedirs(t.root, exist_ok=True)
    rng = random.Random(17)
    state = {"doubles": 0}

    def cube(who, n):
        # roll for ten cube questions, then double, take, redouble, drop
        if n == "doubled":
            return "take" if state["doubles"] == 1 else "drop"
        if n > 10 and state["doubles"] < 2:
            state["doubles"] += 1
            return "double"
        return "roll"
    g1 = bymail.play(t, "backgammon", A, B, rng, 400, cube=cube)
    g2 = bymail.play(t, "backgammon", "carol@example.org", "dave@example.org", rng, 12)
    bymail.resign(t, g2, "carol@example.org", "dave@example.org", "resign gammon")
    for num, what in ((g1, "a double, a take, a redouble and a drop"),
                      (g2, "a gammon resignation")):
        text, path = export(t, num, t.root, "mat")
        state_, result = final_position(t, num)
        pos_id = state_.split(":")[0]
        ok, why = verify_dice(path, num)
        check("backgammon game %d (%s): the .mat export's dice lines verify" % (num, what),
              ok, why)
        if what.startswith("a double"):
            check("backgammon game %d: the export has the cube actions" % num,
                  all(w in text for w in (" Doubles => 2", " Takes", " Doubles => 4", " Drops")),
                  text)
        if not os.access(GNUBG, os.X_OK):
            print("SKIP gnubg is not installed: backgammon import checks")
            continue
        out = gnubg_import(path)
        ids = re.findall(r"Position ID: (\S+)\s+Match ID\s*: (\S+)", out)
        m = re.search(r"The score \(after 1 game\) is: (\S+) (\d+), (\S+) (\d+)", out)
        points = int(re.search(r"won (\d+) points", result).group(1)) if "points" in result \
            else 1
        winner = 0 if result.startswith("White") else 1
        check("backgammon game %d: gnubg imports the .mat without a warning" % num,
              ids and not re.search(r"(?i)warning|unrecognised|not a valid", out), out)
        # The same board, each player's checkers where tabula has them (the
        # IDs may name another player on roll once the game is over).
        check("backgammon game %d: gnubg reaches tabula's position %s" % (num, pos_id),
              ids and bymail.gnubg_board(*ids[-1]) == bymail.gnubg_board(*state_.split(":")),
              "gnubg: %s" % ids[-1:])
        check("backgammon game %d: gnubg's score is tabula's (%s)" % (num, result),
              m and int(m.group(2 + 2 * winner)) == points and int(m.group(4 - 2 * winner)) == 0,
              m.group(0) if m else out[-400:])


def checkers(root):
    t = bymail.Table(TABULA, os.path.join(root, "ck"))
    os.makedirs(t.root, exist_ok=True)
    rng = random.Random(21)
    games = [bymail.play(t, "checkers", A, B, rng, 300)]
    games.append(bymail.play(t, "checkers", "carol@example.org", "dave@example.org", rng, 6,
                             new_opts="fen=W:W18,24,27,28,K10,K15:B12,16,20,K22,K25,K29"))
    bymail.resign(t, games[1], "carol@example.org", "dave@example.org")
    have_node = shutil.which("node") and os.path.isdir(
        os.path.join(ORACLES, "node_modules", "rapid-draughts"))
    for num in games:
        text, path = export(t, num, t.root, "pdn")
        state_, result = final_position(t, num)
        check("checkers game %d: PDN tags GameType 21 and a result" % num,
              '[GameType "21"]' in text and re.search(r'\[Result "(1-0|0-1|1/2-1/2)"\]', text),
              text[:400])
        if num == games[1]:
            check("checkers game %d: a game from a set-up position carries [FEN]" % num,
                  '[FEN "W:W' in text, text[:400])
        if not have_node:
            print("SKIP node or rapid-draughts missing (cd tests/oracles && npm ci): PDN reading")
            continue
        p = subprocess.run(["node", os.path.join(ORACLES, "pdn_read.mjs"), path],
                           capture_output=True, text=True, timeout=120)
        ok = p.returncode == 0
        got = json.loads(p.stdout) if ok else {}
        check("checkers game %d: the PDN 3.0 grammar and rapid-draughts read the export"
              % num, ok, p.stderr + text)
        check("checkers game %d: the moves replayed reach tabula's position %s"
              % (num, state_), ok and same_checkers(got["final"], state_),
              got.get("final"))


def squares(fen):
    """{square: 'b'/'B'/'w'/'W'} of a PDN FEN (ranges expanded)."""
    out = {}
    parts = fen.rstrip(".").split(":")
    for p in parts[1:]:
        for tok in filter(None, p[1:].split(",")):
            king = tok.startswith("K")
            tok = tok.lstrip("K")
            a, _, b = tok.partition("-")
            for s in range(int(a), int(b or a) + 1):
                out[s] = p[0].upper() if king else p[0].lower()
    return parts[0], out


def same_checkers(a, b):
    return squares(a) == squares(b)


def chess(root):
    t = bymail.Table(TABULA, os.path.join(root, "ch"))
    os.makedirs(t.root, exist_ok=True)
    rng = random.Random(5)
    games = []
    g = bymail.play(t, "chess", A, B, rng, 30)
    who = bymail.to_move(t, g, A, B)
    other = B if who == A else A
    t.deliver(who, "draw offer", reply=t.game_last[(who, g)])
    t.deliver(other, "resign", reply=t.game_last[(other, g)])
    games.append((g, "a random game, a draw offer, a resignation"))
    mate = iter(["e4", "e5", "Bc4", "Nc6", "Qh5", "Nf6", "Qxf7#"])
    g = bymail.play(t, "chess", A, B, rng, 7, pick=lambda moves: next(mate))
    games.append((g, "a mate"))
    g = bymail.play(t, "chess", A, B, rng, 10, new_opts="fide_draws=off")
    who = bymail.to_move(t, g, A, B)
    t.deliver(who, "draw offer", reply=t.game_last[(who, g)])
    other = B if who == A else A
    t.deliver(other, "draw accept", reply=t.game_last[(other, g)])
    games.append((g, "an agreed draw, fide_draws=off"))
    # A chess FEN has spaces, which a `new` option word cannot carry (the
    # mail splits options at blanks), so the set-up game gets its position
    # in the store before it starts, as the operator's options would.
    t.invite(A, "new chess with %s" % B)
    g = int(re.search(r"\[tabula (\d+)", str(t.last[B]["Subject"])).group(1))
    con = sqlite3.connect(os.path.join(t.root, "db"))
    con.execute("update games set options = ? where id = ?",
                ("fen=4k3/8/8/8/8/8/4P3/4K2R w K - 0 40", g))
    con.commit()
    con.close()
    t.deliver(B, "accept", reply=t.last[B])
    for _ in range(6):
        who = bymail.to_move(t, g, A, B)
        msg = t.game_last[(who, g)]
        moves = bymail.legal(TABULA, "chess", bymail.position(bymail.text(msg)))
        t.deliver(who, rng.choice(moves), reply=msg)
    bymail.resign(t, g, A, B)
    games.append((g, "a game from a set-up position"))
    for num, what in games:
        text, path = export(t, num, t.root, "pgn")
        state_, result = final_position(t, num)
        tags = dict(re.findall(r'^\[(\w+) "(.*)"\]$', text, re.M))
        check("chess game %d (%s): Variant, TimeControl 1/604800, Termination" % (num, what),
              tags.get("TimeControl") == "1/604800" and tags.get("Termination") == "normal"
              and tags.get("Variant") in ("Standard", "From Position"), tags)
        if "set-up" in what:
            check("chess game %d: SetUp 1 and the FEN of the start" % num,
                  tags.get("SetUp") == "1" and tags.get("FEN", "").startswith("4k3/8/8/8/8/8/4P3"),
                  tags)
        if not os.access(PGN_EXTRACT, os.X_OK):
            print("SKIP pgn-extract is not installed: PGN reading")
            continue
        p = subprocess.run([PGN_EXTRACT, "-F", path], capture_output=True, text=True,
                           timeout=60)
        fens = re.findall(r'\{ "([^"]+)" \}', p.stdout)
        errors = [l for l in p.stderr.splitlines()
                  if not l.startswith("Processing") and "game matched" not in l
                  and " - " not in l]
        check("chess game %d (%s): pgn-extract reads the PGN export" % (num, what),
              "1 game matched out of 1" in p.stderr and not errors, p.stderr)
        check("chess game %d: pgn-extract reaches tabula's final position" % num,
              fens and fens[-1] == state_, "%s vs %s" % (fens[-1:], state_))


HYBRIDS = ["bgchess", "lagbgchess", "backtoback", "tableschess", "chessgammon",
           "chessgammon4x8", "doublemove", "racingkings", "bodlaender"]


def hybrids(root):
    t = bymail.Table(TABULA, os.path.join(root, "hy"))
    os.makedirs(t.root, exist_ok=True)
    rng = random.Random(9)
    for i, game in enumerate(HYBRIDS):
        a, b = "p%d@example.org" % (2 * i), "q%d@example.org" % (2 * i)
        num = bymail.play(t, game, a, b, rng, 6)
        bymail.resign(t, num, a, b)
        text, path = export(t, num, t.root, "txt")
        title = re.search(r"^Variant: (.+)$", text, re.M)
        check("%s: the transcript names the variant (%s)" % (game, title and title.group(1)),
              title and re.search(r"^Termination: normal$", text, re.M)
              and re.search(r"^Result: .*resignation", text, re.M), text[:600])
        if "Dice roll:" in text:
            ok, why = verify_dice(path, num)
            check("%s: the transcript's dice lines verify" % game, ok, why)


def main():
    root = tempfile.mkdtemp(prefix="tabula-records-")
    try:
        backgammon(root)
        checkers(root)
        chess(root)
        hybrids(root)
    finally:
        status = finish(root)
    return status


if __name__ == "__main__":
    sys.exit(main())
