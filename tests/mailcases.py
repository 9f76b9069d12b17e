#!/usr/bin/env python3
"""Plays mail conversations through the real tabula binary and Maildirs.

usage: mailcases.py TABULA CASES_DIR [CASE ...]

Each tests/data/mailcases/*.case file is one conversation, in a fresh
directory with its own store and Maildirs. Steps (one per line, blocks end
with a line holding only "."):

  send ADDRESS          a new mail from ADDRESS to the referee; the block is
                        its body ("Subject: ..." as the first line sets one)
  reply ADDRESS         ADDRESS answers the last mail tabula sent it, the way
                        a mail client does: To = its Reply-To, "Re: " subject,
                        In-Reply-To, and the original quoted below the text
  reply ADDRESS GAME    the same, to the last mail about game GAME
  reply ADDRESS confirm the same, to the last confirmation request ADDRESS
                        received ("[tabula confirm KEY]")
  reply-headers ADDRESS [VICTIM]
                        the same as reply, with more header fields: the block
                        is header lines, a blank line, then the body; with
                        VICTIM, a forgery as reply-as writes it
  reply-client CLIENT ADDRESS [GAME|confirm]
                        the same as reply, written as CLIENT writes a reply:
                        gmail (the text on top, "On ... wrote:" and "> "
                        quotes below), outlook (on top, "-----Original
                        Message-----", the header block and the original
                        unquoted), outlook-web (on top, a rule of "_" and
                        the header block, the original unquoted), apple (on
                        top, "> On ... wrote:" and "> " quotes, "Sent from my
                        iPhone"), mutt (bottom-posted: "On ... wrote:", the
                        quotes, then the text and a signature), or autoreply:
                        an out-of-office answer without RFC 3834 header
                        fields, subject "Automatic reply: ..." and the
                        original copied unquoted below "Your message was:"
                        (the block is its own text)
  reply-as FROM VICTIM  FROM sends a reply to the last mail VICTIM received
                        (a forgery: the victim's key, another From)
  raw                   the block is a whole message, headers and all
  (in any block, a line "@repeat N TEXT" stands for N times TEXT, a "\\n"
  in TEXT a line break)
  hold                  the next mail is only put into the inbox; the one
                        after it is delivered together with it, in one pass
  poll                  `tabula poll` now: what hold left in the inbox
  redeliver             the previous inbound mail again, byte for byte
  keep                  the next mail (send, reply ...) is composed but not
                        delivered: `list-copy` and `deliver-kept` use it
  list-copy             a mailing list's copy of the last mail (kept or
                        delivered) is delivered: the same Message-ID and
                        body, as Mailman relays it (List-Id, Precedence:
                        list, a "[club]" subject prefix, a footer); it is
                        then the last mail (`redeliver` repeats it)
  deliver-kept          the kept mail is delivered
  mode poll|deliver     how mail reaches tabula: Maildir + `tabula poll`
                        (default) or `tabula deliver` on standard input
  expect N mails        the last delivery produced exactly N mails
  expect ADDRESS subject ~ TEXT / body ~ TEXT / body !~ TEXT / reply-to ~ TEXT
                        / html ~ TEXT
                        a mail of the last delivery to ADDRESS has (or has
                        not) TEXT in its subject or body (html: its HTML
                        part as written, "" when it has none)
  games ~ TEXT          `tabula games` prints TEXT
  check                 `tabula check` passes
  unchanged             the store's games, journal and prepared lines
                        (conditionals) are as before the last
                        delivery (a refusal changed nothing)

Time. A case that uses `clock` or `tick` runs on a test clock
(the config's test_clock_file, a file of epoch seconds; never used in
production) starting Monday 2026-11-23 09:00 UTC:

  clock +3d12h          move the clock forward (d, h, m; any combination)
  clock 2026-11-28T10:00
                        set it to that UTC time (only forward)
  tick                  `tabula tick`: reminders, losses on time, expired
                        invitations, digests; its mails count as a delivery
                        for `expect`
  arrived 2026-11-24T08:00 (or -2h, +30m: from the clock)
                        the next mail put into the inbox reached it then
                       : its Maildir name starts with that time,
                        as a delivering program names it. Without this step
                        a mail arrives at the clock's time.
  config KEY = VALUE    add an option to the case's tabula.ini

The operator:

  admin ARGS...         `tabula ARGS...` must succeed; its mails count as a
                        delivery for `expect`, its output is kept (ARGS are
                        split as a shell would: "a b" is one argument)
  admin-fails ARGS...   the same, but it must fail (exit status not 0)
  output ~ TEXT / output !~ TEXT
                        the last `admin` printed (or did not print) TEXT
  expect ADDRESS body ~ @output
                        a mail of the last delivery to ADDRESS holds all the
                        last `admin` printed ("board #N" is `tabula
                        board` of that position); the last move's mark in a
                        mail's board, "[p]" or "[22]", reads as " p " (a position
                        string has no last move)
  log ~ TEXT            the last delivery's log (standard error) has TEXT

Prints one line per case and "N passed, M failed".
"""
import calendar
import email
import email.policy
import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

