#!/usr/bin/env python3
"""Crash trials: kill -9 at any moment changes nothing.

usage: crash_trials.py TABULA [SOURCE_DIR] [--trials N] [--mails M] [--kills K]
                       [--seed S] [--sink maildir|smtp] [--keep]

A scripted workload (chess games with legal moves, illegal moves, board
queries, byte-identical duplicates, confirmations that send invitations,
first `new`s that ask to be confirmed, and backgammon games
refusing plays) goes through the daemon while it is killed with SIGKILL at
random moments, 1..K times a trial, then restarted until everything is
answered. Each trial is compared with the same workload run once without a
kill:
  moves        the journal, entry by entry, with its hash chain
  outcomes     every message's outcome ("applied", "refused", ...)
  replies      every reply the store holds, and, with the Maildir sink,
               exactly one file for each (new/ or cur/): 0 lost, 0 duplicates;
               with the SMTP sink (tests/harness/mailharness.sh: Dovecot and
               Postfix on loopback), every reply delivered, at most one extra
               delivery per kill.
The kill moments are random; the assertions hold for every one of them,
because everything else is fixed: the store starts from one snapshot (same
tokens, same dice), the clock is a file (test_clock_file), and what differs
by nature (the Message-IDs tabula makes, the keys of games invited and of
confirmations asked during the workload) is compared after normalising.

CI runs a short version (tests/CMakeLists.txt); bench/crash_trials.sh the
long one. Prints a table, then "N passed, M failed".
"""
import argparse
import email
import email.policy
import os
import random
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

CLOCK = 1795600000  # 2026-11-25 07:06:40 UTC, for every process of every run

# Legal lines (20 plies each); game g plays LINES[g % 4].
LINES = [
    "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7 Re1 b5 Bb3 d6 c3 O-O h3 Nb8 d4 Nbd7",
    "d4 d5 c4 e6 Nc3 Nf6 Bg5 Be7 e3 O-O Nf3 h6 Bh4 b6 cxd5 Nxd5 Bxe7 Qxe7 Nxd5 exd5",
    "e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6 Be3 e5 Nb3 Be6 f3 Be7 Qd2 O-O O-O-O Nbd7",
    "c4 e5 Nc3 Nf6 Nf3 Nc6 g3 d5 cxd5 Nxd5 Bg2 Nb6 O-O Be7 d3 O-O a3 Be6 b4 f6",
]

TABULA = None
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from testkit import check, finish, tidy  # noqa: E402  (tests/harness/testkit.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import mailcases  # noqa: E402  (the mail client of tests/mailcases.py)


# ---- the store's engine ----

class SqliteStore:
    """The store as a file, root/db, copied from the snapshot's for a run.
    tests/crash/two_daemons_pg.py puts a PostgreSQL one in its place
    (ENGINE): the same three operations."""

    def config(self, root):
        return {}

    def fresh(self, root, snap):
        shutil.copy(os.path.join(snap, "db"), os.path.join(root, "db"))

    def rows(self, root, query, params=()):
        con = sqlite3.connect("file:%s/db" % root, uri=True, timeout=30)
        try:
            return con.execute(query, params).fetchall()
        finally:
            con.close()


ENGINE = SqliteStore()


# ---- a store and its workload ----

def write_config(root, **kv):
    # Every game's inviter is a first-time address asked to confirm (issue
    # 13), and its invitee a stranger too; on the fixed clock all of it falls
    # in one hour, far over the default budget of 20 mails to strangers.
    base = {"store_path": root + "/db", "inbox": root + "/in", "outbox": root + "/out",
            "address": "referee@example.org", "domain": "example.org", "rate_limit": "0",
            "poll_ms": "20", "log_level": "2", "batch_max": "40", "retry_base_s": "1",
            "test_clock_file": root + "/clock", "stranger_mails_per_hour": "100000"}
    base.update(ENGINE.config(root))
    base.update(kv)
    with open(root + "/clock", "w") as f:
        f.write("%d\n" % CLOCK)
    with open(root + "/t.ini", "w") as f:
        f.write("[tabula]\n" + "".join("%s = %s\n" % i for i in base.items()))
    for d in ("in", "out"):
        for sub in ("tmp", "new", "cur"):
            os.makedirs(os.path.join(root, d, sub), exist_ok=True)
    return root + "/t.ini"


