#!/usr/bin/env bash
# Throughput: 10,000 move mails over 1,000 chess games, read from a Maildir,
# durably (goal >= 5,000 moves/s).
#
# usage: bench/throughput.sh [TABULA=./build/referee/tabula] [RUNS=3]
#   env: GAMES (1000), PLIES (10 per game), BATCH (batch_max, 256)
# Point it at a Release/RelWithDebInfo build (not the ASan one).
#
# Durable means: no mail leaves inbox/new (its acknowledgement) before the
# transaction holding it is on disk. tabula keeps synchronous=FULL and
# groups the syncs instead: each batch of up to BATCH mails is one SQLite
# transaction (one WAL fsync), each mail a savepoint inside it; the
# batch's Maildir renames into cur/ follow the commit and need no sync (the
# store knows every message it processed: one a crash puts back in new/ is
# read again as a no-op).
#
# Set-up (not timed): 1,000 invitations (each confirmed by its inviter, issue
# 13) and 1,000 acceptances through the
# same inbox, then 10,000 move mails (e4 e5 Nf3 Nc6 Bc4 Bc5 c3 Nf6 d3 d6 in
# every game) addressed with each seat's key, named so that Maildir order
# is ply order. Timed: `tabula poll`, which processes every mail and then
# writes the 20,000 replies into the outbox Maildir; the table shows the
# processing (moves, commit, acknowledgement) and the outbox flush apart,
# from tabula's own log, and the whole poll.
#
# The floor: each run also times bench/maildir_floor.c's `poll`
# (built beside tabula: BUILD/bench/maildir_floor, or FLOOR=path) on an
# identical copy of the run's 10,000 move mails, made during the set-up:
# the file work alone (each mail read and renamed into cur/, two reply
# files of tabula's median reply size written into an outbox Maildir, one
# syncfs), in C, no parsing, no store. No program
# that reads and answers these mails through Maildir files on this disk
# spends less, so goal/floor below 1 means the CPU goal is under the floor.
# The two alternate which goes first; the floor's reply size is the median
# of tabula's replies in the same run, or in the run before when the floor
# goes first (the runs play the same games). Nothing is deleted until the
# bench exits (outboxes are set aside): on this ext4 a recent mass delete
# makes file creation dearer (see bench/scale.sh), which would fall on
# whichever step came next. Other processes' deletes still count (a perf
# profile of a dear floor run is mostly recently_deleted()); the floor pays
# them as tabula does, so a run whose floor is dear was a dear disk, and
# the per-run ratio tabula/floor is the steadier figure. This bench's own
# exit deletes its runs' 180,000 files: run it (or another disk bench) six
# minutes after the last (a run 3 min after one: a floor run at 1.3 ms a
# move, 75% of it in recently_deleted() and its buffer lookups). Without
# the floor binary its rows are skipped.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tabula=$(realpath "${1:-./build/referee/tabula}")
runs=${2:-3}
[ -x "$tabula" ] || { echo "no tabula binary at $tabula (build it first)" >&2; exit 2; }
floor=${FLOOR:-$(dirname "$tabula")/../bench/maildir_floor}
[ -x "$floor" ] && floor=$(realpath "$floor") || floor=
exec python3 - "$tabula" "$runs" "$floor" <<'PY'
import os, resource, sqlite3, statistics, subprocess, sys, tempfile, time, shutil
tabula, runs, floor = sys.argv[1], int(sys.argv[2]), sys.argv[3]
GAMES = int(os.environ.get("GAMES", 1000))
PLIES = int(os.environ.get("PLIES", 10))
BATCH = os.environ.get("BATCH", "256")
MOVES = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d3", "d6"][:PLIES]

def write(inbox, seq, frm, to, subject, body):
    # <seconds>.M<n>: tabula reads new/ in delivery order (seconds, then M)
    name = "1700000000.M%dP1_0.bench" % seq
    data = ("From: %s\nTo: %s\nSubject: %s\nMessage-ID: <b%d@bench.example.org>\n"
            "Date: Sun, 22 Nov 2026 10:00:00 +0000\n\n%s\n" % (frm, to, subject, seq, body))
    with open(os.path.join(inbox, "tmp", name), "w") as f:
        f.write(data)
    os.rename(os.path.join(inbox, "tmp", name), os.path.join(inbox, "new", name))

