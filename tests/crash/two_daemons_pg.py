#!/usr/bin/env python3
"""Crash trials with two daemons on one PostgreSQL database.

usage: two_daemons_pg.py TABULA [SOURCE_DIR] [--trials N] [--mails M] [--kills K]
                         [--seed S] [--measure] [--keep]
Run under tests/harness/pg_cluster.sh (TABULA_TEST_PG, TABULA_TEST_PG_BIN).

Two `tabula serve` on one database, as on two MX hosts: each reads an inbox
of its own, both send (into one outbox Maildir: the replies' spool), and
kill -9 strikes one of them, or both, at random moments, 1..K times a
trial; a daemon killed is started again (its host comes back). The
workload and the checks are tests/crash/crash_trials.py's (the same
mails, compared with a run without a kill): 0 moves lost, 0 applied twice,
every journal entry as in the run without a kill (hash chain included),
every reply in the store sent and in exactly one file, `tabula check` clean.

How the mails are shared out, as two MX hosts would see them: each game's
mails go to one inbox (a player writes his next move after he read the
answer to the last, so a game's mails never overtake each other; which
host gets them is drawn per game), the mails that make games (`new`, the
answers to `confirm`) to the first (so the games' numbers are those of
the reference run), strangers' mails to either; and some mails come in
through both hosts at once (the first move of each game, one stranger's
mail in three): each of those is processed once, whoever reads it.

Then one trial more: the first daemon, the one that ticks, is killed for
good halfway; what its host had not read goes to the other (the senders'
MTAs try the second MX), which carries the club alone, and takes over the
tick: the clock moves on past the invitations' deadline, and the second
daemon cancels them and tells the inviters, each once.

--measure also times the workload through one daemon (everything in one
inbox) against two, no kill (the figures of the notes).
"""
import argparse
import csv
import io
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import crash_trials as ct  # noqa: E402
import testkit  # noqa: E402  (put on the path by crash_trials)
from testkit import check, finish, tidy  # noqa: E402

PG = os.environ.get("TABULA_TEST_PG")
PSQL = os.path.join(os.environ.get("TABULA_TEST_PG_BIN", "/usr/bin"), "psql")
INBOXES = ("in1", "in2")


def literal(v):
    return str(v) if isinstance(v, int) else "'" + str(v).replace("'", "''") + "'"


def value(f):
    if f is None:
        return None
    return int(f) if re.fullmatch(r"-?\d{1,18}", f) else f


class PgStore:
    """crash_trials.py's store on PostgreSQL: a database per run, made from
    the snapshot's (CREATE DATABASE ... TEMPLATE: the same tokens, dice
    seeds and store id)."""

    def __init__(self):
        self.base = re.sub(r"dbname=\S+", "", PG).strip()

    def db(self, root):
        return "crash_" + os.path.basename(root).replace("-", "_")

    def conninfo(self, root):
        return "%s dbname=%s" % (self.base, self.db(root))

    def psql(self, dbname, command):
        p = subprocess.run([PSQL, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d",
                            "%s dbname=%s" % (self.base, dbname), "-c", command],
                           capture_output=True, timeout=120)
        if p.returncode:
            raise RuntimeError("psql: %s" % p.stderr.decode(errors="replace"))
        return p.stdout.decode()

    def config(self, root):
        if not os.path.basename(root).startswith("snapshot"):
            return {"store": self.conninfo(root)}
        if not hasattr(self, "made_snapshot"):
            self.psql("tabula", "CREATE DATABASE %s" % self.db(root))
            self.made_snapshot = True
        return {"store": self.conninfo(root)}

    def fresh(self, root, snap):
        db = self.db(root)
        self.psql("tabula", "DROP DATABASE IF EXISTS %s WITH (FORCE)" % db)
        self.psql("tabula", "CREATE DATABASE %s TEMPLATE %s" % (db, self.db(snap)))

    def rows(self, root, query, params=()):
        for p in params:
            query = query.replace("?", literal(p), 1)
        out = self.psql(self.db(root),
                        "COPY (%s) TO STDOUT WITH (FORMAT csv, NULL '\\N')" % query)
        return [tuple(None if f == "\\N" else value(f) for f in r)
                for r in csv.reader(io.StringIO(out, newline=""))]


