#!/usr/bin/env python3
"""Faults an operator must see ("Faults reported badly").

usage: operator_faults.py TABULA SOURCE_DIR [PART...]

  damaged   A store with damaged pages (an index, a table, the journal):
            `tabula check` fails and names what SQLite's integrity check
            finds; no command exits non-zero without saying why.
  flips     Random bytes flipped in 16 copies of a store (fixed seed): whenever
            SQLite's own integrity_check finds a problem, `tabula check`
            fails and shows it; no command fails in silence.
  diskfull  The store on a tiny tmpfs that fills up: `deliver` says the
            disk is full (and exits 75); `serve`, started on the full disk
            and filled up under it, stays up, says so once when the store
            goes and once when it comes back, tries less and less often,
            logs each move once, after its commit, and answers every mail
            once the space is back.
  sigterm   SIGTERM to `serve` with 2,000 mails waiting: it stops at a
            message boundary, reading no further batch: every mail it
            acknowledged is committed, every committed one acknowledged.
            Within 3 s: well under a second on a quiet machine (0.06 to
            0.12 s), but the syncs of what it already did (its batch's
            replies, the closing checkpoint) took 1.1 to 1.3 s with three
            suites running at once (the stop of 24 s).
  locked    A store another process holds a write lock on: `deliver` and
            `tabula-deliver` give up after the busy timeout with 75 and say
            on standard error that the store is locked.
  notdb     A store that is no database (text) or a truncated one: `check`
            exits 1 and `serve`, `games`, `poll` 65 (EX_DATAERR), each saying
            what is wrong; never 75, which tells an MTA or systemd to try
            again the same way.
  tmpclean  Partial files in the Maildirs' tmp/ (a killed `tabula-deliver`):
            what nobody touched for 36 hours is removed by `poll`, by `serve`
            at its start and every hour after; a younger file is left to its
            writer (the Maildir convention, cr.yp.to/proto/maildir.html).
Prints "N passed, M failed".
"""
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

TABULA = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.join(sys.argv[2], "tests"))
import mailcases  # noqa: E402  (the mail client of tests/mailcases.py)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from testkit import check, finish, tidy, wait_for  # noqa: E402  (tests/harness/testkit.py)


def config(root, store=None, **kv):
    # Up to 2,000 first-time addresses at once, each asked to confirm (issue
    # 13) and 40 of them inviting another: mails to strangers far over the
    # default budget of 20 an hour, which would keep back what is counted.
    base = {"store_path": store or root + "/db", "inbox": root + "/in", "outbox": root + "/out",
            "address": "referee@example.org", "domain": "example.org", "rate_limit": "0",
            "poll_ms": "50", "log_level": "2", "stranger_mails_per_hour": "100000"}
    base.update(kv)
    path = os.path.join(root, "t.ini")
    with open(path, "w") as f:
        f.write("[tabula]\n" + "".join("%s = %s\n" % i for i in base.items()))
    for sub in ("tmp", "new", "cur"):
        os.makedirs(os.path.join(root, "in", sub), exist_ok=True)
    return path


SEQ = [0]


def drop(root, frm, to, body, subject="game"):
    data = ("From: %s\nTo: %s\nSubject: %s\nMessage-ID: <f%d@example.org>\n\n%s\n"
            % (frm, to, subject, SEQ[0] + 1, body))
    put(root, data.encode())
    return data


def put(root, raw):
    """A whole mail (bytes) into the inbox."""
    SEQ[0] += 1
    name = "1700000000.M%06dP1_0.test" % SEQ[0]
    with open(os.path.join(root, "in", "tmp", name), "wb") as f:
        f.write(raw)
    os.rename(os.path.join(root, "in", "tmp", name), os.path.join(root, "in", "new", name))


def run(cmd, cfg, *args, stdin=None, timeout=120):
    return subprocess.run([TABULA, cmd, "-c", cfg] + list(args), input=stdin,
                          capture_output=True, text=True, timeout=timeout)


def tokens(db):
    con = sqlite3.connect(db)
    try:
        return {(g, s): t for g, s, t in con.execute("select game, seat, token from seats")}
    finally:
        con.close()