last_cpu = [0.0]

def poll(cfg):
    # the whole process's CPU (user + system), from the children's rusage
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    p = subprocess.run([tabula, "poll", "-c", cfg], capture_output=True, text=True)
    if p.returncode:
        sys.exit("poll failed: " + p.stderr[-2000:])
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    last_cpu[0] = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return time.time() - t0, p.stderr

def floor_poll(d, reply_bytes):
    # the same measure as poll(): wall, and CPU from the children's rusage
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.time()
    p = subprocess.run([floor, "poll", d + "/floor/in", d + "/floor/out", "2", str(reply_bytes)],
                       capture_output=True, text=True)
    if p.returncode:
        sys.exit("maildir_floor poll failed: " + p.stderr[-2000:])
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.time() - t0, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

dirs = []  # deleted at the end only (see the header)
reply_sizes = []  # tabula's median reply size, run by run

def one_run(floor_first):
    d = tempfile.mkdtemp(prefix="tabula-tp.", dir=os.environ.get("TMPDIR", "/tmp"))
    dirs.append(d)
    cfg = os.path.join(d, "t.ini")
    with open(cfg, "w") as f:
        f.write("[tabula]\nstore_path = %s/db\ninbox = %s/in\noutbox = %s/out\n"
                "address = referee@example.org\ndomain = example.org\nlog_level = 2\n"
                "batch_max = %s\nrate_limit = 0\nstranger_mails_per_hour = 100000\n"
                % (d, d, d, BATCH))
    for sub in ("tmp", "new", "cur"):
        os.makedirs(os.path.join(d, "in", sub))
    seq = 0
    for g in range(GAMES):
        seq += 1
        write(d + "/in", seq, "w%d@example.org" % g, "referee@example.org", "game",
              "new chess with b%d@example.org" % g)
    poll(cfg)
    # Each inviter confirms its first `new` from its address
    con = sqlite3.connect(d + "/db")
    keys = dict(con.execute("select address, key from confirmations"))
    con.close()
    for g in range(GAMES):
        seq += 1
        write(d + "/in", seq, "w%d@example.org" % g,
              "referee+confirm.%s@example.org" % keys["w%d@example.org" % g], "Re: game", "confirm")
    poll(cfg)
    con = sqlite3.connect(d + "/db")
    seats = {(r[0], r[1]): r[2] for r in con.execute("select game, seat, token from seats")}
    games = [r[0] for r in con.execute("select id from games order by id")]
    con.close()
    for i, g in enumerate(games):
        seq += 1
        write(d + "/in", seq, "b%d@example.org" % (g - 1), "referee+%d.%s@example.org" % (g, seats[(g, 1)]),
              "Re: game", "accept")
    poll(cfg)
    os.rename(d + "/out", d + "/out.setup"); os.makedirs(d + "/out/new"); os.makedirs(d + "/out/tmp"); os.makedirs(d + "/out/cur")
    for ply, mv in enumerate(MOVES):
        for g in games:
            seat = ply % 2
            frm = ("w%d@example.org" if seat == 0 else "b%d@example.org") % (g - 1)
            seq += 1
            write(d + "/in", seq, frm, "referee+%d.%s@example.org" % (g, seats[(g, seat)]),
                  "Re: game", mv)
    if floor:
        for sub in ("in/tmp", "in/new", "in/cur", "out/tmp", "out/new", "out/cur"):
            os.makedirs(d + "/floor/" + sub)
        for name in os.listdir(d + "/in/new"):
            shutil.copyfile(d + "/in/new/" + name, d + "/floor/in/new/" + name)
    subprocess.run(["sync"])
    fl = None
    if floor and floor_first:
        fl = floor_poll(d, reply_sizes[-1])
    total, log = poll(cfg)
    whole_cpu = last_cpu[0]
    reply_sizes.append(int(statistics.median(os.path.getsize(e.path) for e in os.scandir(d + "/out/new"))))
    if floor and not floor_first:
        fl = floor_poll(d, reply_sizes[-1])
    if fl:
        fl += (len(os.listdir(d + "/floor/out/new")), "floor" if floor_first else "tabula",
               os.path.getsize(next(os.scandir(d + "/floor/out/new")).path))
        if fl[2] != 2 * GAMES * len(MOVES) or os.listdir(d + "/floor/in/new"):
            sys.exit("maildir_floor poll left mails in new/ or wrote %d replies" % fl[2])
    import re
    m = re.search(r"pass: (\d+) message\(s\) processed in ([0-9.]+) s \(cpu ([0-9.]+) s\), (\d+) repl\(ies\) sent in ([0-9.]+) s", log)
    proc, cpu, flush = (float(m.group(2)), float(m.group(3)), float(m.group(5))) if m else (float("nan"),) * 3
    con = sqlite3.connect(d + "/db")
    moves = con.execute("select count(*) from journal where kind = 'move'").fetchone()[0]
    sent = con.execute("select count(*) from outbox where state = 'sent'").fetchone()[0]
    con.close()
    left = len(os.listdir(d + "/in/new"))
    return (total, moves, sent, left, proc, cpu, flush, whole_cpu), fl

