#!/usr/bin/env python3
"""Backgammon Chess and Lag Backgammon Chess by mail, through the Maildirs.

usage: bgchess_by_mail.py TABULA SOURCE_DIR

Two scripted players answer tabula's mails as a person would: they read the
position from their last mail, pick a legal move of the stage they are at
(`tabula moves -g bgchess`, fixed seed) and reply; a bear-off is sent with
its placements ("6/off@e4 5/off@d5", rules-spec.md 6.5). Checks:
  - game 1 from the start: T-BC-1's shape by mail (White's first turn a chess
    move only; Black's whole turn in one mail "PLAY ; e5", echoed with its
    roll); random turns; ended by a double that is dropped (6.7);
  - game 2 from a bear-off race (pos=, '_' for spaces) with White's roll
    5-2 given in the position: White's first play bears off and is sent as
    `3/off@c5 ...`, echoed as written, its stones on the named squares (the
    later dice come from the chain and vary: many of those bear-offs are
    forced, made automatically and placed with "@e4"); played until the
    rules end it;
  - game 3, Lag Backgammon Chess (lag 2): each player gets the faces of their
    first two rolls at the start, then each next one privately, only to
    its owner, faces only (no key), before the roll is played; the faces
    match the rolls later played; the standalone verifier confirms every
    roll and every preview from the mails; `new bgchess lag=1` works too;
  - `tabula check` replays every journal, no mail line is wider than 72
    columns, and the dice of every game verify.
Prints "N passed, M failed".
"""
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
VERIFIER = os.path.join(SRC, "tools", "tabula-verify-dice.py")
# A bear-off race: every checker on its 1-3 points, the kings alone on the
# chess board (an option word of a mail is at most 63 characters). White's
# roll 5-2 is part of the position (stage bg): its plays, 3/1 3/off and
# 3/off 2/off, all bear off and are two, so White chooses one and sends its
# placement (6.2c, 6.5) whatever the chain's dice do later. From a rolled
# stage the chain's rolls would decide whether any play is a choice at all:
# a race roll whose one play is forced is made automatically and its stones
# are placed with "@e4", with no `/off@` in any mail.
RACE = "k7/8/8/8/8/8/8/K7_w_-_-_1_3/cBAADf9wEAAA:MIEKAAAAAAAE_bg"
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
import bymail  # noqa: E402  (tests/harness/bymail.py)
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)


class Table(bymail.Table):
    """bymail's table, with a lag game's private previews ("your dice
    ahead") kept out of a player's last mail, and every mail logged as
    (the number of the delivery that brought it, addressee, message)."""

    def __init__(self, root):
        super().__init__(TABULA, root)
        self.log = []

    def is_last(self, msg):
        return "your dice ahead" not in str(msg["Subject"])

    def collect(self):
        new = super().collect()
        self.log.extend((self.n, to, msg) for to, msg in new)
        return new


def position(body):
    m = re.search(r"^Position: (.+)$", body, re.M)
    return m.group(1).strip() if m else None


def vacant(pos, side):
    """Squares a stone of `side` may go on: empty, or one's own single stone."""
    rows, out = pos.split()[0].split("/"), []
    for r, row in enumerate(rows):
        f = 0
        for c in row:
            if c.isdigit():
                for k in range(int(c)):
                    out.append("%s%d" % ("abcdefgh"[f + k], 8 - r))
                f += int(c)
                continue
            if c == ("V" if side == "w" else "v"):
                out.append("%s%d" % ("abcdefgh"[f], 8 - r))
            f += 1
    return out


def stone_at(pos, sq):
    """The chess-board letter on square `sq` ("e4") of `pos`, "" when empty."""
    row = pos.split()[0].split("/")[8 - int(sq[1])]
    f, want = 0, "abcdefgh".index(sq[0])
    for c in row:
        n = int(c) if c.isdigit() else 1
        if f <= want < f + n:
            return "" if c.isdigit() else c
        f += n
    return ""


