#!/usr/bin/env python3
"""Nothing the web view publishes identifies a player (rules-spec G-4).

usage: site_privacy.py TABULA SOURCE_DIR

A store holds a game of each of the thirteen game systems, played by mail
(tests/harness/bymail.py), every one public. The players' addresses carry
host names (alice.liddell0@hermes0.wonder.example), and their mail programs
write Message-IDs that name them the ways real ones do: the domain, the
local part, the machine ("<...%alice.liddell0@hermes0.wonder.example>",
"<...@AliceLaptop0>"). Half the accepts carry entropy text, half none, so
the dice entropy of a game comes from Message-IDs. Then `tabula site`
writes the web view, and every file it wrote is searched: no "@", no
Message-ID (nor its part left of the "@"), no local part, domain or host
name of any player. What the dice need is still there: every dice game's
page and record verify with tools/tabula-verify-dice.py, and each
player's published entropy is the keyed digest of their own Message-ID
under the salt their start mail gave them (docs/dice-protocol.md,
tabula-dice-2). A game whose entropy was fixed under tabula-dice-1 (the
store's mark of the version removed before its accept, as a store
written before tabula-dice-2 has it) is published with E alone and
verifies too. Prints "N passed, M failed".
"""
import hashlib
import hmac
import html
import os
import random
import re
import sqlite3
import subprocess
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests", "harness"))
import bymail  # noqa: E402

VERIFY = os.path.join(SRC, "tools", "tabula-verify-dice.py")
GAMES = ["chess", "checkers", "backgammon", "bgchess", "lagbgchess", "backtoback",
         "tableschess", "chessgammon", "chessgammon4x8", "doublemove", "racingkings",
         "bodlaender", "cwda"]
DICE = {"backgammon", "bgchess", "lagbgchess", "tableschess"}
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)


class Table(bymail.Table):
    """Players whose mail programs write Message-IDs that name them; accepts
    of the players in `plain` carry no entropy text."""

    def __init__(self, *a, **k):
        super().__init__(*a, **k)
        self.ids = {}       # address -> every Message-ID it wrote
        self.plain = set()

    def deliver(self, sender, body, reply=None):
        if sender in self.plain and body.startswith("accept\nentropy:"):
            body = "accept"
        elif body.startswith("accept\nentropy:"):
            # words that name nobody: a player's own entropy text is
            # published as written (they chose it, dice-protocol.md)
            body = "accept\nentropy: lucky words %d" % self.n
        self.n += 1
        local, domain = sender.split("@")
        host = domain.split(".")[0]
        # the forms real clients use: the sender's address in the id (some
        # webmails), the machine's name (desktop clients), the domain
        form = self.n % 3
        if form == 0:
            mid = "<%d.%d.%%%s@%s>" % (self.n, os.getpid(), local, domain)
        elif form == 1:
            mid = "<%08X.%d@%s>" % (self.n * 7919, self.n, host.capitalize() + "Laptop")
        else:
            mid = "<20261128%06d.GA%d@%s>" % (self.n, os.getpid(), domain)
        self.ids.setdefault(sender, []).append(mid)
        to, subject, extra = bymail.REFEREE, "hi", ""
        if reply is not None:
            to = str(reply["Reply-To"])
            subject = "Re: " + str(reply["Subject"])
            extra = "In-Reply-To: %s\r\n" % reply["Message-ID"]
        raw = ("From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: %s\r\n%s\r\n%s\r\n"
               % (sender, to, subject, mid, extra, body.replace("\n", "\r\n")))
        p = subprocess.run([self.tabula, "deliver", "-c", self.conf], input=raw.encode(),
                           capture_output=True, timeout=120)
        if p.returncode != 0:
            raise RuntimeError("deliver failed: %s" % p.stderr.decode(errors="replace"))
        return self.collect()


def verify(path, game):
    p = subprocess.run([sys.executable, VERIFY, "--game", str(game), path], capture_output=True,
                       text=True, timeout=120)
    return p.returncode == 0 and "rolls verify" in p.stdout, p.stdout + p.stderr


def page_text(path):
    """The page as text a player saves (tags dropped, entities decoded)."""
    with open(path, encoding="utf-8") as f:
        return html.unescape(re.sub(r"<[^>]+>", "", f.read()))


