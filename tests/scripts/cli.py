#!/usr/bin/env python3
"""The command line never surprises.

usage: cli.py TABULA SOURCE_DIR

  - one configuration lookup for every command: -c FILE anywhere on the
    line (before the command, after the game number, --config=FILE), else
    $TABULA_CONFIG, else the built-in defaults in ./tabula-data; relative
    paths in a file are taken from the file's folder;
  - commands that only read never create a store, and say which store they
    looked for and where its configuration came from;
  - --help, --version, help COMMAND, COMMAND --help;
  - every exit status of tabula(1): 0, 1, 64 EX_USAGE, 65 EX_DATAERR, 66
    EX_NOINPUT, 73 EX_CANTCREAT, 75 EX_TEMPFAIL, 77 EX_NOPERM, 78 EX_CONFIG,
    and deliver's 0, 65 and 75 (a locked store, an unopenable store, a
    broken configuration: the MTA keeps the mail);
  - games: sides by name, aligned columns; adjudicate --reason mailed to
    both players and journaled;
  - logging: one line per mail with its game and outcome; "<N>" priorities
    when standard error is the journal (JOURNAL_STREAM); log_file.
  - install: what scripts/run.sh builds is everything `cmake --install`
    installs (it prints that command);
  - transports: every IMAP, POP3, SMTP, TLS and sendmail failure names the
    server (host and port, or the program), the step and the cause in
    words, against a closed port and a server that speaks garbage; an
    IMAP/SMTP configuration makes no ./tabula-data;
  - passwords: in_password_file, smtp_password_file and systemd's
    credentials ($CREDENTIALS_DIRECTORY/in_password, smtp_password).
usage: cli.py TABULA SOURCE_DIR [install|transports|passwords...]
Prints "N passed, M failed".
"""
import email
import email.policy
import glob
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

TABULA = os.path.abspath(sys.argv[1])
SRC = os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)
EX = {"OK": 0, "FAULT": 1, "USAGE": 64, "DATAERR": 65, "NOINPUT": 66, "CANTCREAT": 73,
      "TEMPFAIL": 75, "NOPERM": 77, "CONFIG": 78}


def run(args, cwd, env=None, stdin=b"", extra_env=None):
    e = dict(os.environ)
    e.pop("TABULA_CONFIG", None)
    e.pop("JOURNAL_STREAM", None)
    if env is not None:
        e = env
    e.update(extra_env or {})
    p = subprocess.run([TABULA] + args, cwd=cwd, env=e, input=stdin, capture_output=True,
                       timeout=120)
    p.out = p.stdout.decode(errors="replace")
    p.err = p.stderr.decode(errors="replace")
    return p


def status(name, p, want):
    check("%s: exit %d" % (name, EX[want]), p.returncode == EX[want],
          "exit %d\nstdout: %s\nstderr: %s" % (p.returncode, p.out, p.err))


def mail(frm, body, to="referee@example.org", subject="hi", mid=None, reply=None):
    if reply is not None:
        to = str(reply["Reply-To"])
        subject = "Re: " + str(reply["Subject"])
    mail.n = getattr(mail, "n", 0) + 1
    return ("From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%s@example.org>\r\n\r\n%s\r\n"
            % (frm, to, subject, mid or "cli%d" % mail.n, body)).encode()


class Outbox:
    def __init__(self, d):
        self.d, self.seen, self.last = d, set(), {}

    def new(self):
        got = []
        for path in sorted(glob.glob(os.path.join(self.d, "new", "*"))):
            if path not in self.seen:
                self.seen.add(path)
                with open(path, "rb") as f:
                    m = email.message_from_binary_file(f, policy=email.policy.default)
                self.last[str(m["To"])] = m
                got.append(m)
        return got


def body(m):
    return m.get_body(preferencelist=("plain",)).get_content()


def main():
    root = tempfile.mkdtemp(prefix="tabula-cli.")
    os.chmod(root, 0o755)  # the EX_NOPERM check runs a command as another user
    only = sys.argv[3:]
    try:
        if not only:
            run_all(root)
        for name, part in (("install", part_install), ("transports", part_transports),
                           ("passwords", part_passwords)):
            if not only or name in only:
                os.makedirs(os.path.join(root, name))
                part(os.path.join(root, name))
    except Exception as e:  # a broken step is a failure, never a skip
        import traceback
        traceback.print_exc()
        check("no exception", False, repr(e))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return finish()


