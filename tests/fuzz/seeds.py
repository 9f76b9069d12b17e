#!/usr/bin/env python3
"""Seed corpora of the rules fuzz targets, made from the tests' data.

usage: python3 tests/fuzz/seeds.py   (from anywhere; rewrites its outputs)

Writes
  tests/data/positions/seeds.txt     the seed positions of fuzz_move
                                     (GAME <TAB> init|decode <TAB> TEXT)
  tests/fuzz/corpus/fuzz_position/seed-GAME-NNN
                                     game letter + a position string or
                                     init options (valid and invalid ones)
  tests/fuzz/corpus/fuzz_move/seed-GAME-NNN
                                     game letter + seed position + dice byte
                                     + a move text from the parse data
Files not named seed-* in the corpus directories (inputs the fuzzer found
that are worth keeping) are left alone. The letters and bytes are those of
rules_fuzz.c (game 'a' + i) and fuzz_move.c (position '0' + k).
"""
import base64
import os
import re
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
DATA = os.path.join(ROOT, "tests", "data")
GAMES = ["chess", "checkers", "backgammon", "bgchess", "lagbgchess", "backtoback",
         "tableschess", "chessgammon", "chessgammon4x8", "doublemove", "racingkings",
         "bodlaender", "cwda"]
PER_GAME_POSITIONS = 40  # fuzz_position seeds per game
PER_GAME_SEEDS = 24      # fuzz_move positions per game (fuzz_move.c SEEDS_MAX 64)
PER_GAME_MOVES = 60      # fuzz_move seeds per game


