"""club.py: players who answer tabula's mails, for the competition tests
(tests/scripts/ratings_by_mail.py, tournament_by_mail.py, match_by_mail.py).
Not a test itself: the scripts import it from SOURCE_DIR.

A Club is a fresh store, Maildirs and configuration in a temporary folder,
with a test clock (the config's test_clock_file: epoch seconds in a file).
Each mail goes in through `tabula deliver`, or, after start_daemon(),
into the inbox Maildir of a running `tabula serve`, and is waited for
until the daemon has taken it (new/ -> cur/) and sent what it queued.
Every reply tabula writes to the outbox Maildir is read back, and the last
one each player received, overall and per game, is kept, so a player can
answer it the way a mail client's "Reply" does (To = its Reply-To, "Re: "
+ its subject). A player's first `new` or `tournament` is confirmed by
reply (create()).
"""
import calendar
import os
import re
import signal
import sqlite3
import subprocess
import time

from bymail import outbox_new  # tests/harness/bymail.py, beside this file

START = calendar.timegm((2026, 11, 23, 9, 0, 0))  # a Monday, UTC


def game_of(subject):
    m = re.search(r"\[tabula (\d+) ", str(subject))
    return int(m.group(1)) if m else None


class Club:
    def __init__(self, tabula, root, extra_config=""):
        self.tabula_path = tabula
        self.root = root
        self.conf = os.path.join(root, "t.ini")
        self.clock_file = os.path.join(root, "clock")
        self.set_clock(START)
        # rate_limit=0: a scripted club sends hundreds of mails a minute
        with open(self.conf, "w") as f:
            f.write("[tabula]\nstore_path=%s/db\ninbox=%s/in\noutbox=%s/out\n"
                    "address=referee@example.org\ndomain=example.org\nrate_limit=0\n"
                    "test_clock_file=%s\n%s" % (root, root, root, self.clock_file, extra_config))
        self.seen = set()
        self.mails = []        # every mail tabula sent: (to, message), in order
        self.last = {}         # address -> the last mail it received
        self.game_mail = {}    # (address, game) -> the last mail about that game
        self.game_address = {}  # (address, game) -> where to write about it (a round
                                # robin's start mail lists them)
        self.n = 0
        self.daemon = None

    def start_daemon(self):
        """`tabula serve` on the inbox Maildir from now on."""
        with open(self.conf, "a") as f:
            f.write("poll_ms=50\n")
        self.daemon_log = open(os.path.join(self.root, "serve.log"), "wb")
        self.daemon = subprocess.Popen([self.tabula_path, "serve", "-c", self.conf],
                                       stderr=self.daemon_log)
        # the whole inbox: serve makes tmp/, new/ and cur/ one after the other
        self.wait(lambda: all(os.path.isdir(os.path.join(self.root, "in", d))
                              for d in ("tmp", "new", "cur")), "serve to start")

    def stop_daemon(self):
        if self.daemon:
            self.daemon.send_signal(signal.SIGTERM)
            rc = self.daemon.wait(timeout=60)
            self.daemon = None
            self.daemon_log.close()
            return rc
        return 0

    def wait(self, ready, what, limit=120):
        end = time.time() + limit
        while not ready():
            if self.daemon and self.daemon.poll() is not None:
                raise RuntimeError("tabula serve ended (%s) waiting for %s"
                                   % (self.daemon.returncode, what))
            if time.time() > end:
                raise RuntimeError("timed out waiting for " + what)
            time.sleep(0.05)

    def queued(self):
        con = sqlite3.connect(os.path.join(self.root, "db"), timeout=30)
        try:
            return con.execute("SELECT count(*) FROM outbox WHERE state = 'queued'").fetchone()[0]
        finally:
            con.close()

    def set_clock(self, t):
        self.now = t
        with open(self.clock_file, "w") as f:
            f.write("%d\n" % t)

    def tabula(self, *args):
        return subprocess.run([self.tabula_path, args[0], "-c", self.conf] + list(args[1:]),
                              capture_output=True, text=True, timeout=300)

    def raw(self, sender, body, reply=None, message_id=None, to=None):
        self.n += 1
        to, subject, extra = to or "referee@example.org", "hi", ""
        if reply is not None:
            to = str(reply["Reply-To"])
            subject = "Re: " + str(reply["Subject"])
            extra = "In-Reply-To: %s\r\n" % reply["Message-ID"]
        mid = message_id or "<c%d.%d@%s>" % (self.n, os.getpid(), sender.split("@")[1])
        return ("From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: %s\r\n%s\r\n%s\r\n"
                % (sender, to, subject, mid, extra, body.replace("\n", "\r\n"))).encode()

    def deliver_raw(self, raw):
        if self.daemon:
            self.n += 1
            name = "%d.M%d.club" % (self.now, self.n)
            inbox = os.path.join(self.root, "in")
            with open(os.path.join(inbox, "tmp", name), "wb") as f:
                f.write(raw)
            os.rename(os.path.join(inbox, "tmp", name), os.path.join(inbox, "new", name))
            cur = os.path.join(inbox, "cur")
            self.wait(lambda: any(n.startswith(name) for n in os.listdir(cur)) and
                      not self.queued(), "the daemon to answer a mail")
            return self.collect()
        p = subprocess.run([self.tabula_path, "deliver", "-c", self.conf], input=raw,
                           capture_output=True, timeout=300)
        if p.returncode != 0:
            raise RuntimeError("deliver failed: %s" % p.stderr.decode(errors="replace"))
        return self.collect()

    def deliver(self, sender, body, reply=None, to=None):
        """A mail from sender; returns the mails tabula wrote for it."""
        self.last_raw = self.raw(sender, body, reply, to=to)
        return self.deliver_raw(self.last_raw)

    def create(self, sender, body):
        """A `new` or `tournament` from sender: from an address
        that never answered one of tabula's mails it is only a confirmation
        request ("[tabula confirm KEY]", to sender alone); sender answers it
        with "confirm", as mailcases.py's confirm_answers does. Returns the
        mails the request made (the invitations or a refusal)."""
        out = self.deliver(sender, body)
        asked = [m for to, m in out if "[tabula confirm " in str(m["Subject"])]
        if not asked:
            return out
        if len(out) != 1 or out[0][0] != sender:
            raise RuntimeError("a confirmation request went with other mails: %r"
                               % [(to, str(m["Subject"])) for to, m in out])
        return self.deliver(sender, "confirm", reply=asked[0])

    def stranger_budget(self):
        """The hourly count of mails to strangers (hourly_counts, counter
        strangers): (the window's start, the count), (0, 0) before any."""
        con = sqlite3.connect(os.path.join(self.root, "db"), timeout=30)
        try:
            row = con.execute("SELECT start, count FROM hourly_counts"
                              " WHERE counter = 'strangers' AND address = ''").fetchone()
            return (int(row[0]), int(row[1])) if row else (0, 0)
        finally:
            con.close()

    def counted_once(self, before):
        """Whether one mail to a stranger was counted since stranger_budget()
        said `before`: one more in its window, or the first of a new one."""
        after = self.stranger_budget()
        return after == (before[0], before[1] + 1) or after == (self.now, 1)

    def play(self, sender, game, body):
        """sender answers the last mail it had about game, or, with none
        yet, writes to the game's address its start mail listed."""
        if (sender, game) not in self.game_mail:
            return self.deliver(sender, body, to=self.game_address[(sender, game)])
        return self.deliver(sender, body, reply=self.game_mail[(sender, game)])

    def answer(self, sender, body):
        """sender answers the last mail it had."""
        return self.deliver(sender, body, reply=self.last[sender])

    def run(self, *args):
        """An operator's command that must succeed; returns its output."""
        p = self.tabula(*args)
        if p.returncode != 0:
            raise RuntimeError("tabula %s: %s%s" % (" ".join(args), p.stdout, p.stderr))
        self.collect()
        return p.stdout

    def collect(self):
        new = []
        for to, msg in outbox_new(self.root, self.seen):
            self.last[to] = msg
            game = game_of(msg["Subject"])
            if game is not None:
                self.game_mail[(to, game)] = msg
            for g, where in re.findall(r"(?m)^Game (\d+): you play .* Write to:\n\s+(\S+)$",
                                       body(msg)):
                self.game_address[(to, int(g))] = where
            self.mails.append((to, msg))
            new.append((to, msg))
        return new


def body(msg):
    """The text/plain part: all of a plain mail, the first alternative of a
    mail with an HTML part or a record attached."""
    part = msg.get_body(preferencelist=("plain",))
    return part.get_content().replace("\r\n", "\n") if part else ""
