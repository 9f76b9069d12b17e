#!/usr/bin/env bash
# A backgammon move mail against a chess move mail (the goal:
# backgammon <= 1.2x chess, CPU).
#
# usage: bench/bg_vs_chess.sh [TABULA=./build/referee/tabula] [N=60]
# Point it at a Release build.
#
# Set-up (not timed): 2N backgammon and 2N chess games through `tabula
# poll` (invitation and acceptance each); a backgammon game's first play is
# a legal one for its opening roll, from `tabula moves` on the stored
# position, a chess game's is e4. Timed, on the same store:
# - `tabula deliver` (one process a mail), backgammon and chess alternating,
#   N each: CPU (user + sys) and wall, medians;
# - `tabula poll` of N chess move mails, then of N backgammon move mails
#   (one batch each): the whole poll's CPU a move, which leaves out the
#   process start that dominates a deliver.
set -u
tabula=$(realpath "${1:-./build/referee/tabula}")
n=${2:-60}
[ -x "$tabula" ] || { echo "no tabula binary at $tabula (build it first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tabula-bg-chess.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$tabula" "$n" <<'PY'
import os, resource, sqlite3, statistics, subprocess, sys, time
d, tabula, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
cfg = d + "/t.ini"
with open(cfg, "w") as f:
    f.write("[tabula]\nstore_path = %s/db\ninbox = %s/in\noutbox = %s/out\n"
            "address = referee@example.org\ndomain = example.org\nlog_level = 2\n"
            "rate_limit = 0\nbatch_max = 256\nstranger_mails_per_hour = 100000\n" % (d, d, d))
for sub in ("tmp", "new", "cur"):
    os.makedirs(os.path.join(d, "in", sub))
seq = [0]
def mail(frm, to, body):
    seq[0] += 1
    return ("From: %s\nTo: %s\nSubject: Re: game\nMessage-ID: <g%d@bench.example.org>\n"
            "Date: Sun, 22 Nov 2026 10:00:00 +0000\n\n%s\n" % (frm, to, seq[0], body))
def drop(data):
    name = "1700000000.M%dP1_0.bench" % seq[0]
    with open(os.path.join(d, "in", "tmp", name), "w") as f:
        f.write(data)
    os.rename(os.path.join(d, "in", "tmp", name), os.path.join(d, "in", "new", name))
def cpu_run(argv, stdin=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, input=stdin, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit("%s failed (exit %d): %s" % (argv[1], p.returncode, p.stderr[-800:]))
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), wall
poll = lambda: cpu_run([tabula, "poll", "-c", cfg])

kinds = ["chess"] * (2 * n) + ["backgammon"] * (2 * n)
for g, kind in enumerate(kinds):
    drop(mail("w%d@example.org" % g, "referee@example.org", "new %s with b%d@example.org" % (kind, g)))
poll()
# Each inviter confirms its first `new` from its address
con = sqlite3.connect(d + "/db")
keys = dict(con.execute("select address, key from confirmations"))
con.close()
for g in range(len(kinds)):
    drop(mail("w%d@example.org" % g, "referee+confirm.%s@example.org" % keys["w%d@example.org" % g],
              "confirm"))
poll()
con = sqlite3.connect(d + "/db")
seats = {(r[0], r[1]): r[2] for r in con.execute("select game, seat, token from seats")}
ids = [r[0] for r in con.execute("select id from games order by id")]
con.close()
for g in ids:
    drop(mail("b%d@example.org" % (g - 1), "referee+%d.%s@example.org" % (g, seats[(g, 1)]), "accept"))
poll()
con = sqlite3.connect(d + "/db")
games = {r[0]: (r[1], r[2], r[3]) for r in con.execute("select id, kind, turn, state from games")}
con.close()
def move_mail(g):
    kind, turn, state = games[g]
    if games[g][0] == "chess":
        play = "e4"
    else:
        out = subprocess.run([tabula, "moves", "-g", "backgammon", state], capture_output=True,
                             text=True).stdout.splitlines()
        words = out[0].split()
        play = " ".join(words[len(words) // 2:])
    who = ("w%d@example.org" if turn == 0 else "b%d@example.org") % (g - 1)
    return mail(who, "referee+%d.%s@example.org" % (g, seats[(g, turn)]), play)
chess = [g for g in ids if games[g][0] == "chess"]
bg = [g for g in ids if games[g][0] == "backgammon"]
if any(games[g][0] == "backgammon" and games[g][1] < 0 for g in bg):
    sys.exit("a backgammon game is not running")

load0 = os.getloadavg()
cc, cw, bc, bw = [], [], [], []
for i in range(n):
    c, w = cpu_run([tabula, "deliver", "-c", cfg], move_mail(chess[i])); cc.append(c); cw.append(w)
    c, w = cpu_run([tabula, "deliver", "-c", cfg], move_mail(bg[i])); bc.append(c); bw.append(w)
for g in chess[n:]:
    drop(move_mail(g))
pc, pw = poll()
for g in bg[n:]:
    drop(move_mail(g))
pb, pbw = poll()
load1 = os.getloadavg()
con = sqlite3.connect(d + "/db")
moved = con.execute("select count(*) from journal where kind = 'move'").fetchone()[0]
con.close()
med = statistics.median
print("a backgammon move mail against a chess move mail, same store, %d each, %d cores" % (n, os.cpu_count()))
print("%-40s %10s %10s %8s" % ("", "chess ms", "bg ms", "bg/chess"))
print("%-40s %10.2f %10.2f %8.2f" % ("deliver, CPU median", med(cc) * 1e3, med(bc) * 1e3, med(bc) / med(cc)))
print("%-40s %10.2f %10.2f %8.2f" % ("deliver, wall median", med(cw) * 1e3, med(bw) * 1e3, med(bw) / med(cw)))
print("%-40s %10.3f %10.3f %8.2f" % ("poll of %d mails, whole CPU a move" % n, pc / n * 1e3, pb / n * 1e3, pb / pc))
print("%-40s %10.3f %10.3f %8.2f" % ("poll of %d mails, wall a move" % n, pw / n * 1e3, pbw / n * 1e3, pbw / pw))
print("goal: backgammon <= 1.2x chess (CPU)")
print("load average (1, 5, 15 min) before: %.2f %.2f %.2f, after: %.2f %.2f %.2f" % (load0 + load1))
print("check: %d of %d moves journaled" % (moved, 4 * n))
PY