def mail_bytes(n, frm, to, body, subject="game"):
    return ("From: %s\nTo: %s\nSubject: %s\nMessage-ID: <c%d@example.org>\n"
            "Date: Wed, 25 Nov 2026 07:00:00 +0000\n\n%s\n" % (frm, to, subject, n, body)).encode()


def drop_all(root, mails):
    """Into the inbox in this order (tabula reads new/ by the names' numbers)."""
    for i, data in enumerate(mails):
        name = "1795600000.M%06dP1_0.crash" % i
        with open(os.path.join(root, "in", "tmp", name), "wb") as f:
            f.write(data)
        os.rename(os.path.join(root, "in", "tmp", name), os.path.join(root, "in", "new", name))


def run(cmd, cfg, timeout=600):
    return subprocess.run([TABULA, cmd, "-c", cfg], capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def snapshot(work, ngames):
    """Games invited and accepted, no kill: the store every run starts from;
    and the answers `confirm` of 8 more inviters, for the workload."""
    root = os.path.join(work, "snapshot")
    os.makedirs(root)
    cfg = write_config(root)
    n = 0
    mails = []
    for g in range(ngames):
        n += 1
        mails.append(mail_bytes(n, "w%d@example.org" % g, "referee@example.org",
                                "new chess with b%d@example.org" % g))
    for g in range(2):
        n += 1
        mails.append(mail_bytes(n, "bgw%d@example.org" % g, "referee@example.org",
                                "new backgammon with bgb%d@example.org" % g))
    for k in range(8):
        n += 1
        mails.append(mail_bytes(n, "new%d@example.org" % k, "referee@example.org",
                                "new chess with friend%d@example.org" % k))
    drop_all(root, mails)
    p = run("poll", cfg)
    if p.returncode:
        raise RuntimeError("setup poll: " + p.stderr[-2000:])
    # Each first `new` asked its sender to confirm; the games'
    # inviters answer now, the other 8 during the workload
    base = n + 1
    answers = mailcases.confirm_answers(root + "/out", lambda i: "<c%d@example.org>" % (base + i),
                                        only=lambda a: not a.startswith("new"))
    n += len(answers)
    base = n + 1
    later = mailcases.confirm_answers(root + "/out", lambda i: "<c%d@example.org>" % (base + i),
                                      only=lambda a: a.startswith("new"))
    n += len(later)
    for f in os.listdir(root + "/in/cur"):
        os.remove(os.path.join(root, "in", "cur", f))
    drop_all(root, answers)
    p = run("poll", cfg)
    if p.returncode:
        raise RuntimeError("setup poll: " + p.stderr[-2000:])
    tok = {(int(g), int(s)): t for g, s, t in ENGINE.rows(root, "select game, seat, token from seats")}
    mails = []
    for g in range(1, ngames + 3):
        n += 1
        invitee = "b%d@example.org" % (g - 1) if g <= ngames else "bgb%d@example.org" % (g - ngames - 1)
        mails.append(mail_bytes(n, invitee, "referee+%d.%s@example.org" % (g, tok[(g, 1)]), "accept"))
    for f in os.listdir(root + "/in/cur"):
        os.remove(os.path.join(root, "in", "cur", f))
    drop_all(root, mails)
    p = run("poll", cfg)
    if p.returncode:
        raise RuntimeError("setup poll: " + p.stderr[-2000:])
    last = int(ENGINE.rows(root, "select max(id) from outbox")[0][0])
    return root, tok, n, last, later


def workload(tok, ngames, n0, size, rng, confirmations):
    """At least `size` mails, in arrival order, with the moves of each game
    in order. Returns (mails, expected moves per game)."""
    n = n0
    per_game = {g: [] for g in range(1, ngames + 1)}
    expect = {}
    for g in range(1, ngames + 1):
        moves = LINES[(g - 1) % len(LINES)].split()
        expect[g] = moves
        for ply, mv in enumerate(moves):
            seat = ply % 2
            frm = ("w%d" if seat == 0 else "b%d") % (g - 1) + "@example.org"
            to = "referee+%d.%s@example.org" % (g, tok[(g, seat)])
            if ply in (3, 11):  # an illegal move first: refused, nothing changes
                n += 1
                per_game[g].append(mail_bytes(n, frm, to, "Kd5"))
            if ply == 7:  # a question, answered, nothing changes
                n += 1
                per_game[g].append(mail_bytes(n, frm, to, "board"))
            n += 1
            data = mail_bytes(n, frm, to, "%s #%d" % (mv, ply // 2 + 1))
            per_game[g].append(data)
            if ply in (0, 9, 19):  # the very same bytes again: a no-op
                per_game[g].append(data)
    # interleave the games' streams, each in its own order
    streams = [list(v) for v in per_game.values()]
    mails = []
    while any(streams):
        s = rng.choice([s for s in streams if s])
        mails.append(s.pop(0))
    # backgammon games: plays that cannot be legal, and boards
    extra = []
    for k in range(2):
        g = ngames + 1 + k
        for i in range(6):
            n += 1
            extra.append(mail_bytes(n, "bg%s%d@example.org" % ("w" if i % 2 == 0 else "b", k),
                                    "referee+%d.%s@example.org" % (g, tok[(g, i % 2)]),
                                    "24/1" if i % 3 else "board"))
    # new invitations, sent by the answers `confirm` to requests of the
    # snapshot, and first `new`s that ask to be confirmed: keys
    # made during the run (compared normalised)
    extra += confirmations
    for k in range(8):
        n += 1
        extra.append(mail_bytes(n, "late%d@example.org" % k, "referee@example.org",
                                "new chess with pal%d@example.org" % k))
    for data in extra:
        mails.insert(rng.randrange(len(mails) + 1), data)
    while len(mails) < size:  # stray mail from strangers: recorded, never answered
        n += 1
        mails.insert(rng.randrange(len(mails) + 1),
                     mail_bytes(n, "stranger%d@example.net" % n, "referee@example.org", "hello"))
    return mails, expect


# ---- one run ----

def fresh(work, name, snap):
    root = os.path.join(work, name)
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    ENGINE.fresh(root, snap)
    # the referee's signing key beside it (docs/history-protocol.md): every
    # run signs its History lines with the snapshot's key, as one referee
    if os.path.exists(os.path.join(snap, "db.key")):
        shutil.copy(os.path.join(snap, "db.key"), os.path.join(root, "db.key"))
    return root


def queued(root):
    return int(ENGINE.rows(root, "select count(*) from outbox where state = 'queued'")[0][0])


def done(root, inboxes=("in",)):
    try:
        return not any(os.listdir(os.path.join(root, i, "new")) for i in inboxes) and \
            queued(root) == 0
    except (sqlite3.Error, RuntimeError):
        return False


def serving(root):
    try:
        with open(root + "/serve.log", errors="replace") as f:
            return f.read().count("serving:")
    except FileNotFoundError:
        return 0


def serve_until_done(cfg, root, timeout=600):
    started = serving(root)
    log = open(root + "/serve.log", "a")
    p = subprocess.Popen([TABULA, "serve", "-c", cfg], stderr=log, stdout=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL)
    t0 = time.time()
    try:
        # SIGTERM only once it listens for it (it says "serving")
        while time.time() - t0 < timeout and p.poll() is None and (
                serving(root) == started or not done(root)):
            time.sleep(0.02)
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=60)
        log.close()
    return time.time() - t0, p.returncode


def killed_segment(cfg, root, delay):
    """serve, killed with SIGKILL after `delay` seconds (or once done)."""
    log = open(root + "/serve.log", "a")
    p = subprocess.Popen([TABULA, "serve", "-c", cfg], stderr=log, stdout=subprocess.DEVNULL,
                         stdin=subprocess.DEVNULL)
    t0 = time.time()
    while time.time() - t0 < delay and p.poll() is None:
        time.sleep(min(0.005, max(0.0, delay - (time.time() - t0))))
    p.kill()
    p.wait()
    log.close()


def collect(root, last_setup_row):
    journal = ENGINE.rows(root, "select game, seq, time, seat, kind, text, dice, hash from journal"
                          " order by game, seq")
    outcomes = sorted(ENGINE.rows(root, "select message_id, digest, outcome from messages"))
    # the text beside its row (schema v9)
    rows = ENGINE.rows(root, "select o.id, o.recipient, o.state, o.created, m.message"
                       " from outbox o join outbox_message m on m.id = o.id"
                       " where o.id > ? order by o.id", (last_setup_row,))
    files = {}  # by Message-ID: the files holding it
    for sub in ("new", "cur"):
        for f in os.listdir(os.path.join(root, "out", sub)):
            with open(os.path.join(root, "out", sub, f), "rb") as fh:
                data = fh.read()
            files.setdefault(msgid(data.decode()), []).append(data)
    return {"journal": journal, "outcomes": outcomes, "rows": rows, "files": files}


def msgid(text):
    m = re.search(r"^Message-ID: (<[^>]*>)", text, re.M)
    return m.group(1) if m else None


def normalise(text):
    """What differs between runs by nature: tabula's own Message-IDs, the
    keys of games invited and of confirmations asked during the workload,
    and a multipart mail's boundaries (random); such a mail is
    compared part by part, decoded, so the keys inside a base64 HTML part
    are seen too."""
    if re.search(r"^Content-Type: multipart/", text, re.M | re.I):
        msg = email.message_from_string(text, policy=email.policy.compat32)
        head = [(k, v) for k, v in msg.items() if k.lower() != "content-type"]
        parts = ["%s: %s" % kv for kv in head]
        for part in msg.walk():
            parts.append("-- " + part.get_content_type())
            if not part.is_multipart():
                parts.append(part.get_payload(decode=True).decode("utf-8", "replace"))
        text = "\n".join(parts)
    text = re.sub(r"Message-ID: <[^>]*>", "Message-ID: <>", text)
    text = re.sub(r"\[tabula (\d+|confirm) [a-z0-9]{16}\]", r"[tabula \1 KEY]", text)
    return re.sub(r"\+(\d+|confirm)\.[a-z0-9]{16}@", r"+\1.KEY@", text)


def lf(text):
    return text.replace("\r\n", "\n")


def compare(ref, got, sink):
    """Counts of what differs: the trial's figures."""
    out = {}
    # moves: the journals must be the same, entry by entry (hashes included)
    def moves(j):
        return [(g, k, t) for g, _, _, _, k, t, _, _ in j if k == "move"]
    rm, gm = moves(ref["journal"]), moves(got["journal"])
    common = 0
    pool = list(gm)
    for m in rm:
        if m in pool:
            pool.remove(m)
            common += 1
    out["moves_lost"] = len(rm) - common
    out["moves_twice"] = len(gm) - common
    out["journal_differs"] = int(ref["journal"] != got["journal"])
    out["outcomes_differ"] = len(set(ref["outcomes"]) ^ set(got["outcomes"]))
    # replies in the store: the same, once each
    rr = sorted(normalise(r[4]) for r in ref["rows"])
    gr = sorted(normalise(r[4]) for r in got["rows"])
    out["rows_differ"] = int(rr != gr)
    out["rows_unsent"] = sum(1 for r in got["rows"] if r[2] != "sent")
    if sink == "maildir":
        # each reply (by its Message-ID, which tabula made once, in the row)
        # in exactly one file, byte for byte what the row holds
        lost = dup = wrong = 0
        ids = set()
        for rid, _, state, created, message in got["rows"]:
            ids.add(msgid(message))
            copies = got["files"].get(msgid(message), [])
            if not copies:
                lost += 1
            dup += max(0, len(copies) - 1)
            wrong += sum(1 for c in copies if c.decode() != lf(message))
        stray = sum(len(v) for k, v in got["files"].items() if k not in ids)
        out["replies_lost"] = lost
        out["reply_files_duplicate"] = dup + stray
        out["reply_files_wrong"] = wrong
    return out


# ---- SMTP sink: real Dovecot + Postfix ----

class Servers:
    def __init__(self, source):
        self.harness = os.path.join(source, "tests", "harness", "mailharness.sh")
        self.dir = tempfile.mkdtemp(prefix="tabula-crash-mh.", dir="/tmp")
        self.env = {}

    def sh(self, *args):
        env = dict(os.environ, MH_POSTFIX_QUICK="1")
        return subprocess.run(["bash", self.harness] + list(args), capture_output=True, text=True,
                              env=env, stdin=subprocess.DEVNULL, timeout=300)

    def start(self):
        p = self.sh("start", self.dir)
        if p.returncode:
            raise RuntimeError("mailharness start: " + p.stdout[-1000:] + p.stderr[-1000:])
        with open(os.path.join(self.dir, "env")) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                self.env[k] = v.strip('"')

    def stop(self):
        self.sh("stop", self.dir)
        shutil.rmtree(self.dir, ignore_errors=True)

    def sink_options(self):
        return {"sink": "smtp", "smtp_host": "localhost",
                "smtp_port": self.env["MH_SUBMISSION_PORT"], "smtp_tls": "starttls",
                "smtp_user": "referee@example.test", "smtp_password": "secret",
                "tls_cafile": self.env["MH_CACERT"], "net_timeout_s": "10"}

    def catchall(self):
        return os.path.join(self.dir, "mail", "catchall@example.test", "Maildir")

    def drained(self):
        p = subprocess.run(["postqueue", "-c", os.path.join(self.dir, "postfix", "etc"), "-p"],
                           capture_output=True, text=True)
        return "Mail queue is empty" in p.stdout

    def take_delivered(self):
        """Message-IDs delivered to the catch-all since the last call."""
        ids = []
        for sub in ("new", "cur"):
            d = os.path.join(self.catchall(), sub)
            for f in os.listdir(d) if os.path.isdir(d) else []:
                path = os.path.join(d, f)
                with open(path, "rb") as fh:
                    msg = email.message_from_binary_file(fh, policy=email.policy.compat32)
                ids.append(str(msg["Message-ID"]).strip())
                os.remove(path)
        return ids


def smtp_delivered(servers, rows, timeout=120):
    end = time.time() + timeout
    while time.time() < end and not servers.drained():
        time.sleep(0.2)
    time.sleep(0.5)
    want = {}
    for r in rows:
        m = re.search(r"^Message-ID: (<[^>]*>)", r[4], re.M)
        want[m.group(1)] = 0
    for mid in servers.take_delivered():
        if mid in want:
            want[mid] += 1
    lost = sum(1 for c in want.values() if c == 0)
    extra = sum(c - 1 for c in want.values() if c > 1)
    return lost, extra


# ---- the trials ----

def main():
    global TABULA
    ap = argparse.ArgumentParser()
    ap.add_argument("tabula")
    ap.add_argument("source", nargs="?", default=os.path.join(os.path.dirname(__file__), "..", ".."))
    ap.add_argument("--trials", type=int, default=20)
    ap.add_argument("--mails", type=int, default=300)
    ap.add_argument("--kills", type=int, default=3)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--sink", choices=("maildir", "smtp"), default="maildir")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    TABULA = os.path.abspath(a.tabula)
    rng = random.Random(a.seed)
    ngames = max(4, (a.mails - 64) // 28)
    work = tempfile.mkdtemp(prefix="tabula-crash.")
    servers = None
    t_start = time.time()
    try:
        sink_opts = {}
        if a.sink == "smtp":
            if os.geteuid() != 0:
                check("smtp trials need root for the mail servers", False)
                return 1
            servers = Servers(a.source)
            servers.start()
            sink_opts = servers.sink_options()
        snap, tok, n0, last_row, confirmations = snapshot(work, ngames)
        mails, expect = workload(tok, ngames, n0, a.mails, rng, confirmations)

        # the reference: no kill
        ref_root = fresh(work, "reference", snap)
        cfg = write_config(ref_root, **sink_opts)
        drop_all(ref_root, mails)
        took, rc = serve_until_done(cfg, ref_root)
        ref = collect(ref_root, last_row)
        if servers:
            lost, extra = smtp_delivered(servers, ref["rows"])
            check("reference: every reply delivered once over SMTP (lost %d, extra %d)"
                  % (lost, extra), lost == 0 and extra == 0)
        played = {}
        for g, _, _, _, k, t, _, _ in ref["journal"]:
            if k == "move" and g in expect:
                played.setdefault(g, []).append(t)
        check("reference: %d mails, %d games, every scripted move played in order, in %.2f s"
              % (len(mails), ngames, took),
              rc == 0 and all(played.get(g) == expect[g] for g in expect),
              [(g, played.get(g)) for g in expect if played.get(g) != expect[g]][:2])
        base = compare(ref, ref, a.sink)
        print("     reference: %d journal entries, %d outcomes, %d replies"
              % (len(ref["journal"]), len(ref["outcomes"]), len(ref["rows"])), flush=True)
        if base.get("replies_lost") or base.get("reply_files_duplicate"):
            check("reference: one file per reply", False, base)

        # the trials
        keys = ["moves_lost", "moves_twice", "journal_differs", "outcomes_differ", "rows_differ",
                "rows_unsent"] + (["replies_lost", "reply_files_duplicate", "reply_files_wrong"]
                                  if a.sink == "maildir" else ["smtp_lost", "smtp_extra"])
        totals = {k: 0 for k in keys}
        total_kills = 0
        worst_extra_per_kill = 0.0
        print("     trial kills  " + " ".join("%s" % k for k in keys), flush=True)
        for trial in range(a.trials):
            root = fresh(work, "trial", snap)
            cfg = write_config(root, **sink_opts)
            drop_all(root, mails)
            kills = rng.randint(1, a.kills)
            for _ in range(kills):
                killed_segment(cfg, root, rng.uniform(0, took * 1.1))
            total_kills += kills
            _, rc = serve_until_done(cfg, root)
            got = collect(root, last_row)
            diff = compare(ref, got, a.sink)
            if servers:
                diff["smtp_lost"], diff["smtp_extra"] = smtp_delivered(servers, got["rows"])
                worst_extra_per_kill = max(worst_extra_per_kill, diff["smtp_extra"] / kills)
            p = run("check", cfg)
            bad = [k for k in keys if diff.get(k)] + (["check"] if p.returncode else []) + \
                  (["serve rc %s" % rc] if rc else [])
            if a.sink == "smtp":
                bad = [k for k in bad if k != "smtp_extra" or diff["smtp_extra"] > kills]
            for k in keys:
                totals[k] += diff.get(k, 0)
            print("     %5d %5d  %s%s" % (trial, kills, " ".join("%*d" % (len(k), diff.get(k, 0))
                                                          for k in keys),
                                      "  <- " + ", ".join(bad) if bad else ""), flush=True)
            if bad:
                check("trial %d (%d kills)" % (trial, kills), False,
                      "%s\n%s" % (diff, p.stdout[-1500:]))
                if a.keep:
                    shutil.copytree(root, os.path.join(work, "failed-%d" % trial))
        print("     total %5d  %s" % (total_kills, " ".join("%*d" % (len(k), totals[k])
                                                            for k in keys)), flush=True)
        if a.sink == "maildir":
            check("%d trials, %d kills: 0 moves lost, 0 applied twice, 0 replies lost, "
                  "0 duplicate reply files" % (a.trials, total_kills),
                  not any(totals.values()), totals)
        else:
            check("%d trials, %d kills over SMTP: 0 lost, %d extra deliveries (at most one a "
                  "kill: worst %.2f a kill)" % (a.trials, total_kills, totals["smtp_extra"],
                                                worst_extra_per_kill),
                  not any(v for k, v in totals.items() if k != "smtp_extra") and
                  worst_extra_per_kill <= 1, totals)
    except Exception as e:  # a crash is a failure with its story
        import traceback
        traceback.print_exc()
        check("the trials ran", False, repr(e))
    finally:
        if servers:
            servers.stop()
        tidy(work, keep=a.keep)
    return finish(note=" (%.0f s)" % (time.time() - t_start))


if __name__ == "__main__":
    sys.exit(main())
