#!/usr/bin/env bash
# Scale: the same 10,000 move mails (1,000
# chess games, 10 plies each, one `tabula poll`) on a store of 1,000 games
# and on one of BIG games (1,000,000 by default), RUNNING of them with a
# running clock (100,000); then, on the big store, `tabula tick` with
# nothing due, and `serve`'s memory after 4,000 more mails.
#
# usage: bench/scale.sh [TABULA=./build/referee/tabula] [BIG=1000000] [RUNNING=100000]
#   env: KEEP=DIR  keep the two stores as made (before any move) in DIR and
#                  reuse them when DIR holds them for the same BIG and
#                  RUNNING: making a million games takes minutes, a copy
#                  seconds. Each round plays on a fresh copy.
#        ROUNDS=N  the poll of the 10,000 moves N times on each store,
#                  alternating which goes first (default 1); medians. Each
#                  round's copies stay until the end (nothing is deleted
#                  while timing, see below): 1.3 GB a round for a million.
#        PART=poll the polls only (no tick, no serve).
# Files deleted shortly before a poll make its reply files dearer to create
# on ext4 without a journal (this machine's /): allocating an inode skips,
# at a buffer lookup each, the inodes freed in the last 60 s, or 360 s
# while their inode table block is dirty, which it is while files are
# being created beside them (recently_deleted(), fs/ext4/ialloc.c). The
# bench deletes nothing until it exits, but other processes may: run it
# six minutes after the last big delete (a previous run's exit), prefer
# ROUNDS > 1, and compare the processing rows, which create no files. An earlier big/small ratio
# of 1.43x was most likely this: the per-move work is the same on both
# stores (user instructions +0.7%, the same syscalls, the same SQLite page
# cache misses), and the extra CPU, when there is any, is the kernel's in
# recently_deleted() while the reply files are created.
# Point it at a Release build. Needs about 1.5 GB of disk for a million
# (twice that with KEEP).
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
#   sys, rusage) and wall, on both stores, and the ratio big/small; and the
#   CPU of the processing alone (tabula's log: read, applied, committed,
#   acknowledged), before the reply files are written;
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
import os, re, resource, shutil, signal, sqlite3, statistics, subprocess, sys, time
from bigstore import fill  # the games copied in SQL, shared with mail_latency.sh
work, tabula, BIG, RUNNING = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
KEEP = os.environ.get("KEEP", "")
ROUNDS = max(1, int(os.environ.get("ROUNDS", "1")))
PART = os.environ.get("PART", "all")
GAMES = 1000
MOVES = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d3", "d6"]
MORE = ["O-O", "O-O", "a3", "a6"]
med = statistics.median

def cpu_run(argv, out=None, **kw):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, capture_output=True, text=True, **kw)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode:
        sys.exit("%s failed (exit %d): %s" % (" ".join(argv[1:2]), p.returncode, p.stderr[-800:]))
    if out is not None:
        out.append(p.stderr)
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
    def timed_poll(self):
        """CPU and wall of the whole poll, and the CPU of its processing
        alone (read, applied, committed, acknowledged: tabula's own log line),
        before the replies are written"""
        err = []
        c, w = cpu_run([tabula, "poll", "-c", self.cfg], err)
        m = re.search(r"pass: \d+ message\(s\) processed in [0-9.]+ s \(cpu ([0-9.]+) s\)", err[0])
        if not m:
            sys.exit("no 'pass:' line in the poll's log")
        return c, w, float(m.group(1))
    def plies(self, moves, first_ply):
        for k, mv in enumerate(moves):
            seat = (first_ply + k) % 2
            for g in self.games:
                frm = ("w%d@example.org" if seat == 0 else "b%d@example.org") % (g - 1)
                self.drop(frm, "referee+%d.%s@example.org" % (g, self.seats[(g, seat)]), mv)
    def empty_outbox(self):
        # set aside, not deleted (the exit trap deletes them): ext4 without
        # a journal skips inodes freed in the last 60 s (360 s while their
        # inode table block is dirty) when it allocates one, at a buffer
        # lookup each (recently_deleted(), fs/ext4/ialloc.c), and that
        # cost landed on whichever poll came next. The big
        # store's extra CPU measured before was that, not the store.
        if os.path.isdir(self.d + "/out"):
            n = 0
            while os.path.exists("%s/out.old%d" % (self.d, n)):
                n += 1
            os.rename(self.d + "/out", "%s/out.old%d" % (self.d, n))
        for sub in ("tmp", "new", "cur"):
            os.makedirs(os.path.join(self.d, "out", sub))

def known(s):
    """the played games (ids 1..1,000) and their seats' keys"""
    con = sqlite3.connect(s.d + "/db")
    s.seats = {(r[0], r[1]): r[2] for r in con.execute("select game, seat, token from seats"
                                                        " where game <= %d" % GAMES)}
    s.games = [r[0] for r in con.execute("select id from games where id <= %d order by id" % GAMES)]
    con.close()

def kept(s, dest):
    """the store as made, checkpointed, copied to dest (KEEP)"""
    con = sqlite3.connect(s.d + "/db")
    con.execute("pragma wal_checkpoint(truncate)")
    con.close()
    os.makedirs(dest, exist_ok=True)
    shutil.copyfile(s.d + "/db", dest + "/db.part")
    os.rename(dest + "/db.part", dest + "/db")