def turn_text(pos, rng):
    """One legal mail for the stage of `pos`: a play with its placements, the
    placements owed, or a chess move."""
    moves = bymail.legal(TABULA, "bgchess", pos)
    if not moves:
        raise RuntimeError("no moves listed for %s" % pos)
    pick = rng.choice(moves)
    stage, side = pos.split()[6], pos.split()[1]
    if stage == "bg" and "/off" in pick:
        squares = rng.sample(vacant(pos, side), 4)
        words = pick.split()
        for i, w in enumerate(words):
            if "/off" in w:
                m = re.match(r"(.*/off)\((\d)\)$", w)
                n, base = (int(m.group(2)), m.group(1)) if m else (1, w)
                words[i] = " ".join("%s@%s" % (base, squares.pop()) for _ in range(n))
        pick = " ".join(words)
    elif stage.startswith("place:"):
        pick = " ".join("@" + s for s in rng.sample(vacant(pos, side), int(stage[6:])))
    return re.sub(r"^\(roll \d-\d\) ", "", pick)


def act(t, who, rng, double=None):
    """The player's answer to their last mail, or False when not theirs."""
    body = t.text(who)
    if "You have been doubled" in body:
        t.deliver(who, double or "take", reply=t.last[who])
    elif 'reply "roll", or "double"' in body:
        t.deliver(who, "double" if double else "roll", reply=t.last[who])
    elif "It is your turn" in body:
        t.deliver(who, turn_text(position(body), rng) + "\nroll", reply=t.last[who])
    else:
        return False
    return True


def over(t, *who):
    return any("is over" in str(t.last[w]["Subject"]) for w in who)


def play(t, white, black, rng, steps, until_over=False, drop_at_end=False):
    for _ in range(steps):
        if over(t, white, black):
            return True
        if not (act(t, white, rng) or act(t, black, rng)):
            raise RuntimeError("nobody to act:\n" + t.text(white) + "\n----\n" + t.text(black))
    if until_over:
        return over(t, white, black)
    if drop_at_end:
        # The next player to roll doubles and the other drops (6.7).
        for _ in range(12):
            if over(t, white, black):
                break
            for who in (white, black):
                body = t.text(who)
                if 'reply "roll", or "double"' in body:
                    t.deliver(who, "double", reply=t.last[who])
                    break
                if "You have been doubled" in body:
                    t.deliver(who, "drop", reply=t.last[who])
                    break
                if "It is your turn" in body:
                    # plain text, no standing "roll": the cube question comes
                    t.deliver(who, turn_text(position(body), rng), reply=t.last[who])
                    break
    return over(t, white, black)


def start(t, white, black, game, options=""):
    t.invite(white, "new %s %swith %s" % (game, options + " " if options else "", black))
    invite = t.text(black)
    t.deliver(black, "accept\nentropy: %s's words\n" % black, reply=t.last[black])
    return invite


def race(t, c, d, rng):
    """Game 2: a bear-off race; stones go on the chess board."""
    start(t, c, d, "bgchess", "pos=" + RACE)
    pos = position(t.text(c))
    plays = bymail.legal(TABULA, "bgchess", pos) if pos else []
    check("game 2 starts at White's choice of two bear-offs for the roll 5-2",
          pos is not None and pos.endswith(" bg") and "It is your turn" in t.text(c)
          and sorted(plays) == ["(roll 5-2) 3/1 3/off", "(roll 5-2) 3/off 2/off"],
          t.text(c))
    sent = turn_text(pos, rng)
    t.deliver(c, sent + "\nroll", reply=t.last[c])
    subject, after = str(t.last[c]["Subject"]), position(t.text(c)) or ""
    placed = re.findall(r"/off@([a-h][1-8])", sent)
    check("6.2c/6.5: `3/off@c5` by mail is echoed as written, a White stone on each square",
          re.search(r"Game \d+: " + re.escape("(roll 5-2) " + sent) + " accepted$", subject)
          is not None and len(placed) >= 1 and
          all(stone_at(after, sq) in ("V", "X") for sq in placed),
          "sent %r\n%s\n%s" % (sent, subject, after))
    ended = play(t, c, d, rng, 400, until_over=True)
    subject = str(t.last[c]["Subject"])
    check("game 2 (race) is played by mail until the rules end it", ended, subject)
    # the subject or the text: a long play's subject may not hold it all
    stones = any(re.search(r"/off@[a-h][1-8]", str(m["Subject"]) + "\n" +
                           m.get_body(preferencelist=("plain",)).get_content())
                 for _, _, m in t.log)
    check("6.2c: bear-offs placed as stones by mail (`6/off@e4`)", stones)