def run_all(root):
    empty = os.path.join(root, "empty")
    os.makedirs(empty)

    # ---- help and version: no configuration, no store ----
    p = run(["--help"], empty)
    status("--help", p, "OK")
    check("--help lists every command and the lookup",
          all(c in p.out for c in ("serve", "deliver", "adjudicate GAME RESULT", "check-config",
                                   "help [COMMAND]", "$TABULA_CONFIG", "./tabula-data")), p.out)
    p = run([], empty)
    status("no command", p, "USAGE")
    check("no command: usage on standard error", "usage: tabula" in p.err and not p.out, p.err)
    p = run(["--version"], empty)
    status("--version", p, "OK")
    check("--version names the version", re.fullmatch(r"tabula \d+\.\d+\.\d+\n", p.out), p.out)
    p = run(["help", "adjudicate"], empty)
    status("help adjudicate", p, "OK")
    check("help adjudicate: synopsis and --reason",
          "usage: tabula adjudicate GAME RESULT" in p.out and "--reason" in p.out, p.out)
    p = run(["deliver", "--help"], empty)
    check("deliver --help names its exit statuses 65 and 75",
          p.returncode == 0 and "65" in p.out and "75" in p.out, p.out)
    status("help NOSUCH", run(["help", "nosuch"], empty), "USAGE")
    check("help and --help created nothing", os.listdir(empty) == [], os.listdir(empty))

    # ---- EX_USAGE ----
    for args, why in ((["frobnicate"], "unknown command"),
                      (["games", "--frob"], "unknown option"),
                      (["show"], "missing GAME"),
                      (["show", "one"], "GAME not a number"),
                      (["show", "0"], "GAME zero"),
                      (["show", "1", "2"], "an extra argument"),
                      (["games", "-g", "chess"], "an option the command does not take"),
                      (["games", "-c"], "-c without its value"),
                      (["games", "-c", "a.ini", "-c", "b.ini"], "-c twice"),
                      (["perft", "startpos", "99"], "depth out of range"),
                      (["board", "-s", "7", "startpos"], "no such side"),
                      (["adjudicate", "1", "white", "--reason", "x" * 300], "reason too long"),
                      (["adjudicate", "1", "white", "--reason", "two\nlines"], "reason of two lines")):
        p = run(args, empty)
        status("%s (%s)" % (" ".join(a[:20].replace("\n", "\\n") for a in args), why), p, "USAGE")
    check("usage errors created nothing", os.listdir(empty) == [], os.listdir(empty))

    # ---- rules tools: 0, EX_DATAERR ----
    p = run(["perft", "startpos", "2"], empty)
    check("perft startpos 2 = 400", p.returncode == 0 and p.out == "400\n", p.out + p.err)
    p = run(["board", "startpos", "--seat", "black", "-g", "checkers"], empty)
    check("options after the position, a side by name", p.returncode == 0 and p.out, p.err)
    status("perft of a broken position", run(["perft", "8/8/9 w", "1"], empty), "DATAERR")
    # G-1: a game already over at the root lists no move, so perft, divide
    # and moves all count nothing there; below the root the generator's
    # count goes on through positions the rules call over (Bxd2 leaves
    # K+B v K, a dead position, yet its replies are counted).
    for fen, depth, want in (("8/1K6/8/8/8/2k5/8/4B3 b - - 8 5", "4", 0),
                             ("8/1K6/8/8/8/2k5/8/4B3 b - - 8 5", "1", 0),
                             ("8/1K6/8/8/8/2k5/3n4/4B3 w - - 0 1", "3", None)):
        pf = run(["perft", fen, depth], empty)
        dv = run(["divide", fen, depth], empty)
        mv = run(["moves", fen], empty)
        lines = dv.out.splitlines()
        total = lines[-1] if lines else ""
        check("perft and divide agree on %s depth %s (G-1)" % (fen, depth),
              pf.returncode == 0 and dv.returncode == 0 and
              total == "total " + pf.out.strip() and
              sum(int(l.split(": ")[1]) for l in lines[:-1]) == int(pf.out),
              pf.out + dv.out + pf.err + dv.err)
        if want is not None:
            check("perft %s %s = %d, moves lists none (G-1)" % (fen, depth, want),
                  pf.out == "%d\n" % want and mv.returncode == 0 and mv.out == "",
                  pf.out + mv.out)
        else:
            check("below the root the generator counts through a dead position (G-1)",
                  any(l.startswith("e1d2: ") and int(l.split(": ")[1]) > 0 for l in lines),
                  dv.out)

    # ---- read-only commands without a store: EX_NOINPUT, nothing created ----
    for cmd in (["games"], ["show", "1"], ["check"], ["export", "1"], ["verify", "1"],
                ["flush"], ["tick"], ["adjudicate", "1", "draw"]):
        p = run(cmd, empty)
        status("%s without a store" % cmd[0], p, "NOINPUT")
        check("%s says which store it looked for, and why that one" % cmd[0],
              os.path.join(empty, "tabula-data", "tabula.db") in p.err and
              "built-in defaults" in p.err and "nothing was created" in p.err, p.err)
    check("no read-only command created ./tabula-data", os.listdir(empty) == [],
          os.listdir(empty))

    # ---- a configuration: relative paths from its folder; -c anywhere ----
    site = os.path.join(root, "site")
    os.makedirs(site)
    conf = os.path.join(site, "tabula.ini")
    with open(conf, "w") as f:
        f.write("[tabula]\nstore_path = data/tabula.db\ninbox = data/inbox\n"
                "outbox = data/outbox\naddress = referee@example.org\ndomain = example.org\n"
                "rate_limit = 0\n")
    p = run(["games", "-c", conf], empty)
    status("games -c FILE before any mail", p, "NOINPUT")
    check("...says the store of that file",
          os.path.join(site, "data", "tabula.db") in p.err and conf in p.err, p.err)
    outbox = Outbox(os.path.join(site, "data", "outbox"))
    p = run(["deliver", "-c", conf], empty, stdin=mail("alice@example.org",
                                                       "new chess with bob@example.org"))
    status("deliver: a new (its confirmation request)", p, "OK")
    check("the store is made beside the file, not in the working directory",
          os.path.exists(os.path.join(site, "data", "tabula.db")) and os.listdir(empty) == [],
          os.listdir(site))
    # Alice's first `new` is confirmed from her address before Bob
    # is invited: she answers the request as her mail client would
    req = [m for m in outbox.new() if "[tabula confirm " in str(m["Subject"])]
    p = run(["deliver", "-c", conf], empty, stdin=mail("alice@example.org", "confirm",
                                                           reply=req[0]))
    status("deliver: the confirmation", p, "OK")
    inv = [m for m in outbox.new() if "bob" in str(m["To"])]
    p = run(["deliver", "-c", conf], empty, stdin=mail("bob@example.org", "accept", reply=inv[0]))
    status("deliver: the accept", p, "OK")
    check("one log line per mail, with its game and outcome",
          re.search(r"mail <cli\d+@example.org> from bob@example.org: game 1, applied", p.err),
          p.err)
    outbox.new()
    for args, how in ((["show", "1", "-c", conf], "after the game number"),
                      (["-c", conf, "show", "1"], "before the command"),
                      (["show", "-c", conf, "1"], "between command and game"),
                      (["show", "1", "--config=" + conf], "as --config=FILE"),
                      (["show", "1", "--config", conf], "as --config FILE")):
        p = run(args, empty)
        check("-c %s" % how, p.returncode == 0 and "White: alice@example.org" in p.out, p.err)
    p = run(["show", "1"], empty, extra_env={"TABULA_CONFIG": conf})
    check("$TABULA_CONFIG", p.returncode == 0 and "Black: bob@example.org" in p.out, p.err)
    p = run(["show", "1", "-c", conf], empty,
            extra_env={"TABULA_CONFIG": os.path.join(root, "absent.ini")})
    check("-c wins over $TABULA_CONFIG", p.returncode == 0, p.err)
    p = run(["check-config"], empty, extra_env={"TABULA_CONFIG": conf})
    check("check-config says which file and why",
          p.returncode == 0 and p.out.startswith("; configuration: %s (from $TABULA_CONFIG)" % conf)
          and "store_path = %s/data/tabula.db" % site in p.out, p.out)

    # ---- games: sides by name, aligned columns ----
    p = run(["games", "-c", conf], empty)
    lines = p.out.rstrip("\n").split("\n")
    check("games: the side to move by name, players by side",
          p.returncode == 0 and re.search(
              r"^1\s+chess\s+active\s+White\s+White alice@example.org, Black bob@example.org$",
              lines[1]), p.out)
    check("games: no seat numbers", not re.search(r"\s-1\s|\s0\s", lines[1]), p.out)
    check("games: columns aligned under their heads",
          lines[0].index("phase") == lines[1].index("active") and
          lines[0].index("players") == lines[1].index("White alice"), p.out)

    # ---- adjudicate: 65 for a result the game does not have, then --reason ----
    p = run(["adjudicate", "1", "purple", "-c", conf], empty)
    status("adjudicate with no such result", p, "DATAERR")
    status("adjudicate a game that does not exist", run(["adjudicate", "9", "white", "-c", conf],
                                                        empty), "NOINPUT")
    reason = "bob stopped answering after three reminders"
    p = run(["adjudicate", "1", "white", "--reason", reason, "-c", conf], empty)
    status("adjudicate 1 white --reason", p, "OK")
    mails = outbox.new()
    check("both players mailed the decision with the reason",
          len(mails) == 2 and all(("The operator's reason: " + reason) in body(m) for m in mails),
          [body(m) for m in mails])
    p = run(["export", "1", "-c", conf], empty)
    show = run(["show", "1", "-c", conf], empty)
    check("the reason is journaled", reason in show.out, show.out)
    status("adjudicate a finished game", run(["adjudicate", "1", "black", "-c", conf], empty),
           "DATAERR")
    status("show a game that does not exist", run(["show", "7", "-c", conf], empty), "NOINPUT")
    status("verify a game without dice", run(["verify", "1", "-c", conf], empty), "DATAERR")

    # ---- 1: check finds a fault ----
    status("check", run(["check", "-c", conf], empty), "OK")
    db = os.path.join(site, "data", "tabula.db")
    con = sqlite3.connect(db)
    con.execute("update journal set text = 'new chess by mallory@example.org' where seq = 1")
    con.commit()
    con.close()
    p = run(["check", "-c", conf], empty)
    status("check after the journal was edited behind the store's back", p, "FAULT")

    # ---- configuration errors: EX_NOINPUT, EX_CONFIG; deliver 75 ----
    status("-c a file that does not exist", run(["games", "-c", os.path.join(root, "no.ini")],
                                                 empty), "NOINPUT")
    bad = os.path.join(root, "bad.ini")
    with open(bad, "w") as f:
        f.write("[tabula]\nstore_path = %s\nfrobnicate = 1\n" % db)
    p = run(["games", "-c", bad], empty)
    status("a configuration with an unknown option", p, "CONFIG")
    check("...named with its line", "bad.ini:3: unknown option 'frobnicate'" in p.err, p.err)
    status("check-config of it", run(["check-config", "-c", bad], empty), "CONFIG")
    p = run(["deliver", "-c", bad], empty, stdin=mail("carol@example.org", "help"))
    status("deliver with a broken configuration (the MTA keeps the mail)", p, "TEMPFAIL")
    with open(bad, "w") as f:
        f.write("[tabula]\naddress = not an address\n")
    status("a configuration with a bad address", run(["check-config", "-c", bad], empty),
           "CONFIG")

    # ---- deliver: 65 for a message it can never take ----
    big = mail("carol@example.org", "x" * (10 * 1024 * 1024 + 10))
    status("deliver of a message over the size limit", run(["deliver", "-c", conf], empty,
                                                           stdin=big), "DATAERR")

    # ---- 75: the store locked by another process past the busy timeout ----
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sqlite3,sys,time\n"
         "c=sqlite3.connect(sys.argv[1],isolation_level=None)\n"
         "c.execute('begin immediate')\nprint('locked',flush=True)\ntime.sleep(30)\n", db],
        stdout=subprocess.PIPE, text=True)
    try:
        holder.stdout.readline()
        t0 = time.time()
        p = run(["deliver", "-c", conf], empty, stdin=mail("carol@example.org", "help",
                                                           mid="locked1"))
        status("deliver while another process holds the store's write lock (%.1f s)"
               % (time.time() - t0), p, "TEMPFAIL")
    finally:
        holder.kill()
        holder.wait()
    p = run(["deliver", "-c", conf], empty, stdin=mail("carol@example.org", "help", mid="locked1"))
    status("the same mail offered again once the lock is gone", p, "OK")
    check("...is answered then", any("How to play" in str(m["Subject"]) for m in outbox.new()),
          p.err)

    # ---- 73: a store that cannot be made; 75 for deliver ----
    nowhere = os.path.join(root, "nowhere.ini")
    with open(nowhere, "w") as f:
        f.write("[tabula]\nstore_path = /proc/tabula-nowhere/tabula.db\n"
                "inbox = /proc/tabula-nowhere/in\noutbox = /proc/tabula-nowhere/out\n")
    status("poll with a store that cannot be created", run(["poll", "-c", nowhere], empty),
           "CANTCREAT")
    status("deliver with a store that cannot be created", run(["deliver", "-c", nowhere], empty,
                                                             stdin=mail("c@example.org", "help")),
           "TEMPFAIL")

    # ---- 77: a store this user may not open ----
    if os.geteuid() == 0:
        p = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", TABULA,
                            "games", "-c", conf], cwd=empty, capture_output=True, text=True)
    else:
        os.chmod(db, 0)
        p = subprocess.run([TABULA, "games", "-c", conf], cwd=empty, capture_output=True, text=True)
        os.chmod(db, 0o644)
    check("a store this user may not open: exit 77 and who should run it",
          p.returncode == EX["NOPERM"] and "run tabula as the user who owns it" in p.stderr,
          "%d %s" % (p.returncode, p.stderr))

    # ---- logging: the journal's priorities, log_file ----
    errfile = os.path.join(root, "stderr")
    with open(errfile, "wb") as ef:
        st = os.fstat(ef.fileno())
        e = dict(os.environ, JOURNAL_STREAM="%d:%d" % (st.st_dev, st.st_ino))
        e.pop("TABULA_CONFIG", None)
        subprocess.run([TABULA, "deliver", "-c", conf], input=mail("dave@example.org", "help"),
                       stderr=ef, stdout=subprocess.DEVNULL, env=e, cwd=empty, timeout=60)
    text = open(errfile).read()
    check("under the journal: '<6>' priority, no time stamp",
          re.search(r"^<6>mail <cli\d+@example.org> from dave@example.org: applied$", text, re.M),
          text)
    with open(errfile, "wb") as ef:  # JOURNAL_STREAM naming another file: plain lines
        e["JOURNAL_STREAM"] = "1:1"
        subprocess.run([TABULA, "deliver", "-c", conf], input=mail("dave@example.org", "help"),
                       stderr=ef, stdout=subprocess.DEVNULL, env=e, cwd=empty, timeout=60)
    text = open(errfile).read()
    check("JOURNAL_STREAM of another stream: time-stamped lines",
          re.search(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ tabula info: mail ", text, re.M), text)
    logged = os.path.join(root, "logged.ini")
    with open(logged, "w") as f:
        f.write(open(conf).read().replace("store_path = data/", "store_path = site/data/")
                .replace("inbox = data/", "inbox = site/data/")
                .replace("outbox = data/", "outbox = site/data/") +
                "log_file = tabula.log\nlog_format = journal\n")
    p = run(["deliver", "-c", logged], empty, stdin=mail("erin@example.org", "help"))
    log = open(os.path.join(root, "tabula.log")).read()
    check("log_file (beside its configuration) gets the line, standard error not",
          p.returncode == 0 and re.search(r"tabula\[\d+\] info: mail <cli\d+@example.org> from "
                                          r"erin@example.org: applied", log) and not p.err,
          log + "|" + p.err)
    p = run(["deliver", "-c", logged], empty, stdin=big)
    log = open(os.path.join(root, "tabula.log")).read()
    check("an error goes to log_file and to standard error, with the journal's priority 3",
          p.returncode == EX["DATAERR"] and "error: message on standard input is over" in log
          and p.err.startswith("<3>message on standard input is over"), log + "|" + p.err)

def part_install(root):
    """scripts/run.sh prints `sudo cmake --install BUILD`: it must have built
    every program that command installs."""
    cmake = open(os.path.join(SRC, "CMakeLists.txt")).read()
    runsh = open(os.path.join(SRC, "scripts", "run.sh")).read()
    installed = set()
    for m in re.finditer(r"install\(TARGETS ([^)]*?) RUNTIME", cmake):
        for word in m.group(1).split():
            v = re.match(r"\$\{(\w+)\}$", word)
            if v:
                d = re.search(r"set\(%s ([^)]*)\)" % v.group(1), cmake)
                installed |= set(d.group(1).split()) if d else {word}
            else:
                installed.add(word)
    targets = set()
    for m in re.finditer(r"--target ((?:\w[\w-]* ?)+)", runsh):
        for t in m.group(1).split():
            d = re.search(r"add_dependencies\(%s ([^)]*)\)" % re.escape(t), cmake)
            targets |= set(d.group(1).replace("${TABULA_PROGRAMS}", " ".join(installed)).split()) \
                if d else {t}
    check("install: run.sh builds every program cmake --install installs (%s; builds %s)"
          % (" ".join(sorted(installed)), " ".join(sorted(targets))),
          installed and installed <= targets, runsh)
    # The README's package recipe gets debian/control's Build-Depends
    # (apt-get build-dep ./, or every one named), and its quick start says
    # what the test command installs as root.
    readme = open(os.path.join(SRC, "README.md")).read()
    control = open(os.path.join(SRC, "debian", "control")).read()
    deps = re.findall(r"^\s*([a-z0-9][a-z0-9.+-]+)", re.search(
        r"^Build-Depends:(.*?)^\S", control, re.M | re.S).group(1).replace(",", "\n"), re.M)
    block = re.search(r"```sh\n((?:(?!```).)*dpkg-buildpackage(?:(?!```).)*)```", readme, re.S)
    check("install: the README's package lines install the build dependencies (%s)"
          % " ".join(deps), block and ("apt-get build-dep ./" in block.group(1) or
                                        all(d in block.group(1) for d in deps)),
          block and block.group(1))
    quick = readme.split("## Playing by mail")[0]
    check("install: the quick start says scripts/test.sh installs Dovecot, Postfix and "
          "Chromium as root", all(w in quick for w in ("Dovecot", "Postfix", "Chromium", "root")),
          quick[-1500:])


class Garbage:
    """A TCP server on loopback that answers every connection with bytes of
    no protocol, then closes it."""

    def __init__(self):
        import socket
        import threading
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.stop = False
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while not self.stop:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            try:
                c.sendall(b"\x16\x03garbage \x00\xff no protocol at all\r\n@@@ ?!\r\n")
                c.settimeout(1.0)
                try:
                    c.recv(4096)
                except OSError:
                    pass
            finally:
                c.close()

    def close(self):
        self.stop = True
        self.sock.close()


def closed_port():
    import socket
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def write_ini(path, **kv):
    with open(path, "w") as f:
        f.write("[tabula]\n" + "".join("%s = %s\n" % i for i in kv.items()))
    return path


def part_transports(root):
    garbage = Garbage()
    closed = closed_port()
    try:
        base = {"store_path": os.path.join(root, "db", "t.db"), "address": "referee@example.org",
                "domain": "example.org", "net_timeout_s": "3", "retry_base_s": "1"}
        cwd = os.path.join(root, "cwd")
        os.makedirs(cwd)
        words = re.compile(r"failed: [a-z]")
        cases = []
        for proto in ("imap", "pop3"):
            for what, port, tls in (("a closed port", closed, "none"),
                                    ("a server speaking garbage", garbage.port, "none"),
                                    ("a server speaking garbage, TLS", garbage.port, "implicit"),
                                    ("a server speaking garbage, STARTTLS", garbage.port,
                                     "starttls")):
                cases.append((proto, what, port, dict(source=proto, in_host="127.0.0.1",
                                                      in_port=port, in_tls=tls, in_user="u",
                                                      in_password="p", sink="smtp",
                                                      smtp_host="127.0.0.1", smtp_port=closed,
                                                      smtp_tls="none")))
        cases.append(("imap", "a host name that does not resolve", 993,
                      dict(source="imap", in_host="no-such-host.invalid", in_user="u",
                           in_password="p", sink="smtp", smtp_host="127.0.0.1")))
        for i, (proto, what, port, kv) in enumerate(cases):
            cfg = write_ini(os.path.join(root, "in%d.ini" % i), **dict(base, **kv))
            p = run(["poll", "-c", cfg], cwd)
            want = "%s server %s port %d: " % (proto.upper(), kv["in_host"], port)
            cause = {"a closed port": "connection refused",
                     "a host name that does not resolve": "does not resolve"}.get(what, "")
            check("transports: %s, %s: poll names the server, the step and the cause: %r"
                  % (proto, what, p.err.strip()[-300:]),
                  p.returncode == EX["TEMPFAIL"] and want in p.err and words.search(p.err)
                  and cause in p.err and "libetpan" not in p.err, p.err)
        check("transports: an IMAP/SMTP configuration makes no ./tabula-data",
              not os.path.exists(os.path.join(cwd, "tabula-data")), os.listdir(cwd))

        # the sinks: a reply queued (a stranger's help), then sent where it cannot go
        sinks = [("SMTP, a closed port", dict(sink="smtp", smtp_host="127.0.0.1",
                                              smtp_port=closed, smtp_tls="none"),
                  "SMTP server 127.0.0.1 port %d: connect failed: " % closed),
                 ("SMTP, a server speaking garbage", dict(sink="smtp", smtp_host="127.0.0.1",
                                                          smtp_port=garbage.port, smtp_tls="none"),
                  "SMTP server 127.0.0.1 port %d: " % garbage.port),
                 ("SMTP, garbage on the TLS port", dict(sink="smtp", smtp_host="127.0.0.1",
                                                         smtp_port=garbage.port,
                                                         smtp_tls="implicit"),
                  "SMTP server 127.0.0.1 port %d: " % garbage.port),
                 ("sendmail, no such program", dict(sink="sendmail",
                                                    sendmail_path="/nonexistent/sendmail"),
                  "sendmail program /nonexistent/sendmail: starting it failed: No such file"),
                 ("sendmail, a program that fails", dict(sink="sendmail",
                                                         sendmail_path="/bin/false"),
                  "sendmail program /bin/false: sending to someone@example.org failed: it "
                  "exited with 1")]
        for i, (what, kv, want) in enumerate(sinks):
            d = os.path.join(root, "sink%d" % i)
            cfg = write_ini(os.path.join(root, "sink%d.ini" % i),
                            **dict(base, store_path=d + "/t.db", inbox=d + "/in", **kv))
            os.makedirs(d + "/in/new")
            with open(d + "/in/new/1.M1P1.x", "wb") as f:
                f.write(mail("someone@example.org", "help"))
            p = run(["poll", "-c", cfg], cwd)
            check("transports: %s: the reply's failure names it: %r"
                  % (what, p.err.strip()[-300:]),
                  want in p.err and "libetpan" not in p.err, p.err)
            check("transports: %s: no outbox Maildir made" % what,
                  not os.path.exists(d + "/out") and
                  not os.path.exists(os.path.join(cwd, "tabula-data")), os.listdir(d))
    finally:
        garbage.close()


class Recorder:
    """A POP3 and SMTP server on loopback that records the password it is
    given (POP3 PASS, SMTP AUTH PLAIN) and refuses it."""

    def __init__(self, smtp):
        import socket
        import threading
        self.smtp, self.got = smtp, []
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        import base64
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            f = c.makefile("rwb", buffering=0)
            try:
                f.write(b"220 x ESMTP\r\n" if self.smtp else b"+OK ready\r\n")
                for line in f:
                    w = line.decode(errors="replace").strip()
                    cmd = w.split(" ")[0].upper()
                    if cmd == "PASS":
                        self.got.append(w[5:])
                        f.write(b"-ERR no\r\n")
                        break
                    if cmd == "EHLO":
                        f.write(b"250-x\r\n250 AUTH PLAIN\r\n")
                    elif cmd == "AUTH":
                        words = w.split(" ")
                        if len(words) < 3:  # no initial response (RFC 4954): ask for it
                            f.write(b"334 \r\n")
                            words.append(f.readline().decode().strip())
                        self.got.append(base64.b64decode(words[2]).split(b"\0")[2].decode())
                        f.write(b"535 no\r\n")
                    elif cmd == "QUIT":
                        f.write(b"221 bye\r\n" if self.smtp else b"+OK\r\n")
                        break
                    else:
                        f.write(b"250 ok\r\n" if self.smtp else b"+OK\r\n")
            except OSError:
                pass
            finally:
                c.close()

    def close(self):
        self.sock.close()


def part_passwords(root):
    """The passwords kept out of the INI file: *_password_file, or systemd's
    credentials (LoadCredential=in_password:..., $CREDENTIALS_DIRECTORY)."""
    pop, smtp = Recorder(False), Recorder(True)
    try:
        def write(name, text):
            path = os.path.join(root, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o600)
            return path
        write("in.pw", "pop secret 1\n")
        write("smtp.pw", "smtp secret 2\r\nsecond line ignored\n")
        os.makedirs(os.path.join(root, "creds"))
        write("creds/in_password", "pop credential 3")
        write("creds/smtp_password", "smtp credential 4\n")
        base = {"store_path": os.path.join(root, "t.db"), "inbox": os.path.join(root, "in"),
                "address": "referee@example.org", "domain": "example.org",
                "net_timeout_s": "3", "source": "pop3", "in_host": "127.0.0.1",
                "in_port": pop.port, "in_tls": "none", "in_user": "referee",
                "sink": "smtp", "smtp_host": "127.0.0.1", "smtp_port": smtp.port,
                "smtp_tls": "none", "smtp_user": "referee"}
        os.makedirs(os.path.join(root, "cwd"))

        def poll_with(name, kv, creds=None):
            cfg = write_ini(os.path.join(root, name + ".ini"), **dict(base, **kv))
            pop.got.clear()
            smtp.got.clear()
            extra = {"CREDENTIALS_DIRECTORY": os.path.join(root, "creds")} if creds else {}
            p = run(["poll", "-c", cfg], os.path.join(root, "cwd"), extra_env=extra)
            return cfg, p
        cfg, p = poll_with("files", {"in_password_file": "in.pw", "smtp_password_file": "smtp.pw"})
        check("passwords: in_password_file (relative to the file's folder) reaches the POP3 "
              "server: %s" % pop.got, pop.got == ["pop secret 1"], p.err)
        c = run(["check-config", "-c", cfg], root)
        check("passwords: check-config names the files and hides the passwords",
              "in_password_file = %s/in.pw" % root in c.out and "secret" not in c.out
              and "in_password = (set, not shown)" in c.out, c.out)
        # the SMTP password: a reply to send (a stranger's help), over the recorder
        for name, kv, creds, want in (("smtpfile", {"smtp_password_file": "smtp.pw"}, False,
                                       "smtp secret 2"),
                                      ("smtpcred", {}, True, "smtp credential 4")):
            d = os.path.join(root, name)
            os.makedirs(d + "/in/new")
            with open(d + "/in/new/1.M1P1.x", "wb") as f:
                f.write(mail("someone@example.org", "help"))
            cfg, p = poll_with(name, dict(kv, source="maildir", store_path=d + "/t.db",
                                          inbox=d + "/in"), creds)
            check("passwords: %s reaches the SMTP server: %s" % (name, smtp.got),
                  smtp.got[:1] == [want], p.err)
        cfg, p = poll_with("creds", {}, creds=True)
        check("passwords: $CREDENTIALS_DIRECTORY/in_password reaches the POP3 server: %s"
              % pop.got, pop.got == ["pop credential 3"], p.err)
        cfg, p = poll_with("inini", {"in_password": "from the ini"}, creds=True)
        check("passwords: in_password in the file wins over a credential: %s" % pop.got,
              pop.got == ["from the ini"], p.err)
        for name, kv, words in (("both", {"in_password": "x", "in_password_file": "in.pw"},
                                 "not both"),
                                ("missing", {"in_password_file": "nope.pw"}, "nope.pw"),
                                ("empty", {"smtp_password_file": write("empty.pw", "\n")},
                                 "no password")):
            cfg, p = poll_with(name, kv)
            status("passwords: %s: poll" % name, p, "CONFIG")
            check("passwords: %s: says so: %r" % (name, p.err.strip()), words in p.err, p.err)
    finally:
        pop.close()
        smtp.close()


if __name__ == "__main__":
    sys.exit(main())
