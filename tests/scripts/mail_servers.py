#!/usr/bin/env python3
"""tabula against real mail servers.

usage: mail_servers.py TABULA SOURCE_DIR

Starts Dovecot (IMAP, POP3, LMTP) and Postfix (SMTP, submission) on
loopback ports with a self-signed certificate (tests/harness/mailharness.sh,
everything under one temporary directory), and stops them at the end,
whatever happens. Then, with players' mails submitted to Postfix:

  1. IMAP+IDLE in, SMTP (STARTTLS + AUTH) out: a chess game begins and
     moves are answered into the players' Dovecot mailboxes; the referee's
     INBOX ends with every mail \\Seen. poll_ms is one minute, so a prompt
     answer can only come from IDLE.
  2. Restart safety: killed after the commit and before \\Seen, the move
     is applied once and the mail flagged on the next pass; killed before
     the commit, it is applied once after the restart.
  3. Outbox: with Postfix down, and with the server refusing AUTH, the
     replies stay queued with the last error, and go out once the server
     is back (or the password right).
  4. POP3 (STLS) in: the same kind of game, the maildrop emptied only after
     commit, including after a kill between commit and QUIT; and the
     sendmail sink through Postfix's own sendmail(1).
  5. TLS verification: with a CA that did not sign the servers'
     certificate, IMAP, POP3 and SMTP are refused before any password is
     sent (Dovecot logs no authentication attempt).
  6. Arrival over IMAP: a move counts at its INTERNALDATE (put into the
     mailbox with IMAP APPEND at 08:00, read at 10:00, before a 09:00
     deadline: played, not lost on time); and with imap_move_to, mail
     left committed and \\Seen in INBOX (what a kill between \\Seen and
     MOVE leaves) is all moved in one pass, not one a pass.

The servers are test fixtures: when they are missing and we are root, the
harness installs them; when they still cannot run, this test FAILS (it is
never skipped silently).
"""
import calendar
import email
import email.policy
import email.utils
import imaplib
import os
import re
import shutil
import smtplib
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import time

TABULA = SOURCE = HARNESS = None
D = None
ENV = {}
PASSED = FAILED = 0
SEEN = set()


def ok(cond, what):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print("FAIL: " + what, flush=True)
    return cond


def harness(*args, check=True):
    env = dict(os.environ, MH_POSTFIX_QUICK="1")  # falls back to the full start itself
    p = subprocess.run(["bash", HARNESS] + list(args), capture_output=True, text=True, env=env,
                       stdin=subprocess.DEVNULL, timeout=300)
    if check and p.returncode != 0:
        raise RuntimeError("mailharness %s failed:\n%s%s" % (args[0], p.stdout, p.stderr))
    return p


def ensure_servers():
    have = lambda: shutil.which("dovecot") and (shutil.which("postfix") or
                                               os.path.exists("/usr/sbin/postfix"))
    if have():
        return True
    if os.geteuid() == 0:
        harness("install", check=False)
    return bool(have())


def maildir(user):
    return os.path.join(D, "mail", user + "@example.test", "Maildir")


def read_mails(user):
    out = []
    for sub in ("new", "cur"):
        d = os.path.join(maildir(user), sub)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            path = os.path.join(d, name)
            key = (user, name.split(":")[0])
            if key in SEEN:
                continue
            with open(path, "rb") as f:
                msg = email.message_from_binary_file(f, policy=email.policy.default)
            out.append((key, msg))
    return out


def wait_mail(user, pattern, timeout=10.0, frm="referee@"):
    """The first not-yet-seen mail to user from frm whose subject matches pattern."""
    end = time.time() + timeout
    while time.time() < end:
        for key, msg in read_mails(user):
            if frm in str(msg["From"]) and re.search(pattern, str(msg["Subject"])):
                SEEN.add(key)
                return msg
        time.sleep(0.05)
    return None


def body_of(msg):
    part = msg.get_body(preferencelist=("plain",))
    return part.get_content() if part else ""


