#!/usr/bin/env python3
"""Regenerates tests/oracles/cwda-variants.ini and tests/data/cwda/perft.epd
(run by hand, output committed) with Fairy-Stockfish as the oracle.

The engine is an outside tool, never part of tabula's build: point
FAIRY_STOCKFISH at a Fairy-Stockfish binary built from its public source (one
that reads customPiece and promotionPieceTypesWhite/Black; Debian's package is
too old). The numbers committed were made with Fairy-Stockfish commit c19b5f6c
(largeboards=no).

What it writes:
 - cwda-variants.ini: one variant a pairing of the four armies (rules-spec.md
   §12), each army's pieces as customPiece with the SAME Betza strings as
   referee/rules/armies.c (test_cwda checks they agree), promotion into the
   own army (DA-5), castling with the corner piece (DA-3). Fairy-Stockfish has
   one long-castling file a variant, so a pairing of the Clobberers (king to
   b1) with another army has two variants: `_w` with White's file, `_b` with
   Black's; a position is counted under the one whose file serves every
   long-castling right it has, and the random games of such a pairing are
   played without the other side's long-castling right (kept out of the
   positions), so the engine never castles by a rule tabula does not play.
 - perft.epd: "FEN ;D1 n ;D2 n ;D3 n ;D4 n ;armies W/B ;variant V ;id NAME ;moves
   UCI...": the counts and the engine's legal moves (sorted),
   of the sixteen start positions, and for each pairing of positions from seeded
   random games (played by the engine's own move lists) in which the side to
   move can promote, castle short, castle long, is in check (also by a leap: a
   knight-like leap or a jump over a piece), or can take en passant.

usage: FAIRY_STOCKFISH=/path/to/stockfish python3 tests/oracles/gen_cwda_perft.py
"""
import os
import random
import re
import subprocess
import sys

MOVE = re.compile(r"^[a-h][1-8][a-h][1-8][a-z]?: [0-9]+$")
HERE = os.path.dirname(os.path.abspath(__file__))
INI = os.path.join(HERE, "cwda-variants.ini")
EPD = os.path.join(HERE, "..", "data", "cwda", "perft.epd")

# key, letters (rook, knight, bishop, queen places), Betza, long-castling king file
ARMIES = [
    ("fide", "RNBQ", ["R", "N", "B", "Q"], "c"),
    ("clobberers", "DWFA", ["BD", "WA", "FAD", "BN"], "b"),
    ("nutty", "GIJL", ["fsRbK", "fbNF", "fhNsWbK", "fhNfsRK"], "c"),
    ("rookies", "SYHC", ["R4", "WD", "HFD", "RN"], "c"),
]
BUILTIN = {"R": "r", "N": "n", "B": "b", "Q": "q"}  # the chess pieces need no definition


def back_rank(letters):
    r, n, b, q = letters
    return r + n + b + q + "K" + b + n + r


def start_fen(w, b):
    return "%s/pppppppp/8/8/8/8/PPPPPPPP/%s w KQkq - 0 1" % (
        back_rank(ARMIES[b][1]).lower(), back_rank(ARMIES[w][1]))


def variants():
    """name -> (white army, black army, long-castling file)"""
    out = {}
    for w in range(4):
        for b in range(4):
            fw, fb = ARMIES[w][3], ARMIES[b][3]
            base = "cwda_%s_%s" % (ARMIES[w][0], ARMIES[b][0])
            if fw == fb:
                out[base] = (w, b, fw)
            else:
                out[base + "_w"] = (w, b, fw)
                out[base + "_b"] = (w, b, fb)
    return out


def write_ini():
    lines = ["# Chess with Different Armies for Fairy-Stockfish: the oracle of tabula's",
             "# perft (tests/data/cwda/perft.epd). Written by gen_cwda_perft.py; the Betza",
             "# strings are those of referee/rules/armies.c (rules-spec.md §12, DA-1).", ""]
    for name, (w, b, qfile) in sorted(variants().items()):
        lines.append("[%s:chess]" % name)
        k = 1
        for army in sorted({w, b}):
            for letter, betza in zip(ARMIES[army][1], ARMIES[army][2]):
                if army == 0:
                    continue
                lines.append("customPiece%d = %s:%s" % (k, letter.lower(), betza))
                k += 1
        lines.append("startFen = %s" % start_fen(w, b))
        lines.append("promotionPieceTypesWhite = %s" % ARMIES[w][1].lower())
        lines.append("promotionPieceTypesBlack = %s" % ARMIES[b][1].lower())
        rooks = sorted({ARMIES[w][1][0].lower(), ARMIES[b][1][0].lower()})
        lines.append("castlingRookPieces = %s" % "".join(rooks))
        lines.append("castlingQueensideFile = %s" % qfile)
        lines.append("")
    with open(INI, "w") as f:
        f.write("\n".join(lines))


class Engine:
    def __init__(self, path):
        self.p = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, bufsize=1)
        self.send("setoption name VariantPath value %s" % INI)
        self.variant = None

    def send(self, line):
        self.p.stdin.write(line + "\n")

    def until(self, prefix):
        out = []
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("engine died")
            out.append(line.rstrip("\n"))
            if line.startswith(prefix):
                return out

    def use(self, variant):
        if variant != self.variant:
            self.send("setoption name UCI_Variant value %s" % variant)
            self.variant = variant

    def perft(self, fen, depth):
        self.send("position fen %s" % fen)
        self.send("go perft %d" % depth)
        out = self.until("Nodes searched")
        moves = [l.split(":")[0] for l in out if MOVE.match(l)]
        return int(out[-1].split(":")[1]), moves

    def show(self, fen, moves):
        self.send("position fen %s%s" % (fen, " moves " + " ".join(moves) if moves else ""))
        self.send("d")
        out = self.until("Chased")  # the last line of "d"
        got = [l for l in out if l.startswith("Fen: ")][0][5:]
        checkers = [l for l in out if l.startswith("Checkers:")][0][len("Checkers:"):].strip()
        return got, checkers