def games(root, cfg, db, n, moves=("e4", "e5")):
    """n chess games, accepted, with `moves` played: returns the seats' tokens."""
    for i in range(n):
        drop(root, "w%d@example.org" % i, "referee@example.org", "new chess with b%d@example.org" % i)
    run("poll", cfg)
    # Each first `new` is confirmed from its address, by a reply
    for raw in mailcases.confirm_answers(root + "/out", lambda i: "<confirm%d@example.org>" % i):
        put(root, raw)
    run("poll", cfg)
    tok = tokens(db)
    for i in range(n):
        drop(root, "b%d@example.org" % i, "referee+%d.%s@example.org" % (i + 1, tok[(i + 1, 1)]),
             "accept")
    run("poll", cfg)
    for ply, mv in enumerate(moves):
        for i in range(n):
            seat = ply % 2
            drop(root, ("w%d" if seat == 0 else "b%d") % i + "@example.org",
                 "referee+%d.%s@example.org" % (i + 1, tok[(i + 1, seat)]), mv)
        run("poll", cfg)
    return tok


def sqlite_problems(db):
    """SQLite's own verdict, independent of tabula: [] when sound."""
    try:
        con = sqlite3.connect(db)
        try:
            rows = [r[0] for r in con.execute("pragma integrity_check")]
        finally:
            con.close()
    except sqlite3.DatabaseError as e:
        return ["cannot check: %s" % e]
    return [] if rows == ["ok"] else rows


def commands(cfg):
    """Every command that reads or writes the store, with its arguments."""
    mail = ("From: w0@example.org\nTo: referee@example.org\nSubject: x\n"
            "Message-ID: <cmd%d@example.org>\n\nnew chess with z@example.org\n" % time.time_ns())
    return [("check",), ("games",), ("show", "1"), ("export", "1"), ("verify", "1"),
            ("poll",), ("flush",), ("tick",), ("adjudicate", "1", "draw"), ("deliver", mail)]


def silent_failures(cfg, only=None):
    """Commands that exit non-zero printing nothing (stdout or stderr)."""
    silent = []
    for c in commands(cfg):
        if only and c[0] not in only:
            continue
        if c[0] == "deliver":
            p = run("deliver", cfg, stdin=c[1])
        else:
            p = run(c[0], cfg, *c[1:])
        if p.returncode != 0 and not (p.stdout.strip() or p.stderr.strip()):
            silent.append(" ".join(c[:2]) + " (rc %d)" % p.returncode)
    return silent


