#!/usr/bin/env python3
"""An 8-player knockout of 3-point backgammon matches by mail, to its final.

usage: knockout_by_mail.py TABULA SOURCE_DIR [SHOTS_DIR]

alice writes `tournament backgammon knockout match=3 cup with` seven others
(confirmed by reply, her first request):
  - every invitee is invited once, about no game; the invitation holds the
    dice commitments of the draw and of the 7 matches, made before anyone
    accepted; nobody else is mailed;
  - each invitee writes `tournament accept cup`; nothing is drawn before
    the last accept; a second accept is refused;
  - the draw mail goes to all 8: its proof is checked here from the mail
    alone (rules-spec KO-1, docs/dice-protocol.md "Knockouts"): the key
    hashes to the draw's commitment, E is SHA-256 of the e lines, the
    faces recomputed with HMAC-SHA256 shuffle the starting numbers as
    written here, and seeding them (KO-2) gives the bracket the mail shows;
  - the 4 first-round matches start at once, each game's first key hashing
    to its slot's commitment of the invitation; every mail of a match
    shows "Match to 3", the score, who leads, the Crawford game named;
  - round 1 played (resignations); a round-1 winner withdraws while
    waiting (KO-4): everyone is told, and the semi-final's other player
    goes on by walkover when known, without a match; the bracket is
    checked by `standings cup` after every round against the results
    played here;
  - the other semi-final and the final are played; the final bracket goes
    to every player once; `tabula check` passes.
With SHOTS_DIR, the web view's bracket and a match page are written by
`tabula site` and screenshotted by headless Chromium into SHOTS_DIR.
Prints "N passed, M failed".
"""
import hashlib
import hmac
import os
import re
import subprocess
import shutil
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
SHOTS = sys.argv[3] if len(sys.argv) > 3 else None
sys.path.insert(0, os.path.join(SRC, "tests", "harness"))
from club import Club, body  # noqa: E402  (tests/harness/club.py)

from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)

PLAYERS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi"]
PLAYERS = [p + "@example.org" for p in PLAYERS]


def faces(key, game, i, E, n):
    """dice-protocol.md: the first n faces of roll i."""
    out, j = [], 0
    while len(out) < n:
        block = hmac.new(key, ("tabula-dice-1|%s|%d|%s|%d" % (game, i, E, j)).encode(),
                         hashlib.sha256).digest()
        out += [b % 6 + 1 for b in block if b < 252]
        j += 1
    return out[:n]


def shuffle(key, game, E, n):
    """KO-1 as the spec writes it: Fisher-Yates, i = n..2, two faces as a
    base-6 number v, v < 36 - 36 % i gives j = v % i + 1."""
    f = faces(key, game, 1, E, 2048)
    order, k = list(range(1, n + 1)), 0
    for i in range(n, 1, -1):
        while True:
            v = 6 * (f[k] - 1) + (f[k + 1] - 1)
            k += 2
            if v < 36 - 36 % i:
                break
        j = v % i + 1
        order[i - 1], order[j - 1] = order[j - 1], order[i - 1]
    return order


def seeds(size):
    """KO-2: the standard seeding order, the seed at each position."""
    s = [1]
    while len(s) < size:
        m = len(s)
        s = [x for y in s for x in (y, 2 * m + 1 - y)]
    return s


def bracket_lines(text):
    """{label: (side 1, side 2, state)} from a bracket in a mail."""
    return {int(m.group(1)): (m.group(2), m.group(3), m.group(4))
            for m in re.finditer(r"(?m)^  M(\d+)\s+(\S+(?: of M\d+)?) - (\S+(?: of M\d+)?): (.*)$",
                                 text)}