def submit(frm, to, subject, body, extra=None, port=None):
    """A player's mail, submitted to Postfix the way a mail client does."""
    msg = email.message.EmailMessage()
    msg["From"] = frm
    msg["To"] = to
    msg["Subject"] = subject
    msg["Date"] = email.utils.formatdate(localtime=False)
    msg["Message-ID"] = email.utils.make_msgid(domain="example.test")
    for k, v in (extra or {}).items():
        msg[k] = v
    msg.set_content(body)
    if port == "lmtp":
        with smtplib.LMTP("127.0.0.1", int(ENV["MH_LMTP_PORT"])) as s:
            s.send_message(msg, from_addr=frm, to_addrs=["referee@example.test"])
    else:
        with smtplib.SMTP("127.0.0.1", int(ENV["MH_SMTP_PORT"]), timeout=10) as s:
            s.send_message(msg)
    return msg


def reply(frm, last, body, port=None):
    to = email.utils.parseaddr(str(last["Reply-To"] or last["From"]))[1]
    quoted = "\n".join("> " + l for l in body_of(last).split("\n"))
    return submit(frm, to, "Re: " + str(last["Subject"]), body + "\n\n" + "On Sunday, the referee wrote:\n" + quoted,
                  {"In-Reply-To": str(last["Message-ID"]), "References": str(last["Message-ID"])},
                  port=port)


def config(path, db, **kv):
    base = {
        "store_path": db, "inbox": os.path.join(D, "t-in"), "outbox": os.path.join(D, "t-out"),
        "address": "referee@example.test", "domain": "example.test", "log_level": "3",
        "source": "imap", "in_host": "localhost", "in_port": ENV["MH_IMAPS_PORT"],
        "in_tls": "implicit", "in_user": "referee@example.test", "in_password": "secret",
        "sink": "smtp", "smtp_host": "localhost", "smtp_port": ENV["MH_SUBMISSION_PORT"],
        "smtp_tls": "starttls", "smtp_user": "referee@example.test", "smtp_password": "secret",
        "tls_cafile": ENV["MH_CACERT"], "retry_base_s": "1", "poll_ms": "60000",
        "net_timeout_s": "10",
    }
    base.update(kv)
    with open(path, "w") as f:
        f.write("[tabula]\n" + "".join("%s = %s\n" % (k, v) for k, v in base.items()))
    return path


def tabula(cmd, cfg, env=None, timeout=60):
    e = dict(os.environ)
    e.update(env or {})
    return subprocess.run([TABULA, cmd, "-c", cfg], capture_output=True, text=True, env=e,
                          timeout=timeout, stdin=subprocess.DEVNULL)


def journal(db, kind="move"):
    con = sqlite3.connect(db)
    try:
        return [r[0] for r in con.execute(
            "select text from journal where kind = ? order by game, seq", (kind,))]
    finally:
        con.close()


def outbox_rows(db):
    con = sqlite3.connect(db)
    try:
        return con.execute("select state, attempts, last_error from outbox order by id").fetchall()
    finally:
        con.close()


def doveadm(*args):
    return subprocess.run(["doveadm", "-c", os.path.join(D, "etc", "dovecot.conf")] + list(args),
                          capture_output=True, text=True, timeout=30)


def unseen(user, mailbox="INBOX"):
    p = doveadm("mailbox", "status", "-u", user + "@example.test", "messages unseen", mailbox)
    m = re.search(r"messages=(\d+) unseen=(\d+)", p.stdout)
    return (int(m.group(1)), int(m.group(2))) if m else (None, None)


def postfix(action):
    if action == "start":
        # postfix-script's documented marker: skip the ~3 s of integrity
        # checks that the first start already ran.
        open(os.path.join(D, "postfix", "spool", "quick-start"), "w").close()
    subprocess.run(["postfix", "-c", os.path.join(D, "postfix", "etc"), action],
                   capture_output=True, timeout=60)


def wait_port(port, up, timeout=10):
    import socket
    end = time.time() + timeout
    while time.time() < end:
        s = socket.socket()
        s.settimeout(0.2)
        r = s.connect_ex(("127.0.0.1", int(port)))
        s.close()
        if (r == 0) == up:
            return True
        time.sleep(0.1)
    return False


