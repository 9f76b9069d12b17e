#!/usr/bin/env bash
# The store's engines side by side: bench/throughput.sh's 10,000 move mails
# (1,000 chess games x 10 plies, read from a Maildir, durable) on SQLite,
# on PostgreSQL with one process, and on PostgreSQL with two processes at
# once (each its own inbox and outbox, half the games each, one database:
# two daemons of a club on one server); then PostgreSQL's scale: the same
# moves on a store of 1,000 games and on one of BIG (1,000,000) games.
#
# usage: bench/engines.sh [TABULA=./build-release/referee/tabula] [ROUNDS=3]
#   env: GAMES (1000), PLIES (10), BATCH (batch_max, 256)
#        PART=throughput|scale|all (all)
#        KINDS ("sqlite1 pg1 pg2"): the rows, ENGINE and processes, each
#          with :BINARY for another tabula binary (B: a build before a change)
#        WRAP: a command to run the timed polls under (strace -c, perf record)
#        BIG (1000000), RUNNING (100000): the big store's games, of them
#        with a running clock (as bench/scale.sh)
# Point it at a Release build. Runs itself under tests/harness/pg_cluster.sh
# with TABULA_TEST_PG_DURABLE=1: a throwaway cluster on a Unix socket whose
# commits wait for the disk (fsync on, synchronous_commit on: what tabula
# asks of a PostgreSQL server, tabula.ini(5)), as SQLite's do
# (synchronous=FULL). Each round makes every store anew and plays the same
# games; the engines' order alternates from round to round (the machine
# is shared, its load changes), and the table gives medians.
#
# Timed: `tabula poll` over the 10,000 moves (each poll its batches of
# BATCH mails, one commit each), and the server's CPU: the cluster's
# processes (the postmaster's own and its reaped children's, and the live
# ones') read from /proc before and after, so "CPU a move" on PostgreSQL
# is tabula's and the server's together. moves/s is 10,000 over the
# processing time tabula logs (read, applied, committed, acknowledged; the
# longer of the two processes'), "whole" over the wall time of the polls
# (the 20,000 replies written to the outbox Maildirs included).
#
# The big store is made once, in SQL, not by mail: the 1,000 games played
# first are made through the mail, then generate_series copies them into
# BIG - 1,000 more games (their seats, journals and, for RUNNING of them, a clock due
# in a month) in one INSERT ... SELECT a table (bench/bigstore.py's shape,
# in PostgreSQL's words); nothing the moves touch is among them. Each
# later round plays 1,000 new games made by mail on it; the small store is
# made anew each round.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tabula=$(realpath "${1:-./build-release/referee/tabula}")
rounds=${2:-3}
[ -x "$tabula" ] || { echo "no tabula binary at $tabula (build it first)" >&2; exit 2; }
if [ -z "${TABULA_TEST_PG:-}" ]; then
  TABULA_TEST_PG_DURABLE=1 exec bash "$here/../tests/harness/pg_cluster.sh" \
    bash "$here/engines.sh" "$tabula" "$rounds"
fi
exec python3 - "$tabula" "$rounds" <<'PY'
import os, re, resource, shutil, sqlite3, statistics, subprocess, sys, tempfile, time
tabula, ROUNDS = sys.argv[1], int(sys.argv[2])
GAMES = int(os.environ.get("GAMES", 1000))
PLIES = int(os.environ.get("PLIES", 10))
BATCH = os.environ.get("BATCH", "256")
PART = os.environ.get("PART", "all")
BIG = int(os.environ.get("BIG", 1000000))
RUNNING = int(os.environ.get("RUNNING", 100000))
# WRAP: a command the timed polls run under, to see where the time goes
# (WRAP="strace -f -c -o /tmp/poll.strace", WRAP="perf record -g -o ...")
WRAP = os.environ.get("WRAP", "").split()
MOVES = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d3", "d6"][:PLIES]
PG, PGBIN, PGDIR = os.environ["TABULA_TEST_PG"], os.environ["TABULA_TEST_PG_BIN"], \
    os.environ["TABULA_TEST_PG_DIR"]
