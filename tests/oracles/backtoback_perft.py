#!/usr/bin/env python3
"""An independent Back-to-Back Chess move generator, for cross-checking.

usage: backtoback_perft.py [--board pinwheel|corners] [--fen FEN] DEPTH

No outside program plays Back-to-Back Chess (rules-spec.md §0), so the perft
table in tests/data/backtoback/perft.txt would otherwise rest on one
implementation alone. This one is written from rules-spec.md §8 directly, in
coordinates, sharing nothing with referee/rules/board_geometry.c (no step
tables, no mailbox, no pin logic: every move is tried and the king looked
at). Prints "d1 N" ... "dDEPTH N". Slow (about a minute for depth 4); it is
a tool for regenerating and checking the table, not part of the suite.

Rules as read from §8: BB-1 holes; BB-2 a step between rows 4 and 5 with
both files in F-I is forbidden for everything; BB-3 knight path two along
the long axis, one across, every cell a square, no step across the barrier;
BB-4 pawns step forward/left/right, two in one of those on the first move,
capture diagonally forward; BB-6 e.p. onto the crossed square; BB-7
promotion on rows 8 (White) and 1 (Black); BB-8 U-shaped castling.
"""
import sys

COLS, ROWS = 14, 8
HOLES = {
    "pinwheel": "a1 b1 a2 b2 a3 b3 m6 n6 m7 n7 m8 n8",
    "corners": "a1 b1 a2 a8 b8 a7 n1 m1 n2 n8 m8 n7",
}
START = {
    "pinwheel": "5pkqp3##/5pbbp3##/5pnnp3##/5prrp5/5PRRP5/##3PNNP5/##3PBBP5/##3PQKP5 w KQkq - 0 1",
    "corners": "##3pkqp3##/#4pbbp4#/5pnnp5/5prrp5/5PRRP5/5PNNP5/#4PBBP4#/##3PQKP3## w KQkq - 0 1",
}
PAWN_START = {"w": "f1 f2 f3 f4 i1 i2 i3 i4", "b": "f5 f6 f7 f8 i5 i6 i7 i8"}
# letter: king from, king to, rook from, rook to, must be empty, king's squares
CASTLES = {
    "K": ("h1", "h3", "h4", "h2", "h2 h3", "h1 h2 h3"),
    "Q": ("h1", "g2", "g4", "g1", "g1 g2 g3", "h1 g1 g2"),
    "k": ("g8", "g6", "g5", "g7", "g7 g6", "g8 g7 g6"),
    "q": ("g8", "h7", "h5", "h8", "h8 h7 h6", "g8 h8 h7"),
}


def sq(name):
    return (ord(name[0]) - ord("a"), int(name[1]) - 1)


def names(text):
    return [sq(n) for n in text.split()]


class Board:
    def __init__(self, kind):
        self.holes = set(names(HOLES[kind]))

    def exists(self, c, r):
        return 0 <= c < COLS and 0 <= r < ROWS and (c, r) not in self.holes

    def step_ok(self, a, b):
        """One king-step from a to b: both squares, and not across BB-2."""
        if not self.exists(*a) or not self.exists(*b):
            return False
        rows = {a[1], b[1]}
        if rows == {3, 4} and 5 <= a[0] <= 8 and 5 <= b[0] <= 8:
            return False
        return True


def colour(p):
    return "w" if p.isupper() else "b"