def board_of(fen):
    rows = fen.split()[0].split("/")
    sq = {}
    for r, row in enumerate(rows):
        f = 0
        for c in row:
            if c.isdigit():
                f += int(c)
            else:
                sq["%c%d" % (97 + f, 8 - r)] = c
                f += 1
    return sq


def kinds(fen, moves):
    """Which of the wanted features the side to move has."""
    board, ep, found = board_of(fen), fen.split()[3], set()
    for m in moves:
        piece = board.get(m[:2], ".")
        if len(m) == 5:
            found.add("promotion")
        if piece in "Kk" and abs(ord(m[0]) - ord(m[2])) >= 2:
            found.add("castling" if m[2] == "g" else "long-castling")
        if piece in "Pp" and m[2:4] == ep:
            found.add("ep")
    return found


def leap_check(fen, checkers):
    """A check given by a leap: from a square off the king's lines (a
    knight-like leap), or two or three squares along a line with a piece
    between (a jump)."""
    board = board_of(fen)
    king = "K" if fen.split()[1] == "w" else "k"
    ksq = [sq for sq, c in board.items() if c == king][0]
    for sq in checkers.split():
        dr, df = int(sq[1]) - int(ksq[1]), ord(sq[0]) - ord(ksq[0])
        if dr and df and abs(dr) != abs(df):
            return True
        n = max(abs(dr), abs(df))
        if n in (2, 3):
            sr, sf = (dr > 0) - (dr < 0), (df > 0) - (df < 0)
            between = ["%c%d" % (ord(ksq[0]) + sf * i, int(ksq[1]) + sr * i) for i in range(1, n)]
            if any(b in board for b in between):
                return True
    return False


def strip_rights(fen, drop):
    f = fen.split()
    rights = "".join(c for c in f[2] if c not in drop) or "-"
    f[2] = rights
    return " ".join(f)


def main():
    path = os.environ.get("FAIRY_STOCKFISH")
    if not path:
        sys.exit("set FAIRY_STOCKFISH to a Fairy-Stockfish binary")
    write_ini()
    eng = Engine(path)
    vs = variants()
    rows = []

    def record(fen, w, b, variant, name):
        eng.use(variant)
        counts = [eng.perft(fen, d)[0] for d in range(1, 5)]
        moves = sorted(eng.perft(fen, 1)[1])
        rows.append("%s ;%s ;armies %s/%s ;variant %s ;id %s ;moves %s" % (
            fen, " ;".join("D%d %d" % (d + 1, n) for d, n in enumerate(counts)),
            ARMIES[w][0], ARMIES[b][0], variant, name, " ".join(moves)))

    rng = random.Random(33)
    for w in range(4):
        for b in range(4):
            pair = "%s_%s" % (ARMIES[w][0], ARMIES[b][0])
            plays = [(v, vw) for v, vw in vs.items() if vw[0] == w and vw[1] == b]
            record(start_fen(w, b), w, b, sorted(plays)[0][0], "start-" + pair)
            print(pair, file=sys.stderr, flush=True)
            want = {"promotion": 2, "castling": 1, "long-castling": 2, "check": 2, "leap-check": 1,
                    "ep": 1}
            for game in range(400):
                if not any(want.values()):
                    break
                variant, (_, _, qfile) = plays[game % len(plays)]
                fen0 = start_fen(w, b)
                if len(plays) == 2:
                    # the other side's long castling is not this variant's
                    fen0 = strip_rights(fen0, "q" if qfile == ARMIES[w][3] else "Q")
                eng.use(variant)
                moves = []
                for ply in range(rng.randint(10, 160)):
                    fen, checkers = eng.show(fen0, moves)
                    _, legal = eng.perft(fen, 1)
                    if not legal:
                        break
                    have = kinds(fen, legal) | ({"check"} if checkers else set())
                    if leap_check(fen, checkers):
                        have.add("leap-check")
                    for k in sorted(have):
                        if want[k] and ply >= 4 and rng.random() < 0.5:
                            want[k] -= 1
                            record(fen, w, b, variant, "%s-%s-%d" % (k, pair, len(rows)))
                            print("  ", k, game, ply, file=sys.stderr, flush=True)
                            break
                    # prefer pawn moves now and then so that promotions come
                    pawnish = [m for m in legal if board_of(fen).get(m[:2], ".") in "Pp"]
                    pool = pawnish if pawnish and rng.random() < 0.4 else legal
                    moves.append(rng.choice(pool))
    os.makedirs(os.path.dirname(EPD), exist_ok=True)
    with open(EPD, "w") as f:
        f.write("# Chess with Different Armies perft, counted by Fairy-Stockfish (c19b5f6c)\n")
        f.write("# with tests/oracles/cwda-variants.ini; made by tests/oracles/gen_cwda_perft.py.\n")
        f.write("\n".join(rows) + "\n")
    print("%d positions" % len(rows))


if __name__ == "__main__":
    main()
