#!/usr/bin/env bash
# Scale (issue 15, "It must show" 3): the same 10,000 move mails (1,000
# chess games, 10 plies each, one `tabula poll`) on a store of 1,000 games
# and on one of BIG games (1,000,000 by default), RUNNING of them with a
# running clock (100,000); then, on the big store, `tabula tick` with
# nothing due, and `serve`'s memory after 4,000 more mails.
#
# usage: bench/scale.sh [TABULA=./build/referee/tabula] [BIG=1000000] [RUNNING=100000]
# Point it at a Release build. Needs about 1.5 GB of disk for a million.
#
# The 1,000 games played are made through the mail (invitations and
# acceptances, not timed). The other games are copies of them made in SQL
# (not timed): RUNNING active games whose clock is due in a month, the rest
# finished, each with its seats and its journal's first entries; nothing
# in them is touched by the moves, which is the point: a mail must cost
# the same whatever else the store holds.
#
# Timed:
# - the whole poll of the 10,000 moves (20,000 replies written), CPU (user +
#   sys, rusage) and wall, on both stores, and the ratio big/small;
# - `tabula tick` with nothing due on the big store, 11 runs, median CPU and
#   wall, beside `tabula --version` (the process start alone, the floor of
#   any command);
# - `tabula serve` on the big store: its peak and final RSS (VmHWM, VmRSS)
#   once it has answered 4,000 more move mails (4 plies more in each game).
set -u
tabula=$(realpath "${1:-./build/referee/tabula}")
big=${2:-1000000}
running=${3:-100000}
[ -x "$tabula" ] || { echo "no tabula binary at $tabula (build it first)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/tabula-scale.XXXXXX")
trap 'rm -rf "$work"' EXIT
PYTHONPATH=$(dirname "$0") python3 - "$work" "$tabula" "$big" "$running" <<'PY'
import os, resource, shutil, signal, sqlite3, statistics, subprocess, sys, time
from bigstore import fill  # the games copied in SQL, shared with mail_latency.sh
work, tabula, BIG, RUNNING = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
GAMES = 1000
MOVES = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d3", "d6"]
MORE = ["O-O", "O-O", "a3", "a6"]
med = statistics.median

def cpu_run(argv, **kw):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit("%s failed (exit %d): %s" % (" ".join(argv[1:2]), p.returncode, p.stderr[-800:]))
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), wall

class Store:
    def __init__(self, d):
        self.d, self.cfg, self.seq = d, d + "/t.ini", 0
        os.makedirs(d)
        with open(self.cfg, "w") as f:
            f.write("[tabula]\nstore_path = %s/db\ninbox = %s/in\noutbox = %s/out\n"
                    "address = referee@example.org\ndomain = example.org\nlog_level = 2\n"
                    "batch_max = 256\nrate_limit = 0\npoll_ms = 50\nstranger_mails_per_hour = 100000\n" % (d, d, d))
        for sub in ("tmp", "new", "cur"):
            os.makedirs(os.path.join(d, "in", sub))
    def drop(self, frm, to, body):
        self.seq += 1
        name = "1700000000.M%dP1_0.bench" % self.seq
        data = ("From: %s\nTo: %s\nSubject: Re: game\nMessage-ID: <s%d@bench.example.org>\n"
                "Date: Sun, 22 Nov 2026 10:00:00 +0000\n\n%s\n" % (frm, to, self.seq, body))
        with open(os.path.join(self.d, "in", "tmp", name), "w") as f:
            f.write(data)
        os.rename(os.path.join(self.d, "in", "tmp", name), os.path.join(self.d, "in", "new", name))
    def poll(self):
        return cpu_run([tabula, "poll", "-c", self.cfg])
    def plies(self, moves, first_ply):
        for k, mv in enumerate(moves):
            seat = (first_ply + k) % 2
            for g in self.games:
                frm = ("w%d@example.org" if seat == 0 else "b%d@example.org") % (g - 1)
                self.drop(frm, "referee+%d.%s@example.org" % (g, self.seats[(g, seat)]), mv)
    def empty_outbox(self):
        shutil.rmtree(self.d + "/out", ignore_errors=True)
        for sub in ("tmp", "new", "cur"):
            os.makedirs(os.path.join(self.d, "out", sub))