# ---------------------------------------------------------------------------

def confirm(who, referee_poll=lambda: None, frm="referee@", timeout=10.0, what=""):
    """who's first `new` is confirmed from its address before
    anyone is invited: who answers the request with `confirm`, as a mail
    client replies (the key comes back through Postfix's delimiter).
    False when no request came."""
    conf = wait_mail(who, "Please confirm", timeout, frm=frm)
    if not ok(conf is not None, "%sthe confirmation request reached %s's mailbox" % (what, who)):
        return False
    reply(who + "@example.test", conf, "confirm")
    referee_poll()
    return True


def start_game(referee_poll, who="alice", opp="bob"):
    """Invitation and acceptance; returns the last mail each player got."""
    submit(who + "@example.test", "referee@example.test", "a game?",
           "new chess fide_draws=off with %s@example.test\n" % opp)
    referee_poll()
    if not confirm(who, referee_poll):
        return None, None
    inv = wait_mail(opp, "invites you")
    if not ok(inv is not None, "the invitation reached %s's mailbox" % opp):
        return None, None
    reply(opp + "@example.test", inv, "accept")
    referee_poll()
    a = wait_mail(who, "")
    b = wait_mail(opp, "")
    ok(a is not None and b is not None, "both players told the game began")
    return a, b


def part_imap_idle():
    db = os.path.join(D, "imap.db")
    cfg = config(os.path.join(D, "imap.ini"), db)
    log = open(os.path.join(D, "serve.log"), "w")
    serve = subprocess.Popen([TABULA, "serve", "-c", cfg], stderr=log, stdout=log,
                             stdin=subprocess.DEVNULL)
    try:
        a, b = start_game(lambda: None)
        if a is None:
            raise RuntimeError("no game: nothing more to test over IMAP")
        t0 = time.time()
        reply("alice@example.test", a, "e4")
        a = wait_mail("alice", r"1\. e4 accepted", 10)
        b = wait_mail("bob", r"played 1\. e4", 10)
        took = time.time() - t0
        ok(a is not None and b is not None, "1. e4 answered to both players over SMTP")
        # poll_ms is 60 s: an answer this fast came from IDLE (Dovecot's ~0.5 s push).
        ok(took < 5, "1. e4 answered in %.2f s, so IDLE woke the daemon" % took)
        reply("bob@example.test", b, "e5")
        a = wait_mail("alice", r"played 1\.\.\. e5", 10)
        b = wait_mail("bob", r"1\.\.\. e5 accepted", 10)
        ok(a is not None and b is not None, "1... e5 answered")
        time.sleep(0.3)
    finally:
        serve.terminate()
        serve.wait(timeout=20)
        log.close()
    text = open(os.path.join(D, "serve.log")).read()
    ok("IDLE" in text and "no IDLE" not in text, "the daemon used IDLE")
    ok(serve.returncode == 0, "serve ended cleanly on SIGTERM (rc %s)" % serve.returncode)
    ok(journal(db) == ["e4", "e5"], "journal holds e4 e5: %s" % journal(db))
    msgs, uns = unseen("referee")
    # new, confirm, accept, e4, e5
    ok(msgs == 5 and uns == 0, "referee INBOX: 5 mails, all \\Seen (%s, %s)" % (msgs, uns))
    ok(all(r[0] == "sent" for r in outbox_rows(db)), "every reply marked sent on the 250")
    return db, cfg, a, b