load0 = os.getloadavg()
try:
    both = [one_run(i % 2 == 1) for i in range(runs)]
finally:
    for d in dirs:
        shutil.rmtree(d)
load1 = os.getloadavg()
res = [b[0] for b in both]
fls = [b[1] for b in both if b[1]]
n = GAMES * len(MOVES)
ts = [r[0] for r in res]
med = statistics.median(ts)
print("throughput: %d move mails over %d games from a Maildir, durable (synchronous=FULL,"
      " batch_max=%s), %d runs, %d cores" % (n, GAMES, BATCH, runs, os.cpu_count()))
print("%-34s %10s %12s %8s" % ("", "median s", "moves/s", "goal"))
mp = statistics.median(r[4] for r in res)
mc = statistics.median(r[5] for r in res)
mf = statistics.median(r[6] for r in res)
print("%-34s %10.2f %12.0f %8s" % ("moves: read, applied, committed, acked", mp, n / mp, "5000"))
print("%-34s %10.2f %12.0f %8s" % ("  of which CPU time", mc, n / mc, ""))
print("%-34s %10.2f %12.0f %8s" % ("outbox: %d replies to a Maildir" % (2 * n), mf, 2 * n / mf, ""))
print("%-34s %10.2f %12.0f %8s" % ("whole poll (process start to exit)", med, n / med, ""))
wc = statistics.median(r[7] for r in res)
print("%-34s %10.2f %12.0f %8s" % ("whole poll, CPU (user+sys)", wc, n / wc, ""))
if fls:
    fw = statistics.median(f[0] for f in fls)
    fc = statistics.median(f[1] for f in fls)
    print("%-34s %10.2f %12.0f %8s" % ("file-system floor (same files, C)", fc, n / fc, ""))
    print("%-34s %10.2f %12.0f %8s" % ("  its wall time", fw, n / fw, ""))
print("CPU a move, whole poll: %.3f ms (goal <= 0.1 ms: ratio %.2f)" % (wc / n * 1000, wc / n * 1000 / 0.1))
if fls:
    print("CPU a move, file-system floor: %.3f ms; tabula/floor %.2fx; goal/floor %.2f"
          " (0.1 ms against the floor: below 1, the goal is under the floor)"
          % (fc / n * 1000, wc / fc, 0.1 / (fc / n * 1000)))
    print("wall, file-system floor: %.0f moves/s; goal (5,000 moves/s)/floor %.2f (above 1, the goal"
          " is beyond the floor)" % (n / fw, 5000 / (n / fw)))
else:
    print("floor: no maildir_floor binary beside tabula (BUILD/bench/maildir_floor; build the"
          " target maildir_floor, or FLOOR=path): floor rows skipped")
print("load average (1, 5, 15 min) before: %.2f %.2f %.2f, after: %.2f %.2f %.2f" % (load0 + load1))
print("ratio to the goal (5,000 moves/s), moves alone: %.2f; whole poll: %.2f" % (n / mp / 5000, n / med / 5000))
for r in res:
    print("  run: %.2f s, %d moves journaled, %d replies sent, %d mails left in new/;"
          " moves %.2f s (cpu %.2f s), outbox %.2f s; whole poll cpu %.2f s" % r)
for r, f, size in zip(res, fls, reply_sizes):
    print("  floor run: %.2f s, cpu %.2f s, %d replies written; first: %s; reply %d bytes"
          " (tabula's median reply: %d bytes); tabula/floor CPU %.2fx" % (f + (size, r[7] / f[1])))
PY
