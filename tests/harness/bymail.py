"""Scripted players for the tests of records, HTML mails and the site.

A Table is one store and its Maildirs; players answer tabula's mails as a
person would: by replying, with a move picked from `tabula moves` for the
position the last mail showed (a seeded random.Random: any legal move will
do, the assertions hold for every game). Imported by tests/scripts/*.py,
which put this folder on sys.path; the scripts that play one game kind
their own way (bgchess_by_mail.py, tables_chess_by_mail.py) use its Table.
"""
import base64
import email
import email.policy
import glob
import os
import re
import subprocess

REFEREE = "referee@example.org"


class Table:
    def __init__(self, tabula, root, extra=""):
        self.tabula = tabula
        self.root = root
        os.makedirs(root, exist_ok=True)
        self.conf = os.path.join(root, "t.ini")
        # rate_limit=0: a scripted game sends many mails a minute; and it
        # invites more strangers an hour than a club would (the budget for mail to strangers)
        with open(self.conf, "w") as f:
            f.write("[tabula]\nstore_path=%s/db\ninbox=%s/in\noutbox=%s/out\n"
                    "address=%s\ndomain=example.org\nrate_limit=0\n"
                    "stranger_mails_per_hour=100000\nlog_level=1\n%s"
                    % (root, root, root, REFEREE, extra))
        self.seen = set()
        self.last = {}      # address -> last message
        self.game_last = {}  # (address, game) -> last message
        self.mails = []     # every message, in order
        self.n = 0

    def run(self, *args, check=True):
        p = subprocess.run([self.tabula, args[0], "-c", self.conf] + list(args[1:]),
                           capture_output=True, timeout=120)
        if check and p.returncode != 0:
            raise RuntimeError("tabula %s failed: %s" % (" ".join(args), p.stderr.decode()))
        return p

    def invite(self, sender, body):
        """A `new`; an address's first one is confirmed from that address
        first, the way a player answers the request."""
        self.deliver(sender, body)
        last = self.last.get(sender)
        if last is not None and "[tabula confirm " in str(last["Subject"]):
            self.deliver(sender, "confirm", reply=last)

    def deliver(self, sender, body, reply=None):
        self.n += 1
        to, subject, extra = REFEREE, "hi", ""
        if reply is not None:
            to = str(reply["Reply-To"])
            subject = "Re: " + str(reply["Subject"])
            extra = "In-Reply-To: %s\r\n" % reply["Message-ID"]
        raw = ("From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <m%d.%d@%s>\r\n%s\r\n%s\r\n"
               % (sender, to, subject, self.n, os.getpid(), sender.split("@")[1], extra,
                  body.replace("\n", "\r\n")))
        p = subprocess.run([self.tabula, "deliver", "-c", self.conf], input=raw.encode(),
                           capture_output=True, timeout=120)
        if p.returncode != 0:
            raise RuntimeError("deliver failed: %s" % p.stderr.decode(errors="replace"))
        return self.collect()

    def collect(self):
        new = []
        for to, msg in outbox_new(self.root, self.seen):
            if self.is_last(msg):
                self.last[to] = msg
                m = re.search(r"\[tabula (\d+)", str(msg["Subject"]))
                if m:
                    self.game_last[(to, int(m.group(1)))] = msg
            self.mails.append(msg)
            new.append((to, msg))
        return new

    def is_last(self, msg):
        """Whether msg becomes its addressee's last mail (every mail here;
        a script's table may keep some out, as a lag game's previews)."""
        return True

    def text(self, who, game=None):
        msg = self.last[who] if game is None else self.game_last[(who, game)]
        return text(msg)


def outbox_new(root, seen):
    """The mails tabula wrote to root/out/new that are not in seen (the
    paths read before; added to it), in the order of their names, each as
    (addressee, message), the message's bytes as message.raw."""
    new = []
    for path in sorted(glob.glob(os.path.join(root, "out", "new", "*"))):
        if path in seen:
            continue
        seen.add(path)
        with open(path, "rb") as f:
            raw = f.read()
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        msg.raw = raw
        new.append((str(msg["To"]).strip("<> ").lower(), msg))
    return new


def text(msg):
    """The text/plain part: the mail as a plain-text reader sees it."""
    part = msg.get_body(preferencelist=("plain",))
    return part.get_content() if part else ""