def page_of(db, name, root_only=False):
    """A leaf page of table or index `name` (its root when it has one page,
    or when root_only)."""
    con = sqlite3.connect(db)
    try:
        leaves = [r[0] for r in con.execute(
            "select pageno from dbstat where name = ? and pagetype = 'leaf' order by pageno",
            (name,))]
        root = con.execute("select rootpage from sqlite_schema where name = ?", (name,)).fetchone()[0]
        size = con.execute("pragma page_size").fetchone()[0]
    finally:
        con.close()
    return (leaves[len(leaves) // 2] if leaves and not root_only else root), size


def smash(db, page, size, offset, data):
    with open(db, "r+b") as f:
        f.seek((page - 1) * size + offset)
        f.write(data)


def pristine_store(root):
    cfg = config(root)
    db = root + "/db"
    games(root, cfg, db, 40)
    shutil.copy(db, root + "/pristine.db")
    return cfg, db


def restore(root, db):
    for ext in ("-wal", "-shm"):
        if os.path.exists(db + ext):
            os.remove(db + ext)
    shutil.copy(root + "/pristine.db", db)


# ---- damaged pages ----

def part_damaged(root):
    cfg, db = pristine_store(root)
    p = run("check", cfg)
    check("damaged: the sound store checks clean", p.returncode == 0 and "store:" not in p.stdout,
          p.stdout + p.stderr)
    # (what, table or index, where in the page from its end: cell content;
    # negative: from its start)
    cases = [("an index of processed messages", "sqlite_autoindex_messages_1", 300),
             # the games table's cell pointers (8 bytes into a leaf page):
             # since schema v5 its cells end in the position's snapshot, a
             # blob whose bytes SQLite cannot tell from damage
             ("the games table", "games", -8), ("the journal", "journal", 200),
             # (not the outbox's due index: since schema v5 it holds only
             # queued rows, none once every reply is sent)
             ("the seats' address index", "seats_by_address", 150),
             ("the games table's first page header", "games", None)]
    for what, name, offset in cases:
        restore(root, db)
        page, size = page_of(db, name, root_only=offset is None)
        if offset is None:
            smash(db, page, size, 0, bytes([0x00]) * 8)  # no such page type
        elif offset < 0:
            smash(db, page, size, -offset, bytes([0xA5]) * 64)
        else:
            smash(db, page, size, size - offset, bytes([0xA5]) * 64)
        found = sqlite_problems(db)
        p = run("check", cfg)
        out = p.stdout + p.stderr
        shown = [l for l in out.splitlines() if l.startswith("store:")]
        check("damaged %s: SQLite finds it (%d line(s)) and check fails showing it (rc %d)"
              % (what, len(found), p.returncode),
              found and p.returncode != 0 and shown, "sqlite: %s\ntabula: %s" % (found[:3], out))
        if found and any(name in l for l in found):
            check("damaged %s: check names %s" % (what, name), name in out, out)
        silent = silent_failures(cfg)
        check("damaged %s: no command fails in silence" % what, not silent, silent)
    # What check said for the journal, shown for the report.
    restore(root, db)
    page, size = page_of(db, "sqlite_autoindex_messages_1")
    smash(db, page, size, size - 300, bytes([0xA5]) * 64)
    print("     " + run("check", cfg).stdout.strip().replace("\n", "\n     "))


# ---- random byte flips ----

def part_flips(root):
    cfg, db = pristine_store(root)
    size = os.path.getsize(db)
    rng = random.Random(1313)
    found_any = 0
    for trial in range(16):
        restore(root, db)
        with open(db, "r+b") as f:
            for _ in range(6):
                at = rng.randrange(100, size)  # past the file header's magic
                f.seek(at)
                b = f.read(1)
                f.seek(at)
                f.write(bytes([b[0] ^ (1 << rng.randrange(8))]))
        found = sqlite_problems(db)
        p = run("check", cfg)
        if found:
            found_any += 1
            check("flips %d: SQLite finds %d problem(s); check fails and shows them (rc %d)"
                  % (trial, len(found), p.returncode),
                  p.returncode != 0 and ("store:" in p.stdout or p.stderr.strip()),
                  "sqlite: %s\ntabula: %s%s" % (found[:3], p.stdout[-1500:], p.stderr))
        silent = silent_failures(cfg, ("check", "games", "show", "poll", "deliver"))
        check("flips %d: no command fails in silence" % trial, not silent, silent)
    print("     (%d of 16 flipped stores damaged in SQLite's eyes)" % found_any)


# ---- a full disk ----

def mount_tmpfs(path, size):
    os.makedirs(path, exist_ok=True)
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%s" % size, "tmpfs", path],
                       capture_output=True, text=True)
    return p.returncode == 0


def fill(path):
    """Fills the file system of path; returns the filler's name."""
    filler = os.path.join(path, "filler")
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for chunk in (65536, 4096, 1):
            try:
                while True:
                    os.write(fd, b"\0" * chunk)
            except OSError:
                pass
    finally:
        os.close(fd)
    return filler


def part_diskfull(root):
    fs = os.path.join(root, "fs")
    if not mount_tmpfs(fs, "8m"):
        if os.geteuid() != 0 and not os.environ.get("TABULA_IN_USERNS"):
            # a user namespace lets an ordinary user mount a tmpfs
            p = subprocess.run(["unshare", "--user", "--map-root-user", "--mount",
                                sys.executable, os.path.abspath(__file__), TABULA,
                                sys.argv[2], "diskfull"],
                               capture_output=True, text=True,
                               env=dict(os.environ, TABULA_IN_USERNS="1"))
            print(p.stdout, end="")
            m = re.search(r"(\d+) passed, (\d+) failed", p.stdout)
            check("diskfull: ran in a user namespace", m and m.group(2) == "0" and p.returncode == 0,
                  p.stderr[-2000:])
            return
        check("diskfull: an 8 MB tmpfs can be mounted (needs root or user namespaces)", False)
        return
    try:
        diskfull_in(root, fs)
    finally:
        subprocess.run(["umount", "-l", fs], capture_output=True)


def moves_logged(log):
    return re.findall(r"game (\d+): (White|Black) (\S+ ?\S*)$", log, re.M)


def diskfull_in(root, fs):
    db = os.path.join(fs, "db")
    cfg = config(root, store=db, log_level="3")
    tok = games(root, cfg, db, 2, moves=())
    run("flush", cfg)
    filler = fill(fs)

    # deliver on a full disk: named as such, tempfail
    mail = ("From: w0@example.org\nTo: referee+1.%s@example.org\nSubject: m\n"
            "Message-ID: <full1@example.org>\n\ne4\n" % tok[(1, 0)])
    p = run("deliver", cfg, stdin=mail)
    check("diskfull: deliver exits 75 (EX_TEMPFAIL) saying the disk is full (rc %d)" % p.returncode,
          p.returncode == 75 and "disk is full" in p.stderr, p.stderr[-1000:])
    for c in ("check", "games"):
        p = run(c, cfg)
        check("diskfull: %s fails saying why, or works (rc %d)" % (c, p.returncode),
              p.returncode == 0 or "disk is full" in p.stdout + p.stderr, p.stdout + p.stderr)

    # serve started on the full disk waits for it
    log1 = root + "/serve1.log"
    serve = subprocess.Popen([TABULA, "serve", "-c", cfg], stderr=open(log1, "w"),
                             stdout=subprocess.DEVNULL)
    try:
        time.sleep(1.5)
        drop(root, "w0@example.org", "referee+1.%s@example.org" % tok[(1, 0)], "e4")
        drop(root, "w1@example.org", "referee+2.%s@example.org" % tok[(2, 0)], "d4")
        time.sleep(2.5)
        text = open(log1).read()
        check("diskfull: serve on a full disk is still running", serve.poll() is None, text[-2000:])
        check("diskfull: it said once that the store is unavailable, naming the full disk",
              text.count("store unavailable") == 1 and "disk is full" in text, text[-2000:])
        check("diskfull: the mails wait in new/", len(os.listdir(root + "/in/new")) == 2)
        os.remove(filler)
        ok = wait_for(lambda: not os.listdir(root + "/in/new"), 15)
        wait_for(lambda: "store available again" in open(log1).read(), 5)
        text = open(log1).read()
        check("diskfull: once space is back it answers both mails", ok, text[-2000:])
        check("diskfull: and says once that the store is back",
              text.count("store available again") == 1, text[-2000:])
    finally:
        if os.path.exists(filler):
            os.remove(filler)
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=10)
        wait_for(lambda: not os.listdir(root + "/in/new"), 10)

    # filled up under a running daemon
    log2 = root + "/serve2.log"
    serve = subprocess.Popen([TABULA, "serve", "-c", cfg], stderr=open(log2, "w"),
                             stdout=subprocess.DEVNULL)
    try:
        wait_for(lambda: "serving" in open(log2).read(), 10)
        filler = fill(fs)
        t0 = time.time()
        drop(root, "b0@example.org", "referee+1.%s@example.org" % tok[(1, 1)], "e5")
        drop(root, "b1@example.org", "referee+2.%s@example.org" % tok[(2, 1)], "d5")
        time.sleep(7)
        down = time.time() - t0
        text = open(log2).read()
        check("diskfull: filled under it, serve stays up and says so once",
              serve.poll() is None and text.count("store unavailable") == 1, text[-2000:])
        waits = [int(w) for w in re.findall(r"next try in (\d+) ms", text)]
        batches = len(re.findall(r"error: batch .*(not committed|rolled back)", text))
        check("diskfull: it backs off: %d failed batch(es) logged, waits %s in %.0f s"
              % (batches, waits, down),
              1 <= len(waits) <= 5 and waits == sorted(waits) and batches <= 1, text[-2000:])
        check("diskfull: no move of the failed batches was logged as played (%d lines)"
              % len(moves_logged(text)), not moves_logged(text), moves_logged(text)[:8])
        os.remove(filler)
        ok = wait_for(lambda: not os.listdir(root + "/in/new"), 40)
        wait_for(lambda: "store available again" in open(log2).read(), 5)
        text = open(log2).read()
        check("diskfull: space back, both mails answered", ok, text[-2000:])
        check("diskfull: and it said once that the store is back",
              text.count("store available again") == 1, text[-2000:])
    finally:
        if os.path.exists(filler):
            os.remove(filler)
        serve.send_signal(signal.SIGTERM)
        serve.wait(timeout=10)
    text = open(log1).read() + open(log2).read()
    logged = moves_logged(text)
    check("diskfull: each move logged once, after its commit (%d move lines for 4 moves)"
          % len(logged),
          sorted(m[2] for m in logged) == ["1. d4", "1. e4", "1... d5", "1... e5"],
          logged[:8])
    con = sqlite3.connect(db)
    journal = [r[0] for r in con.execute("select text from journal where kind = 'move' order by game, seq")]
    con.close()
    check("diskfull: the journal holds each move once", journal == ["e4", "e5", "d4", "d5"], journal)
    p = run("check", cfg)
    check("diskfull: the store checks clean afterwards", p.returncode == 0, p.stdout + p.stderr)