class Pos:
    def __init__(self, board, fen):
        f = fen.split()
        self.b = board
        self.sq = {}
        rows = f[0].split("/")
        for i, row in enumerate(rows):
            r = ROWS - 1 - i
            c = 0
            j = 0
            while j < len(row):
                ch = row[j]
                if ch.isdigit():
                    n = ch
                    if j + 1 < len(row) and row[j + 1].isdigit():
                        n += row[j + 1]
                        j += 1
                    c += int(n)
                elif ch == "#":
                    assert (c, r) in board.holes
                    c += 1
                else:
                    self.sq[(c, r)] = ch
                    c += 1
                j += 1
            assert c == COLS
        self.side = f[1]
        self.rights = set() if f[2] == "-" else set(f[2])
        self.ep = None  # (crossed square, pawn square)
        if f[3] != "-":
            s = sq(f[3][:2])
            if len(f[3]) == 4:
                v = sq(f[3][2:])
            else:
                v = (s[0], s[1] + (1 if self.side == "w" else -1) * -1)
            self.ep = (s, v)
        moved = set(names(" ".join(f[6][i:i + 2] for i in range(0, len(f[6]), 2)))) \
            if len(f) > 6 and f[6] != "-" else set()
        self.unmoved = set()
        for s, p in self.sq.items():
            if p in "Pp" and s in names(PAWN_START[colour(p)]) and s not in moved:
                self.unmoved.add(s)

    def copy(self):
        n = Pos.__new__(Pos)
        n.b = self.b
        n.sq = dict(self.sq)
        n.side = self.side
        n.rights = set(self.rights)
        n.ep = self.ep
        n.unmoved = set(self.unmoved)
        return n


KING_DIRS = [(dc, dr) for dc in (-1, 0, 1) for dr in (-1, 0, 1) if dc or dr]
ROOK_DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1)]
BISHOP_DIRS = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
KNIGHT = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]


