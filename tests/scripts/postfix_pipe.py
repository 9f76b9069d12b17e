#!/usr/bin/env python3
"""The Postfix pipe(8) recipe of tabula(1), run for real.

usage: postfix_pipe.py TABULA SOURCE_DIR

The harness's Postfix (tests/harness/mailharness.sh, loopback ports, its
own configuration folder) gets exactly the recipe of tabula(1) and the
README: a `tabula` pipe transport in master.cf (flags=DR, an unprivileged
user, argv=TABULA deliver -c CONF), transport_maps sending
referee@example.test to it, recipient_delimiter = + so that
referee+GAME.KEY@ reaches it too, tabula_destination_recipient_limit = 1.
Players' mails are submitted to Postfix over SMTP; tabula answers by SMTP
submission into the players' Dovecot mailboxes. Then:
  1. a game of chess by mail, invitation to checkmate, every mail piped;
  2. the store locked by another process past the busy timeout: deliver
     exits 75, Postfix defers the mail and keeps it queued, nothing is
     applied; once the lock is gone Postfix retries and the move is
     applied exactly once;
  3. a mail over tabula's size limit: deliver exits 65 and Postfix bounces
     it to its sender;
  4. with `tabula serve` running, the pipe switched to tabula-deliver (issue
     15): a second game through Postfix, the daemon's inbox and SMTP.
Root only (Postfix's master, Dovecot's privsep): skipped (77) otherwise.
Prints "N passed, M failed".
"""
import os
import pwd
import shutil
import re
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mail_servers as ms  # noqa: E402  the harness helpers: submit, reply, wait_mail

SKIP = 77
USER = "nobody"  # pipe(8) runs the command as this user; never root


def ok(cond, what, detail=""):
    return ms.ok(cond, what + ("" if cond or not detail else "\n    " + str(detail)[-1500:]))


def postfix_log():
    with open(os.path.join(ms.D, "log", "postfix.log"), errors="replace") as f:
        return f.read()