REFEREE = "referee@example.org"
# TABULA_TEST_ENGINE=pg: each case's store is a schema of its own in the
# PostgreSQL database TABULA_TEST_PG (run under tests/harness/pg_cluster.sh,
# the ctest mailcases_pg), named to tabula by the `store` option.
PG = os.environ.get("TABULA_TEST_PG") if os.environ.get("TABULA_TEST_ENGINE") == "pg" else None
PSQL = os.path.join(os.environ.get("TABULA_TEST_PG_BIN", ""), "psql")
pg_cases = 0


def psql(conninfo, *queries):
    """The rows of each query as tuples of text (psql -A -t, fields split on
    US), one list per query, from one psql (a connection costs more than
    the queries)."""
    args = [PSQL, "-X", "-q", "-A", "-t", "-F", "\x1f", "-v", "ON_ERROR_STOP=1", "-d", conninfo]
    for i, q in enumerate(queries):
        if i:
            args += ["-c", "\\echo \x1d"]
        args += ["-c", q]
    p = subprocess.run(args, capture_output=True, timeout=60)
    if p.returncode != 0:
        raise CaseError("psql: %s" % p.stderr.decode(errors="replace"))
    return [[tuple(line.split("\x1f")) for line in part.split("\n") if line]
            for part in p.stdout.decode().split("\x1d\n")]
CLOCK_START = calendar.timegm((2026, 11, 23, 9, 0, 0))  # a Monday, UTC


class CaseError(Exception):
    pass