def part_restart(db, cfg, a, b):
    # Killed between commit and acknowledgement.
    reply("alice@example.test", a, "Nf3")
    time.sleep(0.3)
    p = tabula("poll", cfg, {"TABULA_TEST_CRASH": "after-commit"})
    ok(p.returncode == 86, "poll died after the commit (rc %s)" % p.returncode)
    ok(journal(db).count("Nf3") == 1, "Nf3 committed once before the kill")
    ok(unseen("referee")[1] == 1, "the mail is still unseen after the kill")
    p = tabula("poll", cfg)
    ok(p.returncode == 0, "poll after the restart: rc %s %s" % (p.returncode, p.stderr[-300:]))
    ok(journal(db).count("Nf3") == 1, "Nf3 applied once after the restart")
    ok(unseen("referee")[1] == 0, "the mail is \\Seen after the restart")
    ok("acknowledged now" in p.stderr, "committed mail acknowledged without a second reading")
    a = wait_mail("alice", r"2\. Nf3 accepted")
    b = wait_mail("bob", r"played 2\. Nf3")
    ok(a is not None and b is not None, "the replies to Nf3 went out after the restart")
    # Killed before the commit.
    reply("bob@example.test", b, "Nc6")
    time.sleep(0.3)
    p = tabula("poll", cfg, {"TABULA_TEST_CRASH": "before-commit"})
    ok(p.returncode == 86, "poll died before the commit (rc %s)" % p.returncode)
    ok("Nc6" not in journal(db), "nothing of Nc6 kept by the killed run")
    ok(unseen("referee")[1] == 1, "the mail is unseen after the kill")
    p = tabula("poll", cfg)
    ok(journal(db).count("Nc6") == 1 and unseen("referee")[1] == 0,
       "Nc6 applied once after the restart and flagged \\Seen")
    a = wait_mail("alice", r"played 2\.\.\. Nc6")
    b = wait_mail("bob", r"2\.\.\. Nc6 accepted")
    ok(a is not None and b is not None, "the replies to Nc6 went out")
    return a, b


def part_outbox(db, cfg, a, b):
    # SMTP down: Postfix stopped; the move goes straight into Dovecot (LMTP).
    postfix("stop")
    ok(wait_port(ENV["MH_SUBMISSION_PORT"], False), "postfix stopped")
    reply("alice@example.test", a, "Bc4", port="lmtp")
    time.sleep(0.2)
    p = tabula("poll", cfg)
    ok(journal(db).count("Bc4") == 1, "Bc4 applied while the SMTP server is down")
    rows = [r for r in outbox_rows(db) if r[0] == "queued"]
    ok(len(rows) == 2 and all(r[1] >= 1 and r[2] for r in rows),
       "both replies queued with attempts and the last error: %s" % rows)
    postfix("start")
    ok(wait_port(ENV["MH_SUBMISSION_PORT"], True), "postfix back")
    time.sleep(1.2)  # retry_base_s = 1
    p = tabula("flush", cfg)
    ok(p.returncode == 0, "flush once the server is back (rc %s) %s" % (p.returncode, p.stderr[-300:]))
    a = wait_mail("alice", r"3\. Bc4 accepted")
    b = wait_mail("bob", r"played 3\. Bc4")
    ok(a is not None and b is not None, "the queued replies arrived after the server came back")
    ok(all(r[0] == "sent" for r in outbox_rows(db)), "no row left queued")
    # The server refuses: AUTH with a wrong password (535).
    bad = config(os.path.join(D, "bad.ini"), db, smtp_password="wrong")
    reply("bob@example.test", b, "Nf6")
    time.sleep(0.8)
    p = tabula("poll", bad)
    rows = [r for r in outbox_rows(db) if r[0] == "queued"]
    ok(len(rows) == 2 and all("535" in r[2] or "denied" in r[2].lower() for r in rows)
       and all(r[1] >= 1 for r in rows),
       "refused by the server: queued with its answer kept: %s" % rows)
    time.sleep(1.2)
    p = tabula("flush", cfg)
    a = wait_mail("alice", r"played 3\.\.\. Nf6")
    ok(a is not None and all(r[0] == "sent" for r in outbox_rows(db)),
       "sent once the password is right")