def setup_pipe(tabula, conf, command="deliver "):
    """The recipe of tabula(1), MAIL TRANSPORT, in the harness's Postfix;
    command "" for tabula-deliver, which takes no command word."""
    etc = os.path.join(ms.D, "postfix", "etc")
    with open(os.path.join(etc, "transport"), "w") as f:
        f.write("referee@example.test    tabula:\n")

    def postconf(*args):
        p = subprocess.run(["postconf", "-c", etc] + list(args), capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError("postconf %s: %s" % (args, p.stderr))

    postconf("-e", "recipient_delimiter = +",
             "transport_maps = texthash:%s" % os.path.join(etc, "transport"),
             "tabula_destination_recipient_limit = 1")
    postconf("-M", "tabula/unix=tabula unix - n n - - pipe flags=DR user=%s argv=%s %s-c %s"
             % (USER, tabula, command, conf))
    # Postfix will not read a file changed in the last seconds (harness trap 12)
    for name in os.listdir(etc):
        os.utime(os.path.join(etc, name), (time.time() - 60, time.time() - 60))
    p = subprocess.run(["postfix", "-c", etc, "reload"], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("postfix reload: " + p.stderr)
    time.sleep(1)


def queue():
    p = subprocess.run(["postqueue", "-c", os.path.join(ms.D, "postfix", "etc"), "-p"],
                       capture_output=True, text=True)
    return p.stdout


def flush_queue():
    subprocess.run(["postqueue", "-c", os.path.join(ms.D, "postfix", "etc"), "-f"],
                   capture_output=True, text=True)


def moves(db):
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return [r[0] for r in con.execute("select text from journal where kind = 'move' "
                                          "order by game, seq")]
    finally:
        con.close()


def as_user(cmd, **kw):
    pw = pwd.getpwnam(USER)
    return subprocess.Popen(["setpriv", "--reuid=%d" % pw.pw_uid, "--regid=%d" % pw.pw_gid,
                             "--clear-groups"] + cmd, **kw)


def play(db):
    ms.submit("alice@example.test", "referee@example.test", "a game?",
              "new chess with bob@example.test\n")
    if not ms.confirm("alice", timeout=20):  # Her first `new`
        return None, None
    inv = ms.wait_mail("bob", "invites you", 20)
    if not ok(inv is not None, "the invitation came through Postfix, tabula deliver and SMTP",
              postfix_log()[-2000:]):
        return None, None
    ok(re.search(r"referee\+1\.\w+@example.test", str(inv["Reply-To"])),
       "its Reply-To carries the game and key after '+'", inv["Reply-To"])
    ms.reply("bob@example.test", inv, "accept")
    a, b = ms.wait_mail("alice", "", 20), ms.wait_mail("bob", "", 20)
    ok(a is not None and b is not None, "referee+1.KEY@ reached tabula: the game started")
    a = ms.wait_mail("alice", "", 0.1) or a
    for who, move in (("alice", "e4"), ("bob", "e5")):
        last = a if who == "alice" else b
        ms.reply(who + "@example.test", last, move)
        a2 = ms.wait_mail("alice", re.escape(move), 20)
        b2 = ms.wait_mail("bob", re.escape(move), 20)
        if not ok(a2 is not None and b2 is not None, "%s's %s answered to both" % (who, move)):
            return None, None
        a, b = a2, b2
    ok(moves(db) == ["e4", "e5"], "the journal holds e4 e5", moves(db))
    return a, b


def locked_delivery(db, a):
    """A store-locked delivery: 75, deferred by Postfix, retried, applied once."""
    before = postfix_log()
    holder = as_user([sys.executable, "-c",
                      "import sqlite3,sys,time\n"
                      "c=sqlite3.connect(sys.argv[1],isolation_level=None)\n"
                      "c.execute('begin immediate')\nprint('locked',flush=True)\n"
                      "sys.stdin.read()\n", db],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ok(holder.stdout.readline().strip() == "locked", "another process holds the store's lock")
        ms.reply("alice@example.test", a, "Bc4")
        deadline = time.time() + 40
        while time.time() < deadline and "status=deferred" not in postfix_log()[len(before):]:
            time.sleep(0.2)
        log = postfix_log()[len(before):]
        ok(re.search(r"relay=tabula, .*status=deferred", log),
           "Postfix deferred the mail tabula could not take (exit 75)", log[-1500:])
        ok("Bc4" not in moves(db), "nothing of it was applied while the store was locked")
        q = queue()
        # pipe(8) shows the command's standard error: why, in the queue
        ok("referee+1." in q and "(temporary failure" in q, "the mail waits in Postfix's queue",
           q)
        ok("database is locked" in q, "the queue says why: tabula's words on standard error", q)
    finally:
        holder.stdin.close()
        holder.wait(timeout=10)
    flush_queue()  # Postfix would retry by itself within its backoff time
    a2 = ms.wait_mail("alice", r"2\. Bc4 accepted", 40)
    b2 = ms.wait_mail("bob", r"played 2\. Bc4", 20)
    ok(a2 is not None and b2 is not None, "retried by Postfix once the lock was gone: answered",
       postfix_log()[len(before):][-1500:])
    ok(moves(db).count("Bc4") == 1, "Bc4 applied exactly once", moves(db))
    # the replies may land before pipe(8) has logged the command's exit
    sent = r"relay=tabula, .*status=sent \(delivered via tabula service\)"
    deadline = time.time() + 20
    while time.time() < deadline and not re.search(sent, postfix_log()[len(before):]):
        time.sleep(0.2)
    log = postfix_log()[len(before):]
    ok(re.search(sent, log), "Postfix logged the retry as delivered", log[-1500:])
    deadline = time.time() + 10
    while time.time() < deadline and "referee+1." in queue():
        time.sleep(0.2)
    ok("referee+1." not in queue(), "the queue is empty again", queue())
    return a2, b2


def refused_for_good():
    """Over tabula's 10 MiB: deliver exits 65 and the sender gets the mail back."""
    before = postfix_log()
    ms.submit("alice@example.test", "referee@example.test", "my collected games",
              "x" * 72 + "\n" + ("y" * 999 + "\n") * 10600)
    bounce = ms.wait_mail("alice", "Undelivered|Returned|failure", 60, frm="MAILER-DAEMON")
    log = postfix_log()[len(before):]
    ok(re.search(r"relay=tabula, .*status=bounced", log),
       "a mail over the size limit: exit 65, bounced by Postfix", log[-1500:])
    ok(bounce is not None, "the sender got it back from the mailer daemon")


def beside_serve(exe, conf, db, home):
    """With `tabula serve` running, the pipe is tabula-deliver
    (README, tabula(1)): each mail goes through Postfix into the daemon's
    inbox, and the daemon, woken by it, answers over SMTP."""
    thin = os.path.join(home, "tabula-deliver")
    shutil.copy2(os.path.join(os.path.dirname(ms.TABULA), "tabula-deliver"), thin)
    os.chmod(thin, 0o755)
    setup_pipe(thin, conf, command="")
    serve = as_user([exe, "serve", "-c", conf], cwd=home, stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        lock = db + ".lock"
        deadline = time.time() + 20
        while time.time() < deadline and not (
                os.path.exists(lock) and open(lock).read().strip() == str(serve.pid)):
            time.sleep(0.1)
        ok(serve.poll() is None, "tabula serve runs beside the pipe")
        before = len(moves(db))
        ms.submit("alice@example.test", "referee@example.test", "another?",
                  "new chess with bob@example.test\n")
        inv = ms.wait_mail("bob", "invites you", 30)
        if not ok(inv is not None, "with serve: the invitation came through tabula-deliver",
                  postfix_log()[-1500:]):
            return
        ms.reply("bob@example.test", inv, "accept")
        a = ms.wait_mail("alice", "Game 2", 30)
        ok(a is not None, "with serve: the game started")
        a = ms.wait_mail("alice", "Game 2", 0.5) or a
        ms.reply("alice@example.test", a, "d4")
        a2 = ms.wait_mail("alice", r"Game 2.*d4", 30)
        b2 = ms.wait_mail("bob", r"Game 2.*d4", 30)
        ok(a2 is not None and b2 is not None, "with serve: d4 answered to both")
        ok(len(moves(db)) == before + 1 and moves(db)[-1] == "d4", "with serve: d4 journaled once",
           moves(db))
        # the daemon played them: the mails went through its inbox (a
        # `tabula deliver` never writes there)
        inbox = os.path.join(home, "in", "cur")
        ok(os.path.isdir(inbox) and len(os.listdir(inbox)) >= 3,
           "the three mails were queued in the daemon's inbox and read from it",
           os.listdir(inbox) if os.path.isdir(inbox) else "no inbox")
        log = postfix_log()
        ok(re.search(r"relay=tabula, .*status=sent \(delivered via tabula service\)", log),
           "Postfix logged tabula-deliver's exit 0 as delivered")
    finally:
        serve.terminate()
        serve.wait(timeout=30)


def main():
    tabula, src = os.path.abspath(sys.argv[1]), sys.argv[2]
    ms.TABULA, ms.SOURCE = tabula, src
    ms.HARNESS = os.path.join(src, "tests", "harness", "mailharness.sh")
    if os.geteuid() != 0:
        print("SKIP: the Postfix pipe test runs the harness's Postfix and Dovecot, which need "
              "root (CI runs the suite as root)")
        return SKIP
    if not ms.ensure_servers():
        print("FAIL: Dovecot and Postfix are not installed and cannot be installed here")
        return 1
    ms.D = tempfile.mkdtemp(prefix="tabula-pipe.", dir="/tmp")
    t0 = time.time()
    try:
        ms.harness("start", ms.D)
        with open(os.path.join(ms.D, "env")) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                ms.ENV[k] = v.strip('"')
        home = os.path.join(ms.D, "tabula")
        os.makedirs(home)
        pw = pwd.getpwnam(USER)
        os.chown(home, pw.pw_uid, pw.pw_gid)
        conf = os.path.join(home, "tabula.ini")
        with open(conf, "w") as f:
            f.write("[tabula]\nstore_path = tabula.db\ninbox = in\noutbox = out\n"
                    "address = referee@example.test\ndomain = example.test\nrate_limit = 0\n"
                    "log_file = tabula.log\nsink = smtp\nsmtp_host = localhost\n"
                    "smtp_port = %s\nsmtp_tls = starttls\nsmtp_user = referee@example.test\n"
                    "smtp_password = secret\ntls_cafile = %s\n"
                    % (ms.ENV["MH_SUBMISSION_PORT"], ms.ENV["MH_CACERT"]))
        # pipe(8) runs the program as an unprivileged user, who may not be
        # able to enter the checkout (a clone under `mktemp -d` is 0700):
        # a copy of the binary (its libraries are linked in) where that
        # user can reach it, as an installed tabula would be
        exe = os.path.join(home, "tabula")
        shutil.copy2(tabula, exe)
        os.chmod(exe, 0o755)
        setup_pipe(exe, conf)
        db = os.path.join(home, "tabula.db")
        a, b = play(db)
        print("game through the pipe: %.1f s" % (time.time() - t0), flush=True)
        if a is not None:
            a, b = locked_delivery(db, a)
            print("locked delivery: %.1f s" % (time.time() - t0), flush=True)
            if a is not None:
                ms.reply("bob@example.test", b, "Nc6")
                a = ms.wait_mail("alice", r"played 2\.\.\. Nc6", 20)
                ms.reply("alice@example.test", a, "Qh5")
                b = ms.wait_mail("bob", r"played 3\. Qh5", 20)
                ms.reply("bob@example.test", b, "Nf6")
                a = ms.wait_mail("alice", r"played 3\.\.\. Nf6", 20)
                ms.reply("alice@example.test", a, "Qxf7#")
                over = ms.wait_mail("bob", "White won by checkmate", 20)
                ok(over is not None, "the game ended by mate, every mail through the pipe")
        refused_for_good()
        print("refused for good: %.1f s" % (time.time() - t0), flush=True)
        beside_serve(exe, conf, db, home)
        print("beside serve: %.1f s" % (time.time() - t0), flush=True)
        log = open(os.path.join(home, "tabula.log")).read()
        ok(len(re.findall(r"info: mail <\S+> from \S+@example.test: game 1, applied", log)) >= 9,
           "tabula's log_file holds a line per mail with its game", log[-1500:])
        ok(os.stat(db).st_uid == pw.pw_uid, "the store belongs to the pipe's user")
    except Exception as e:  # a broken step is a failure, and the servers still stop
        import traceback
        traceback.print_exc()
        ok(False, "exception: %r" % (e,))
    finally:
        p = ms.harness("stop", ms.D, check=False)
        ok(p.returncode == 0, "servers stopped, no port left open", p.stderr[-300:])
        if ms.FAILED == 0:
            shutil.rmtree(ms.D, ignore_errors=True)
        else:
            print("kept for inspection: " + ms.D)
    print("%d passed, %d failed (%.1f s)" % (ms.PASSED, ms.FAILED, time.time() - t0))
    return 0 if ms.FAILED == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
