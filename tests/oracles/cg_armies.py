#!/usr/bin/env python3
"""An independent move generator for Diceless Chessgammon with different armies.

usage: cg_armies.py SEED [SCALE]
  prints, one a line, "GAME<TAB>POSITION<TAB>MOVE<TAB>MOVES<TAB>AFTER": a position
  reached by seeded random play, the move played from it (computer notation), the
  legal moves (space separated, computer notation), and the position after the
  move. Every army plays every army (16 pairings) in each of chessgammon,
  racingkings, bodlaender and doublemove. SCALE (default 1.0) multiplies the
  number of positions (at SCALE 1: 640 a pairing in chessgammon, 160 in racingkings
  and bodlaender, 30 in doublemove, 15,840 in all).

No engine plays this game, so this is the second opinion: written from the seed
("Bear With Me", Ralph Betza: /work/shared/seeds/, rules-spec §5.1-5.6) and from
the pieces as Betza defines them (rules-spec §12.1, "in words"), in plain
coordinates, sharing nothing with referee/rules/. In particular the armies'
moves are spelled out below by hand from those definitions, not read from the
Betza strings of referee/rules/armies.c, so a misreading of the notation on
either side shows up as a difference.

The position string is the referee's record of §5.1 (FEN-like board in the
armies' letters, side, "bar:", "off:W/B", "ep:", move number, "armies:W/B" when
not both FIDE); an e.p. target is written when an enemy pawn could take there
(CG-9, DM-4). Computer notation: e2e4, a drop P@h7 / D@a1 (upper-case letter,
either colour), a bear-off h6e9 (rank 9 for both colours), the pass 0000, a
Doublemove turn "h1,h2".
"""
import random
import sys

FILES = "abcdefgh"

# ---- pieces, from Betza's definitions (rules-spec §12.1) ---------------------
# A move is (kind, dx, dy, limit): kind "leap" jumps to (dx, dy); "slide" goes
# step by step in direction (dx, dy), at most `limit` steps (0: no limit),
# stopping at the first occupied square. dy > 0 is forward (towards the other
# side); dx > 0 to White's right.


def leaps(*v):
    return [("leap", x, y, 0) for x, y in v]


def slides(*v, limit=0):
    return [("slide", x, y, limit) for x, y in v]