med = statistics.median
TICK = os.sysconf("SC_CLK_TCK")
schemas = [0]


def psql(sql, schema=None, quiet=True):
    conn = PG + (" options=-csearch_path=%s" % schema if schema else "")
    p = subprocess.run([PGBIN + "/psql", "-X", "-q", "-A", "-t", "-F", "\t", "-v",
                        "ON_ERROR_STOP=1", "-d", conn, "-c", sql], capture_output=True,
                       text=True)
    if p.returncode:
        sys.exit("psql: " + p.stderr[-2000:])
    return [line.split("\t") for line in p.stdout.splitlines() if line]


def server_cpu():
    """the cluster's CPU seconds so far: the postmaster's, its reaped
    children's (the backends of sessions that ended), its live children's"""
    with open(PGDIR + "/data/postmaster.pid") as f:
        pm = int(f.readline())
    total = 0
    for pid in [pm] + [int(p) for p in os.listdir("/proc") if p.isdigit()]:
        try:
            with open("/proc/%d/stat" % pid) as f:
                st = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields after the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
        if pid == pm:
            total += sum(int(x) for x in st[11:15])
        elif int(st[1]) == pm:
            total += int(st[11]) + int(st[12])
    return total / TICK


class Store:
    """one store (an SQLite file or a schema of the cluster) and NPROC
    configurations on it, each with its own inbox and outbox"""

    def __init__(self, engine, nproc, d, binary=None):
        self.engine, self.d, self.seq = engine, d, 0
        self.tabula = binary or tabula
        os.makedirs(d)
        if engine == "sqlite":
            line = "store_path = %s/db" % d
        else:
            schemas[0] += 1
            self.schema = "run%d" % schemas[0]
            psql("CREATE SCHEMA %s" % self.schema)
            line = "store = %s options=-csearch_path=%s" % (PG, self.schema)
        self.cfgs = []
        for k in range(nproc):
            cfg = "%s/t%d.ini" % (d, k)
            with open(cfg, "w") as f:
                f.write("[tabula]\n%s\ninbox = %s/in%d\noutbox = %s/out%d\n"
                        "address = referee@example.org\ndomain = example.org\nlog_level = 2\n"
                        "batch_max = %s\nrate_limit = 0\nstranger_mails_per_hour = 100000\n"
                        % (line, d, k, d, k, BATCH))
            for sub in ("tmp", "new", "cur"):
                os.makedirs("%s/in%d/%s" % (d, k, sub))
            self.cfgs.append(cfg)

    def sql(self, q):
        if self.engine == "sqlite":
            con = sqlite3.connect(self.d + "/db")
            rows = [tuple(str(x) for x in r) for r in con.execute(q)]
            con.close()
            return rows
        return [tuple(r) for r in psql(q, self.schema)]

    def drop(self, k, frm, to, body):
        self.seq += 1
        name = "1700000000.M%dP1_0.bench" % self.seq
        data = ("From: %s\nTo: %s\nSubject: Re: game\nMessage-ID: <e%d@bench.example.org>\n"
                "Date: Sun, 22 Nov 2026 10:00:00 +0000\n\n%s\n" % (frm, to, self.seq, body))
        inbox = "%s/in%d" % (self.d, k)
        with open(inbox + "/tmp/" + name, "w") as f:
            f.write(data)
        os.rename(inbox + "/tmp/" + name, inbox + "/new/" + name)

    def poll(self, k=0):
        p = subprocess.run([self.tabula, "poll", "-c", self.cfgs[k]], capture_output=True,
                           text=True)
        if p.returncode:
            sys.exit("poll failed: " + p.stderr[-2000:])
        return p.stderr

    def set_up(self, tag=0):
        """GAMES new games made by mail through the first inbox (not
        timed), between players w<tag>.<n> and b<tag>.<n>"""
        before = int(self.sql("select coalesce(max(id), 0) from games")[0][0]) if tag else 0
        for g in range(GAMES):
            self.drop(0, "w%d.%d@example.org" % (tag, g), "referee@example.org",
                      "new chess with b%d.%d@example.org" % (tag, g))
        self.poll()
        keys = dict(self.sql("select address, key from confirmations"))
        for g in range(GAMES):
            self.drop(0, "w%d.%d@example.org" % (tag, g),
                      "referee+confirm.%s@example.org" % keys["w%d.%d@example.org" % (tag, g)],
                      "confirm")
        self.poll()
        self.seats = {(int(r[0]), int(r[1])): r[2] for r in
                      self.sql("select game, seat, token from seats where game > %d" % before)}
        self.games = sorted({g for g, _ in self.seats})
        self.who = {g: ("w%d.%d@example.org" % (tag, g - before - 1),
                        "b%d.%d@example.org" % (tag, g - before - 1)) for g in self.games}
        self.moved = before
        for g in self.games:
            self.drop(0, self.who[g][1], "referee+%d.%s@example.org" % (g, self.seats[(g, 1)]),
                      "accept")
        self.poll()

    def moves(self):
        n = len(self.cfgs)
        for ply, mv in enumerate(MOVES):
            for i, g in enumerate(self.games):
                seat = ply % 2
                frm = self.who[g][seat]
                self.drop(i % n, frm, "referee+%d.%s@example.org" % (g, self.seats[(g, seat)]),
                          mv)

    def timed(self):
        """the polls of every process at once: wall, tabula's CPU, the
        server's, the longest processing time logged"""
        for k in range(len(self.cfgs)):
            out = "%s/out%d" % (self.d, k)
            if os.path.isdir(out):
                os.rename(out, out + ".setup")
        subprocess.run(["sync"])
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        s0 = server_cpu()
        t0 = time.perf_counter()
        procs = [subprocess.Popen(WRAP + [self.tabula, "poll", "-c", c], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True) for c in self.cfgs]
        logs = [p.communicate()[1] for p in procs]
        wall = time.perf_counter() - t0
        s1 = server_cpu()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        for p, log in zip(procs, logs):
            if p.returncode:
                sys.exit("poll failed: " + log[-2000:])
        proc = 0.0
        for log in logs:
            m = re.search(r"pass: \d+ message\(s\) processed in ([0-9.]+) s", log)
            if not m:
                sys.exit("no 'pass:' line in the poll's log:\n" + log[-2000:])
            proc = max(proc, float(m.group(1)))
        cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        moves = int(self.sql("select count(*) from journal where kind = 'move' and game > %d"
                             % self.moved)[0][0])
        left = sum(len(os.listdir("%s/in%d/new" % (self.d, k))) for k in range(len(self.cfgs)))
        if moves != GAMES * len(MOVES) or left:
            sys.exit("%s: %d moves journaled (not %d), %d mails left" % (
                self.engine, moves, GAMES * len(MOVES), left))
        return {"wall": wall, "proc": proc, "cpu": cpu,
                "server": s1 - s0 if self.engine == "pg" else 0.0}

    def drop_store(self):
        if self.engine == "pg":
            psql("DROP SCHEMA %s CASCADE" % self.schema)