def main():
    root = tempfile.mkdtemp(prefix="tabula-knockout-")
    club = Club(TABULA, root)
    number = {p: i + 1 for i, p in enumerate(PLAYERS)}
    try:
        made = club.create(PLAYERS[0], "tournament backgammon knockout match=3 cup with "
                           + " ".join(PLAYERS[1:]))
        to = sorted(t for t, _ in made)
        check("one mail to each of the 8 players", to == sorted(PLAYERS), to)
        invite = body(club.last[PLAYERS[1]])
        commits = dict(re.findall(r"(?m)^Dice commitment: tabula-dice-2 knockout-\d+ "
                                  r"(draw|slot \d+) N 4096 commitment ([0-9a-f]{64})$", invite))
        check("the invitation commits the draw and the 7 matches' dice",
              sorted(commits) == sorted(["draw"] + ["slot %d" % k for k in range(1, 8)]), invite)
        check("no game exists before the draw", "backgammon" not in club.tabula("games").stdout)

        for k, p in enumerate(PLAYERS[1:]):
            out = club.create(p, "tournament accept cup")
            if k < 6:
                check("%s accepts: told alone, nothing drawn" % p,
                      [t for t, _ in out] == [p] and "you are in" in str(out[0][1]["Subject"]),
                      [(t, str(m["Subject"])) for t, m in out])
        again = club.deliver(PLAYERS[1], "tournament accept cup")
        check("an accept after the draw is refused",
              len(again) == 1 and "not waiting for your accept" in body(again[0][1]),
              [body(m) for _, m in again])

        drawn = [(t, m) for t, m in club.mails if "the draw" in str(m["Subject"])]
        check("the draw goes to all 8, once", sorted(t for t, _ in drawn) == sorted(PLAYERS),
              [t for t, _ in drawn])
        text = body(drawn[0][1])
        es = re.findall(r"(?m)^Dice entropy: knockout-(\d+) e(\d+) (\S+)$", text)
        E = re.search(r"(?m)^Dice entropy: knockout-\d+ E ([0-9a-f]{64})$", text).group(1)
        line = re.search(r"(?m)^Dice draw: (knockout-\d+) roll 1 key ([0-9a-f]{64}) order ([\d ]+)$",
                         text)
        game, key, order = line.group(1), bytes.fromhex(line.group(2)), \
            [int(x) for x in line.group(3).split()]
        check("the draw's key is the chain's first, after the commitment",
              hashlib.sha256(key).hexdigest() == commits["draw"])
        check("the players' salt is in the draw mail",
              re.search(r"(?m)^Dice salt: knockout-\d+ [0-9a-f]{64}$", text) is not None, text)
        check("E is SHA-256 of the 8 players' e lines",
              len(es) == 8 and hashlib.sha256("\n".join(e for _, _, e in es).encode()).hexdigest() == E)
        check("the order drawn is the shuffle of the faces (KO-1)",
              order == shuffle(key, game, E, 8), (order, shuffle(key, game, E, 8)))
        at = seeds(8)
        position = {order[s - 1]: pos + 1 for pos, s in enumerate(at)}
        first = {k + 1: (PLAYERS[[n for n, p in position.items() if p == 2 * k + 1][0] - 1],
                         PLAYERS[[n for n, p in position.items() if p == 2 * k + 2][0] - 1])
                 for k in range(4)}
        br = bracket_lines(text)
        check("the bracket mailed is the draw seeded (KO-2): M1..M4",
              all(br.get(k, (None, None))[:2] == first[k] for k in first), (br, first))
        check("the later rounds wait for their winners",
              br.get(5, ("",))[0] == "winner of M1" and br.get(7, ("", ""))[1] == "winner of M6", br)

        games = club.tabula("games").stdout
        active = [int(g) for g in re.findall(r"(?m)^(\d+)\s+backgammon\s+active", games)]
        check("the 4 first-round matches started", len(active) == 4, games)

        def game_of_match(a, b):
            gs = [g for (p, g) in club.game_mail if p == a and (b, g) in club.game_mail]
            return max(gs) if gs else None

        def slot_commitment_ok(g, slot):
            mail = body(club.game_mail[(first_or(g), g)])
            key1 = re.search(r"Dice roll: game %d chain 1 roll 1 key ([0-9a-f]{64})" % g, mail)
            return key1 and hashlib.sha256(bytes.fromhex(key1.group(1))).hexdigest() == \
                commits["slot %d" % slot]

        seats = {}

        def first_or(g):
            return seats[g][0]

        results = {}
        # M1..M4 are slots 4..7 (round 1 top to bottom)
        for k in range(1, 5):
            a, b = first[k]
            g = game_of_match(a, b)
            seats[g] = (a, b)
            check("M%d: its first game's dice are slot %d's, committed in the invitation"
                  % (k, k + 3), slot_commitment_ok(g, k + 3))
            start = body(club.game_mail[(a, g)])
            e_game = re.findall(r"(?m)^Dice entropy: game %d e([12]) (\S+)$" % g, start)
            check("M%d: its players' entropy is their accept's, as the draw mail showed it" % k,
                  dict(e_game) == {"1": es[number[a] - 1][2], "2": es[number[b] - 1][2]},
                  (e_game, es))
            check("M%d: the start mail names the knockout match and shows the score" % k,
                  ("Knockout cup, match M%d" % k) in start and
                  ("Match to 3: %s 0, %s 0" % (a, b)) in start and "The score is level" in start,
                  start)
            if k == 1:
                # two games: a gammon (2-0), then the Crawford game
                club.play(b, g, "resign gammon")
                club.play(a, g, "accept")
                over = body(club.game_mail[(a, g)])
                check("M1 game 1: 2-0, who leads, the Crawford game next",
                      "Match to 3: %s 2, %s 0; %s won this game, the next one is the Crawford game."
                      " %s leads by 2." % (a, b, a, a) in over, over)
                g2 = game_of_match(a, b)
                seats[g2] = (a, b)
                check("M1 game 2 is the Crawford game, named in its mail",
                      g2 != g and "Crawford game" in body(club.game_mail[(a, g2)]),
                      body(club.game_mail[(a, g2)]))
                club.play(b, g2, "resign")
                club.play(a, g2, "accept")
            else:
                club.play(b, g, "resign backgammon")
                club.play(a, g, "accept")
            results[k] = a
            if k == 1:
                # M1's winner withdraws while waiting for the semi-final
                # (KO-4): everyone told, M2's winner will go on without M5
                quitter = a
                out = club.deliver(quitter, "tournament withdraw cup")
                told = sorted(t for t, m in out if "withdrew" in str(m["Subject"]))
                check("a withdrawal: every player told once", told == sorted(PLAYERS), told)
                again = club.deliver(quitter, "tournament withdraw cup")
                check("a second withdrawal is refused",
                      len(again) == 1 and "no longer in the knockout" in body(again[0][1]),
                      [body(m) for _, m in again])
        other = results[2]
        out = club.deliver(PLAYERS[2], "standings cup")
        br = bracket_lines(body(club.last[PLAYERS[2]]))
        check("after round 1: each first-round match won by who won it",
              all(br[k][2].startswith("%s won 3-" % results[k]) for k in range(1, 5)), br)
        check("after round 1: M5 goes to M2's winner by walkover, no match made (KO-4)",
              br[5][:2] == (results[1], results[2]) and
              br[5][2] == "%s goes on: the opponent withdrew" % other and
              game_of_match(results[1], other) is None, br)
        check("after round 1: M6 started with its players",
              br[6][:2] == (results[3], results[4]) and br[6][2].startswith("playing"), br)

        # the other semi-final M6
        a, b = results[3], results[4]
        g = game_of_match(a, b)
        seats[g] = (a, b)
        check("M6's dice are slot 3's", slot_commitment_ok(g, 3))
        club.play(a, g, "resign backgammon")
        club.play(b, g, "accept")
        br = bracket_lines(body(club.deliver(PLAYERS[4], "standings cup")[0][1]))
        check("after the semi-finals: the final M7 between their winners, playing",
              br[7][:2] == (other, b) and br[7][2].startswith("playing"), br)

        # the final
        g = game_of_match(other, b)
        seats[g] = (other, b)
        check("the final's dice are slot 1's", slot_commitment_ok(g, 1))
        final_start = body(club.game_mail[(other, g)])
        check("the final's start mail names it and shows the bracket",
              "Final, round 3" in final_start and "M7" in final_start, final_start)
        club.play(b, g, "resign backgammon")
        before = len(club.mails)
        club.play(other, g, "accept")
        overs = [(t, m) for t, m in club.mails[before:] if "Knockout cup is over" in str(m["Subject"])]
        check("the final bracket goes to every player once, naming the winner",
              sorted(t for t, _ in overs) == sorted(PLAYERS) and
              ("%s wins" % other) in str(overs[0][1]["Subject"]),
              [(t, str(m["Subject"])) for t, m in club.mails[before:]])
        br = bracket_lines(body(overs[0][1]) if overs else "")
        check("the final bracket: M7 won by the champion 3-0",
              br.get(7, ("", "", ""))[2].startswith("%s won 3-0" % other), br)
        before = len(club.mails)
        club.deliver_raw(club.last_raw)
        check("the last mail again: nothing sent twice", len(club.mails) == before)
        show = club.run("tournament", "show", "cup")
        check("tabula tournament show: the knockout's final bracket",
              "backgammon knockout, matches to 3, finished" in show and
              bracket_lines(show).get(7, ("", "", ""))[2].startswith("%s won 3-0" % other), show)
        p = club.tabula("check")
        check("tabula check passes", p.returncode == 0, p.stdout + p.stderr)

        # a field of 5: a bracket of 8, byes to the first 3 drawn (KO-2)
        five = PLAYERS[3:8]
        club.deliver(five[0], "tournament backgammon knockout match=1 small with "
                     + " ".join(five[1:]))
        for p in five[1:]:
            club.deliver(p, "tournament accept small")
        drawn5 = [m for t, m in club.mails if t == five[0] and "small: the draw" in str(m["Subject"])]
        text5 = body(drawn5[0]) if drawn5 else ""
        line5 = re.search(r"(?m)^Dice draw: (knockout-\d+) roll 1 key ([0-9a-f]{64}) order ([\d ]+)$",
                          text5)
        e5 = re.search(r"(?m)^Dice entropy: knockout-\d+ E ([0-9a-f]{64})$", text5)
        order5 = [int(x) for x in line5.group(3).split()] if line5 else []
        check("five players: the draw is the shuffle of its faces",
              line5 is not None and order5 == shuffle(bytes.fromhex(line5.group(2)), line5.group(1),
                                                      e5.group(1), 5), text5)
        br5 = bracket_lines(text5)
        at = seeds(8)
        want = {}
        for k in range(4):
            s1, s2 = at[2 * k], at[2 * k + 1]
            side = [five[order5[s - 1] - 1] if s <= 5 else "(bye)" for s in (s1, s2)] \
                if order5 else ["?", "?"]
            want[k + 1] = tuple(side)
        check("five players: byes to the first 3 drawn, one a first-round match, none meeting",
              all(br5.get(k, (None, None))[:2] == want[k] for k in want) and
              sum("(bye)" in want[k] for k in want) == 3 and
              all(want[k] != ("(bye)", "(bye)") for k in want), (br5, want))
        byes = [k for k in want if "(bye)" in want[k]]
        check("five players: each bye goes on at once, the one real match started",
              all(br5[k][2] == "%s goes on with a bye" % want[k][0] for k in byes) and
              [br5[k][2].startswith("playing") for k in want if k not in byes] == [True], br5)

        two_byes = [k for k in (5, 6) if all("(bye)" in want[c] for c in (2 * k - 9, 2 * k - 8))]
        check("five players: two players with byes meet in round 2 at once",
              all(br5[k][2].startswith("playing") for k in two_byes) and len(two_byes) == 1, br5)

        # a withdrawal in play (KO-4): the match is resigned, the opponent goes on
        real = [k for k in want if k not in byes][0]
        quit5, opp5 = want[real]
        gq = game_of_match(quit5, opp5)
        out = club.deliver(quit5, "tournament withdraw small")
        over5 = body(club.game_mail[(opp5, gq)])
        check("five players: a withdrawal in play resigns the match, the opponent wins it",
              "wins the match: the opponent resigned it" in over5, over5)
        told5 = [m for t, m in out if t == five[0] and "withdrew" in str(m["Subject"])]
        br5 = bracket_lines(body(told5[0]) if told5 else "")
        check("five players: the withdrawal mail shows the opponent gone on, the next match on",
              br5.get(real, ("", "", ""))[2].startswith("%s won at 0-0" % opp5) and
              br5[(real + 9) // 2][2].startswith("playing"), br5)

        site = os.path.join(root, "site")
        p = club.tabula("site", site)
        files = os.listdir(site) if os.path.isdir(site) else []
        ko = [f for f in files if f.startswith("knockout-")]
        mp = sorted(f for f in files if re.fullmatch(r"match-\d+\.html", f))
        check("the web view has the bracket pages and a page per match",
              p.returncode == 0 and len(ko) == 2 and len(mp) == 9, (p.stderr, files))
        ko = sorted(ko, key=lambda f: int(re.search(r"\d+", f).group()))
        if ko:
            page = open(os.path.join(site, ko[0])).read()
            check("the bracket page names no address, links each of its 6 matches",
                  "@" not in page and len(set(re.findall(r'href="(match-\d+\.html)"', page))) == 6,
                  page[:500])
        m1_file = None
        if ko:
            found = re.search(r'href="(match-\d+\.html)">M1<', page)
            m1_file = found.group(1) if found else None
        if m1_file:
            m1 = open(os.path.join(site, m1_file)).read()
            check("a match page lists its games with links and the Crawford game",
                  m1.count('href="game-') >= 2 and "Crawford" in m1, m1[:800])
        check("the bracket page links M1's match page", m1_file is not None)
        # valid HTML, as html_views.py checks the game pages (its rules)
        hv = os.path.join(SRC, "tests", "oracles", "node_modules", ".bin", "html-validate")
        if os.path.exists(hv) and ko:
            cfg = os.path.join(root, "hv.json")
            with open(cfg, "w") as f:
                f.write('{"extends": ["html-validate:recommended"], "rules": {'
                        '"no-inline-style": "off", "prefer-native-element": "off", '
                        '"no-implicit-button-type": "off", "long-title": "off", '
                        '"wcag/h63": "off", "no-redundant-role": "off"}}')
            pages = [os.path.join(site, f) for f in ko + mp + ["index.html"]]
            v = subprocess.run([hv, "--config", cfg] + pages, capture_output=True, text=True,
                               timeout=300)
            check("html-validate: the bracket, match and index pages are valid HTML",
                  v.returncode == 0, v.stdout + v.stderr)
        if SHOTS and ko and m1_file and shutil.which("chromium"):
            os.makedirs(SHOTS, exist_ok=True)
            for src, png, h in ((ko[0], "web-knockout.png", 640),
                                (m1_file, "web-match.png", 360)):
                prof = tempfile.mkdtemp(prefix="chromium-", dir=root)
                subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                                "--no-first-run", "--user-data-dir=" + prof, "--hide-scrollbars",
                                "--window-size=900,%d" % h,
                                "--screenshot=" + os.path.join(SHOTS, png),
                                "file://" + os.path.join(site, src)],
                               capture_output=True, timeout=180)
                check("screenshot %s" % png, os.path.exists(os.path.join(SHOTS, png)))
    except Exception:  # a crash is a failure with its story
        import traceback
        check("the knockout ran", False, traceback.format_exc())
    return finish(root)


if __name__ == "__main__":
    sys.exit(main())