# ---- comparing with the reference ----

NORMALISE = ct.normalise  # crash_trials.py's, kept: differences() stands in for it
# a game's number where a reply names it: its address (normalised:
# referee+N.KEY@), its subject's tag, its words; not a board's edge (+13-14-)
GAME_NUMBER = re.compile(r"(\+)(\d+)(?=\.KEY@)|(\[tabula |\bGame |\bgame |Game number: "
                         r"|^Record checkpoint: \S+/game/|^Record (?:entry|sealed): )(\d+)\b", re.M)
# The history block's hashes (docs/history-protocol.md): a game's leaves
# hold its number, so a renumbered game's roots, proofs and signatures
# differ from the reference's by nature; its tree is checked by `tabula
# check` and the history tests, its numbers and entries here.
RECORD_HASH = re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")


def record_hashes(text):
    return re.sub(r"^Record [a-z]+:.*$", lambda m: RECORD_HASH.sub("H", m.group(0)), text,
                  flags=re.M)


def renumbered(c, made_before):
    """The run's journal and replies with the games made during the run
    numbered by their order (G1, G2, ...), their entries' hashes left out.
    A game's number comes from an identity column, and PostgreSQL does not
    give back a number a rolled-back transaction drew (a kill in the middle
    of a batch): the numbers may have gaps, so differ from the reference's;
    what each game holds may not. Their chains are `tabula check`'s."""
    made = sorted({j[0] for j in c["journal"] if j[0] > made_before})
    order = {g: "G%d" % (i + 1) for i, g in enumerate(made)}

    def game(m):
        lead, g = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        return lead + order.get(int(g), g)
    journal = [(order.get(j[0], j[0]),) + tuple(j[1:7]) + ("" if j[0] in order else j[7],)
               for j in c["journal"]]
    # folded lines unfolded: a longer number folds a subject elsewhere
    rows = [tuple(r[:4]) + (record_hashes(GAME_NUMBER.sub(game, re.sub(r"\r?\n[ \t]+", " ",
                                                                      NORMALISE(r[4])))),)
            for r in c["rows"]]
    return {"journal": journal, "outcomes": c["outcomes"], "rows": rows, "files": c["files"]}


def odd_rows(ref, got, made_before):
    """For a failure's story: a reply of each run the other lacks."""
    rr = [r[4] for r in renumbered(ref, made_before)["rows"]]
    gr = [r[4] for r in renumbered(got, made_before)["rows"]]
    a = [x for x in rr if x not in gr][:1]
    b = [x for x in gr if x not in rr][:1]
    if not a or not b:
        return (a, b)
    import difflib
    return "\n".join(difflib.unified_diff(a[0].split("\n"), b[0].split("\n"), lineterm="", n=1))


def differences(ref, got, made_before):
    """crash_trials.compare: journals and replies' texts compared
    renumbered (above), the reply files checked as they are."""
    keep = ct.normalise
    ct.normalise = lambda text: text  # renumbered() normalised them already
    try:
        diff = ct.compare(renumbered(ref, made_before), renumbered(got, made_before), "none")
    finally:
        ct.normalise = keep
    files = ct.compare(got, got, "maildir")
    for k in ("replies_lost", "reply_files_duplicate", "reply_files_wrong"):
        diff[k] = files[k]
    return diff


# ---- the club: two daemons, two inboxes ----