# ---- SIGTERM with a backlog ----

def part_sigterm(root):
    cfg = config(root, batch_max="256")
    n = 2000
    for i in range(n):
        drop(root, "w%d@example.org" % i, "referee@example.org", "new chess with b%d@example.org" % i)
    log = open(root + "/serve.log", "w")
    serve = subprocess.Popen([TABULA, "serve", "-c", cfg], stderr=log, stdout=subprocess.DEVNULL)
    wait_for(lambda: len(os.listdir(root + "/in/cur")) > 0, 30)
    t0 = time.time()
    serve.send_signal(signal.SIGTERM)
    try:
        rc = serve.wait(timeout=30)
    except subprocess.TimeoutExpired:
        serve.kill()
        rc = serve.wait()
    took = time.time() - t0
    acked = len(os.listdir(root + "/in/cur"))
    con = sqlite3.connect(root + "/db")
    committed = con.execute("select count(*) from messages").fetchone()[0]
    con.close()
    check("sigterm: serve stopped %.2f s after SIGTERM with %d of %d mails done (exit %d)"
          % (took, acked, n, rc), took < 3.0 and rc == 0 and acked < n, open(root + "/serve.log").read()[-1000:])
    check("sigterm: what it acknowledged is what it committed (%d, %d)" % (acked, committed),
          acked == committed)
    p = run("poll", cfg)
    con = sqlite3.connect(root + "/db")
    total = con.execute("select count(*) from messages").fetchone()[0]
    states = dict(con.execute("select state, count(*) from outbox group by state").fetchall())
    con.close()
    outbox = len(os.listdir(root + "/out/new"))
    # one reply a mail: each first `new` asks its sender to confirm
    check("sigterm: a poll afterwards finishes the rest: %d mails, %s, %d files"
          % (total, states, outbox),
          p.returncode == 0 and total == n and states == {"sent": n} and outbox == n,
          p.stderr[-1000:])


