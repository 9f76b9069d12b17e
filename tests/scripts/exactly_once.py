#!/usr/bin/env python3
"""Every reply exactly once ("Duplicate replies").

usage: exactly_once.py TABULA SOURCE_DIR

Each part was a way to get a reply twice once:
  1. Maildir sink, crash after a chunk of replies was written and synced
     but before it was marked sent (TABULA_TEST_CRASH=after-send): the
     restart must recognise what is already in the outbox (new/, or cur/
     once a reader moved it) and write only the rest.
  2. SMTP sink, the same crash after the server's 250: at most the one
     reply in flight goes again.
  3. Two `tabula flush` at once on one store (sendmail sink, a slow
     sendmail): no reply is sent by both.
  4. Two `tabula serve` on one store: the second refuses to start, saying
     why, and the first answers every mail once.
  5. Four `tabula deliver` at once, as Postfix runs pipe deliveries, over
     100 mails, beside a daemon working through 400 of its own: every mail
     processed (exit 0), every reply once.
  6. A Maildir pass of several batches sends each batch's replies before
     reading the next (they were all held in memory to the end
     of the pass); a crash after the first batch's replies are written,
     before they are marked sent, loses and doubles nothing.
Prints "N passed, M failed".
"""
import email
import email.policy
import glob
import os
import socket
import socketserver
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

TABULA = os.path.abspath(sys.argv[1])
sys.path.insert(0, os.path.join(sys.argv[2], "tests"))
import mailcases  # noqa: E402  (the mail client of tests/mailcases.py)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from testkit import check, finish, tidy, wait_for  # noqa: E402  (tests/harness/testkit.py)


def config(root, **kv):
    # Every part has tens to hundreds of first-time addresses at once, each
    # `new` answered with a confirmation request, a mail to a
    # stranger: the default budget of 20 an hour would keep back nearly all
    # the replies whose delivery is counted here.
    base = {"store_path": root + "/db", "inbox": root + "/in", "outbox": root + "/out",
            "address": "referee@example.org", "domain": "example.org", "rate_limit": "0",
            "poll_ms": "50", "log_level": "2", "retry_base_s": "1",
            "stranger_mails_per_hour": "100000"}
    base.update(kv)
    path = os.path.join(root, "t.ini")
    with open(path, "w") as f:
        f.write("[tabula]\n" + "".join("%s = %s\n" % i for i in base.items()))
    for sub in ("tmp", "new", "cur"):
        os.makedirs(os.path.join(root, "in", sub), exist_ok=True)
    return path


def mail(i, body="new chess with b%d@example.org", frm="w%d@example.org"):
    return ("From: %s\nTo: referee@example.org\nSubject: game %d\n"
            "Message-ID: <x%d@example.org>\n\n%s\n" % (frm % i, i, i, body % i))


def drop(root, n, start=0, mails=None):
    """n first mails (`new`) into the inbox, or the given mails (bytes)."""
    for i in range(start, start + (n if mails is None else len(mails))):
        name = "1700000000.M%06dP1_0.test" % i
        with open(os.path.join(root, "in", "tmp", name), "wb") as f:
            f.write(mail(i).encode() if mails is None else mails[i - start])
        os.rename(os.path.join(root, "in", "tmp", name), os.path.join(root, "in", "new", name))


def run(cmd, cfg, env=None, **kw):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([TABULA, cmd, "-c", cfg], capture_output=True, text=True, env=e,
                          timeout=120, **kw)


def rows(root):
    con = sqlite3.connect(root + "/db")
    try:
        # the text beside its row (schema v9)
        return con.execute("select o.id, o.state, m.message from outbox o"
                           " join outbox_message m on m.id = o.id order by o.id").fetchall()
    finally:
        con.close()


def msgid_of(text):
    msg = email.message_from_string(text, policy=email.policy.default)
    return str(msg["Message-ID"])


def maildir_ids(d):
    """Message-IDs of every file in a Maildir's new/ and cur/."""
    out = []
    for sub in ("new", "cur"):
        for path in sorted(glob.glob(os.path.join(d, sub, "*"))):
            with open(path, encoding="utf-8") as f:
                out.append(msgid_of(f.read()))
    return out


