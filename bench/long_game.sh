#!/usr/bin/env bash
# A game's late move against its early one (the goal: the
# 1,000th move costs <= 1.1x the 10th): one chess game played to PLIES
# plies by `tabula deliver`, one process a mail, CPU (user + sys) of each.
#
# usage: bench/long_game.sh [TABULA=./build/referee/tabula] [PLIES=1000] [SEED=15]
# Point it at a Release build.
#
# The moves: a seeded random walk over the legal moves (`tabula moves` on
# the stored position) that keeps the game going: no captures while there
# is another move, no mate, a pawn move when the 75-move rule or a
# repetition comes near, else pieces. Printed: the medians of the deliver
# CPU over plies 1-21 (around the 10th) and over the last 21, their ratio,
# and the same above the process start (`tabula --version`, measured
# between the moves). If the game ends before PLIES, it says at which ply.
#
# Early and late plies are minutes apart, and on this machine a disk's
# cost drifts more than that (another program's deletes, writeback): one
# run gave 1.64x, the next 0.94x, on the same binary. So a second game,
# B, is played in the same store at the same time as the long game's last
# 21 plies, one mail of each in turn: B's plies 1-21 against A's last 21
# is the length's cost with the drift taken out (the row "at the same
# time").
set -u
tabula=$(realpath "${1:-./build/referee/tabula}")
plies=${2:-1000}
seed=${3:-15}
[ -x "$tabula" ] || { echo "no tabula binary at $tabula (build it first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tabula-long.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$tabula" "$plies" "$seed" <<'PY'
import collections, os, random, resource, sqlite3, statistics, subprocess, sys, time
d, tabula, PLIES, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = random.Random(seed)
cfg = d + "/t.ini"
with open(cfg, "w") as f:
    f.write("[tabula]\nstore_path = %s/db\ninbox = %s/in\noutbox = %s/out\n"
            "address = referee@example.org\ndomain = example.org\nlog_level = 1\n"
            "rate_limit = 0\n" % (d, d, d))
seq = [0]
def deliver(frm, to, body):
    seq[0] += 1
    data = ("From: %s\nTo: %s\nSubject: Re: game\nMessage-ID: <l%d@bench.example.org>\n"
            "Date: Sun, 22 Nov 2026 10:00:00 +0000\n\n%s\n" % (frm, to, seq[0], body))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([tabula, "deliver", "-c", cfg], input=data, capture_output=True, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit("deliver failed (exit %d): %s" % (p.returncode, p.stderr[-800:]))
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
def floor():
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([tabula, "--version"], capture_output=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

con = sqlite3.connect(d + "/db")
def make_game(w, b, first):
    deliver(w, "referee@example.org", "new chess with " + b)
    if first:  # The inviter confirms its first `new` from its address
        deliver(w, "referee+confirm.%s@example.org"
                % con.execute("select key from confirmations").fetchone()[0], "confirm")
    g = con.execute("select max(id) from games").fetchone()[0]
    tok = {r[0]: r[1] for r in con.execute("select seat, token from seats where game = ?", (g,))}
    deliver(b, "referee+%d.%s@example.org" % (g, tok[1]), "accept")
    return {"id": g, "tok": tok, "who": (w, b), "seen": collections.Counter()}
A = make_game("w@example.org", "b@example.org", True)
B = make_game("w@example.org", "c@example.org", False)

def play(G):
    """One ply of G by deliver: its CPU, or None when G has ended."""
    phase, state, turn = con.execute("select phase, state, turn from games where id = ?",
                                     (G["id"],)).fetchone()
    if phase != "active":
        return None
    fields = state.split()
    key = " ".join(fields[:4])
    G["seen"][key] += 1
    out = subprocess.run([tabula, "moves", state], capture_output=True, text=True).stdout
    sans = [l.split()[1] for l in out.splitlines() if len(l.split()) == 2]
    quiet = [m for m in sans if "x" not in m and "#" not in m] or [m for m in sans if "#" not in m] or sans
    pawn = [m for m in quiet if m[0] in "abcdefgh"]
    piece = [m for m in quiet if m[0] not in "abcdefgh"]
    urgent = int(fields[4]) >= 90 or G["seen"][key] >= 3
    pool = (pawn or piece) if urgent else (piece or pawn)
    mv = rng.choice(pool)
    return deliver(G["who"][turn], "referee+%d.%s@example.org" % (G["id"], G["tok"][turn]), mv)

cpu, base, control = [], [], []
load0 = os.getloadavg()
ended = None
for ply in range(1, PLIES + 1):
    c = play(A)
    if c is None:
        ended = ply
        break
    cpu.append(c)
    if ply > PLIES - 21:  # game B's ply at the same time
        c = play(B)
        if c is None:
            sys.exit("the control game ended at its ply %d" % (len(control) + 1))
        control.append(c)
    if ply % 10 == 0:
        base.append(floor())
load1 = os.getloadavg()
n = len(cpu)
moved = con.execute("select count(*) from journal where game = ? and kind = 'move'",
                    (A["id"],)).fetchone()[0]
med = statistics.median
early, late = med(cpu[:21]), med(cpu[-21:])
fl = med(base) if base else float("nan")
print("one chess game by deliver: %d plies played%s, %d journaled, %d cores"
      % (n, (" (the game ended before ply %d)" % ended) if ended else "", moved, os.cpu_count()))
print("%-38s %10s %10s %8s" % ("deliver CPU, medians of 21 plies", "plies 1-21",
      "%d-%d" % (n - 20, n), "ratio"))
print("%-38s %10.2f %10.2f %8.2f" % ("whole process, ms", early * 1e3, late * 1e3, late / early))
print("%-38s %10.2f %10.2f %8.2f" % ("above the process start (%.2f ms), ms" % (fl * 1e3),
      (early - fl) * 1e3, (late - fl) * 1e3, (late - fl) / (early - fl)))
if len(control) == 21 and not ended:
    ctl = med(control)
    print("%-38s %10.2f %10.2f %8.2f" % ("at the same time: game B's 1-21, ms", ctl * 1e3,
          late * 1e3, late / ctl))
    print("%-38s %10.2f %10.2f %8.2f" % ("  above the process start, ms", (ctl - fl) * 1e3,
          (late - fl) * 1e3, (late - fl) / (ctl - fl)))
print("goal: the 1,000th move <= 1.1x the 10th")
print("load average (1, 5, 15 min) before: %.2f %.2f %.2f, after: %.2f %.2f %.2f" % (load0 + load1))
PY