def part_pop3():
    # carol is the referee here; alice and bob play.
    db = os.path.join(D, "pop3.db")
    cfg = config(os.path.join(D, "pop3.ini"), db, source="pop3", in_port=ENV["MH_POP3_PORT"],
                 in_tls="starttls", in_user="carol@example.test",
                 address="carol@example.test", smtp_user="carol@example.test")
    def poll():
        time.sleep(0.3)
        tabula("poll", cfg)

    submit("alice@example.test", "carol@example.test", "pop3 game",
           "new chess with bob@example.test\n")
    poll()
    if not confirm("alice", poll, frm="carol@", what="POP3: "):
        return
    inv = wait_mail("bob", "invites you", frm="carol@")
    if not ok(inv is not None, "POP3: the invitation reached bob"):
        return
    ok("carol+" in str(inv["Reply-To"]), "POP3: replies go to carol's tagged address")
    reply("bob@example.test", inv, "accept")
    poll()
    a = wait_mail("alice", "", frm="carol@")
    wait_mail("bob", "", frm="carol@")
    reply("alice@example.test", a, "d4")
    time.sleep(0.3)
    p = tabula("poll", cfg, {"TABULA_TEST_CRASH": "after-commit"})
    ok(p.returncode == 86, "POP3: killed after the commit (rc %s) %s" % (p.returncode, p.stderr[-600:]))
    ok(unseen("carol")[0] == 1, "POP3: the mail stays on the server until QUIT")
    p = tabula("poll", cfg)
    ok(journal(db) == ["d4"], "POP3: d4 applied once: %s" % journal(db))
    ok(unseen("carol")[0] == 0, "POP3: maildrop empty after DELE+QUIT")
    a = wait_mail("alice", r"1\. d4 accepted", frm="carol@")
    ok(a is not None, "POP3: the answer reached alice over SMTP")


def part_arrival_and_moves():
    # carol is the referee again, now over IMAP, on a test clock.
    db = os.path.join(D, "arrive.db")
    clock = os.path.join(D, "arrive.clock")

    def set_clock(t):
        with open(clock, "w") as f:
            f.write("%d\n" % t)

    def poll(c):
        time.sleep(0.3)
        return tabula("poll", c)

    for user in ("alice", "bob"):  # what earlier parts left unread is theirs
        for key, _ in read_mails(user):
            SEEN.add(key)
    monday = calendar.timegm((2026, 11, 23, 9, 0, 0))
    set_clock(monday)
    cfg = config(os.path.join(D, "arrive.ini"), db, in_user="carol@example.test",
                 address="carol@example.test", smtp_user="carol@example.test",
                 test_clock_file=clock)
    submit("alice@example.test", "carol@example.test", "a timed game",
           "new chess days=1 with bob@example.test\n")
    poll(cfg)
    if not confirm("alice", lambda: poll(cfg), frm="carol@", what="arrival: "):
        return
    inv = wait_mail("bob", "invites you", frm="carol@")
    if not ok(inv is not None, "arrival: the invitation reached bob"):
        return
    reply("bob@example.test", inv, "accept")
    poll(cfg)
    a = wait_mail("alice", "", frm="carol@")
    wait_mail("bob", "", frm="carol@")
    # Alice must move by Tuesday 09:00. Her e4 reaches carol's INBOX at
    # 08:00 (APPEND with that INTERNALDATE); the referee reads it at 10:00.
    msg = email.message.EmailMessage()
    msg["From"] = "alice@example.test"
    msg["To"] = email.utils.parseaddr(str(a["Reply-To"]))[1]
    msg["Subject"] = "Re: " + str(a["Subject"])
    msg["Date"] = "Sat, 21 Nov 2026 10:00:00 +0000"  # the sender's: never counts
    msg["Message-ID"] = email.utils.make_msgid(domain="example.test")
    msg.set_content("e4\n")
    ctx = ssl.create_default_context(cafile=ENV["MH_CACERT"])
    with imaplib.IMAP4_SSL("localhost", int(ENV["MH_IMAPS_PORT"]), ssl_context=ctx) as im:
        im.login("carol@example.test", "secret")
        arrived = calendar.timegm((2026, 11, 24, 8, 0, 0))
        im.append("INBOX", None, imaplib.Time2Internaldate(arrived), msg.as_bytes())
    set_clock(calendar.timegm((2026, 11, 24, 10, 0, 0)))
    p = poll(cfg)
    ok(journal(db) == ["e4"] and not journal(db, "timeout"),
       "arrival: e4 that reached the mailbox at 08:00 is played at 10:00, not lost on "
       "time: %s %s %s" % (journal(db), journal(db, "timeout"), p.stderr[-400:]))
    b = wait_mail("bob", r"played 1\. e4", frm="carol@")
    ok(b is not None, "arrival: bob told of 1. e4")
    # What a kill between \Seen and MOVE leaves: mail committed, \Seen and
    # still in INBOX. Three more are made so (read without imap_move_to),
    # then one pass with imap_move_to must move all of them.
    for _ in range(3):
        submit("alice@example.test", "carol@example.test", "my games", "games\n")
        p = poll(cfg)
    msgs, uns = unseen("carol")
    ok(msgs and msgs >= 6 and uns == 0, "moves: %s mails handled and \\Seen in INBOX" % msgs)
    doveadm("mailbox", "create", "-u", "carol@example.test", "Handled")
    cfg2 = config(os.path.join(D, "arrive-move.ini"), db, in_user="carol@example.test",
                  address="carol@example.test", smtp_user="carol@example.test",
                  test_clock_file=clock, imap_move_to="Handled")
    p = poll(cfg2)
    left = unseen("carol")[0]
    moved = unseen("carol", "Handled")[0]
    ok(left == 0 and moved == msgs,
       "moves: all %s finished in one pass (INBOX %s, Handled %s) %s"
       % (msgs, left, moved, p.stderr[-300:]))


