#!/usr/bin/env bash
# Side by side with Richard's PBeM Server: one
# move through `lyngk move` (the pbmserv framework, from a lymanhurd/lyngk
# checkout, built with its own makefile) against one move mail through
# `tabula deliver` (the MTA pipe), alternating in one run, CPU (user + sys
# of the process and its children, from wait4) and wall, medians.
#
# usage: bench/vs_pbmserv.sh LYNGK_CHECKOUT [TABULA=./build/referee/tabula] [N=60]
#   BASE=another tabula binary: it delivers too, alternating in the same
#   run (a before/after comparison under the same load).
#   LYNGK_CHECKOUT: a clone of https://github.com/lymanhurd/lyngk (see
#   shared/anchors.md, "Richard's PBeM Server"); it is copied and built
#   with `make lyngk` in a scratch folder. Point TABULA at a Release build.
#
# Each run i moves first in its own fresh game, on both sides: Lyngk board
# 100+i (c2-c3 by alice; pbmserv mails both players, each through
# popen("sendmail"), here PBMSENDMAIL='cat >/dev/null') and chess game i
# (e4 by white; tabula stores the move and writes the two replies into its
# outbox Maildir, durably, before it exits). Set-up is not timed: N
# challenges, and N invitations and acceptances through `tabula poll`.
#
# The floor: in the same loop, bench/maildir_floor.c (built
# beside tabula: BUILD/bench/maildir_floor, or FLOOR=path) is timed twice
# with the same move mail on its standard input: `start` (a C program that
# reads the mail and exits: the process start any MTA pipe pays) and
# `deliver DIR` (the least a durable Maildir delivery does: tmp/, write,
# fdatasync, rename into new/, fsync of new/, the two syncs tabula-deliver
# makes). Nothing that writes a mail durably to this disk from an MTA's
# pipe costs less than that second row, so pbmserv/floor is the most any
# durable delivery could be cheaper than pbmserv here, and
# tabula-deliver/floor is what is left for tabula to win. Without the
# floor binary those rows are skipped, with a note.
#
# The pbmserv framework's licence forbids taking code from it: this script
# only runs it.
set -u
src=${1:-}
if [ -z "$src" ] || [ ! -f "$src/lyngk_main.cpp" ]; then
  cat >&2 <<'EOF'
usage: bench/vs_pbmserv.sh LYNGK_CHECKOUT [TABULA] [N]
LYNGK_CHECKOUT is a clone of the public repository lymanhurd/lyngk, which
holds the pbmserv framework's files:
  git clone https://github.com/lymanhurd/lyngk /tmp/lyngk
It is built here with its own makefile (g++ and make).
EOF
  exit 2
fi
tabula=$(realpath "${2:-./build/referee/tabula}")
n=${3:-60}
[ -x "$tabula" ] || { echo "no tabula binary at $tabula (build it first)" >&2; exit 2; }
floor=${FLOOR:-$(dirname "$tabula")/../bench/maildir_floor}
[ -x "$floor" ] && floor=$(realpath "$floor") || floor=
work=$(mktemp -d "${TMPDIR:-/tmp}/tabula-vs-pbmserv.XXXXXX")
# KEEP=1: the scratch folder stays (for a profile of one more deliver)
[ -n "${KEEP:-}" ] && echo "work: $work" >&2 || trap 'rm -rf "$work"' EXIT
cp -r "$src" "$work/lyngk" && rm -rf "$work/lyngk/.git"
(cd "$work/lyngk" && make -s lyngk >/dev/null 2>&1) || { echo "make lyngk failed" >&2; exit 1; }
python3 - "$work" "$tabula" "$n" "$floor" <<'PY'
import os, sqlite3, statistics, subprocess, sys, time
work, tabula, n, floor = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
lyngk = os.path.join(work, "lyngk", "lyngk")
home = os.path.join(work, "pbm")
os.makedirs(home + "/etc"); os.makedirs(home + "/games/Lyngk")
with open(home + "/etc/users", "w") as f:
    f.write("alice:secret:2:alice@example.invalid\nbob:hunter2:2:bob@example.invalid\n")