def compare(what, row_ids, sent_ids, extra_allowed=0):
    """Every row's Message-ID sent, none more than once (+extra_allowed)."""
    want = set(row_ids)
    counts = {}
    for m in sent_ids:
        counts[m] = counts.get(m, 0) + 1
    lost = [m for m in want if m not in counts]
    extra = sum(c - 1 for c in counts.values())
    strangers = [m for m in counts if m not in want]
    check("%s: %d replies, none lost (%d)" % (what, len(want), len(lost)), not lost, lost[:3])
    check("%s: duplicates %d (at most %d)" % (what, extra, extra_allowed),
          extra <= extra_allowed, sorted(m for m, c in counts.items() if c > 1)[:5])
    check("%s: nothing sent that no row holds" % what, not strangers, strangers[:3])


# ---- 1. Maildir sink, crash between the written chunk and its commit ----

def part_maildir_crash(root):
    cfg = config(root)
    # 200 first `new`s: each asks its sender to confirm; the 200
    # answers `confirm` then make 400 replies, invitation and notice: a
    # chunk of 256, then the rest
    drop(root, 200)
    p = run("poll", cfg)
    check("maildir: 200 confirmation requests (rc %d)" % p.returncode,
          p.returncode == 0 and len(os.listdir(root + "/out/new")) == 200, p.stderr[-500:])
    before = set(os.listdir(root + "/out/new"))
    drop(root, 0, start=200, mails=mailcases.confirm_answers(
        root + "/out", lambda i: "<confirm%d@example.org>" % i))
    p = run("poll", cfg, {"TABULA_TEST_CRASH": "after-send"})
    check("maildir: the poll died after writing its first chunk (rc %d)" % p.returncode,
          p.returncode == 86, p.stderr[-500:])
    written = len(set(os.listdir(root + "/out/new")) - before)
    # A reader takes some of them meanwhile (Dovecot moves new/ -> cur/).
    moved = sorted(set(os.listdir(root + "/out/new")) - before)[:50]
    for name in moved:
        os.rename(os.path.join(root, "out", "new", name),
                  os.path.join(root, "out", "cur", name + ":2,S"))
    p = run("flush", cfg)
    check("maildir: the flush after the crash succeeds", p.returncode == 0, p.stderr[-500:])
    r = rows(root)
    check("maildir: every row sent", all(s == "sent" for _, s, _ in r) and len(r) == 600,
          "%d rows, states %s" % (len(r), sorted(set(s for _, s, _ in r))))
    print("     (%d written before the crash, %d moved to cur/ by a reader)" % (written,
                                                                               len(moved)))
    compare("maildir crash", [msgid_of(m) for _, _, m in r], maildir_ids(root + "/out"))


# ---- 2. SMTP sink, crash after the 250 ----

class SMTPCounter(socketserver.ThreadingTCPServer):
    allow_reuse_address = True
    daemon_threads = True

    def __init__(self):
        super().__init__(("127.0.0.1", 0), SMTPHandler)
        self.received = []
        self.lock = threading.Lock()
        self.refuse_rcpt = None


class SMTPHandler(socketserver.StreamRequestHandler):
    """Just enough SMTP (RFC 5321) for libcurl: EHLO, MAIL, RCPT, DATA, QUIT.
    With server.refuse_rcpt set, RCPT gets that reply instead."""

    def handle(self):
        self.wfile.write(b"220 test ESMTP\r\n")
        while True:
            line = self.rfile.readline()
            if not line:
                return
            cmd = line.decode("latin-1").strip().upper()
            if cmd.startswith("EHLO") or cmd.startswith("HELO"):
                self.wfile.write(b"250-test\r\n250 8BITMIME\r\n")
            elif cmd.startswith("RCPT") and self.server.refuse_rcpt:
                self.wfile.write(self.server.refuse_rcpt.encode() + b"\r\n")
            elif cmd.startswith("MAIL") or cmd.startswith("RCPT") or cmd.startswith("RSET") \
                    or cmd.startswith("NOOP"):
                self.wfile.write(b"250 ok\r\n")
            elif cmd == "DATA":
                self.wfile.write(b"354 go on\r\n")
                data = []
                while True:
                    l = self.rfile.readline()
                    if not l or l in (b".\r\n", b".\n"):
                        break
                    data.append(l[1:] if l.startswith(b"..") else l)
                with self.server.lock:
                    self.server.received.append(b"".join(data).decode("utf-8", "replace"))
                self.wfile.write(b"250 queued\r\n")
            elif cmd == "QUIT":
                self.wfile.write(b"221 bye\r\n")
                return
            else:
                self.wfile.write(b"502 no\r\n")