def lines(*path):
    with open(os.path.join(DATA, *path), encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.strip() and not line.startswith("#"):
                yield line


def unquote(s):
    s = s.strip()
    return s[1:-1] if len(s) >= 2 and s[0] == '"' and s[-1] == '"' else s


def bar_split(line):
    return [p.strip() for p in line.split(" | ")]


def bg_mid(d1, d2):
    """gnubg Match ID: money game, state 1, seat 0 on roll and to act, dice d1 d2."""
    v = 0 | 3 << 4 | 1 << 8 | d1 << 15 | d2 << 18
    raw = bytearray(v.to_bytes(9, "little"))
    raw[8] |= 0x04  # as tabula writes it (tests/data: ...AAAAAAAE)
    return base64.b64encode(bytes(raw)).decode()


class Game:
    def __init__(self):
        self.positions = []  # fuzz_position texts
        self.seeds = []      # (how, text) for seeds.txt
        self.moves = []      # (seed index, text)

    def position(self, text):
        if text not in self.positions:
            self.positions.append(text)

    def seed(self, how, text):
        key = (how, text)
        if key not in self.seeds:
            self.seeds.append(key)
        return self.seeds.index(key)

    def move(self, how, text, inp):
        self.moves.append((self.seed(how, text), inp))


G = {g: Game() for g in GAMES}
for g in GAMES:
    G[g].seed("init", "")  # the start, position '0'

# chess: parse cases, perft positions, refused FENs, options
for line in lines("chess", "parse.txt"):
    pos, inp, _ = bar_split(line)
    how, text = ("init", "") if pos == "startpos" else ("decode", pos)
    G["chess"].move(how, text, unquote(inp))
    if how == "decode":
        G["chess"].position(pos)
for line in lines("chess", "perft.epd"):
    G["chess"].position(line.split(" ;")[0])
for line in lines("chess", "fen_invalid.txt"):
    G["chess"].position(unquote(line.split(" | ", 1)[1]))
G["chess"].seed("init", "fide_draws=off")
for opt in ["fide_draws=off", "fen=8/8/8/8/8/8/8/K1k5 w - - 0 1;fide_draws=on",
            "fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"]:
    G["chess"].position(opt)

# checkers
for line in lines("checkers", "parse.txt"):
    pos, inp, _ = bar_split(line)
    G["checkers"].move("decode", pos, unquote(inp))
    G["checkers"].position(pos)
for name in ("perft.txt", "perft_oracle.txt"):
    for line in lines("checkers", name):
        G["checkers"].position(line.split(" ;")[0])
for line in lines("checkers", "bad_fen.txt"):
    G["checkers"].position("" if line == "(empty)" else line)
for opt in ["auto_draws=off", "fen=W:W9,K10:BK1,2;auto_draws=on"]:
    G["checkers"].position(opt)

# backgammon: position IDs of the play counts with their dice, and the
# tests' Match IDs; move texts in gnubg's notation
bg = G["backgammon"]
START_PID = "4HPwATDgc/ABMA"
for (d1, d2), plays in [((3, 1), ["8/5 6/5", "8/5* 6/5", "6/5 8/5", "8-5 6-5", "24/21 8/7"]),
                        ((4, 2), ["8/4 6/4", "24/20 13/11", "13/9 13/11"]),
                        ((6, 1), ["13/7 8/7", "13/7 6/5", "24/18 18/17"]),
                        ((6, 5), ["24/13", "24/18 18/13", "24/18/13"]),
                        ((5, 5), ["8/3(2) 6/1(2)", "13/3(2)", "13/8(2) 6/1(2)"]),
                        ((6, 6), ["24/18(2) 13/7(2)", "13/1(2)"]),
                        ((2, 1), ["13/11 6/5", "24/23 13/11", "bar/23", "6/off"])]:
    text = "%s:%s" % (START_PID, bg_mid(d1, d2))
    bg.position(text)
    for play in plays:
        bg.move("decode", text, play)
seen_pid = []
for line in lines("backgammon", "plays.txt"):
    pid, d1, d2 = line.split()[:3]
    d1, d2 = int(d1), int(d2)
    if pid not in seen_pid:
        seen_pid.append(pid)
        text = "%s:%s" % (pid, bg_mid(d1, d2))
        bg.position(text)
        if len(bg.seeds) < 16:
            k = bg.seed("decode", text)
            for play in ["%d/%d" % (24, 24 - d1), "bar/%d %d/%d" % (25 - d1, 13, 13 - d2),
                         "6/off 5/off", "roll", "double"]:
                bg.moves.append((k, play))
for text in ["4HPwATDgc/ABMA:MAEAAAAAAAAE", "4HPwATDgc/ABMA:cIkFAAAAAAAE",
             "4HPwATDgc/ABMA:QYkqASAAIAAA", "4HPwATDgc/ABMA:cAkAAAAAAAAE",
             "4HPwATDgc/ABMA:MAAAAAAAAAAE", "//////////////:AAAAAAAAAAAA",
             "HPwATDgc/ABMAA:AAAAAAAAAAAA"]:
    bg.position(text)
k = bg.seed("decode", "4HPwATDgc/ABMA:MAEAAAAAAAAE")  # a cube question: rolled by the dice byte
for play in ["13/7 8/7", "8/5 6/5", "24/21 13/11", "roll", "6/4(2)"]:
    bg.moves.append((k, play))

# Backgammon Chess and Lag Backgammon Chess
for game in ("bgchess", "lagbgchess"):
    gg = G[game]
    for line in lines("backgammon_chess", "parse.txt"):
        pos, inp = bar_split(line)[:2]
        how, text = ("init", "") if pos == "start" else ("decode", pos)
        gg.move(how, text, unquote(inp))
    for name in ("positions.txt", "bad_positions.txt"):
        for line in lines("backgammon_chess", name):
            gg.position(line)
    for opt in ["lag=3", "draws=on", "lag=1;draws=on",
                "pos=4k3/8/8/8/8/X7/8/4K3_w_-_-_10_4HPwATC47wMAAA:MAEXAAAAAAAE_bg"]:
        gg.position(opt)
    gg.seed("init", "lag=3;draws=on" if game == "lagbgchess" else "draws=on")

# Back-to-Back Chess
b2b = G["backtoback"]
for line in lines("backtoback", "parse.txt"):
    pos, inp = bar_split(line)[:2]
    if pos == "start":
        how, text = "init", ""
    elif pos == "corners":
        how, text = "init", "b2b_board=corners"
    else:
        how, text = "decode", pos
        b2b.position(pos)
    b2b.move(how, text, unquote(inp))
for line in lines("backtoback", "perft.txt"):
    b2b.position(bar_split(line)[1])
for line in lines("backtoback", "fen_invalid.txt"):
    b2b.position(line.split(" | ", 1)[1])
for opt in ["b2b_board=corners", "geometry=corner;fide_draws=off",
            "fen=6k5##/12##/12##/14/14/##12/##12/##5K6_w_-_-_0_1"]:
    b2b.position(opt)

# Tables Chess
tc = G["tableschess"]
for line in lines("tables_chess", "parse.txt"):
    pos, inp = bar_split(line)[:2]
    tc.move("decode", pos, unquote(inp))
    tc.position(pos)
for line in lines("tables_chess", "bad_positions.txt"):
    tc.position(line)
tc.position("fen=KP1NP3RP7BP13BP16NP19/kp1np3rp7bp13bp16np19:w21")

# The Chessgammon family: the step files' start positions, options and inputs
cg_files = [("chessgammon", "rules.txt"), ("chessgammon", "seed.txt"),
            ("chessgammon", "v4.txt"), ("chessgammon", "variants.txt")]
for folder, name in cg_files:
    game, how, text = None, "init", ""
    for line in lines(folder, name):
        word, _, rest = line.partition(" ")
        if word == "game":
            game, how, text = rest.strip(), "init", ""
            continue
        if game not in G:
            continue
        gg = G[game]
        if word in ("start", "badstart", "start-is"):
            pos = rest.split(" => ")[0].strip()
            gg.position(pos)
            if word == "start":
                how, text = "decode", pos
        elif word == "options":
            opt = rest.split(" => ")[0].strip()
            gg.position(opt)
            if " => " not in rest:
                how, text = "init", opt
        elif word in ("canon", "refuse", "computer"):
            m = re.match(r"(.*?)\s+\S+$", rest)
            if m and len(gg.seeds) < PER_GAME_SEEDS:
                gg.move(how, text, m.group(1))
        elif word == "move":
            inp = rest.split(" => ")[0].strip()
            if len(gg.seeds) < PER_GAME_SEEDS:
                gg.move(how, text, inp)
for game, opts in [("chessgammon", ["fifty_moves=on"]), ("doublemove", ["balanced_start=on"]),
                   ("racingkings", ["rk_array=on"]), ("chessgammon4x8", ["max_stack=2"]),
                   ("bodlaender", ["fifty_moves=on"])]:
    for opt in opts:
        G[game].position(opt)
        G[game].seed("init", opt)

# The hostile strings (positions/hostile.txt), and fen= forms of every game's positions
for line in lines("positions", "hostile.txt"):
    game, pos = line.split("\t")[:2]
    G[game].position(pos)


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


# Chess with Different Armies (rules-spec §12): the oracle's positions,
# the sixteen pairings named by options, moves in the armies' letters
# (DA-9) on the starts of two pairings.
da = G["cwda"]
for line in lines("cwda", "perft.epd"):
    da.position(line.split(" ;")[0])
for w in ("fide", "clobberers", "nutty", "rookies"):
    for b in ("fide", "clobberers", "nutty", "rookies"):
        da.position("white=%s;black=%s" % (w, b))
for opt in ["white=nutty;black=clobberers;fide_draws=off", "white=martians",
            "white=rookies;fen=4k3/8/8/8/8/8/8/D3K3 w - - 0 1"]:
    da.position(opt)
for inp in ["Jd3", "jd3", "Ic3", "Gg3", "c1d3", "Jc1-d3", "Nc3", "\u2658c3", "Dd4", "DA3", "O-O",
            "e4", "Lxe3", "Ihg3"]:
    da.move("init", "white=nutty;black=clobberers", inp)
for inp in ["Wd3", "Da3", "DA3", "Fd3", "Bb3", "Ac3", "Qd4", "e8=C", "a3", "Wb1-d3"]:
    da.move("init", "white=clobberers;black=rookies", inp)
for inp in ["e8=C", "e8C", "e8(S)", "e7e8y", "e8=Q", "e8", "exd8=H"]:
    da.move("decode", "3k4/4P3/8/8/8/8/8/4K3 w - - 0 1".replace("3k4", "7k"), inp)


def clean(folder):
    os.makedirs(folder, exist_ok=True)
    for name in os.listdir(folder):
        if name.startswith("seed-"):
            os.remove(os.path.join(folder, name))


fuzz = os.path.join(ROOT, "tests", "fuzz", "corpus")
pos_dir, move_dir = os.path.join(fuzz, "fuzz_position"), os.path.join(fuzz, "fuzz_move")
clean(pos_dir)
clean(move_dir)
with open(os.path.join(DATA, "positions", "seeds.txt"), "w", encoding="utf-8") as out:
    out.write("# Seed positions of the move-reader fuzz target (tests/fuzz/fuzz_move.c): the\n"
              "# start and positions of the tests' data, per game in this order (position\n"
              "# byte '0' + k is the k-th of its game). Made by tests/fuzz/seeds.py.\n"
              "# GAME <TAB> init|decode <TAB> options or position string\n")
    for i, game in enumerate(GAMES):
        gg = G[game]
        letter = bytes([ord("a") + i])
        seeds = gg.seeds[:PER_GAME_SEEDS]
        for how, text in seeds:
            out.write("%s\t%s\t%s\n" % (game, how, text))
        pstep = max(1, -(-len(gg.positions) // PER_GAME_POSITIONS))
        positions = gg.positions[::pstep]
        for k, text in enumerate(positions):
            write(os.path.join(pos_dir, "seed-%s-%03d" % (game, k)), letter + text.encode())
        moves = [(k, t) for k, t in gg.moves if k < len(seeds)]
        step = max(1, len(moves) // PER_GAME_MOVES)
        for n, (k, text) in enumerate(moves[::step][:PER_GAME_MOVES]):
            write(os.path.join(move_dir, "seed-%s-%03d" % (game, n)),
                  letter + bytes([ord("0") + k]) + b"A" + text.encode())
        print("%-15s %3d positions %3d seed positions %3d move texts"
              % (game, len(positions), len(seeds),
                 len(moves[::step][:PER_GAME_MOVES])), file=sys.stderr)