def made(d):
    s = Store(d)
    for g in range(GAMES):
        s.drop("w%d@example.org" % g, "referee@example.org", "new chess with b%d@example.org" % g)
    s.poll()
    # issue 13: each inviter confirms its first `new` from its address
    con = sqlite3.connect(d + "/db")
    keys = dict(con.execute("select address, key from confirmations"))
    con.close()
    for g in range(GAMES):
        s.drop("w%d@example.org" % g, "referee+confirm.%s@example.org" % keys["w%d@example.org" % g],
               "confirm")
    s.poll()
    con = sqlite3.connect(d + "/db")
    s.seats = {(r[0], r[1]): r[2] for r in con.execute("select game, seat, token from seats")}
    s.games = [r[0] for r in con.execute("select id from games order by id")]
    con.close()
    for g in s.games:
        s.drop("b%d@example.org" % (g - 1), "referee+%d.%s@example.org" % (g, s.seats[(g, 1)]), "accept")
    s.poll()
    s.empty_outbox()
    return s

load0 = os.getloadavg()
print("scale: 10,000 move mails (1,000 chess games x 10 plies) by one poll; small store %d games,"
      " big store %d games (%d running clocks); %d cores" % (GAMES, BIG, RUNNING, os.cpu_count()),
      flush=True)
small = made(work + "/small")
bigs = made(work + "/big")
n, clocks, secs = fill(bigs.d + "/db", BIG, RUNNING, GAMES)
size = os.path.getsize(bigs.d + "/db")
print("big store: %d games, %d running clocks, %.0f MB, made in %.0f s" % (n, clocks, size / 1e6, secs),
      flush=True)
res = {}
for name, s in (("small", small), ("big", bigs)):
    s.plies(MOVES, 0)
    subprocess.run(["sync"])
    res[name] = s.poll()
n_moves = GAMES * len(MOVES)
print("%-36s %10s %10s %10s" % ("whole poll, 10,000 moves", "small", "big", "big/small"))
print("%-36s %10.3f %10.3f %10.2f" % ("CPU a move, ms", res["small"][0] / n_moves * 1e3,
      res["big"][0] / n_moves * 1e3, res["big"][0] / res["small"][0]))
print("%-36s %10.3f %10.3f %10.2f" % ("wall a move, ms", res["small"][1] / n_moves * 1e3,
      res["big"][1] / n_moves * 1e3, res["big"][1] / res["small"][1]), flush=True)
for name, s in (("small", small), ("big", bigs)):
    con = sqlite3.connect(s.d + "/db")
    j = con.execute("select count(*) from journal where kind = 'move'").fetchone()[0]
    con.close()
    print("  check %s: %d moves journaled" % (name, j))

# tick, nothing due, on the big store
bigs.empty_outbox()
tc, tw, vc, vw = [], [], [], []
for _ in range(11):
    c, w = cpu_run([tabula, "tick", "-c", bigs.cfg]); tc.append(c); tw.append(w)
    c, w = cpu_run([tabula, "--version"]); vc.append(c); vw.append(w)
print("%-36s %10s %10s" % ("big store, 11 runs, medians", "CPU ms", "wall ms"))
print("%-36s %10.2f %10.2f" % ("tabula tick (nothing due)", med(tc) * 1e3, med(tw) * 1e3))
print("%-36s %10.2f %10.2f" % ("tabula --version (process start)", med(vc) * 1e3, med(vw) * 1e3))
print("tick above the process start: CPU %.2f ms, wall %.2f ms (goal <= 10 ms); replies written: %d"
      % ((med(tc) - med(vc)) * 1e3, (med(tw) - med(vw)) * 1e3, len(os.listdir(bigs.d + "/out/new"))),
      flush=True)

# serve on the big store: 4,000 more mails
p = subprocess.Popen([tabula, "serve", "-c", bigs.cfg], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
def status():
    out = {}
    with open("/proc/%d/status" % p.pid) as f:
        for line in f:
            k, _, v = line.partition(":")
            out[k] = v.strip()
    return out
time.sleep(1)
rss0 = status()["VmRSS"]
bigs.plies(MORE, 0)
deadline = time.time() + 600
while time.time() < deadline:
    con = sqlite3.connect(bigs.d + "/db")
    j = con.execute("select count(*) from journal where kind = 'move'").fetchone()[0]
    con.close()
    if j >= n_moves + GAMES * len(MORE) and not os.listdir(bigs.d + "/in/new"):
        break
    time.sleep(0.5)
time.sleep(1)
st = status()
p.send_signal(signal.SIGTERM)
p.wait(timeout=60)
print("serve on the big store: RSS %s at the start; after %d more mails (%d moves journaled):"
      " VmRSS %s, peak VmHWM %s (goal <= 32 MB)" % (rss0, GAMES * len(MORE), j, st["VmRSS"], st["VmHWM"]))
load1 = os.getloadavg()
print("load average (1, 5, 15 min) before: %.2f %.2f %.2f, after: %.2f %.2f %.2f" % (load0 + load1))
PY