def knight_ok(board, a, dc, dr):
    """BB-3: two along the long axis, one across, each step allowed."""
    if abs(dr) == 2:
        path = [(a[0], a[1] + dr // 2), (a[0], a[1] + dr), (a[0] + dc, a[1] + dr)]
    else:
        path = [(a[0] + dc // 2, a[1]), (a[0] + dc, a[1]), (a[0] + dc, a[1] + dr)]
    cur = a
    for nxt in path:
        if not board.step_ok(cur, nxt):
            return False
        cur = nxt
    return True


def attacked(pos, target, by):
    """Does any piece of colour `by` attack target? Tried forwards from each
    attacker, so nothing assumes the relation is symmetric."""
    b = pos.b
    for s, p in pos.sq.items():
        if colour(p) != by:
            continue
        t = p.upper()
        if t == "P":
            fwd = 1 if by == "w" else -1
            for dc in (-1, 1):
                d = (s[0] + dc, s[1] + fwd)
                if d == target and b.step_ok(s, d):
                    return True
        elif t == "N":
            for dc, dr in KNIGHT:
                if (s[0] + dc, s[1] + dr) == target and knight_ok(b, s, dc, dr):
                    return True
        elif t == "K":
            for dc, dr in KING_DIRS:
                if (s[0] + dc, s[1] + dr) == target and b.step_ok(s, target):
                    return True
        else:
            dirs = {"R": ROOK_DIRS, "B": BISHOP_DIRS, "Q": ROOK_DIRS + BISHOP_DIRS}[t]
            for dc, dr in dirs:
                cur = s
                while True:
                    nxt = (cur[0] + dc, cur[1] + dr)
                    if not b.step_ok(cur, nxt):
                        break
                    if nxt == target:
                        return True
                    if nxt in pos.sq:
                        break
                    cur = nxt
    return False


def pseudo(pos):
    """(from, to, kind, promo) for every move by piece movement."""
    b, us = pos.b, pos.side
    out = []
    fwd = 1 if us == "w" else -1
    promo_row = 7 if us == "w" else 0
    for s, p in list(pos.sq.items()):
        if colour(p) != us:
            continue
        t = p.upper()

        def add(d, kind="n"):
            if kind == "n" and t == "P" and d[1] == promo_row:
                for q in "QRBN":
                    out.append((s, d, "p", q))
            else:
                out.append((s, d, kind, None))

        if t == "P":
            for dc, dr in ((0, fwd), (-1, 0), (1, 0)):
                one = (s[0] + dc, s[1] + dr)
                if not b.step_ok(s, one) or one in pos.sq:
                    continue
                add(one)
                two = (one[0] + dc, one[1] + dr)
                if s in pos.unmoved and b.step_ok(one, two) and two not in pos.sq:
                    add(two)
            for dc in (-1, 1):
                d = (s[0] + dc, s[1] + fwd)
                if not b.step_ok(s, d):
                    continue
                if d in pos.sq and colour(pos.sq[d]) != us:
                    add(d)
                elif pos.ep and d == pos.ep[0]:
                    out.append((s, d, "e", None))
        elif t == "N":
            for dc, dr in KNIGHT:
                d = (s[0] + dc, s[1] + dr)
                if knight_ok(b, s, dc, dr) and (d not in pos.sq or colour(pos.sq[d]) != us):
                    add(d)
        elif t == "K":
            for dc, dr in KING_DIRS:
                d = (s[0] + dc, s[1] + dr)
                if b.step_ok(s, d) and (d not in pos.sq or colour(pos.sq[d]) != us):
                    add(d)
        else:
            dirs = {"R": ROOK_DIRS, "B": BISHOP_DIRS, "Q": ROOK_DIRS + BISHOP_DIRS}[t]
            for dc, dr in dirs:
                cur = s
                while True:
                    nxt = (cur[0] + dc, cur[1] + dr)
                    if not b.step_ok(cur, nxt):
                        break
                    if nxt in pos.sq:
                        if colour(pos.sq[nxt]) != us:
                            add(nxt)
                        break
                    add(nxt)
                    cur = nxt
    them = "b" if us == "w" else "w"
    for letter, (kf, kt, rf, rt, empty, safe) in CASTLES.items():
        if letter not in pos.rights or (letter.isupper()) != (us == "w"):
            continue
        if any(s in pos.sq for s in names(empty)):
            continue
        if any(attacked(pos, s, them) for s in names(safe)):
            continue
        out.append((sq(kf), sq(kt), "c", letter))
    return out


def make(pos, m):
    s, d, kind, extra = m
    n = pos.copy()
    p = n.sq.pop(s)
    n.ep = None
    if kind == "c":
        kf, kt, rf, rt = (sq(x) for x in CASTLES[extra][:4])
        n.sq.pop(rf)
        n.sq[kt] = p
        n.sq[rt] = "R" if pos.side == "w" else "r"
    else:
        if kind == "e":
            n.sq.pop(pos.ep[1])
        n.sq[d] = (extra if pos.side == "w" else extra.lower()) if kind == "p" else p
        if p in "Pp" and kind == "n" and abs(d[0] - s[0]) + abs(d[1] - s[1]) == 2 \
                and (d[0] == s[0] or d[1] == s[1]):
            n.ep = (((s[0] + d[0]) // 2, (s[1] + d[1]) // 2), d)
    n.unmoved.discard(s)
    n.unmoved.discard(d)
    for letter, spec in CASTLES.items():
        if s in (sq(spec[0]), sq(spec[2])) or d == sq(spec[2]):
            n.rights.discard(letter)
    n.side = "b" if pos.side == "w" else "w"
    return n


def legal(pos):
    out = []
    for m in pseudo(pos):
        n = make(pos, m)
        king = next(s for s, p in n.sq.items() if p == ("K" if pos.side == "w" else "k"))
        if not attacked(n, king, n.side):
            out.append((m, n))
    return out


def perft(pos, depth):
    moves = legal(pos)
    if depth == 1:
        return len(moves)
    return sum(perft(n, depth - 1) for _, n in moves)


def main():
    args = sys.argv[1:]
    kind, fen = "pinwheel", None
    while args and args[0].startswith("--"):
        if args[0] == "--board":
            kind = args[1]
        elif args[0] == "--fen":
            fen = args[1]
        args = args[2:]
    depth = int(args[0])
    pos = Pos(Board(kind), fen or START[kind])
    for d in range(1, depth + 1):
        print("d%d %d" % (d, perft(pos, d)), flush=True)


if __name__ == "__main__":
    main()