def fresh(src, d):
    """a store to play on, copied from the one as made: the same games, keys
    and Message-IDs (the set-up used 3 a game, so the moves go on from there)"""
    s = Store(d)
    shutil.copyfile(src + "/db", d + "/db")
    s.seq = 3 * GAMES
    s.empty_outbox()
    known(s)
    return s

def made(d):
    s = Store(d)
    for g in range(GAMES):
        s.drop("w%d@example.org" % g, "referee@example.org", "new chess with b%d@example.org" % g)
    s.poll()
    # Each inviter confirms its first `new` from its address
    con = sqlite3.connect(d + "/db")
    keys = dict(con.execute("select address, key from confirmations"))
    con.close()
    for g in range(GAMES):
        s.drop("w%d@example.org" % g, "referee+confirm.%s@example.org" % keys["w%d@example.org" % g],
               "confirm")
    s.poll()
    known(s)
    for g in s.games:
        s.drop("b%d@example.org" % (g - 1), "referee+%d.%s@example.org" % (g, s.seats[(g, 1)]), "accept")
    s.poll()
    s.empty_outbox()
    return s

load0 = os.getloadavg()
print("scale: 10,000 move mails (1,000 chess games x 10 plies) by one poll; small store %d games,"
      " big store %d games (%d running clocks); %d cores" % (GAMES, BIG, RUNNING, os.cpu_count()),
      flush=True)
tag = "%d-%d" % (BIG, RUNNING)
pristine = {}
if KEEP and all(os.path.exists("%s/%s/db" % (KEEP, n)) for n in ("small", "big." + tag)):
    pristine = {"small": KEEP + "/small", "big": KEEP + "/big." + tag}
    print("reusing the stores kept in %s" % KEEP, flush=True)
else:
    small = made(work + "/small")
    bigs = made(work + "/big")
    n, clocks, secs = fill(bigs.d + "/db", BIG, RUNNING, GAMES)
    print("big store: %d games, %d running clocks, made in %.0f s" % (n, clocks, secs), flush=True)
    if KEEP:
        kept(small, KEEP + "/small")
        kept(bigs, KEEP + "/big." + tag)
        pristine = {"small": KEEP + "/small", "big": KEEP + "/big." + tag}
    else:
        ROUNDS = 1
size = os.path.getsize((pristine["big"] if pristine else bigs.d) + "/db")
print("big store: %.0f MB" % (size / 1e6), flush=True)
res = {"small": [], "big": []}
for r in range(ROUNDS):
    for name in (("small", "big") if r % 2 == 0 else ("big", "small")):
        if pristine:
            d = "%s/%s.%d" % (work, name, r)
            s = fresh(pristine[name], d)
        else:
            s = small if name == "small" else bigs
        s.plies(MOVES, 0)
        subprocess.run(["sync"])
        res[name].append(s.timed_poll())
        con = sqlite3.connect(s.d + "/db")
        j = con.execute("select count(*) from journal where kind = 'move'").fetchone()[0]
        con.close()
        if j != GAMES * len(MOVES):
            sys.exit("%s store: %d moves journaled, not %d" % (name, j, GAMES * len(MOVES)))
        if name == "small":
            small = s
        else:
            bigs = s
    if ROUNDS > 1:
        print("  round %d: CPU a move small %.3f ms (processing %.3f), big %.3f ms (processing %.3f)" % (
            r + 1, res["small"][-1][0] / GAMES / len(MOVES) * 1e3,
            res["small"][-1][2] / GAMES / len(MOVES) * 1e3,
            res["big"][-1][0] / GAMES / len(MOVES) * 1e3,
            res["big"][-1][2] / GAMES / len(MOVES) * 1e3), flush=True)
n_moves = GAMES * len(MOVES)
cs, cb = med([r[0] for r in res["small"]]), med([r[0] for r in res["big"]])
ws, wb = med([r[1] for r in res["small"]]), med([r[1] for r in res["big"]])
ps, pb = med([r[2] for r in res["small"]]), med([r[2] for r in res["big"]])
print("%-36s %10s %10s %10s" % ("whole poll, 10,000 moves" + (", %d rounds, medians" % ROUNDS
      if ROUNDS > 1 else ""), "small", "big", "big/small"))
print("%-36s %10.3f %10.3f %10.2f" % ("CPU a move, ms", cs / n_moves * 1e3, cb / n_moves * 1e3, cb / cs))
print("%-36s %10.3f %10.3f %10.2f" % ("  of which processing, CPU", ps / n_moves * 1e3, pb / n_moves * 1e3,
      pb / ps))
print("%-36s %10.3f %10.3f %10.2f" % ("wall a move, ms", ws / n_moves * 1e3, wb / n_moves * 1e3, wb / ws),
      flush=True)
print("  every round: %d moves journaled on each store" % n_moves)
if PART == "poll":
    load1 = os.getloadavg()
    print("load average (1, 5, 15 min) before: %.2f %.2f %.2f, after: %.2f %.2f %.2f" % (load0 + load1))
    sys.exit(0)

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