def html(msg):
    part = msg.get_body(preferencelist=("html",))
    return part.get_content() if part else None


def attachments(msg):
    return [(p.get_filename(), p.get_content_type(), p.get_payload(decode=True))
            for p in msg.iter_attachments()]


def position(body):
    m = re.search(r"^(?:Position|Final position): (.+?) *$", body, re.M)
    return m.group(1) if m else None


def legal(tabula, game, pos):
    out = subprocess.run([tabula, "moves", "-g", game, pos], capture_output=True, text=True,
                         timeout=60).stdout
    moves = []
    for line in out.splitlines():
        words = line.split()
        if "[" in line:  # checkers' computer notation "14x21 [17]": the last word
            moves.append(words[-1])
        elif words:
            moves.append(" ".join(words[len(words) // 2:]))
    return moves


def over(msg):
    return " is over" in str(msg["Subject"])


def play(t, game, a, b, rng, plies, new_opts="", cube=None, pick=None):
    """Starts GAME between a and b and plays `plies` turns (or to the end).
    cube(who, n) answers a cube question ("roll", "double"; n counts them);
    a doubled player answers cube(who, "doubled"). Returns the game number."""
    t.invite(a, "new %s%s with %s" % (game, " " + new_opts if new_opts else "", b))
    invite = t.last[b]
    num = int(re.search(r"\[tabula (\d+)", str(invite["Subject"])).group(1))
    t.deliver(b, "accept\nentropy: %s's words" % b.split("@")[0], reply=invite)
    done, questions = 0, 0
    for _ in range(plies * 4 + 20):
        if done >= plies:
            break
        acted = False
        for who in (a, b):
            msg = t.game_last.get((who, num))
            if msg is None:
                continue
            if over(msg):
                return num
            body = text(msg)
            if "You have been doubled" in body:
                t.deliver(who, cube(who, "doubled") if cube else "take", reply=msg)
                acted = True
                break
            if 'reply "roll", or "double"' in body:
                questions += 1
                t.deliver(who, cube(who, questions) if cube else "roll", reply=msg)
                acted = True
                break
            if "It is your turn" in body and position(body):
                moves = legal(t.tabula, game, position(body))
                if not moves:
                    raise RuntimeError("no legal moves for %s" % position(body))
                move = pick(moves) if pick else rng.choice(moves)
                t.deliver(who, move, reply=msg)
                done += 1
                acted = True
                break
        if not acted:
            raise RuntimeError("nobody to act in game %d:\n%s" % (
                num, "\n----\n".join(text(t.game_last[(w, num)]) for w in (a, b)
                                     if (w, num) in t.game_last)))
    return num


def to_move(t, num, a, b):
    """The player whose turn it is in game num (or None)."""
    for who in (a, b):
        msg = t.game_last.get((who, num))
        if msg is not None and ("It is your turn" in text(msg) or "You have been doubled"
                                in text(msg)):
            return who
    return None


def resign(t, num, a, b, words="resign"):
    """The player to move resigns; in cube games the other accepts (BG-5)."""
    who = to_move(t, num, a, b)
    if who is None:
        raise RuntimeError("nobody to move in game %d" % num)
    other = b if who == a else a
    t.deliver(who, words, reply=t.game_last[(who, num)])
    msg = t.game_last[(other, num)]
    if "offers to resign" in str(msg["Subject"]):
        t.deliver(other, "accept", reply=msg)
    return who


def gnubg_board(pos_id, match_id):
    """(player 0's 25 counts, player 1's) from gnubg's Position ID and Match
    ID (tabula's games.state holds the same pair): the Position ID lists the
    player on roll first (Match ID bit 7, 1-based), so two boards compare
    whoever is on roll after the game."""
    def bits(text, nbytes):
        raw = base64.b64decode(text + "=" * (-len(text) % 4))[:nbytes]
        return [(byte >> i) & 1 for byte in raw for i in range(8)]
    b, i, sides = bits(pos_id, 10), 0, []
    for _ in range(2):
        side = []
        for _ in range(25):
            n = 0
            while b[i]:
                n, i = n + 1, i + 1
            i += 1
            side.append(n)
        sides.append(side)
    on_roll = bits(match_id, 9)[6]
    return (sides[0], sides[1]) if on_roll == 0 else (sides[1], sides[0])