ORTHO = [(1, 0), (-1, 0), (0, 1), (0, -1)]
DIAG = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
WAZIR = leaps(*ORTHO)                                         # W: one step straight
FERZ = leaps(*DIAG)                                           # F: one step diagonal
DABBABA = leaps((2, 0), (-2, 0), (0, 2), (0, -2))             # D: (2,0) leap
ALFIL = leaps((2, 2), (2, -2), (-2, 2), (-2, -2))             # A: (2,2) leap
THREE = leaps((3, 0), (-3, 0), (0, 3), (0, -3))               # H: (3,0) leap
KNIGHT = leaps((1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (-2, 1), (2, -1), (-2, -1))
KING = WAZIR + FERZ
ROOK = slides(*ORTHO)
BISHOP = slides(*DIAG)
FORWARD_KNIGHT = leaps((1, 2), (-1, 2), (2, 1), (-2, 1))      # fhN: the four forward ones
NARROW_KNIGHT = leaps((1, 2), (-1, 2), (1, -2), (-1, -2))     # fbN: two forward or back, one aside
BACK_KING = leaps((-1, -1), (0, -1), (1, -1))                 # bK
SIDE_WAZIR = leaps((1, 0), (-1, 0))                           # sW
FORWARD_SIDE_ROOK = slides((0, 1), (1, 0), (-1, 0))           # fsR

ARMIES = {
    "fide": {"R": ROOK, "N": KNIGHT, "B": BISHOP, "Q": ROOK + BISHOP},
    # Colorbound Clobberers: Bede = bishop + dabbaba; Waffle = wazir + alfil;
    # FAD = ferz + alfil + dabbaba; Cardinal = bishop + knight
    "clobberers": {"D": BISHOP + DABBABA, "W": WAZIR + ALFIL, "F": FERZ + ALFIL + DABBABA,
                   "A": BISHOP + KNIGHT},
    # Nutty Knights: Charging Rook = rook forwards and sideways + king backwards;
    # Fibnif = ferz + knight two forwards or backwards; Charging Knight = forward
    # knight + king sideways and backwards; Colonel = king + forward knight + rook
    # forwards and sideways
    "nutty": {"G": FORWARD_SIDE_ROOK + BACK_KING, "I": FERZ + NARROW_KNIGHT,
              "J": FORWARD_KNIGHT + SIDE_WAZIR + BACK_KING,
              "L": KING + FORWARD_KNIGHT + FORWARD_SIDE_ROOK},
    # Remarkable Rookies: Short Rook = rook of at most four; Woody Rook = wazir +
    # dabbaba; Half-Duck = ferz + dabbaba + threeleaper; Chancellor = rook + knight
    "rookies": {"S": slides(*ORTHO, limit=4), "Y": WAZIR + DABBABA, "H": FERZ + DABBABA + THREE,
                "C": ROOK + KNIGHT},
}
# The back rank of each army, a to h (DA-2: on the rook, knight, bishop, queen squares)
BACK = {"fide": "RNBQKBNR", "clobberers": "DWFAKFWD", "nutty": "GIJLKJIG", "rookies": "SYHCKHYS"}
ARMY_NAMES = list(BACK)


def sq_name(f, r):
    return FILES[f] + str(r + 1)


class Pos:
    """board {(file, rank): (colour, LETTER)}, colour 0 White 1 Black."""

    def __init__(self, game, armies):
        self.game = game
        self.armies = armies
        self.board = {}
        for c in (0, 1):
            back, pawn = (0, 1) if c == 0 else (7, 6)
            for f in range(8):
                self.board[(f, back)] = (c, BACK[armies[c]][f])
                self.board[(f, pawn)] = (c, "P")
        self.side = 0
        self.bar = [[], []]
        self.off = [0, 0]
        self.ep = []          # e.p. targets open to the side to move
        self.fullmove = 1
        # rule 6: where each piece of each colour started
        self.home = {}
        for (f, r), (c, l) in self.board.items():
            self.home.setdefault((c, l), set()).add((f, r))

    def copy(self):
        p = Pos.__new__(Pos)
        p.game, p.armies, p.board = self.game, self.armies, dict(self.board)
        p.side, p.bar, p.off = self.side, [list(self.bar[0]), list(self.bar[1])], list(self.off)
        p.ep, p.fullmove, p.home = list(self.ep), self.fullmove, self.home
        return p

    def record(self):
        rows = []
        for r in range(7, -1, -1):
            row, empty = "", 0
            for f in range(8):
                if (f, r) in self.board:
                    c, l = self.board[(f, r)]
                    if empty:
                        row += str(empty)
                    empty = 0
                    row += l if c == 0 else l.lower()
                else:
                    empty += 1
            rows.append(row + (str(empty) if empty else ""))
        bar = "".join(sorted(self.bar[0] + [l.lower() for l in self.bar[1]])) or "-"
        ep = ",".join(sq_name(*e) for e in sorted(self.ep, key=lambda s: s[1] * 8 + s[0])) or "-"
        s = "%s %s bar:%s off:%d/%d ep:%s %d" % ("/".join(rows), "wb"[self.side], bar,
                                                 self.off[0], self.off[1], ep, self.fullmove)
        if self.armies != ("fide", "fide"):
            s += " armies:%s/%s" % self.armies
        return s


def fwd(c):
    return 1 if c == 0 else -1


def moves_of(letter, army):
    return KING if letter == "K" else ARMIES[army][letter]


def targets(pos, f, r):
    """Squares the piece on (f, r) moves to by its moves (not pawns): empty or enemy."""
    c, l = pos.board[(f, r)]
    d = fwd(c)
    out = []
    for kind, dx, dy, limit in moves_of(l, pos.armies[c]):
        if kind == "leap":
            t = (f + dx, r + dy * d)
            if 0 <= t[0] < 8 and 0 <= t[1] < 8 and pos.board.get(t, (c ^ 1,))[0] != c:
                out.append(t)
            continue
        k = 0
        while True:
            k += 1
            if limit and k > limit:
                break
            t = (f + k * dx, r + k * dy * d)
            if not (0 <= t[0] < 8 and 0 <= t[1] < 8):
                break
            if t in pos.board:
                if pos.board[t][0] != c:
                    out.append(t)
                break
            out.append(t)
    return set(out)


def bear_offs(pos, f, r):
    """CG-2/CG-3: files of rank 9 the piece on (f, r) reaches by its normal move."""
    c, l = pos.board[(f, r)]
    d = fwd(c)
    beyond = 8 if c == 0 else -1
    if l == "P":
        return {f} if r + d == beyond else set()
    files = set()
    for kind, dx, dy, limit in moves_of(l, pos.armies[c]):
        if kind == "leap":
            if r + dy * d == beyond and 0 <= f + dx < 8:
                files.add(f + dx)
            continue
        k = 0
        while True:
            k += 1
            if limit and k > limit:
                break
            tf, tr = f + k * dx, r + k * dy * d
            if tr == beyond:
                if 0 <= tf < 8:
                    files.add(tf)
                break
            if not (0 <= tf < 8 and 0 <= tr < 8) or (tf, tr) in pos.board:
                break
    return files


def attacks(pos, c, sq):
    """Does colour c attack sq (RK-2)? Pawns diagonally forward, others by their moves."""
    for (f, r), (cc, l) in pos.board.items():
        if cc != c:
            continue
        if l == "P":
            if sq[1] == r + fwd(c) and abs(sq[0] - f) == 1:
                return True
        elif sq in targets(pos, f, r):
            return True
    return False


# A half: (kind, from, to, letter): kind "move", "ep", "drop", "off".
def half_text(h):
    kind, fr, to, letter = h
    if kind == "drop":
        return "%s@%s" % (letter, sq_name(*to))
    if kind == "off":
        return sq_name(*fr) + FILES[to] + "9"
    return sq_name(*fr) + sq_name(*to)


def play(pos, h, pend):
    """Plays half h on pos (side stays); two-step targets go to pend."""
    kind, fr, to, letter = h
    us = pos.side
    if kind == "drop":
        pos.bar[us].remove(letter)
        pos.board[to] = (us, letter)
        return
    if kind == "off":
        del pos.board[fr]
        pos.off[us] += 1
        return
    piece = pos.board.pop(fr)
    victim_sq = (to[0], to[1] - fwd(us)) if kind == "ep" else to
    victim = pos.board.pop(victim_sq, None)
    if victim:
        if pos.game == "bodlaender":
            pos.off[victim[0]] += 1          # HB-1: counted as borne off
        else:
            pos.bar[victim[0]].append(victim[1])   # rule 3: to its owner's bar
    pos.board[to] = piece
    if piece[1] == "P" and abs(to[1] - fr[1]) == 2:
        pend.append((fr[0], (fr[1] + to[1]) // 2))


def end_turn(pos, pend):
    """The turn passes: the two-steps of this turn that an enemy pawn can take e.p."""
    us, them = pos.side, pos.side ^ 1
    ep = []
    for e in pend:
        pawn = (e[0], e[1] + fwd(us))
        if e in pos.board or pos.board.get(pawn) != (us, "P"):
            continue
        if any(pos.board.get((e[0] + dx, e[1] + fwd(us))) == (them, "P") for dx in (-1, 1)):
            ep.append(e)
    pos.ep = ep
    pos.side = them
    if us == 1:
        pos.fullmove += 1


def families(pos, ep_ok=True):
    """Captures, quiet moves, bear-offs and drops of the side to move."""
    us = pos.side
    d = fwd(us)
    caps, quiet, offs, drops = [], [], [], []
    for (f, r), (c, l) in list(pos.board.items()):
        if c != us:
            continue
        if l == "P":
            one = (f, r + d)
            if 0 <= one[1] < 8 and one not in pos.board:
                quiet.append(("move", (f, r), one, None))
                two = (f, r + 2 * d)
                if r == (1 if us == 0 else 6) and two not in pos.board:
                    quiet.append(("move", (f, r), two, None))   # "can always make a two-step"
            for dx in (-1, 1):
                t = (f + dx, r + d)
                if t in pos.board and pos.board[t][0] != us:
                    caps.append(("move", (f, r), t, None))
                if ep_ok and t in pos.ep and t not in pos.board and \
                        pos.board.get((t[0], t[1] - d)) == (us ^ 1, "P"):
                    caps.append(("ep", (f, r), t, None))
        else:
            for t in targets(pos, f, r):
                (caps if t in pos.board else quiet).append(("move", (f, r), t, None))
        for tf in bear_offs(pos, f, r):
            offs.append(("off", (f, r), tf, None))
    if pos.game != "bodlaender":
        for l in sorted(set(pos.bar[us])):
            for s in pos.home[(us, l)]:
                if s not in pos.board:
                    drops.append(("drop", None, s, l))
    return caps, quiet, offs, drops


def allowed(pos, h):
    """RK-2: after the half no king may stand attacked."""
    if pos.game != "racingkings":
        return True
    q = pos.copy()
    play(q, h, [])
    for c in (0, 1):
        for s, pc in q.board.items():
            if pc == (c, "K") and attacks(q, c ^ 1, s):
                return False
    return True


def halves(pos, ep_ok=True):
    """The legal single moves of the side to move (rules 6, 7, CG-4, RK-2)."""
    us = pos.side
    if pos.off[us] == 16:
        return []
    caps, quiet, offs, drops = families(pos, ep_ok)
    if not pos.bar[us]:
        return [h for h in caps + quiet + offs if allowed(pos, h)]
    first = [h for h in drops + caps if allowed(pos, h)]
    if first:
        return first
    # rule 7 (3): only a piece standing where a barred piece could come back
    need = set()
    for l in pos.bar[us]:
        need |= pos.home[(us, l)]
    return [h for h in quiet + offs if h[1] in need and allowed(pos, h)]


def turns(pos):
    """Legal turns as (text, position after) ; [] when the side must pass."""
    out = []
    for h in halves(pos):
        q = pos.copy()
        pend = []
        play(q, h, pend)
        if pos.game == "doublemove" and q.off[q.side] < 16:
            # DM-1, DM-3: a second move when one exists; DM-4: e.p. on it only
            # after an e.p. first move
            q.ep = [e for e in q.ep if e not in q.board]
            seconds = halves(q, ep_ok=h[0] == "ep")
            for h2 in seconds:
                r = q.copy()
                pend2 = list(pend)
                play(r, h2, pend2)
                end_turn(r, pend2)
                out.append((half_text(h) + "," + half_text(h2), r))
            if seconds:
                continue
        end_turn(q, pend)
        out.append((half_text(h), q))
    return out


def other_can_move(pos):
    q = pos.copy()
    q.side ^= 1
    q.ep = []
    return bool(halves(q))


def progress(text, pos):
    """Moves that bring a game on: bearing off, or a piece going forward."""
    first = text.split(",")[0]
    if first[-1] == "9" or "@" in first:
        return True
    fr, to = int(first[1]), int(first[3])
    return (to - fr) * fwd(pos.side) > 0


def games(seed, scale):
    rng = random.Random(seed)
    quota = {"chessgammon": 640, "racingkings": 160, "bodlaender": 160, "doublemove": 30}
    for game, per in quota.items():
        per = max(1, int(per * scale))
        for w in ARMY_NAMES:
            for b in ARMY_NAMES:
                done = 0
                while done < per:
                    pos = Pos(game, (w, b))
                    for _ in range(400 if game != "doublemove" else 120):
                        if done >= per or 16 in pos.off:
                            break
                        ts = turns(pos)
                        if not ts:
                            if not other_can_move(pos):
                                break   # CG-11: neither can move, a draw
                            nxt = pos.copy()
                            end_turn(nxt, [])
                            choice, texts = ("0000", nxt), ["0000"]
                        else:
                            texts = [t for t, _ in ts]
                            fwd_ts = [t for t in ts if progress(t[0], pos)]
                            pool = fwd_ts if fwd_ts and rng.random() < 0.6 else ts
                            choice = pool[rng.randrange(len(pool))]
                        print("%s\t%s\t%s\t%s\t%s" % (game, pos.record(), choice[0], " ".join(texts),
                                                      choice[1].record()))
                        done += 1
                        pos = choice[1]


if __name__ == "__main__":
    games(int(sys.argv[1]), float(sys.argv[2]) if len(sys.argv) > 2 else 1.0)
