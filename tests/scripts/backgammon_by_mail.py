#!/usr/bin/env python3
"""Whole backgammon games by mail through the Maildirs, and their dice.

usage: backgammon_by_mail.py TABULA SOURCE_DIR

Two scripted players answer tabula's mails as a person would: they read the
position from the last mail, pick a legal play (from `tabula moves`, with a
fixed seed) and reply. Checks:
  - game 1: a double taken, a later double dropped (must-show 4);
  - game 2: played to the last checker borne off, with standing "roll"
    answers (rules-spec §1.6);
  - forced and no-move turns played by the referee and shown (§1.5): every
    roll of both games is either shown as played by the referee or put to
    the player, and every position put to a player had a choice;
  - the dice of both games verify with tools/tabula-verify-dice.py from the
    outbox mails alone, and by the "verify" command; a tampered face or key
    fails and names the roll (must-show 2);
  - the commitment was mailed before any accept, and E changes with an
    accept's entropy (must-show 3); the chain's secret end appears in no mail
    and no log line (must-show 4).
Prints "N passed, M failed".

The dice are truly random (a chain drawn at `new`), so every check holds
for every outcome: nothing indexes a roll a short game may not
have made, and §1.5 is checked roll by roll rather than by hoping some
forced turn comes up.
"""
import glob
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
VERIFIER = os.path.join(SRC, "tools", "tabula-verify-dice.py")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import bymail  # noqa: E402  (tests/harness/bymail.py)
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)


class Table:
    def __init__(self, root):
        self.root = root
        self.conf = os.path.join(root, "t.ini")
        self.log = os.path.join(root, "tabula.log")
        # rate_limit=0: a scripted game sends hundreds of mails a minute;
        # the limit itself is tested by mailcases/120-authentication.case.
        with open(self.conf, "w") as f:
            f.write("[tabula]\nstore_path=%s/db\ninbox=%s/in\noutbox=%s/out\n"
                    "address=referee@example.org\ndomain=example.org\nrate_limit=0\nlog_level=3\n"
                    % (root, root, root))
        self.seen = set()
        self.last = {}
        self.n = 0

    def invite(self, sender, body):
        """A `new`; an address's first one is confirmed from that address
        first, the way a player answers the request."""
        self.deliver(sender, body)
        last = self.last.get(sender)
        if last is not None and "[tabula confirm " in str(last["Subject"]):
            self.deliver(sender, "confirm", reply=last)

    def deliver(self, sender, body, to="referee@example.org", subject="hi", reply=None):
        self.n += 1
        extra = ""
        if reply is not None:
            to = str(reply["Reply-To"])
            subject = "Re: " + str(reply["Subject"])
            extra = "In-Reply-To: %s\r\n" % reply["Message-ID"]
        raw = ("From: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <m%d@%s>\r\n%s\r\n%s\r\n"
               % (sender, to, subject, self.n, sender.split("@")[1], extra,
                  body.replace("\n", "\r\n")))
        with open(self.log, "ab") as log:
            p = subprocess.run([TABULA, "deliver", "-c", self.conf], input=raw.encode(),
                               stderr=log, timeout=60)
        if p.returncode != 0:
            raise RuntimeError("deliver failed")
        return self.collect()

    def collect(self):
        new = []
        for to, msg in bymail.outbox_new(self.root, self.seen):
            self.last[to] = msg
            new.append((to, msg))
        return new

    def body(self, who):
        return self.last[who].get_body(preferencelist=("plain",)).get_content()


def position(body):
    m = re.search(r"^Position: (\S+)$", body, re.M)
    return m.group(1) if m else None