def main():
    work = tempfile.mkdtemp(prefix="tabula-site-privacy-")
    t = Table(TABULA, os.path.join(work, "t"),
              extra="site_url=https://club.example.org/tabula\n")
    rng = random.Random(2727)
    played = {}
    try:
        for i, game in enumerate(GAMES):
            a = "alice.liddell%d@hermes%d.wonder.example" % (i, i)
            b = "bob.dylan%d@pc%d.music.example" % (i, i)
            if i % 2 == 0:
                t.plain.update({a, b})
            played[game] = (bymail.play(t, game, a, b, rng, 4), a, b)
        # a game whose dice entropy is fixed as tabula-dice-1 fixed it: its
        # version's mark removed before the accept
        a, b = "carol.old@athena.old.example", "dave.old@zeus.old.example"
        t.plain.update({a, b})
        t.invite(a, "new backgammon with %s" % b)
        inv = t.last[b]
        old = int(re.search(r"\[tabula (\d+)", str(inv["Subject"])).group(1))
        db = sqlite3.connect(os.path.join(work, "t", "db"))
        gone = db.execute("DELETE FROM dice_protocols WHERE game = ? AND version = 2",
                          (old,)).rowcount
        db.commit()
        db.close()
        check("the store marks a new dice game's protocol version (dice_protocols)",
              gone == 1, gone)
        # an observer since the invitation: the start it is told of names
        # nobody (rules-spec G-3), though the players' start mails show the
        # Message-IDs tabula-dice-1 takes
        eve = "eve@watch.example"
        t.deliver(eve, "observe %d" % old)
        t.deliver(eve, "confirm", reply=t.last[eve])
        t.deliver(b, "accept", reply=inv)
        seen = bymail.text(t.last[eve])
        check("the tabula-dice-1 game's observer gets the start: E, no Message-ID",
              "Dice entropy: game %d E " % old in seen and
              not any(w in seen for w in ("@hermes", "@zeus", "@athena", "Laptop", "carol.old",
                                          "dave.old", "%")), seen[:1500])
        start = t.game_last[(a, old)]
        check("the tabula-dice-1 game starts with its players' Message-IDs as entropy",
              "Dice entropy: game %d e2 %s" % (old, t.ids[b][-1]) in bymail.text(start),
              bymail.text(start)[:1500])
        played["backgammon (tabula-dice-1)"] = (old, a, b)

        # each player's published entropy is the keyed digest of their own
        # Message-ID, the key being the salt their start mail shows
        for game, (num, a, b) in played.items():
            if game.split()[0] not in DICE or "dice-1" in game:
                continue
            body = bymail.text(next(m for m in t.mails if re.search(
                r"\[tabula %d[ \]].* starts" % num, str(m["Subject"]))))
            salt = re.search(r"^Dice salt: game %d (\S+)$" % num, body, re.M)
            es = dict(re.findall(r"^Dice entropy: game %d (e\d) (.*)$" % num, body, re.M))
            ok = bool(salt) and len(es) == 2
            for seat, who in (("e1", a), ("e2", b)):
                if who not in t.plain and seat == "e2":  # the inviter's is its new's
                    ok = ok and (es.get(seat) or "").startswith("lucky words ")
                    continue
                digests = {"mid:" + hmac.new(salt.group(1).encode(), mid.encode(),
                                             hashlib.sha256).hexdigest()
                           for mid in t.ids[who]} if salt else set()
                ok = ok and es.get(seat) in digests
            check("%s: e1, e2 in the start mail are the players' words or the keyed "
                  "digests of their Message-IDs under the salt shown" % game, ok, body[:2000])

        site = os.path.join(work, "site")
        out = t.run("site", site).stdout.decode()
        check("tabula site writes a page per game", out.startswith("%d game page(s)"
                                                                   % len(played)), out)
        files = sorted(os.listdir(site))
        texts = {f: open(os.path.join(site, f), encoding="utf-8", errors="replace").read()
                 for f in files}
        check("the site holds a page and a record of each game (%d files)" % len(files),
              all(any(f.startswith("game-%d." % n) and not f.endswith((".html", ".json"))
                      for f in files)
                  and "game-%d.html" % n in files and "game-%d.json" % n in files
                  for n, _, _ in played.values()), files)
        banned = set()
        players = {w for _, a, b in played.values() for w in (a, b)}
        for who, mids in t.ids.items():
            if who not in players:  # the observer
                continue
            local, domain = who.split("@")
            banned.update({who, local, domain, domain.split(".")[0]})
            for mid in mids:
                banned.update({mid, mid.strip("<>"), mid.strip("<>").split("@")[0],
                               mid.strip("<>").split("@")[1]})
        # the signed checkpoints' roots and signatures and the referee's key
        # are base64 of random-looking bytes (docs/history-protocol.md,
        # "Witnesses"): a short host ("pc1") can occur in them by chance
        unsigned = re.compile(r"(?:[A-Za-z0-9+/]{43}=|[A-Za-z0-9+/]{91}=)"
                              r"|\+[0-9a-f]{8}\+[A-Za-z0-9+/]{44}")
        for f, s in texts.items():
            low = unsigned.sub("", s).lower()
            hits = sorted(w for w in banned if w.lower() in low)
            check("%s: no @, no Message-ID, no address, local part or host of a player"
                  % f, "@" not in s and "%40" not in s and "&#64;" not in s and not hits,
                  ["@"] * ("@" in s) + hits[:8])
        for game, (num, a, b) in played.items():
            if game.split()[0] not in DICE:
                continue
            page = os.path.join(work, "page-%d.txt" % num)
            with open(page, "w", encoding="utf-8") as f:
                f.write(page_text(os.path.join(site, "game-%d.html" % num)))
            ok, why = verify(page, num)
            check("%s: the dice lines of its page verify (%s)" % (game, why.strip()), ok, why)
            record = next(f for f in files if f.startswith("game-%d." % num)
                          and not f.endswith((".html", ".json")))
            ok, why = verify(os.path.join(site, record), num)
            check("%s: the dice lines of its record %s verify" % (game, record), ok, why)
            es = re.findall(r"^Dice entropy: game %d e\d" % num, texts[record], re.M)
            check("%s: the record %s entropy lines (E alone under tabula-dice-1)"
                  % (game, "has no" if "dice-1" in game else "has its"),
                  (not es) if "dice-1" in game else len(es) == 2, es)
        # the players' own mails still check the same rolls
        for game, (num, a, b) in played.items():
            if game.split()[0] not in DICE:
                continue
            mails = os.path.join(work, "mails-%d.txt" % num)
            with open(mails, "w", encoding="utf-8") as f:
                for m in t.mails:
                    if re.search(r"\[tabula %d[ \]]" % num, str(m["Subject"])) and \
                            str(m["To"]).strip("<> ").lower() == a:
                        f.write(bymail.text(m) + "\n")
            ok, why = verify(mails, num)
            check("%s: the first player's mails verify (%s)" % (game, why.strip()), ok, why)
    finally:
        status = finish(work)
    return status


if __name__ == "__main__":
    sys.exit(main())