def part_smtp_crash(root):
    srv = SMTPCounter()
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        cfg = config(root, sink="smtp", smtp_host="127.0.0.1",
                     smtp_port=str(srv.server_address[1]), smtp_tls="none")
        drop(root, 30)
        p = run("poll", cfg, {"TABULA_TEST_CRASH": "after-send"})
        check("smtp: the poll died after the first 250 (rc %d)" % p.returncode,
              p.returncode == 86, p.stderr[-500:])
        p = run("flush", cfg)
        check("smtp: the flush after the crash succeeds", p.returncode == 0, p.stderr[-500:])
        r = rows(root)
        with srv.lock:
            got = [msgid_of(m) for m in srv.received]
        compare("smtp crash", [msgid_of(m) for _, _, m in r], got, extra_allowed=1)
    finally:
        srv.shutdown()
        srv.server_close()


def part_server_words(root):
    """last_error keeps the server's own words; the rows not tried
    after a failure say so once ("not tried: not tried: ..." before)."""
    srv = SMTPCounter()
    srv.refuse_rcpt = "451 4.3.2 tabula-test: the queue is full, come back later"
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        cfg = config(root, sink="smtp", smtp_host="127.0.0.1",
                     smtp_port=str(srv.server_address[1]), smtp_tls="none")
        drop(root, 10)
        run("poll", cfg)
        con = sqlite3.connect(root + "/db")
        errs = [r[0] for r in con.execute("select last_error from outbox order by id")]
        con.close()
        words = "tabula-test: the queue is full"
        check("server words: every row keeps them (%d rows)" % len(errs),
              errs and all(words in e for e in errs), errs[:3])
        check("server words: no nested 'not tried'",
              not any("not tried: not tried" in e for e in errs), errs[-1:])
        print("     first: %s\n     rest:  %s" % (errs[0], errs[-1]))
    finally:
        srv.shutdown()
        srv.server_close()


# ---- 3. two flushes at once ----

def part_parallel_flush(root):
    log = root + "/sent.log"
    script = root + "/sendmail"
    with open(script, "w") as f:
        # a slow sendmail: two flushes overlap for sure
        f.write("#!/bin/sh\nsleep 0.01\n{ cat; echo '\x1e'; } >>%s\n" % log)
    os.chmod(script, 0o755)
    cfg = config(root, sink="sendmail", sendmail_path=script)
    drop(root, 60)
    # Queue the replies without sending them: die right after the commit.
    p = run("poll", cfg, {"TABULA_TEST_CRASH": "after-commit"})
    check("parallel flush: replies queued (rc %d)" % p.returncode, p.returncode == 86,
          p.stderr[-500:])
    e = dict(os.environ)
    procs = [subprocess.Popen([TABULA, "flush", "-c", cfg], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=e) for _ in range(2)]
    outs = [p.communicate(timeout=120) for p in procs]
    check("parallel flush: both flushes exit 0",
          all(p.returncode == 0 for p in procs), [o[1][-300:] for o in outs])
    text = open(log, encoding="utf-8").read() if os.path.exists(log) else ""
    sent = [msgid_of(m) for m in text.split("\x1e\n") if m.strip()]
    compare("parallel flush", [msgid_of(m) for _, _, m in rows(root)], sent)


# ---- 4. two daemons on one store ----