def big_fill(st, total, running, t=GAMES):
    """total - t more games on the PostgreSQL store, copies of games 1..t,
    by generate_series (bench/bigstore.py's rows); returns the seconds"""
    t0 = time.time()
    now = int(time.time())
    extra = total - t
    q = """
      INSERT INTO games(id, kind, rules_version, options, phase, state, turn, result, created,
          updated, deadline, draw_offer_seat, snapshot)
        SELECT %(t)d + k.i, g.kind, g.rules_version, g.options,
          CASE WHEN k.i <= %(running)d THEN 'active' ELSE 'finished' END, g.state,
          CASE WHEN k.i <= %(running)d THEN g.turn ELSE -1 END,
          CASE WHEN k.i <= %(running)d THEN g.result ELSE 'White resigned' END,
          g.created, g.updated, g.deadline, g.draw_offer_seat, g.snapshot
        FROM generate_series(1, %(extra)d) AS k(i) JOIN games g ON g.id = 1 + (k.i %% %(t)d);
      INSERT INTO seats(game, seat, address, token, accepted, entropy)
        SELECT %(t)d + k.i, s.seat, s.address, s.token || to_hex(k.i), s.accepted, s.entropy
        FROM generate_series(1, %(extra)d) AS k(i) JOIN seats s ON s.game = 1 + (k.i %% %(t)d);
      INSERT INTO journal(game, seq, time, seat, kind, text, dice, prev_hash, hash)
        SELECT %(t)d + k.i, j.seq, j.time, j.seat, j.kind, j.text, j.dice, j.prev_hash, j.hash
        FROM generate_series(1, %(extra)d) AS k(i) JOIN journal j ON j.game = 1 + (k.i %% %(t)d);
      INSERT INTO clocks(game, days, weekends, seat, moves, started, deadline, reminded,
          next_event)
        SELECT %(t)d + k.i, c.days, c.weekends, c.seat, c.moves, %(now)d, %(deadline)d, 0,
          %(next)d
        FROM generate_series(1, %(running)d) AS k(i) JOIN clocks c ON c.game = 1 + (k.i %% %(t)d);
      SELECT setval(pg_get_serial_sequence('games', 'id'), max(id)) FROM games;
    """ % {"extra": extra, "t": t, "running": running, "now": now,
           "deadline": now + 30 * 86400, "next": now + 25 * 86400}
    psql(q, st.schema)
    psql("VACUUM ANALYZE", st.schema)
    return time.time() - t0