def configs(root, **kv):
    """t1.ini and t2.ini: one store, one outbox, an inbox each."""
    out = []
    for k, inbox in enumerate(INBOXES, 1):
        ct.write_config(root, **kv)
        os.rename(root + "/t.ini", root + "/t%d.ini" % k)
        with open(root + "/t%d.ini" % k) as f:
            text = f.read()
        text = re.sub(r"^inbox = .*$", "inbox = %s/%s" % (root, inbox), text, flags=re.M)
        with open(root + "/t%d.ini" % k, "w") as f:
            f.write(text)
        for sub in ("tmp", "new", "cur"):
            os.makedirs(os.path.join(root, inbox, sub), exist_ok=True)
        out.append(root + "/t%d.ini" % k)
    return out


def share_out(mails, rng):
    """[(mail, [inbox numbers])] in arrival order (module docstring)."""
    host = {}
    first = set()
    out = []
    for data in mails:
        text = data.decode()
        to = re.search(r"^To: (.*)$", text, re.M).group(1)
        frm = re.search(r"^From: (.*)$", text, re.M).group(1)
        game = re.match(r"referee\+(\d+)\.", to)
        if game:
            g = int(game.group(1))
            k = host.setdefault(g, rng.choice((1, 2)))
            if g not in first:  # nothing before it in its game: safe on both
                first.add(g)
                out.append((data, [k, 3 - k]))
            else:
                out.append((data, [k]))
        elif frm.startswith("stranger"):
            k = rng.choice((1, 2))
            out.append((data, [k, 3 - k] if rng.random() < 1 / 3 else [k]))
        else:
            out.append((data, [1]))
    return out


def drop(root, shared):
    for i, (data, where) in enumerate(shared):
        for k in where:
            name = "1795600000.M%06dP%d_0.crash" % (i, k)
            d = os.path.join(root, INBOXES[k - 1])
            with open(os.path.join(d, "tmp", name), "wb") as f:
                f.write(data)
            os.rename(os.path.join(d, "tmp", name), os.path.join(d, "new", name))