# ---- a store locked by another process ----

def part_locked(root):
    cfg = config(root, log_level="3")
    db = root + "/db"
    p = run("poll", cfg)
    check("locked: the store is made", p.returncode == 0, p.stderr)
    holder = subprocess.Popen([sys.executable, "-c",
                               "import sqlite3, sys, time\n"
                               "c = sqlite3.connect(sys.argv[1], isolation_level=None)\n"
                               "c.execute('begin exclusive'); print('held', flush=True)\n"
                               "time.sleep(120)\n", db], stdout=subprocess.PIPE, text=True)
    try:
        holder.stdout.readline()
        mail = ("From: w0@example.org\nTo: referee@example.org\nSubject: x\n"
                "Message-ID: <locked%d@example.org>\n\nhelp\n")
        deliver = os.path.join(os.path.dirname(TABULA), "tabula-deliver")
        for name, argv in (("tabula deliver", [TABULA, "deliver"]),
                           ("tabula-deliver", [deliver])):
            t0 = time.time()
            p = subprocess.run(argv + ["-c", cfg], input=mail % len(name), capture_output=True,
                               text=True, timeout=120)
            check("locked: %s exits 75 after %.1f s and says the store is locked: %r"
                  % (name, time.time() - t0, p.stderr.strip()[-300:]),
                  p.returncode == 75 and re.search(r"locked|busy", p.stderr), p.stderr)
    finally:
        holder.kill()
        holder.wait()