def label(k):
    return "%s, %d process%s%s" % ("SQLite" if k[0] == "sqlite" else "PostgreSQL", k[1],
                                   "es" if k[1] > 1 else "", " (B)" if k[2] else "")


def row(name, rs, base=None):
    n = GAMES * len(MOVES)
    mps = n / med(r["proc"] for r in rs)
    whole = n / med(r["wall"] for r in rs)
    cpu = med(r["cpu"] for r in rs) / n * 1e3
    srv = med(r["server"] for r in rs) / n * 1e3
    tot = med(r["cpu"] + r["server"] for r in rs) / n * 1e3
    ratio = "" if base is None else "%9.2f %9.2f" % (mps / base[0], tot / base[1])
    print("%-26s %9.0f %9.0f %9.3f %9.3f %9.3f %s" % (name, mps, whole, cpu, srv, tot, ratio))
    return mps, tot


load0 = os.getloadavg()
work = tempfile.mkdtemp(prefix="tabula-engines.", dir=os.environ.get("TMPDIR", "/tmp"))
print("engines: %d move mails (%d chess games x %d plies) by `tabula poll`, batch_max %s,"
      " durable on both engines (SQLite synchronous=FULL; PostgreSQL fsync on,"
      " synchronous_commit on, on a Unix socket); %d rounds, %d cores; %s" % (
          GAMES * len(MOVES), GAMES, len(MOVES), BATCH, ROUNDS, os.cpu_count(),
          psql("SHOW server_version")[0][0] and "PostgreSQL " + psql("SHOW server_version")[0][0]),
      flush=True)