def main():
    root = tempfile.mkdtemp(prefix="tabula-bc-")
    t = Table(root)
    rng = random.Random(20261122)
    try:
        # Game 1: from the start, by mail.
        a, b = "alice@example.org", "bob@example.org"
        invite = start(t, a, b, "bgchess")
        check("game 1: the dice commitment came with the invitation",
              "Dice commitment: tabula-dice-2 game 1" in invite)
        check("6.2.1: White's first turn asks for a chess move, no dice",
              "It is your turn" in t.text(a) and "Dice roll:" not in t.text(a), t.text(a))
        t.deliver(a, "e4", reply=t.last[a])
        if 'reply "roll", or "double"' in t.text(b):
            t.deliver(b, "roll", reply=t.last[b])
        pos = position(t.text(b))
        plays = [p for p in bymail.legal(TABULA, "bgchess", pos) if "/off" not in p]
        mv = re.sub(r"^\(roll \d-\d\) ", "", plays[0])
        t.deliver(b, mv + " ; e5", reply=t.last[b])
        accepted = str(t.last[b]["Subject"])
        check("T-BC-1 by mail: Black's whole turn in one mail, echoed with its roll",
              re.search(r"\(roll \d-\d\) .* ; e5 accepted", accepted) is not None, accepted)
        ended = play(t, a, b, rng, 25, drop_at_end=True)
        subject = str(t.last[a]["Subject"])
        check("game 1 ends by a dropped double (6.7)", ended and "by a dropped double" in subject,
              subject)

        # Game 2: a bear-off race; stones go on the chess board.
        c, d = "carol@example.org", "dave@example.org"
        race(t, c, d, rng)

        # Game 3: Lag Backgammon Chess, L = 2.
        e, f = "erin@example.org", "finn@example.org"
        first_batch = len(t.log)
        start(t, e, f, "lagbgchess")
        at_start = [(to, m) for _, to, m in t.log[first_batch:]
                    if "your dice ahead" in str(m["Subject"])]
        rolls_at_start = {to: sorted(int(r) for r in re.findall(r"roll (\d+) faces",
                                                                  m.get_body(preferencelist=("plain",)).get_content()))
                          for to, m in at_start}
        check("6.9: at the start Black sees rolls 1 and 3, White rolls 2 and 4",
              rolls_at_start == {f: [1, 3], e: [2, 4]}, str(rolls_at_start))
        if not play(t, e, f, rng, 40):
            t.deliver(e, "resign", reply=t.last[e])
            t.deliver(f, "accept", reply=t.last[f])
        check("game 3 ends (by the rules, else by resignation)", over(t, e, f),
              str(t.last[e]["Subject"]))

        private = [(n, to, m) for n, to, m in t.log
                   if "your dice ahead" in str(m["Subject"]) and to in (e, f)]
        public = {}
        for n, to, m in t.log:
            if "your dice ahead" in str(m["Subject"]):
                continue
            for g, i, faces in re.findall(r"(?m)^Dice roll: game (\d+) chain \d+ roll (\d+) key "
                                          r"[0-9a-f]{64} faces (\d \d)", m.get_body(preferencelist=("plain",)).get_content()):
                if g == "3":
                    public.setdefault(int(i), (n, faces))
        owner_ok, faces_only, match, before, seen = True, True, True, True, 0
        for n, to, m in private:
            text = m.get_body(preferencelist=("plain",)).get_content()
            if re.search(r"[0-9a-f]{32}", text) or re.search(r"Dice (roll|commitment)", text):
                faces_only = False
            for i, faces in re.findall(r"Dice preview: game 3 roll (\d+) faces (\d \d)", text):
                i = int(i)
                seen += 1
                if to != (f if i % 2 else e):
                    owner_ok = False
                if i in public:
                    match &= public[i][1] == faces
                    before &= n < public[i][0]
        others = [to for n, to, m in t.log if "your dice ahead" in str(m["Subject"])
                  and to not in (e, f)]
        check("LG-1: private mails go to their owner only (%d previews)" % seen,
              owner_ok and seen >= 10 and not others)
        check("LG-1: private mails carry faces only, never a key", faces_only)
        check("LG-1: every preview came before its roll was played, with the same faces",
              match and before and len(public) >= 8, "%d rolls played" % len(public))

        outbox = sorted(glob.glob(os.path.join(root, "out", "new", "*")))
        text = "".join(open(x, encoding="utf-8").read() for x in outbox)
        for g in ("1", "2", "3"):
            n = len(set(re.findall(r"(?m)^Dice roll: game %s .*" % g, text)))
            want = "all %d rolls verify" % n
            if g == "3":
                want += "; %d private previews match" % sum(1 for i in public if any(
                    re.search(r"Dice preview: game 3 roll %d faces" % i, m.get_body(preferencelist=("plain",)).get_content())
                    for _, _, m in private))
            p = subprocess.run(["python3", VERIFIER, "--game", g] + outbox,
                               capture_output=True, text=True)
            check("game %s: tools/tabula-verify-dice.py confirms the dice (%s)" % (g, want),
                  p.returncode == 0 and p.stdout.strip() == want, p.stdout + p.stderr)
        # A changed preview is caught once its roll is played.
        bad = re.sub(r"(Dice preview: game 3 roll 1 faces )(\d)", lambda m: m.group(1) +
                     ("1" if m.group(2) != "1" else "2"), text)
        p = subprocess.run(["python3", VERIFIER, "--game", "3", "-"], input=bad,
                           capture_output=True, text=True)
        check("a tampered preview fails and names roll 1",
              p.returncode == 1 and "roll 1" in p.stdout, p.stdout + p.stderr)

        # bgchess lag=1: the option on the plain name.
        g_first = len(t.log)
        start(t, "gina@example.org", "hugo@example.org", "bgchess", "lag=1")
        got = sorted((to, int(i)) for _, to, m in t.log[g_first:]
                     if "your dice ahead" in str(m["Subject"])
                     for i in re.findall(r"roll (\d+) faces", m.get_body(preferencelist=("plain",)).get_content()))
        check("`new bgchess lag=1`: one roll ahead each at the start",
              got == [("gina@example.org", 2), ("hugo@example.org", 1)], str(got))

        p = subprocess.run([TABULA, "check", "-c", t.conf], capture_output=True, text=True)
        check("tabula check replays every journal", p.returncode == 0, p.stdout + p.stderr)
        # the boards' lines are the ones starting with a space (in game
        # mails: a confirmation request quotes the `new` line as written)
        wide = [l for _, _, m in t.log for l in m.get_body(preferencelist=("plain",)).get_content().splitlines()
                if len(l) > 72 and l.startswith(" ") and
                "[tabula confirm " not in str(m["Subject"])]
        boards = sum(1 for _, _, m in t.log if "+13-14-15-16-17-18" in
                    m.get_body(preferencelist=("plain",)).get_content())
        check("both boards in every game mail, no board line over 72 columns (%d boards)"
              % boards, boards > 100 and not wide, "\n".join(wide[:3]))
    except Exception as ex:  # a crash is a failure with its story
        check("the games ran", False, repr(ex))
    return finish(root)


if __name__ == "__main__":
    sys.exit(main())