def part_sendmail():
    """The sendmail sink through Postfix's own sendmail(1) (maildrop, pickup)."""
    wrapper = os.path.join(D, "sendmail")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\nexec /usr/sbin/sendmail -C %s \"$@\"\n" % os.path.join(D, "postfix", "etc"))
    os.chmod(wrapper, 0o755)
    db = os.path.join(D, "sendmail.db")
    inbox = os.path.join(D, "sm-in")
    cfg = config(os.path.join(D, "sendmail.ini"), db, source="maildir", inbox=inbox,
                 sink="sendmail", sendmail_path=wrapper)
    for sub in ("tmp", "new", "cur"):
        os.makedirs(os.path.join(inbox, sub), exist_ok=True)
    with open(os.path.join(inbox, "new", "1.M1P1.test"), "w") as f:
        f.write("From: carol@example.test\nTo: referee@example.test\nSubject: hi\n"
                "Message-ID: <sm1@example.test>\n\nnew checkers with bob@example.test\n")
    p = tabula("poll", cfg)
    ok(p.returncode == 0, "sendmail sink: poll rc %s %s" % (p.returncode, p.stderr[-300:]))
    # Carol confirms her first `new` (into the Maildir inbox)
    conf = wait_mail("carol", "Please confirm", 20)
    ok(conf is not None, "sendmail sink: the confirmation request reached carol")
    if conf is None:
        return
    with open(os.path.join(inbox, "new", "2.M2P1.test"), "w") as f:
        f.write("From: carol@example.test\nTo: %s\nSubject: Re: %s\n"
                "Message-ID: <sm2@example.test>\n\nconfirm\n"
                % (email.utils.parseaddr(str(conf["Reply-To"]))[1], conf["Subject"]))
    p = tabula("poll", cfg)
    ok(p.returncode == 0, "sendmail sink: poll rc %s %s" % (p.returncode, p.stderr[-300:]))
    inv = wait_mail("bob", "invites you", 20)
    ok(inv is not None and "carol@example.test" in str(inv["Subject"]),
       "sendmail sink: the invitation reached bob through Postfix's sendmail")
    ok(all(r[0] == "sent" for r in outbox_rows(db)) and len(outbox_rows(db)) == 3,
       "sendmail sink: every row sent on exit 0")