# ---- a store that is no database ----

def part_notdb(root):
    cfg = config(root)
    db = root + "/db"
    games(root, cfg, db, 3)
    full = open(db, "rb").read()
    cases = [("a text file", b"this is not a database\n" * 400),
             ("a truncated store", full[:len(full) // 3])]
    for what, data in cases:
        for ext in ("-wal", "-shm"):
            if os.path.exists(db + ext):
                os.remove(db + ext)
        with open(db, "wb") as f:
            f.write(data)
        for cmd, want in (("check", 1), ("games", 65), ("poll", 65), ("serve", 65)):
            p = run(cmd, cfg, timeout=60)
            check("notdb %s: %s exits %d (rc %d) and says why: %r"
                  % (what, cmd, want, p.returncode, p.stderr.strip()[-200:]),
                  p.returncode == want and ("database" in p.stderr or "store" in p.stderr),
                  p.stdout + p.stderr)


# ---- partial files left in tmp/ ----

def part_tmpclean(root):
    clock = root + "/clock"
    now = int(time.time())
    with open(clock, "w") as f:
        f.write("%d\n" % now)
    cfg = config(root, test_clock_file=clock)
    os.makedirs(root + "/out/tmp", exist_ok=True)

    def partial(folder, name, age_h):
        path = os.path.join(root, folder, "tmp", name)
        with open(path, "wb") as f:
            f.write(b"From: half@example.org\nSubject: half a mai")
        os.utime(path, (now - age_h * 3600, now - age_h * 3600))
        return path

    old_in, young_in = partial("in", "1.M1P1.old", 37), partial("in", "2.M2P2.young", 30)
    old_out = partial("out", "3.M3P3.old", 40)
    p = run("poll", cfg)
    check("tmpclean: poll removes the files of tmp/ untouched for 36 hours (%s)"
          % p.stderr.strip().replace("\n", " | ")[-300:],
          p.returncode == 0 and not os.path.exists(old_in) and not os.path.exists(old_out)
          and "tmp" in p.stderr, p.stderr)
    check("tmpclean: poll leaves a file of tmp/ touched 30 hours ago", os.path.exists(young_in))

    # serve: at its start, then once an hour of its clock
    old_in = partial("in", "4.M4P4.old", 48)
    log = open(root + "/serve.log", "w")
    serve = subprocess.Popen([TABULA, "serve", "-c", cfg], stderr=log, stdout=subprocess.DEVNULL)
    try:
        check("tmpclean: serve removes an old partial file at its start",
              wait_for(lambda: not os.path.exists(old_in), 30),
              open(root + "/serve.log").read()[-1000:])
        later = partial("in", "5.M5P5.old", 48)
        time.sleep(1.5)
        check("tmpclean: ... and not again within the hour", os.path.exists(later))
        with open(clock, "w") as f:
            f.write("%d\n" % (now + 3700))
        check("tmpclean: serve removes one left an hour later",
              wait_for(lambda: not os.path.exists(later), 30),
              open(root + "/serve.log").read()[-1000:])
        check("tmpclean: the younger file is still there", os.path.exists(young_in))
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(timeout=30)
        except subprocess.TimeoutExpired:
            serve.kill()
            serve.wait()


def main():
    parts = {"damaged": part_damaged, "flips": part_flips, "diskfull": part_diskfull,
             "sigterm": part_sigterm, "locked": part_locked, "notdb": part_notdb,
             "tmpclean": part_tmpclean}
    only = sys.argv[3:] or list(parts)
    for name in only:
        root = tempfile.mkdtemp(prefix="tabula-faults-")
        try:
            parts[name](root)
        except Exception as e:  # a crash is a failure with its story
            import traceback
            traceback.print_exc()
            check(name + " ran", False, repr(e))
        tidy(root)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