class Conversation:
    def __init__(self, tabula, workdir):
        self.tabula = tabula
        self.dir = workdir
        self.inbox = os.path.join(workdir, "inbox")
        self.outbox = os.path.join(workdir, "outbox")
        self.config = os.path.join(workdir, "tabula.ini")
        self.db = os.path.join(workdir, "tabula.db")
        self.mode = "poll"
        self.hold = False  # the next mail waits in the inbox for the one after
        self.arrival = None  # the next inbound mail's arrival time
        self.keep = False  # the next mail is only composed (keep, deliver-kept)
        self.kept = None
        self.seen_out = set()
        self.last_to = {}       # address -> last mail tabula sent it
        self.game_mail = {}     # (address, game) -> last mail about that game
        self.step_mails = []    # mails produced by the last delivery
        self.last_raw = None
        self.before = None
        self.counter = 0
        self.clock = None
        self.last_output = self.last_log = ""
        self.pg = None
        if PG:
            global pg_cases
            pg_cases += 1
            schema = "case%d_%d" % (os.getpid(), pg_cases)
            psql(PG, "CREATE SCHEMA %s" % schema)
            self.pg_made = False
            self.pg = "%s options=-csearch_path=%s" % (PG, schema)
        with open(self.config, "w") as f:
            f.write("[tabula]\nstore_path = %s\ninbox = %s\noutbox = %s\n"
                    "address = %s\ndomain = example.org\nlog_level = 1\n"
                    % (self.db, self.inbox, self.outbox, REFEREE))
            if self.pg:
                f.write("store = %s\n" % self.pg)

    def use_clock(self):
        self.clock_path = os.path.join(self.dir, "clock")
        self.set_clock(CLOCK_START)
        with open(self.config, "a") as f:
            f.write("test_clock_file = %s\n" % self.clock_path)

    def set_clock(self, t):
        if self.clock is not None and t < self.clock:
            raise CaseError("the clock only goes forward")
        self.clock = t
        with open(self.clock_path, "w") as f:
            f.write("%d\n" % t)

    def time_of(self, spec):
        """A time written as in `clock`, or -2h / +30m from the clock."""
        m = re.fullmatch(r"([+-])(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?", spec)
        if m and spec not in "+-":
            d, h, mi = (int(x or 0) for x in m.groups()[1:])
            delta = d * 86400 + h * 3600 + mi * 60
            return self.clock + (delta if m.group(1) == "+" else -delta)
        return calendar.timegm(time.strptime(spec, "%Y-%m-%dT%H:%M"))

    def move_clock(self, spec):
        if spec.startswith("+"):
            parts = re.fullmatch(r"\+(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?", spec)
            if not parts or spec == "+":
                raise CaseError("clock: write +3d, +12h, +30m or a combination")
            d, h, m = (int(x or 0) for x in parts.groups())
            self.set_clock(self.clock + d * 86400 + h * 3600 + m * 60)
        else:
            t = time.strptime(spec, "%Y-%m-%dT%H:%M")
            self.set_clock(calendar.timegm(t))

    def tick(self):
        self.before = self.snapshot()
        p = self.run("tick")
        if p.returncode != 0:
            raise CaseError("tabula tick failed (%d): %s" % (p.returncode,
                                                             p.stderr.decode(errors="replace")))
        self.collect()

    def run(self, *args, stdin=None):
        # the rules' own commands (`tabula board`) take no config
        config = [] if args[0] in ("board", "moves", "perft", "divide") else ["-c", self.config]
        p = subprocess.run([self.tabula, args[0]] + config + list(args[1:]),
                           input=stdin, capture_output=True, timeout=60)
        return p

    def snapshot(self):
        if self.pg:
            if not self.pg_made:
                self.pg_made = bool(psql(self.pg, "SELECT 1 FROM pg_tables WHERE tablename"
                                         " = 'games' AND schemaname = current_schema()")[0])
                if not self.pg_made:
                    return ([], [], [])
            return tuple(psql(self.pg,
                              "select id, phase, state, turn, result, draw_offer_seat "
                              "from games order by id",
                              "select game, seq, hash from journal order by game, seq",
                              "select game, seat, ply, plies, line "
                              "from conditionals order by id"))
        if not os.path.exists(self.db):
            return ([], [], [])  # no store yet: no games, no journal
        con = sqlite3.connect(self.db)
        try:
            games = con.execute("select id, phase, state, turn, result, draw_offer_seat "
                                "from games order by id").fetchall()
            journal = con.execute("select game, seq, hash from journal "
                                  "order by game, seq").fetchall()
            # A refused prepared line keeps nothing
            prepared = con.execute("select game, seat, ply, plies, line "
                                   "from conditionals order by id").fetchall()
        finally:
            con.close()
        return (games, journal, prepared)

    def deliver(self, raw):
        if self.keep:
            self.keep = False
            self.kept = self.last_raw = raw
            return
        self.before = self.snapshot()
        self.last_raw = raw
        if self.mode == "deliver":
            p = self.run("deliver", stdin=raw)
        else:
            os.makedirs(os.path.join(self.inbox, "new"), exist_ok=True)
            self.counter += 1
            # Maildir names start with the delivery time, which is when the
            # mail counts: the test clock's time when there is one
            at = self.arrival if self.arrival is not None else (
                self.clock if self.clock is not None else time.time())
            self.arrival = None
            name = "%d.M%d.test" % (at, self.counter)
            tmp = os.path.join(self.inbox, "tmp", name)
            os.makedirs(os.path.dirname(tmp), exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(raw)
            os.rename(tmp, os.path.join(self.inbox, "new", name))
            if self.hold:  # delivered with the next mail, in the same pass
                self.hold = False
                return
            p = self.run("poll")
        self.finish(p)

    def poll(self):
        self.before = self.snapshot()
        self.finish(self.run("poll"))

    def finish(self, p):
        if p.returncode != 0:
            raise CaseError("tabula %s failed (%d): %s" % (self.mode, p.returncode,
                                                           p.stderr.decode(errors="replace")))
        self.last_log = p.stderr.decode(errors="replace")
        if self.mode == "poll" and os.listdir(os.path.join(self.inbox, "new")):
            raise CaseError("inbox/new not empty after poll")
        self.collect()

    def collect(self):
        self.step_mails = []
        newdir = os.path.join(self.outbox, "new")
        for name in sorted(os.listdir(newdir)) if os.path.isdir(newdir) else []:
            if name in self.seen_out:
                continue
            self.seen_out.add(name)
            with open(os.path.join(newdir, name), "rb") as f:
                mail = read_mail(f.read())
            check_outgoing(mail)
            self.step_mails.append(mail)
            self.last_to[mail["to"]] = mail
            self.game_mail[(mail["to"], game_of(mail["subject"]))] = mail

    def compose(self, sender, body, to=REFEREE, subject="", extra=""):
        self.counter += 1
        mid = "<case%d.%d@%s>" % (self.counter, os.getpid(), sender.split("@")[1])
        return compose(sender, body, mid, to, subject, extra)

    def reply(self, sender, body, victim=None, game=None, headers="", client=None):
        if game is not None:
            last = self.game_mail.get((sender.lower(), game))
        else:
            last = self.last_to.get((victim or sender).lower())
        if last is None:
            raise CaseError("no mail to %s to reply to" % sender)
        self.counter += 1
        mid = "<case%d.%d@%s>" % (self.counter, os.getpid(), sender.split("@")[1])
        if client is not None:
            return client_reply(last, sender, body, mid, client)
        return reply_to(last, sender, body, mid, headers)


# The mail client, for the script tests too (tests/scripts/*.py,
# tests/crash/crash_trials.py): what tabula sent, read; a player's mail and
# a player's reply, written.

def read_mail(raw):
    """A mail tabula wrote (bytes), as the cases look at it."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    return {"to": str(msg["To"]).strip().lower(), "subject": str(msg["Subject"]),
            "reply-to": str(msg["Reply-To"] or ""),
            "body": text_part(msg).replace("\r\n", "\n"), "html": html_part(msg),
            "msg": msg, "raw": raw}


def html_part(msg):
    """The text/html part as written, "" for a plain mail."""
    part = msg.get_body(preferencelist=("html",))
    if part is None or part.get_content_type() != "text/html":
        return ""
    return part.get_content().replace("\r\n", "\n")


def compose(sender, body, mid, to=REFEREE, subject="", extra=""):
    """A plain mail from sender (a first line "Subject: ..." of body sets
    the subject); extra is more header lines, each ending in CRLF (a
    Content-Type among them replaces the text/plain one)."""
    lines = body.split("\n")
    if lines and lines[0].startswith("Subject: "):
        subject = lines[0][9:]
        body = "\n".join(lines[1:])
    head = ("From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: %s\r\n"
            "Date: Sun, 22 Nov 2026 10:00:00 +0000\r\nMIME-Version: 1.0\r\n"
            "%s%s\r\n"
            % (sender, to, subject, mid,
               "" if re.search(r"(?im)^content-type:", extra)
               else "Content-Type: text/plain; charset=utf-8\r\n", extra))
    return (head + body.replace("\n", "\r\n") + "\r\n").encode()


def reply_to(last, sender, body, mid, headers=""):
    """sender's answer to `last` (a read_mail) the way a mail client writes
    it: To = its Reply-To, "Re: " subject, In-Reply-To, and the original
    quoted below the text; headers: more header lines, one a line."""
    msg = last["msg"]
    to = str(msg["Reply-To"] or msg["From"])
    subject = "Re: " + str(msg["Subject"])
    quoted = "\n".join("> " + line for line in last["body"].split("\n"))
    text = body + "\n\nOn Sun, 22 Nov 2026, tabula referee wrote:\n" + quoted
    extra = "In-Reply-To: %s\r\nReferences: %s\r\n" % (msg["Message-ID"], msg["Message-ID"])
    extra += "".join(h + "\r\n" for h in headers.split("\n") if h)
    return compose(sender, text, mid, to=to, subject=subject, extra=extra)


def client_reply(last, sender, body, mid, client):
    """sender's answer to `last` as a given mail client writes it (see
    reply-client in the module's text); "autoreply" is an out-of-office
    responder that ignores RFC 3834 and copies the mail unquoted."""
    msg = last["msg"]
    to = str(msg["Reply-To"] or msg["From"])
    subject = "Re: " + str(msg["Subject"])
    original = last["body"].rstrip("\n")
    quoted = "\n".join((">" + (" " + line if line else "")) for line in original.split("\n"))
    sent = "Monday, November 23, 2026 9:00 AM"
    if client == "gmail":
        text = (body + "\n\nOn Mon, Nov 23, 2026 at 9:00\u202fAM tabula referee <%s> wrote:\n\n"
                % REFEREE + quoted + "\n")
    elif client == "outlook":
        text = (body + "\n\n-----Original Message-----\nFrom: tabula referee <%s>\n"
                "Sent: %s\nTo: %s\nSubject: %s\n\n%s\n"
                % (REFEREE, sent, sender, msg["Subject"], original))
    elif client == "outlook-web":
        text = (body + "\n\n________________________________\nFrom: tabula referee <%s>\n"
                "Sent: %s\nTo: %s\nSubject: %s\n\n%s\n"
                % (REFEREE, sent, sender, msg["Subject"], original))
    elif client == "apple":
        text = (body + "\n\nSent from my iPhone\n\n> On 23 Nov 2026, at 09:00, tabula referee"
                " <%s> wrote:\n> \n" % REFEREE + quoted + "\n")
    elif client == "mutt":
        text = ("On Mon, Nov 23, 2026 at 09:00:00AM +0000, tabula referee wrote:\n" + quoted
                + "\n\n" + body + "\n\n-- \n" + sender.split("@")[0] + "\n")
    elif client == "autoreply":
        # no Auto-Submitted, no Precedence, no X-Autoreply: a responder
        # that ignores RFC 3834, as some still do
        subject = "Automatic reply: " + str(msg["Subject"])
        text = body + "\n\nYour message was:\n\nSubject: %s\n\n%s\n" % (msg["Subject"], original)
    else:
        raise CaseError("no mail client %s" % client)
    extra = "In-Reply-To: %s\r\nReferences: %s\r\n" % (msg["Message-ID"], msg["Message-ID"])
    return compose(sender, text, mid, to=to, subject=subject, extra=extra)


def confirm_answers(outbox, mid, done=None, only=None):
    """The answer `confirm` of each confirmation request ("[tabula
    confirm KEY]") in the Maildir outbox (new/ and cur/), from its
    addressee, as reply_to writes it; in the order of the files' names.
    mid(i) is the i-th answer's Message-ID; done, a set of file names,
    skips the requests answered before and gets these added; only(address)
    says which addressees answer (default: all)."""
    done = set() if done is None else done
    answers = []
    for sub in ("new", "cur"):
        d = os.path.join(outbox, sub)
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            if name in done:
                continue
            with open(os.path.join(d, name), "rb") as f:
                mail = read_mail(f.read())
            if game_of(mail["subject"]) == "confirm" and (only is None or only(mail["to"])):
                done.add(name)
                answers.append(reply_to(mail, mail["to"], "confirm", mid(len(answers))))
    return answers


def list_copy(raw):
    """The copy a Mailman list relays of a mail its member sent to the
    referee and to the list: the same Message-ID and text, the list's
    header fields (RFC 2919 List-Id, RFC 2369 List-Post, Precedence: list),
    its subject prefix and footer."""
    head, _, body = raw.partition(b"\r\n\r\n")
    lines = []
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"subject: "):
            line = b"Subject: [club] " + line[9:]
        lines.append(line)
    lines += [b"Cc: club@lists.example.org",
              b"Sender: club-bounces@lists.example.org",
              b"List-Id: Chess club <club.lists.example.org>",
              b"List-Post: <mailto:club@lists.example.org>",
              b"Precedence: list"]
    footer = (b"_______________________________________________\r\n"
              b"club mailing list\r\nclub@lists.example.org\r\n")
    return b"\r\n".join(lines) + b"\r\n\r\n" + body + footer


def game_of(subject):
    """The game number of a "[tabula N TOKEN]" (or an observer's "[tabula
    N]") subject, "confirm" for a
    confirmation request ("[tabula confirm KEY]"), or None."""
    m = re.search(r"\[tabula (\d+|confirm)[ \]]", subject)
    return m.group(1) if m else None


def text_part(msg):
    """The text/plain part: all of a plain mail, the first alternative of a
    mail with an HTML part."""
    part = msg.get_body(preferencelist=("plain",))
    if part is None:
        raise CaseError("outgoing mail has no text/plain part")
    return part.get_content()


def check_outgoing(mail):
    """What every mail tabula sends must have (RFC 5322, RFC 3834)."""
    msg = mail["msg"]
    for h in ("From", "To", "Subject", "Date", "Message-ID", "MIME-Version"):
        if msg[h] is None:
            raise CaseError("outgoing mail lacks %s" % h)
    if str(msg["Auto-Submitted"]).lower() != "auto-replied":
        raise CaseError("outgoing mail lacks Auto-Submitted: auto-replied")
    # Text/plain, or multipart/alternative with text/plain first
    # and the HTML after it, or either inside multipart/mixed with files
    body = msg
    if body.get_content_type() == "multipart/mixed":
        body = next(body.iter_parts())
    if body.get_content_type() == "multipart/alternative":
        parts = list(body.iter_parts())
        if [p.get_content_type() for p in parts] != ["text/plain", "text/html"]:
            raise CaseError("the alternatives are not text/plain then text/html")
        html = parts[1].get_content().lower()
        for bad in ("<script", "<img", "<link", "<iframe", "src=", "url(", "@import"):
            if bad in html:
                raise CaseError("the HTML part holds %s" % bad)
        body = parts[0]
    ctype = str(body["Content-Type"]).lower()
    if "text/plain" not in ctype or "flowed" in ctype:
        raise CaseError("outgoing mail is not plain, unflowed text: %s" % ctype)
    # RFC 5322 §2.1.1: 998 at most. (Boards keep to 72 columns by their own
    # tests; a FEN may pass 78 and must not be broken.)
    for line in raw_lines(mail["raw"]):
        if len(line) > 998:
            raise CaseError("line over 998 octets in a reply")


def raw_lines(raw):
    return raw.replace(b"\r\n", b"\n").split(b"\n")


def read_block(lines, i):
    block = []
    while i < len(lines) and lines[i] != ".":
        rep = re.fullmatch(r"@repeat (\d+) (.*)", lines[i])
        block.extend(rep.group(2).replace("\\n", "\n").split("\n") * int(rep.group(1))
                     if rep else [lines[i]])
        i += 1
    if i == len(lines):
        raise CaseError("block not closed by '.'")
    return "\n".join(block), i + 1


def find_mail(conv, address):
    mails = [m for m in conv.step_mails if m["to"] == address.lower()]
    if not mails:
        raise CaseError("no mail to %s in the last delivery (got: %s)"
                        % (address, ", ".join(m["to"] for m in conv.step_mails) or "none"))
    return mails


def run_case(tabula, path):
    with open(path) as f:
        lines = f.read().split("\n")
    workdir = tempfile.mkdtemp(prefix="tabula-case-")
    conv = Conversation(tabula, workdir)
    if any(l.strip() == "tick" or l.strip().startswith(("clock ", "arrived ")) for l in lines):
        conv.use_clock()
    i = 0
    try:
        while i < len(lines):
            line = lines[i].strip()
            i += 1
            if not line or line.startswith("#"):
                continue
            words = line.split()
            where = "%s:%d: %s" % (os.path.basename(path), i, line)
            try:
                if words[0] == "send":
                    body, i = read_block(lines, i)
                    conv.deliver(conv.compose(words[1], body))
                elif words[0] == "reply":
                    body, i = read_block(lines, i)
                    conv.deliver(conv.reply(words[1], body,
                                            game=words[2] if len(words) > 2 else None))
                elif words[0] == "reply-headers":
                    # header lines, a blank line, the body (RFC 3834 cases)
                    block, i = read_block(lines, i)
                    headers, _, body = block.partition("\n\n")
                    conv.deliver(conv.reply(words[1], body, headers=headers,
                                            victim=words[2] if len(words) > 2 else None))
                elif words[0] == "reply-client":
                    body, i = read_block(lines, i)
                    conv.deliver(conv.reply(words[2], body, client=words[1],
                                            game=words[3] if len(words) > 3 else None))
                elif words[0] == "reply-as":
                    body, i = read_block(lines, i)
                    conv.deliver(conv.reply(words[1], body, victim=words[2]))
                elif words[0] == "raw":
                    body, i = read_block(lines, i)
                    conv.deliver(body.replace("\n", "\r\n").encode())
                elif words[0] == "hold":
                    conv.hold = True
                elif words[0] == "redeliver":
                    conv.deliver(conv.last_raw)
                elif words[0] == "keep":
                    conv.keep = True
                elif words[0] == "list-copy":
                    conv.deliver(list_copy(conv.last_raw))
                elif words[0] == "deliver-kept":
                    if conv.kept is None:
                        raise CaseError("no kept mail")
                    conv.deliver(conv.kept)
                    conv.kept = None
                elif words[0] == "mode":
                    conv.mode = words[1]
                elif words[0] == "clock" and len(words) == 2:
                    conv.move_clock(words[1])
                elif words[0] == "tick":
                    conv.tick()
                elif words[0] == "arrived" and len(words) == 2:
                    conv.arrival = conv.time_of(words[1])
                elif words[0] == "poll":
                    conv.poll()
                elif words[0] == "config" and "=" in line:
                    with open(conv.config, "a") as f:
                        f.write(line.split(None, 1)[1] + "\n")
                elif words[0] == "expect" and len(words) == 3 and words[2] == "mails":
                    if len(conv.step_mails) != int(words[1]):
                        raise CaseError("%d mails, to %s" % (
                            len(conv.step_mails), ", ".join(m["to"] for m in conv.step_mails)))
                elif words[0] == "expect":
                    address, field, op = words[1], words[2], words[3]
                    text = line.split(op, 1)[1].strip()
                    if text == "@output":
                        text = conv.last_output.rstrip("\n")
                        if not text:
                            raise CaseError("no admin output to look for")
                    mails = find_mail(conv, address)
                    if line.split(op, 1)[1].strip() == "@output":
                        hit = any(text in re.sub(r"\[([^\]\n]{1,3})\]", r" \1 ", m[field]) for m in mails)
                    else:
                        hit = any(text in m[field] for m in mails)
                    if (op == "~") != hit:
                        raise CaseError("%s %s %s %r; it was:\n%s" % (
                            address, field, "lacks" if op == "~" else "has", text,
                            "\n---\n".join(m[field] for m in mails)))
                elif words[0] == "games":
                    text = line.split("~", 1)[1].strip()
                    out = conv.run("games").stdout.decode()
                    if text not in out:
                        raise CaseError("`tabula games` lacks %r:\n%s" % (text, out))
                elif words[0] == "check":
                    p = conv.run("check")
                    if p.returncode != 0:
                        raise CaseError("`tabula check` failed:\n%s" % p.stdout.decode())
                elif words[0] in ("admin", "admin-fails"):
                    conv.before = conv.snapshot()
                    p = conv.run(*shlex.split(line)[1:])
                    conv.last_output = (p.stdout + p.stderr).decode(errors="replace")
                    if (p.returncode == 0) != (words[0] == "admin"):
                        raise CaseError("exit status %d:\n%s" % (p.returncode,
                                                                  conv.last_output))
                    conv.collect()
                elif words[0] in ("output", "log") and words[1] in ("~", "!~"):
                    text = line.split(words[1], 1)[1].strip()
                    have = conv.last_output if words[0] == "output" else conv.last_log
                    if (text in have) != (words[1] == "~"):
                        raise CaseError("%s %s %r:\n%s" % (
                            words[0], "lacks" if words[1] == "~" else "has", text, have))
                elif words[0] == "unchanged":
                    if conv.snapshot() != conv.before:
                        raise CaseError("the store changed")
                else:
                    raise CaseError("unknown step")
            except CaseError as e:
                raise CaseError("%s\n    %s" % (where, e))
        if os.environ.get("TABULA_KEEP_CASE"):  # to read a case's mails by hand
            print("kept %s" % workdir)
        else:
            shutil.rmtree(workdir)
        return None
    except (CaseError, subprocess.TimeoutExpired) as e:
        return "%s\n    (kept %s)" % (e, workdir)


def main():
    tabula, cases_dir = sys.argv[1], sys.argv[2]
    names = sys.argv[3:] or sorted(n for n in os.listdir(cases_dir) if n.endswith(".case"))
    passed = failed = 0
    for name in names:
        err = run_case(tabula, os.path.join(cases_dir, name))
        if err:
            failed += 1
            print("FAIL %s\n    %s" % (name, err))
        else:
            passed += 1
            print("ok   %s" % name)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