def part_wrong_ca():
    bad_ca = os.path.join(D, "other-ca.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
                    "-keyout", os.path.join(D, "other-key.pem"), "-out", bad_ca,
                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"],
                   capture_output=True, check=True)
    db = os.path.join(D, "ca.db")
    dlog = os.path.join(D, "log", "dovecot.log")
    before = len(open(dlog).read())
    cfg = config(os.path.join(D, "ca.ini"), db, tls_cafile=bad_ca, in_user="carol@example.test")
    p = tabula("poll", cfg)
    ok(p.returncode != 0 and "not trusted" in p.stderr,
       "IMAPS with a wrong CA refused: %s" % p.stderr[-200:])
    cfg = config(os.path.join(D, "ca2.ini"), db, tls_cafile=bad_ca, source="pop3",
                 in_port=ENV["MH_POP3_PORT"], in_tls="starttls", in_user="carol@example.test")
    p = tabula("poll", cfg)
    ok(p.returncode != 0 and "not trusted" in p.stderr, "POP3 STLS with a wrong CA refused")
    time.sleep(0.3)
    text = open(dlog).read()[before:]
    ok(text.count("no auth attempts") >= 2 and "Login: user=" not in text
       and "auth failed" not in text,
       "Dovecot saw no password from the refused clients: %s" % text[-400:])
    # SMTP: libcurl verifies; the reply stays queued.
    con = sqlite3.connect(db)
    con.execute("insert into outbox(game, recipient, state, next_try, created)"
                " values (0, 'alice@example.test', 'queued', 0, 0)")
    # the text beside its row (schema v9)
    con.execute("insert into outbox_message(id, message) values (last_insert_rowid(),"
                " 'From: carol@example.test\r\nTo: alice@example.test\r\n"
                "Subject: x\r\nDate: Sun, 22 Nov 2026 10:00:00 +0000\r\nMessage-ID: <ca@example.test>\r\n\r\nx\r\n')")
    con.commit()
    con.close()
    p = tabula("flush", cfg)
    rows = outbox_rows(db)
    ok(rows and rows[0][0] == "queued" and rows[0][2], "SMTP with a wrong CA refused: %s" % rows)


def main():
    global TABULA, SOURCE, HARNESS, D, ENV
    TABULA, SOURCE = os.path.abspath(sys.argv[1]), sys.argv[2]
    HARNESS = os.path.join(SOURCE, "tests", "harness", "mailharness.sh")
    if not ensure_servers():
        print("FAIL: Dovecot and Postfix are not installed and cannot be installed here "
              "(run tests/harness/mailharness.sh install as root)")
        return 1
    if os.geteuid() != 0:
        print("FAIL: the mail server fixtures need root (Postfix's master, Dovecot's privsep)")
        return 1
    D = tempfile.mkdtemp(prefix="tabula-mh.", dir="/tmp")
    t0 = time.time()
    try:
        harness("start", D)
        with open(os.path.join(D, "env")) as f:
            for line in f:
                k, _, v = line.strip().partition("=")
                ENV[k] = v.strip('"')
        db, cfg, a, b = part_imap_idle()
        print("imap+idle: %.1f s" % (time.time() - t0), flush=True)
        a, b = part_restart(db, cfg, a, b)
        print("restart: %.1f s" % (time.time() - t0), flush=True)
        part_outbox(db, cfg, a, b)
        print("outbox: %.1f s" % (time.time() - t0), flush=True)
        part_pop3()
        print("pop3: %.1f s" % (time.time() - t0), flush=True)
        part_arrival_and_moves()
        print("arrival and moves: %.1f s" % (time.time() - t0), flush=True)
        part_sendmail()
        print("sendmail: %.1f s" % (time.time() - t0), flush=True)
        part_wrong_ca()
    except Exception as e:  # a broken step is a failure, and the servers still stop
        ok(False, "exception: %r" % (e,))
        import traceback
        traceback.print_exc()
    finally:
        p = harness("stop", D, check=False)
        ok(p.returncode == 0, "servers stopped, no port left open: %s" % p.stderr[-300:])
        if FAILED == 0:
            shutil.rmtree(D, ignore_errors=True)
        else:
            print("kept for inspection: " + D)
    print("%d passed, %d failed (%.1f s)" % (PASSED, FAILED, time.time() - t0))
    return 0 if FAILED == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