open(home + "/etc/vacation", "w").close()
penv = dict(os.environ, SENDER="alice@example.invalid", PBMHOME=home, PBMSENDMAIL="cat >/dev/null")
# Lyngk deals a random board, and on about one in four the bench's move
# c2-c3 is illegal: pbmserv then mails a refusal, exits 0 and saves nothing,
# a cheaper path than a move. So more boards are dealt, the move is tried
# on each in a copy of the whole pbmserv home, and only boards where it
# was played are timed; the home is then put back as it was dealt.
import shutil
for i in range(2 * n + 20):
    subprocess.run([lyngk, "challenge", "alice", "bob"], env=penv, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
dealt = home + ".dealt"
shutil.copytree(home, dealt)
boards = []
for g in sorted(int(x) for x in os.listdir(home + "/games/Lyngk") if x.isdigit()):
    subprocess.run([lyngk, "move", str(g), "alice", "secret", "c2-c3"], env=penv,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(home + "/games/Lyngk/%d" % g) as f:
        if "c2-c3" in f.read():
            boards.append(g)
shutil.rmtree(home)
shutil.copytree(dealt, home)
if len(boards) < n:
    sys.exit("only %d of the dealt Lyngk boards take c2-c3; need %d" % (len(boards), n))
boards = boards[:n]

seq = [0]
def mail(frm, to, subject, body):
    seq[0] += 1
    return ("From: %s\nTo: %s\nSubject: %s\nMessage-ID: <v%d@bench.example.org>\n"
            "Date: Sun, 22 Nov 2026 10:00:00 +0000\n\n%s\n" % (frm, to, subject, seq[0], body))

def setup(d, binary):
    """a store with n chess games started, and each game's first move mail"""
    cfg = d + "/t.ini"
    os.makedirs(d)
    with open(cfg, "w") as f:
        f.write("[tabula]\nstore_path = %s/db\ninbox = %s/in\noutbox = %s/out\n"
                "address = referee@example.org\ndomain = example.org\nlog_level = 2\n"
                "rate_limit = 0\nstranger_mails_per_hour = 100000\n" % (d, d, d))
    for sub in ("tmp", "new", "cur"):
        os.makedirs(os.path.join(d, "in", sub))
    def drop(data):
        name = "1700000000.M%dP1_0.bench" % seq[0]
        with open(os.path.join(d, "in", "tmp", name), "w") as f:
            f.write(data)
        os.rename(os.path.join(d, "in", "tmp", name), os.path.join(d, "in", "new", name))
    def poll():
        subprocess.run([binary, "poll", "-c", cfg], check=True, capture_output=True)
    for g in range(n):
        drop(mail("w%d@example.org" % g, "referee@example.org", "game", "new chess with b%d@example.org" % g))
    poll()
    # Each inviter confirms its first `new` from its address
    con = sqlite3.connect(d + "/db")
    keys = dict(con.execute("select address, key from confirmations"))
    con.close()
    for g in range(n):
        drop(mail("w%d@example.org" % g, "referee+confirm.%s@example.org" % keys["w%d@example.org" % g],
                  "Re: game", "confirm"))
    poll()
    con = sqlite3.connect(d + "/db")
    seats = {(r[0], r[1]): r[2] for r in con.execute("select game, seat, token from seats")}
    games = [r[0] for r in con.execute("select id from games order by id")]
    con.close()
    for g in games:
        drop(mail("b%d@example.org" % (g - 1), "referee+%d.%s@example.org" % (g, seats[(g, 1)]),
                  "Re: game", "accept"))
    poll()
    return cfg, [mail("w%d@example.org" % (g - 1), "referee+%d.%s@example.org" % (g, seats[(g, 0)]),
                      "Re: game", "e4") for g in games]

d = os.path.join(work, "tabula")
cfg, moves = setup(d, tabula)
# BASE=another tabula binary (e.g. the main branch's Release build): it
# delivers too, in its own store, alternating in the same run.
base = os.environ.get("BASE")
if base:
    base = os.path.realpath(base)
    bd = os.path.join(work, "base")
    bcfg, bmoves = setup(bd, base)

def timed(argv, env=None, stdin=None):
    """wall, CPU (user+sys of the child and what it waited for), exit code"""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.communicate(stdin.encode() if stdin else None)[1]
    # communicate reaped it: its rusage is the difference in RUSAGE_CHILDREN
    return time.perf_counter() - t0, p.returncode, err

import resource
def cpu_of(fn):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, rc, err = fn()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), rc, err

# tabula-deliver: the MTA's pipe while `tabula serve` runs on
# the store. It only leaves the mail in the daemon's inbox, durably; the
# daemon, woken by the new file, plays it and writes the two replies. Its
# cost is both processes': tabula-deliver's (wait4) and what the daemon
# spent from the delivery to the second reply (the CPU time of its
# threads, /proc/PID/task/*/schedstat, in ns). Wall: from the start of
# tabula-deliver to the second reply in the outbox.
thin = os.path.join(os.path.dirname(tabula), "tabula-deliver")
if not os.access(thin, os.X_OK):
    thin = None
if thin:
    sd = os.path.join(work, "serve")
    scfg, smoves = setup(sd, tabula)
    serve = subprocess.Popen([tabula, "serve", "-c", scfg], stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    def serve_ns():
        t = 0
        for task in os.listdir("/proc/%d/task" % serve.pid):
            with open("/proc/%d/task/%s/schedstat" % (serve.pid, task)) as f:
                t += int(f.read().split()[0])
        return t
    def replies_in(d):
        return len(os.listdir(os.path.join(d, "out", "new")))
    # serving: it holds the store's daemon lock (what tabula-deliver asks)
    for _ in range(500):
        if serve.poll() is not None:
            sys.exit("tabula serve ended at its start")
        if os.path.exists(sd + "/db.lock") and open(sd + "/db.lock").read().strip() == str(serve.pid):
            break
        time.sleep(0.01)
    time.sleep(1.0) # its first pass and its inbox watch
def thin_move(i):
    before = replies_in(sd)
    c0 = serve_ns()
    wall, cpu, rc, err = cpu_of(lambda: timed([thin, "-c", scfg], stdin=smoves[i]))
    if rc:
        sys.exit("tabula-deliver failed (exit %d): %s" % (rc, err.decode(errors="replace")[-500:]))
    t0 = time.perf_counter() - wall
    while replies_in(sd) < before + 2:
        if time.perf_counter() - t0 > 30:
            sys.exit("tabula serve wrote no replies to move %d in 30 s" % i)
        time.sleep(0.0005)
    end = time.perf_counter()
    time.sleep(0.002) # the daemon's last steps after the second file (its mark as sent)
    return end - t0, cpu, (serve_ns() - c0) / 1e9

# the floor's Maildir (maildir_floor deliver), on the same file system
fdir = os.path.join(work, "floor")
for sub in ("tmp", "new", "cur"):
    os.makedirs(os.path.join(fdir, sub))
def floor_run(args, i):
    wall, cpu, rc, err = cpu_of(lambda: timed([floor] + args, stdin=moves[i]))
    if rc:
        sys.exit("maildir_floor %s failed (exit %d): %s" % (args[0], rc, err.decode(errors="replace")[-500:]))
    return wall, cpu

load0 = os.getloadavg()
pw, pc, tw, tc, bw, bc = [], [], [], [], [], []
qw, qc, qs = [], [], []
sw, sc, fw, fc = [], [], [], []
for i in range(n):
    wall, cpu, rc, err = cpu_of(lambda: timed([lyngk, "move", str(boards[i]), "alice", "secret", "c2-c3"], env=penv))
    if rc:
        sys.exit("lyngk move %d failed: %s" % (boards[i], err.decode(errors="replace")[-500:]))
    pw.append(wall); pc.append(cpu)
    wall, cpu, rc, err = cpu_of(lambda: timed([tabula, "deliver", "-c", cfg], stdin=moves[i]))
    if rc:
        sys.exit("tabula deliver failed (exit %d): %s" % (rc, err.decode(errors="replace")[-500:]))
    tw.append(wall); tc.append(cpu)
    if base:
        wall, cpu, rc, err = cpu_of(lambda: timed([base, "deliver", "-c", bcfg], stdin=bmoves[i]))
        if rc:
            sys.exit("BASE deliver failed (exit %d): %s" % (rc, err.decode(errors="replace")[-500:]))
        bw.append(wall); bc.append(cpu)
    if thin:
        wall, cpu, scpu = thin_move(i)
        qw.append(wall); qc.append(cpu); qs.append(scpu)
    if floor:
        wall, cpu = floor_run(["start"], i)
        sw.append(wall); sc.append(cpu)
        wall, cpu = floor_run(["deliver", fdir], i)
        fw.append(wall); fc.append(cpu)
load1 = os.getloadavg()
if thin:
    serve.terminate()
    serve.wait()
con = sqlite3.connect(d + "/db")
journaled = con.execute("select count(*) from journal where kind = 'move'").fetchone()[0]
con.close()
replies = len(os.listdir(d + "/out/new"))
lyngk_moved = 0
for g in boards:
    with open(home + "/games/Lyngk/%d" % g) as f:
        lyngk_moved += "c2-c3" in f.read()
med = statistics.median
def q(xs, p):
    xs = sorted(xs); return xs[min(len(xs) - 1, int(p * len(xs)))]
print("one move: `lyngk move` (pbmserv framework) vs `tabula deliver` (MTA pipe), alternating,"
      " %d each, %d cores" % (n, os.cpu_count()))
print("%-22s %12s %12s %12s %12s" % ("", "CPU med ms", "CPU p90 ms", "wall med ms", "wall p90 ms"))
print("%-22s %12.2f %12.2f %12.2f %12.2f" % ("pbmserv lyngk move", med(pc) * 1e3, q(pc, .9) * 1e3, med(pw) * 1e3, q(pw, .9) * 1e3))
print("%-22s %12.2f %12.2f %12.2f %12.2f" % ("tabula deliver", med(tc) * 1e3, q(tc, .9) * 1e3, med(tw) * 1e3, q(tw, .9) * 1e3))
if base:
    print("%-22s %12.2f %12.2f %12.2f %12.2f" % ("BASE tabula deliver", med(bc) * 1e3, q(bc, .9) * 1e3, med(bw) * 1e3, q(bw, .9) * 1e3))
    print("ratio BASE/tabula: CPU %.2fx, wall %.2fx; pbmserv/BASE: CPU %.2fx" % (med(bc) / med(tc), med(bw) / med(tw), med(pc) / med(bc)))
print("ratio pbmserv/tabula: CPU %.2fx, wall %.2fx (goal: CPU >= 10x)" % (med(pc) / med(tc), med(pw) / med(tw)))
if thin:
    qt = [a + b for a, b in zip(qc, qs)]
    print()
    print("while `tabula serve` runs: tabula-deliver (queues the mail in the daemon's inbox)")
    print("%-22s %12s %12s %12s %12s" % ("", "CPU med ms", "CPU p90 ms", "wall med ms", "wall p90 ms"))
    print("%-22s %12.2f %12.2f %12s %12s" % ("tabula-deliver", med(qc) * 1e3, q(qc, .9) * 1e3, "", ""))
    print("%-22s %12.2f %12.2f %12s %12s" % ("serve, for that mail", med(qs) * 1e3, q(qs, .9) * 1e3, "", ""))
    print("%-22s %12.2f %12.2f %12.2f %12.2f" % ("both, to 2nd reply", med(qt) * 1e3, q(qt, .9) * 1e3, med(qw) * 1e3, q(qw, .9) * 1e3))
    print("ratio pbmserv/tabula-deliver: CPU %.2fx counting the daemon's share, %.2fx the pipe's process alone (goal: >= 10x)"
          % (med(pc) / med(qt), med(pc) / med(qc)))
print()
if floor:
    print("floor, same loop, the same move mail on standard input (bench/maildir_floor.c)")
    print("%-22s %12s %12s %12s %12s" % ("", "CPU med ms", "CPU p90 ms", "wall med ms", "wall p90 ms"))
    print("%-22s %12.2f %12.2f %12.2f %12.2f" % ("C start, read, exit", med(sc) * 1e3, q(sc, .9) * 1e3, med(sw) * 1e3, q(sw, .9) * 1e3))
    print("%-22s %12.2f %12.2f %12.2f %12.2f" % ("durable delivery", med(fc) * 1e3, q(fc, .9) * 1e3, med(fw) * 1e3, q(fw, .9) * 1e3))
    if thin:
        print("ratio tabula-deliver/durable-delivery floor: CPU %.2fx the pipe's process alone,"
              " %.2fx counting the daemon's share; wall %.2fx to the 2nd reply"
              % (med(qc) / med(fc), med(qt) / med(fc), med(qw) / med(fw)))
    print("ratio tabula deliver/durable-delivery floor: CPU %.2fx, wall %.2fx" % (med(tc) / med(fc), med(tw) / med(fw)))
    print("ratio pbmserv/durable-delivery floor: CPU %.2fx, wall %.2fx (the most any durable delivery"
          " could be cheaper than pbmserv on this disk; goal 10x)" % (med(pc) / med(fc), med(pw) / med(fw)))
else:
    print("floor: no maildir_floor binary beside tabula (BUILD/bench/maildir_floor; build the"
          " target maildir_floor, or FLOOR=path): floor rows skipped")
print("load average (1, 5, 15 min) before: %.2f %.2f %.2f, after: %.2f %.2f %.2f" % (load0 + load1))
print("check: tabula journaled %d of %d moves, wrote %d replies; pbmserv played %d of %d moves"
      % (journaled, n, replies, lyngk_moved, n))
if thin:
    con = sqlite3.connect(sd + "/db")
    sj = con.execute("select count(*) from journal where kind = 'move'").fetchone()[0]
    con.close()
    print("check: through serve, tabula journaled %d of %d moves, wrote %d replies"
          % (sj, n, replies_in(sd)))
    if sj != n:
        sys.exit("a move given to tabula-deliver was not played")
if journaled != n or lyngk_moved != n:
    sys.exit("a timed move was not played: the medians above are not of moves")
PY