class Daemon:
    def __init__(self, root, k, cfg):
        self.root, self.k, self.cfg = root, k, cfg
        self.log_path = os.path.join(root, "serve%d.log" % k)
        self.p = None
        self.before = 0

    def said(self):
        try:
            with open(self.log_path, errors="replace") as f:
                return f.read().count("serving:")
        except FileNotFoundError:
            return 0

    def start(self):
        self.before = self.said()  # a daemon killed before it said so says it now
        log = open(self.log_path, "a")
        self.p = subprocess.Popen([ct.TABULA, "serve", "-c", self.cfg], stderr=log,
                                  stdout=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
        log.close()

    def serving(self):
        return self.said() > self.before

    def kill(self):
        if self.p and self.p.poll() is None:
            self.p.kill()
        if self.p:
            self.p.wait()
        self.p = None

    def stop(self):
        """SIGTERM once it listens for it; its exit status."""
        if not self.p:
            return 0
        t0 = time.time()
        while self.p.poll() is None and not self.serving() and time.time() - t0 < 60:
            time.sleep(0.02)
        self.p.send_signal(signal.SIGTERM)
        rc = self.p.wait(timeout=60)
        self.p = None
        return rc


def read_out(root):
    """A reader of the outbox Maildir (the MTA's pickup, a mail client):
    what is in new/ goes to cur/, seen. A reply sent twice then makes a
    second file in new/ beside the first in cur/ instead of landing on it
    under the same name, so the trial counts it; the flush looks for the
    replies of a daemon that died in both (sink_maildir.c)."""
    new = os.path.join(root, "out", "new")
    for f in os.listdir(new):
        try:
            os.rename(os.path.join(new, f), os.path.join(root, "out", "cur", f + ":2,S"))
        except FileNotFoundError:
            pass


def until_done(root, daemons, timeout=600):
    t0 = time.time()
    while time.time() - t0 < timeout and not (
            all(d.serving() for d in daemons if d.p) and ct.done(root, INBOXES)):
        read_out(root)
        time.sleep(0.02)
    read_out(root)
    return time.time() - t0


def run_club(root, shared, kills, rng, took=None):
    """Both daemons on the shared-out mails; kills: [(delay, victims)].
    Returns (seconds, exit statuses)."""
    cfgs = configs(root)
    drop(root, shared)
    daemons = [Daemon(root, k, cfg) for k, cfg in enumerate(cfgs, 1)]
    t0 = time.time()
    for d in daemons:
        d.start()
    for delay, victims in kills:
        end = time.time() + delay
        while time.time() < end and not ct.done(root, INBOXES):
            read_out(root)
            time.sleep(0.005)
        for k in victims:
            daemons[k - 1].kill()
        time.sleep(rng.uniform(0, 0.2))
        for k in victims:
            daemons[k - 1].start()
    until_done(root, daemons)
    took = time.time() - t0
    return took, [d.stop() for d in daemons]


def one_daemon(root, mails):
    """The workload through one daemon and one inbox (--measure)."""
    cfg = configs(root)[0]
    drop(root, [(m, [1]) for m in mails])
    d = Daemon(root, 1, cfg)
    t0 = time.time()
    d.start()
    until_done(root, [d])
    took = time.time() - t0
    d.stop()
    return took


def moved_on(root, d2, ref, last_row, clock):
    """The clock moves past the invitations' deadline: d2 (alone now)
    ticks. Returns the rows the tick queued."""
    with open(root + "/clock", "w") as f:
        f.write("%d\n" % clock)
    t0 = time.time()
    while time.time() - t0 < 120:
        with open(d2.log_path, errors="replace") as f:
            log = f.read()
        if "runs the time-driven work" in log and ct.done(root, INBOXES):
            break
        read_out(root)
        time.sleep(0.05)
    time.sleep(0.5)
    read_out(root)
    return [r for r in ct.collect(root, last_row)["rows"] if r[3] >= clock]


def ticking(d):
    with open(d.log_path, errors="replace") as f:
        return "runs the time-driven work" in f.read()


def wake_trial(work, snap):
    """The daemons wake each other (LISTEN/NOTIFY): with poll_ms at ten
    minutes and the clock standing still, the second daemon has no reason
    of its own to look at the tick's lock again; the first, stopped, calls
    it as its session ends, and it takes the tick up at once."""
    root = ct.fresh(work, "wake", snap)
    cfgs = configs(root, poll_ms="600000")
    d1, d2 = Daemon(root, 1, cfgs[0]), Daemon(root, 2, cfgs[1])
    d1.start()
    ok1 = testkit.wait_for(lambda: d1.serving() and ticking(d1), 60)
    d2.start()
    ok2 = testkit.wait_for(d2.serving, 60)
    time.sleep(1.0)  # d2's first tick, which finds the lock d1's
    before = ticking(d2)
    t0 = time.time()
    rc1 = d1.stop()
    woke = testkit.wait_for(lambda: ticking(d2), 10)
    took = time.time() - t0
    rc2 = d2.stop()
    check("woken by a call: daemon 1 ticks, daemon 2 does not; daemon 1 stops and daemon 2 "
          "takes the tick up %.2f s later (poll_ms 10 minutes, the clock standing)" % took,
          ok1 and ok2 and not before and woke and rc1 == 0 and rc2 == 0,
          (ok1, ok2, before, woke, rc1, rc2))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tabula")
    ap.add_argument("source", nargs="?", default=os.path.join(HERE, "..", ".."))
    ap.add_argument("--trials", type=int, default=6)
    ap.add_argument("--mails", type=int, default=200)
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("--seed", type=int, default=29)
    ap.add_argument("--measure", action="store_true")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    if not PG:
        print("two_daemons_pg: needs TABULA_TEST_PG (tests/harness/pg_cluster.sh)", file=sys.stderr)
        return 77
    ct.TABULA = os.path.abspath(a.tabula)
    ct.ENGINE = PgStore()
    rng = random.Random(a.seed)
    ngames = max(4, (a.mails - 64) // 28)
    work = tempfile.mkdtemp(prefix="tabula-crash2.")
    t_start = time.time()
    try:
        snap, tok, n0, last_row, confirmations = ct.snapshot(work, ngames)
        mails, expect = ct.workload(tok, ngames, n0, a.mails, rng, confirmations)
        shared = share_out(mails, rng)
        made_before = int(ct.ENGINE.rows(snap, "select max(id) from games")[0][0])
        both = sum(1 for _, w in shared if len(w) == 2)

        # the reference: both daemons, no kill
        ref_root = ct.fresh(work, "reference", snap)
        took, rcs = run_club(ref_root, shared, [], rng)
        ref = ct.collect(ref_root, last_row)
        played = {}
        for g, _, _, _, k, t, _, _ in ref["journal"]:
            if k == "move" and g in expect:
                played.setdefault(g, []).append(t)
        check("reference: %d mails (%d through both hosts), %d games, two daemons, every "
              "scripted move played in order, in %.2f s" % (len(mails), both, ngames, took),
              rcs == [0, 0] and all(played.get(g) == expect[g] for g in expect),
              (rcs, [(g, played.get(g)) for g in expect if played.get(g) != expect[g]][:2]))
        base = ct.compare(ref, ref, "maildir")
        check("reference: one file per reply (%d replies)" % len(ref["rows"]),
              not base["replies_lost"] and not base["reply_files_duplicate"], base)
        if a.measure:
            one_root = ct.fresh(work, "one", snap)
            one = one_daemon(one_root, mails)
            two_root = ct.fresh(work, "two", snap)
            two, _ = run_club(two_root, shared, [], rng)
            print("     measure: %d mails, one daemon %.2f s, two daemons %.2f s"
                  % (len(mails), one, two), flush=True)

        keys = ["moves_lost", "moves_twice", "journal_differs", "outcomes_differ", "rows_differ",
                "rows_unsent", "replies_lost", "reply_files_duplicate", "reply_files_wrong"]
        totals = {k: 0 for k in keys}
        kills_total = {"1": 0, "2": 0, "both": 0}
        print("     trial kills(1/2/both)  " + " ".join(keys), flush=True)
        for trial in range(a.trials):
            root = ct.fresh(work, "trial", snap)
            kills = []
            for _ in range(rng.randint(1, a.kills)):
                victims = rng.choice(([1], [2], [1, 2]))
                kills.append((rng.uniform(0, took * 1.1), victims))
                kills_total["both" if len(victims) == 2 else str(victims[0])] += 1
            _, rcs = run_club(root, shared, kills, rng)
            got = ct.collect(root, last_row)
            diff = differences(ref, got, made_before)
            p = ct.run("check", root + "/t1.ini")
            bad = [k for k in keys if diff.get(k)] + (["check"] if p.returncode else []) + \
                  (["serve rc %s" % rcs] if any(rcs) else [])
            for k in keys:
                totals[k] += diff.get(k, 0)
            what = "/".join(str(sum(1 for _, v in kills if v == w)) for w in ([1], [2], [1, 2]))
            print("     %5d %-16s %s%s" % (trial, what, " ".join("%*d" % (len(k), diff.get(k, 0))
                                                               for k in keys),
                                         "  <- " + ", ".join(bad) if bad else ""), flush=True)
            if bad:
                check("trial %d" % trial, False, "%s\n%s\n%s" % (
                    diff, p.stdout[-1500:], odd_rows(ref, got, made_before) if diff["rows_differ"] else ""))
                if a.keep:
                    shutil.copytree(root, os.path.join(work, "failed-%d" % trial))
        n_kills = sum(kills_total.values())
        print("     total kills: daemon 1 %d, daemon 2 %d, both %d; %s"
              % (kills_total["1"], kills_total["2"], kills_total["both"],
                 " ".join("%s %d" % kv for kv in totals.items())), flush=True)
        check("%d trials, %d kills (of one daemon or both): 0 moves lost, 0 applied twice, "
              "journals as without a kill, 0 replies lost, 0 duplicate reply files, check clean"
              % (a.trials, n_kills), not any(totals.values()), totals)

        wake_trial(work, snap)

        # one daemon killed for good: the other carries the club, tick included
        root = ct.fresh(work, "alone", snap)
        cfgs = configs(root)
        d1, d2 = Daemon(root, 1, cfgs[0]), Daemon(root, 2, cfgs[1])
        d1.start()  # first, on empty inboxes: its first tick takes the tick's lock
        t0 = time.time()
        while time.time() - t0 < 60 and not (
                d1.serving() and "runs the time-driven work" in open(d1.log_path).read()):
            time.sleep(0.02)
        d2.start()
        while not d2.serving() and time.time() - t0 < 60:
            time.sleep(0.02)
        time.sleep(0.2)  # d2's first tick, which finds the lock d1's
        drop(root, shared)
        t0 = time.time()
        end = time.time() + rng.uniform(0.2, 0.6) * took
        while time.time() < end:
            read_out(root)
            time.sleep(0.02)
        d1.kill()  # for good
        moved = 0
        for f in sorted(os.listdir(os.path.join(root, "in1", "new"))):
            os.rename(os.path.join(root, "in1", "new", f), os.path.join(root, "in2", "new", f))
            moved += 1
        until_done(root, [d2])
        got = ct.collect(root, last_row)
        diff = differences(ref, got, made_before)
        check("daemon 1 killed for good after %.1f s, %d unread mails go to daemon 2: it "
              "carries the club alone, as in the reference" % (time.time() - t0, moved),
              not any(diff.values()),
              (diff, odd_rows(ref, got, made_before) if diff["rows_differ"] else ""))
        with open(d2.log_path, errors="replace") as f:
            ticked_before = "runs the time-driven work" in f.read()
        invited = int(ct.ENGINE.rows(root, "select count(*) from games where phase = 'invited'")[0][0])
        rows = moved_on(root, d2, ref, last_row, ct.CLOCK + 40 * 86400)
        with open(d2.log_path, errors="replace") as f:
            log = f.read()
        left = int(ct.ENGINE.rows(root, "select count(*) from games where phase = 'invited'")[0][0])
        rc = d2.stop()
        after = ct.collect(root, last_row)
        # the tick's rows alone: it also pruned the sent replies older than
        # outbox_keep_days, whose files now belong to no row
        after["rows"] = [r for r in after["rows"] if r[3] >= ct.CLOCK + 40 * 86400]
        files = ct.compare(after, after, "maildir")
        files["reply_files_duplicate"] -= sum(
            len(v) for k, v in after["files"].items()
            if k not in {ct.msgid(r[4]) for r in after["rows"]})
        p = ct.run("check", root + "/t2.ini")
        check("the tick: daemon 2 did not tick while daemon 1 held it (%s), took it over "
              "(\"runs the time-driven work\"), cancelled %d unanswered invitations (%d left) "
              "and queued %d mails, each sent once" % (
                  "no" if not ticked_before else "it did", invited - left, left, len(rows)),
              not ticked_before and "runs the time-driven work" in log and invited > 0 and
              left == 0 and rows and not files["replies_lost"] and
              not files["reply_files_duplicate"] and not files["rows_unsent"] and rc == 0,
              (invited, left, len(rows), files, rc))
        check("tabula check clean after the trial alone", p.returncode == 0, p.stdout[-1500:])
    except Exception as e:  # a crash is a failure with its story
        import traceback
        traceback.print_exc()
        check("the trials ran", False, repr(e))
    finally:
        tidy(work, keep=a.keep)
    return finish(note=" (%.0f s)" % (time.time() - t_start))


if __name__ == "__main__":
    sys.exit(main())