def legal_plays(pos):
    out = subprocess.run([TABULA, "moves", "-g", "backgammon", pos], capture_output=True,
                         text=True, timeout=60).stdout
    plays = []
    # "COMPUTER CANONICAL"; for backgammon both are gnubg's notation, each
    # of several words, so the canonical one is the second half.
    for line in out.splitlines():
        words = line.split()
        plays.append(" ".join(words[len(words) // 2:]))
    return plays


def play_game(t, white, black, rng, doubles=0, entropy="", limit=600, avoid_hits=False):
    """Plays until the game is over; the first `doubles` cube decisions
    double instead of rolling."""
    t.invite(white, "new backgammon with %s" % black)
    invite = t.last[black]
    commitment_before_accept = "Dice commitment:" in invite.get_body(preferencelist=("plain",)).get_content()
    t.deliver(black, "accept\n" + ("entropy: %s\n" % entropy if entropy else ""), reply=invite)
    turn = 0
    doubled = 0
    prompts = choiceless = 0
    for _ in range(limit):
        acted = False
        for who in (white, black):
            body = t.body(who)
            if "Game over" in body or "is over" in str(t.last[who]["Subject"]):
                return commitment_before_accept, doubled, prompts, choiceless
        for who in (white, black):
            body = t.body(who)
            if "You have been doubled" in body:
                answer = "take" if doubled == 1 else "drop"
                t.deliver(who, answer, reply=t.last[who])
                acted = True
                break
            if 'reply "roll", or "double"' in body:
                turn += 1
                # The first cube decision doubles (taken); the next one can
                # only be the taker's, who now owns the cube: doubles again
                # (dropped). Dice are truly random, so no fixed turn numbers.
                if doubled < doubles:
                    doubled += 1
                    t.deliver(who, "double", reply=t.last[who])
                else:
                    t.deliver(who, "roll", reply=t.last[who])
                acted = True
                break
            if "It is your turn" in body:
                pos = position(body)
                plays = legal_plays(pos)
                if not plays:
                    raise RuntimeError("no plays listed for %s" % pos)
                # §1.5: a player is only asked when there is a choice
                prompts += 1
                if len(plays) < 2:
                    choiceless += 1
                # Random play that keeps hitting can go on for hundreds of
                # turns with real dice; a game that must reach the bear-off
                # in a bounded number of mails avoids hits when it can.
                if avoid_hits:
                    plays = [p for p in plays if "*" not in p] or plays
                t.deliver(who, rng.choice(plays) + "\nroll", reply=t.last[who])
                acted = True
                break
        if not acted:
            raise RuntimeError("nobody to act:\n" + t.body(white) + "\n----\n" + t.body(black))
    raise RuntimeError("game did not end in %d mails" % limit)


def main():
    root = tempfile.mkdtemp(prefix="tabula-bg-")
    t = Table(root)
    rng = random.Random(20261122)
    try:
        c1, d1, p1, x1 = play_game(t, "alice@example.org", "bob@example.org", rng, doubles=2,
                                   entropy="bob's first words")
        over = t.last["alice@example.org"]
        check("game 1: a double taken, a later one dropped, game over by the drop",
              d1 == 2 and "by a dropped double" in str(over["Subject"]) and
              "cube-dropped" not in t.body("alice@example.org"),
              str(over["Subject"]) + t.body("alice@example.org"))
        check("game 1: commitment mailed with the invitation, before the accept", c1)
        c2, d2, p2, x2 = play_game(t, "carol@example.org", "dave@example.org", rng,
                                   entropy="dave's words", avoid_hits=True)
        over = t.last["carol@example.org"]
        check("game 2: played until every checker of one side is off",
              "borne-off" in str(over["Subject"]), str(over["Subject"]))
        games = subprocess.run([TABULA, "games", "-c", t.conf], capture_output=True,
                               text=True).stdout
        check("the store records both results", games.count(" won ") == 2, games)
        p = subprocess.run([TABULA, "check", "-c", t.conf], capture_output=True, text=True)
        check("tabula check replays both journals", p.returncode == 0, p.stdout)

        outbox = sorted(glob.glob(os.path.join(root, "out", "new", "*")))
        text = "".join(open(f, encoding="utf-8").read() for f in outbox)
        nrolls = {g: len(set(re.findall(r"(?m)^Dice roll: game %s .*" % g, text))) for g in "12"}
        for g in "12":
            p = subprocess.run(["python3", VERIFIER, "--game", g] + outbox,
                               capture_output=True, text=True)
            check("game %s: the standalone verifier passes on the outbox mails" % g,
                  p.returncode == 0 and p.stdout.strip() == "all %d rolls verify" % nrolls[g],
                  p.stdout + p.stderr)

        # rules-spec §1.5: forced and impossible turns are played by the
        # referee and shown. For every outcome of the dice: each roll is
        # either shown with the play the referee made for it (the line after
        # the roll says so) or put to the player, who had a choice.
        made = {}
        lines = text.splitlines()
        for i, line in enumerate(lines):
            m = re.match(r"Dice roll: game (\d+) chain \d+ roll (\d+) .* faces (\d) (\d)$", line)
            if m:
                nxt = lines[i + 1] if i + 1 < len(lines) else ""
                if re.search(r"had one legal play, .*; it was made automatically|"
                             r"cannot move with that roll; the turn passes", nxt):
                    how = "referee"
                elif m.group(3) == m.group(4) and nxt.startswith("Dice roll: game %s " % m.group(1)):
                    how = "tie"  # an opening roll of equal dice, rolled again (BG-2)
                else:
                    how = "player"
                made.setdefault((m.group(1), int(m.group(2))), set()).add(how)
        forced = len(re.findall(r"had one legal play, .*; it was made automatically", text))
        nomove = len(re.findall(r"cannot move with that roll; the turn passes", text))
        print("     (%d forced play and %d no-move lines shown)" % (forced, nomove))
        for g, prompts, choiceless in (("1", p1, x1), ("2", p2, x2)):
            rolls = {n: a for (gg, n), a in made.items() if gg == g}
            by = {h: sum(1 for a in rolls.values() if a == {h}) for h in ("player", "referee", "tie")}
            mixed = [n for n, a in rolls.items() if len(a) > 1]
            check("§1.5 game %s: %d rolls = %d put to a player (%d answered) + %d made by the "
                  "referee and shown + %d opening ties; each position put to a player had a "
                  "choice" % (g, len(rolls), by["player"], prompts, by["referee"], by["tie"]),
                  by["player"] == prompts and not mixed and choiceless == 0,
                  "mixed %s, choiceless %d" % (mixed, choiceless))

        # Tamper with a copy: one face, then one key, in a roll mid-game
        # (game 1 has at least its opening roll, however short it was).
        rolls1 = sorted(set(re.findall(r"(?m)^Dice roll: game 1 chain 1 roll (\d+) .*", text)), key=int)
        target = rolls1[len(rolls1) // 2]
        for what in ("face", "key"):
            tdir = os.path.join(root, "tamper-" + what)
            shutil.copytree(os.path.join(root, "out", "new"), tdir)
            for f in glob.glob(os.path.join(tdir, "*")):
                s = open(f, encoding="utf-8").read()
                def change(m):
                    line = m.group(0)
                    if what == "face":
                        return line[:-1] + ("1" if line[-1] != "1" else "2")
                    k = re.search(r"key ([0-9a-f]{64})", line).group(1)
                    return line.replace(k, k[:10] + ("0" if k[10] != "0" else "1") + k[11:])
                s = re.sub(r"(?m)^Dice roll: game 1 chain 1 roll %s key .*" % target, change, s)
                open(f, "w", encoding="utf-8").write(s)
            p = subprocess.run(["python3", VERIFIER, "--game", "1"] +
                               sorted(glob.glob(os.path.join(tdir, "*"))),
                               capture_output=True, text=True)
            check("a tampered %s fails and names roll %s" % (what, target),
                  p.returncode == 1 and ("roll %s" % target) in p.stdout + p.stderr,
                  p.stdout + p.stderr)

        # BG-5: resignation is an offer; rejected, play goes on; accepted at
        # the gammon level, the game ends for 2 points x cube 1.
        t.invite("erin@example.org", "new backgammon with finn@example.org")
        t.deliver("finn@example.org", "accept", reply=t.last["finn@example.org"])
        t.deliver("finn@example.org", "resign", reply=t.last["finn@example.org"])
        offered = "offers to resign the game, losing a single game" in t.body("erin@example.org")
        t.deliver("erin@example.org", "reject", reply=t.last["erin@example.org"])
        rejected = "rejected: the game goes on" in t.body("finn@example.org")
        t.deliver("finn@example.org", "resign gammon", reply=t.last["finn@example.org"])
        t.deliver("erin@example.org", "accept", reply=t.last["erin@example.org"])
        subject = str(t.last["finn@example.org"]["Subject"])
        check("BG-5: a resignation offer rejected, then a gammon resignation accepted",
              offered and rejected and "White won 2 points by resignation" in subject,
              subject)

        # verify by mail
        t.deliver("alice@example.org", "verify", reply=t.last["alice@example.org"])
        body = t.body("alice@example.org")
        check("verify by mail says every roll verifies",
              "all %d rolls verify" % nrolls["1"] in body, body)

        p = subprocess.run([TABULA, "verify", "-c", t.conf, "2"], capture_output=True,
                           text=True)
        check("tabula verify 2 over the store",
              p.returncode == 0 and "all %d rolls verify" % nrolls["2"] in p.stdout, p.stdout)

        # E depends on the accept's entropy (the operator cannot steer).
        es = re.findall(r"Dice entropy: game (\d) E ([0-9a-f]{64})", text)
        check("E differs between games whose accepts differ",
              len(set(e for _, e in es)) == 2, str(es))

        # The secret ends never leave the store.
        con = sqlite3.connect(os.path.join(root, "db"))
        secrets = [r[0] for r in con.execute("select secret from dice")]
        con.close()
        log = open(t.log, encoding="utf-8", errors="replace").read()
        leaked = [s for s in secrets if s in text or s in log]
        check("no secret end in any mail or log line (%d chains, %d log lines)"
              % (len(secrets), log.count("\n")), secrets and not leaked, str(leaked))
    except Exception as e:  # a crash is a failure with its story
        check("the games ran", False, repr(e))
    return finish(root)


if __name__ == "__main__":
    sys.exit(main())