def part_two_daemons(root):
    cfg = config(root)
    first = subprocess.Popen([TABULA, "serve", "-c", cfg], stdout=subprocess.DEVNULL,
                             stderr=open(root + "/first.log", "w"))
    try:
        wait_for(lambda: "serving" in open(root + "/first.log").read(), 10)
        second = subprocess.Popen([TABULA, "serve", "-c", cfg], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
        try:
            _, err = second.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            err = None
        if err is None:
            check("two daemons: the second refuses to start", False, "it is still running")
        else:
            check("two daemons: the second refuses to start (rc %d)" % second.returncode,
                  second.returncode != 0 and "serve" in err and str(first.pid) in err, err)
            print("     second daemon: " + err.strip().splitlines()[-1])
        drop(root, 100)  # a confirmation request each
        wait_for(lambda: len(os.listdir(root + "/in/new")) == 0 and
                 len(os.listdir(root + "/out/new")) >= 100, 30)
        time.sleep(0.5)  # a second flusher, if any, would be writing now
        if err is None:
            second.kill()
            second.wait()
        compare("two daemons", [msgid_of(m) for _, _, m in rows(root)],
                maildir_ids(root + "/out"))
    finally:
        first.terminate()
        first.wait(timeout=10)


# ---- 5. four delivers at once ----

def part_parallel_deliver(root):
    """Four delivers at once, while a daemon works through a backlog of its
    own on the same store: every deliver waits its turn (busy timeout)
    rather than deferring, and sends only its own replies."""
    cfg = config(root)
    mails = [mail(i).encode() for i in range(100)]
    drop(root, 400, start=1000)
    serve = subprocess.Popen([TABULA, "serve", "-c", cfg], stdout=subprocess.DEVNULL,
                             stderr=open(root + "/serve.log", "w"))

    def one(i):
        p = subprocess.run([TABULA, "deliver", "-c", cfg], input=mails[i],
                           capture_output=True, timeout=120)
        return p.returncode, p.stderr.decode(errors="replace")

    codes = [None] * 100
    lock = threading.Lock()
    todo = list(range(100))

    def worker():
        while True:
            with lock:
                if not todo:
                    return
                i = todo.pop(0)
            codes[i] = one(i)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wait_for(lambda: not os.listdir(root + "/in/new"), 60)
    time.sleep(0.5)
    serve.terminate()
    serve.wait(timeout=30)
    bad = [(i, c) for i, c in enumerate(codes) if c[0] != 0]
    check("four delivers: every one exits 0 (%d did not)" % len(bad), not bad,
          [(i, c[0], c[1][-300:]) for i, c in bad[:3]])
    con = sqlite3.connect(root + "/db")
    n = con.execute("select count(*) from messages").fetchone()[0]
    con.close()
    check("four delivers beside serve's 400: all 500 mails processed (%d)" % n, n == 500)
    run("flush", cfg)  # whatever a failed deliver left queued
    compare("four delivers", [msgid_of(m) for _, _, m in rows(root)],
            maildir_ids(root + "/out"))


# ---- 6. Maildir, a pass of several batches ----

def part_batches(root):
    cfg = config(root, batch_max="8")
    drop(root, 40)
    p = run("poll", cfg)
    check("batches: one poll of 40 mails in batches of 8 (rc %d)" % p.returncode,
          p.returncode == 0 and len(os.listdir(root + "/in/cur")) == 40, p.stderr[-500:])
    # the pass's log line counts the replies sent between batches too
    check("batches: the pass says 40 replies sent",
          "40 message(s) processed" in p.stderr and "40 repl(ies) sent" in p.stderr,
          [l for l in p.stderr.splitlines() if "pass:" in l])
    r = rows(root)
    check("batches: 40 rows, all sent", len(r) == 40 and all(s == "sent" for _, s, _ in r),
          "%d rows, states %s" % (len(r), sorted(set(s for _, s, _ in r))))
    compare("batches", [msgid_of(m) for _, _, m in r], maildir_ids(root + "/out"))
    # 40 answers: a crash once the first batch's 16 replies (invitation and
    # notice) are written and synced, before they are marked sent
    drop(root, 0, start=40, mails=mailcases.confirm_answers(
        root + "/out", lambda i: "<confirm%d@example.org>" % i))
    p = run("poll", cfg, {"TABULA_TEST_CRASH": "after-send"})
    check("batches: the poll died after the first batch's replies (rc %d)" % p.returncode,
          p.returncode == 86, p.stderr[-500:])
    left = len(os.listdir(root + "/in/new"))
    check("batches: the first batch was acknowledged, the rest waits (%d left)" % left,
          left == 32, left)
    p = run("poll", cfg)
    check("batches: the poll after the crash succeeds", p.returncode == 0, p.stderr[-500:])
    r = rows(root)
    check("batches: 120 rows, all sent", len(r) == 120 and all(s == "sent" for _, s, _ in r),
          "%d rows, states %s" % (len(r), sorted(set(s for _, s, _ in r))))
    compare("batches crash", [msgid_of(m) for _, _, m in r], maildir_ids(root + "/out"))


def main():
    parts = [part_maildir_crash, part_smtp_crash, part_server_words, part_parallel_flush,
             part_two_daemons, part_parallel_deliver, part_batches]
    only = sys.argv[3:]
    for part in parts:
        if only and part.__name__[5:] not in only:
            continue
        root = tempfile.mkdtemp(prefix="tabula-once-")
        try:
            part(root)
        except Exception as e:  # a crash is a failure with its story
            check(part.__name__ + " ran", False, repr(e))
        tidy(root)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
