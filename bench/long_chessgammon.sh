#!/usr/bin/env bash
# A long Diceless Chessgammon game: its late moves against its
# early ones, and whether the game has a snapshot. Before, the family's
# state held a pointer and every mail replayed the whole journal; now it
# loads from its stored state like the other games.
#
# usage: bench/long_chessgammon.sh [TABULA=./build/referee/tabula] [PLIES=600]
# Point it at a Release build.
#
# The moves: both sides' knights out and back (Nf3 Nf6 Ng1 Ng8 ...), which
# Chessgammon allows for ever (repetition is only claimed, CG-12). One
# `tabula deliver` a ply; printed: the medians of the deliver CPU (user +
# sys) over plies 1-20 and over the last 20, their ratio, and whether
# games.snapshot is stored.
set -u
tabula=$(realpath "${1:-./build/referee/tabula}")
plies=${2:-600}
[ -x "$tabula" ] || { echo "no tabula binary at $tabula (build it first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tabula-cglong.XXXXXX")
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$tabula" "$plies" <<'PY'
import os, resource, sqlite3, statistics, subprocess, sys
d, tabula, plies = sys.argv[1], sys.argv[2], int(sys.argv[3])
cfg = d + "/t.ini"
with open(cfg, "w") as f:
    f.write("[tabula]\nstore_path = %s/db\ninbox = %s/in\noutbox = %s/out\naddress = referee@example.org\n"
            "domain = example.org\nlog_level = 1\nrate_limit = 0\nstranger_mails_per_hour = 100000\n" % (d, d, d))
seq = [0]
def deliver(frm, to, body):
    seq[0] += 1
    m = ("From: %s\nTo: %s\nSubject: Re: game\nMessage-ID: <c%d@x.example.org>\n"
         "Date: Sun, 22 Nov 2026 10:00:00 +0000\n\n%s\n" % (frm, to, seq[0], body))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run([tabula, "deliver", "-c", cfg], input=m.encode(), capture_output=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit("deliver failed: %s" % p.stderr.decode()[-500:])
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
def q(sql):
    con = sqlite3.connect(d + "/db"); r = con.execute(sql).fetchall(); con.close(); return r
deliver("w@example.org", "referee@example.org", "new chessgammon with b@example.org")
key = q("select key from confirmations")[0][0]
deliver("w@example.org", "referee+confirm.%s@example.org" % key, "confirm")
tok = dict(((s, t) for s, t in q("select seat, token from seats where game = 1")))
deliver("b@example.org", "referee+1.%s@example.org" % tok[1], "accept")
cycle = ["Nf3", "Nf6", "Ng1", "Ng8"]
cpu = []
for i in range(plies):
    side = i % 2
    cpu.append(deliver(["w", "b"][side] + "@example.org", "referee+1.%s@example.org" % tok[side], cycle[i % 4]))
moves = q("select count(*) from journal where game = 1 and kind = 'move'")[0][0]
snap = q("select snapshot is not null from games where id = 1")[0][0]
med = statistics.median
print("%d plies journaled (of %d), snapshot stored: %s; deliver CPU median, plies 1-20: %.2f ms, last 20: %.2f ms (%.2fx)"
      % (moves, plies, bool(snap), med(cpu[:20]) * 1e3, med(cpu[-20:]) * 1e3, med(cpu[-20:]) / med(cpu[:20])))
print("load average (1, 5, 15 min): %.2f %.2f %.2f" % os.getloadavg())
PY