try:
    if PART in ("throughput", "all"):
        # ENGINE PROCESSES[:BINARY]: another tabula binary for that column
        # (a build before a change, beside the one being measured)
        kinds = []
        for k in os.environ.get("KINDS", "sqlite1 pg1 pg2").split():
            k, _, b = k.partition(":")
            kinds.append((k[:-1], int(k[-1]), b))
        res = {k: [] for k in kinds}
        for r in range(ROUNDS):
            order = kinds if r % 2 == 0 else kinds[::-1]
            for n, (eng, nproc, b) in enumerate(order):
                st = Store(eng, nproc, "%s/%s%d.%d.%d" % (work, eng, nproc, r, n), b)
                st.set_up()
                st.moves()
                res[(eng, nproc, b)].append(st.timed())
                st.drop_store()
            print("  round %d (%s): %s" % (r + 1, ", ".join(label(k) for k in order), "; ".join(
                "%s %.0f moves/s, %.3f ms CPU a move" % (
                    label(k), GAMES * len(MOVES) / res[k][-1]["proc"],
                    (res[k][-1]["cpu"] + res[k][-1]["server"]) / GAMES / len(MOVES) * 1e3)
                for k in kinds)), flush=True)
        print("%-26s %9s %9s %9s %9s %9s %9s %9s" % ("medians", "moves/s", "whole/s",
                                                     "CPU ms", "server ms", "total ms",
                                                     "x moves/s", "x CPU"))
        base = None
        for k in kinds:
            b = row(label(k), res[k], base)
            base = base or b
        for k in kinds:
            if k[2]:
                print("  %s: %s" % (label(k), k[2]))
        print("  moves/s: the moves over tabula's logged processing time (the longer process's);"
              " whole/s: over the polls' wall time; CPU a move: tabula (user+sys), the server's"
              " processes, both; x: the ratio to SQLite's")
    if PART in ("scale", "all"):
        res = {"small": [], "big": []}
        print("scale on PostgreSQL: the same moves on a store of %d games and of %d (%d running"
              " clocks)" % (GAMES, BIG, RUNNING), flush=True)
        big = None
        for r in range(ROUNDS):
            for name in (("small", "big") if r % 2 == 0 else ("big", "small")):
                if name == "small":
                    st = Store("pg", 1, "%s/scale-small.%d" % (work, r))
                    st.set_up()
                elif big is None:
                    # made once; each round plays GAMES new games made by mail
                    st = big = Store("pg", 1, "%s/scale-big" % work)
                    st.set_up()
                    secs = big_fill(st, BIG, RUNNING)
                    n = int(st.sql("select count(*) from games")[0][0])
                    size = psql("SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid)))"
                                " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                                " WHERE n.nspname = '%s' AND c.relkind = 'r'" % st.schema)[0][0]
                    print("  big store made: %d games in %.0f s (generate_series), %s"
                          % (n, secs, size), flush=True)
                else:
                    st = big
                    st.set_up(r)
                    for k in range(len(st.cfgs)):
                        os.rename("%s/out%d" % (st.d, k), "%s/out%d.round%d" % (st.d, k, r))
                st.moves()
                res[name].append(st.timed())
                if name == "small":
                    st.drop_store()
            print("  round %d: CPU a move (tabula + server) small %.3f ms, big %.3f ms" % (
                r + 1, (res["small"][-1]["cpu"] + res["small"][-1]["server"]) / GAMES / len(MOVES)
                * 1e3, (res["big"][-1]["cpu"] + res["big"][-1]["server"]) / GAMES / len(MOVES)
                * 1e3), flush=True)
        print("%-26s %9s %9s %9s %9s %9s %9s %9s" % ("medians", "moves/s", "whole/s",
                                                     "CPU ms", "server ms", "total ms",
                                                     "x moves/s", "x CPU"))
        base = row("PostgreSQL, %d games" % GAMES, res["small"])
        row("PostgreSQL, %d games" % BIG, res["big"], base)
        print("  x: big over small (goal: CPU a move within 1.2x)")
finally:
    shutil.rmtree(work, ignore_errors=True)
load1 = os.getloadavg()
print("load average (1, 5, 15 min) before: %.2f %.2f %.2f, after: %.2f %.2f %.2f" % (load0 + load1))
PY
