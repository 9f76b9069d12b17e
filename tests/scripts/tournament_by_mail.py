#!/usr/bin/env python3
"""A 4-player double round robin by mail to its end.

usage: tournament_by_mail.py TABULA SOURCE_DIR

alice writes `tournament chess spring double with bob carol dave`:
  - her first request: only a confirmation request, to her, and
    no game; her reply "confirm" makes the tournament;
  - the 12 games exist at once (`tabula games`), still invited; alice is
    told once, each invitee is invited once, in the thread of one of its
    games, listing all six of its games; nobody else is mailed;
  - one `accept` from each invitee accepts all of its games; nothing starts
    until the last one, then all 12 start together, each player getting
    one start mail listing its 6 games, each with the address that plays
    in it (not 6 start mails);
  - every game is played to a result by mail (wins by resignation, agreed
    draws; chosen with a fixed seed), `standings spring` asked half way and
    at the end: the crosstable, points and Sonneborn-Berger agree with a
    computation written here (FIDE's S-B for a round robin), and so do the
    places (points, then S-B);
  - when the last game ends every player gets the final table, once: the
    last mail delivered again changes nothing and sends nothing;
  - a player of no tournament is told so; a stranger gets nothing;
  - the operator's `tabula tournament new ... --double` makes one too (12
    games, one invitation each, `tabula tournament show` agrees), a decline
    cancels a third for everyone, each player told once;
  - `tabula check` passes, and the 12 games count for the ratings.
Prints "N passed, M failed".
"""
import os
import random
import re
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests", "harness"))
from club import Club, body, game_of  # noqa: E402  (tests/harness/club.py)

from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)
PLAYERS = ["alice@example.org", "bob@example.org", "carol@example.org", "dave@example.org"]


def expected_standings(games, n):
    """games: [(white no, black no, white's score)] -> rows sorted as the
    standings: (place, number, points, sb, cells {opponent: 'results'})."""
    points = {p: 0.0 for p in range(1, n + 1)}
    cells = {p: {q: "" for q in range(1, n + 1)} for p in range(1, n + 1)}
    for w, b, s in games:  # in game order: cycle 1 first
        points[w] += s
        points[b] += 1 - s
        cells[w][b] += {1.0: "1", 0.0: "0", 0.5: "="}[s]
        cells[b][w] += {1.0: "0", 0.0: "1", 0.5: "="}[s]
    sb = {p: 0.0 for p in points}
    for w, b, s in games:
        sb[w] += s * points[b]
        sb[b] += (1 - s) * points[w]
    order = sorted(points, key=lambda p: (-points[p], -sb[p], p))
    rows, place = [], 0
    for i, p in enumerate(order):
        if i == 0 or (points[p], sb[p]) != (points[order[i - 1]], sb[order[i - 1]]):
            place = i + 1
        rows.append((place, p, points[p], sb[p], cells[p]))
    return rows


def parse_table(text, n):
    """The crosstable lines of a standings mail."""
    rows = []
    for line in text.splitlines():
        m = re.fullmatch(r"\s*(\d+)\s+(\d+)\s+(\d+\.\d)\s+(\d+\.\d\d)((?:\s+\S+){%d})\s*" % n, line)
        if m:
            rows.append((int(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(4)),
                         m.group(5).split()))
    return rows


def table_agrees(text, games, n, label):
    rows = parse_table(text, n)
    want = expected_standings(games, n)
    got = [(pl, no, pts, sb, cells) for pl, no, pts, sb, cells in rows]
    exp = [(pl, no, pts, round(sb, 2),
            [("**" if q == no else (cells[q] + "." * (2 - len(cells[q])))) for q in range(1, n + 1)])
           for pl, no, pts, sb, cells in want]
    check("%s: places, points, Sonneborn-Berger and crosstable as computed here" % label,
          got == exp, "got %s\nwanted %s\n%s" % (got, exp, text))


def main():
    root = tempfile.mkdtemp(prefix="tabula-tournament-")
    club = Club(TABULA, root)
    rng = random.Random(1919)
    try:
        request = "tournament chess spring double with %s, %s and %s" % tuple(PLAYERS[1:])
        asked = club.deliver(PLAYERS[0], request)
        check("alice's first tournament: only a confirmation request, to her; "
              "no game made",
              [t for t, _ in asked] == [PLAYERS[0]] and
              "[tabula confirm " in str(asked[0][1]["Subject"]) and
              "invited" not in club.tabula("games").stdout,
              [(t, str(m["Subject"])) for t, m in asked])
        new = club.deliver(PLAYERS[0], "confirm", reply=asked[0][1])
        to = sorted(t for t, _ in new)
        check("one mail to each of the four players", to == sorted(PLAYERS), to)
        games_out = club.tabula("games").stdout
        ids = [int(x) for x in re.findall(r"^(\d+)\s+chess\s+invited", games_out, re.M)]
        check("the 12 games exist at once, invited", len(ids) == 12, games_out)
        invite = club.last[PLAYERS[1]]
        text = body(invite)
        mine = re.findall(r"^Game (\d+): you play (White|Black) against (\S+)$", text, re.M)
        check("an invitation lists the invitee's 6 games, 3 as White",
              len(mine) == 6 and sum(c == "White" for _, c, _ in mine) == 3, text)
        check("the invitation carries a key of one of them",
              game_of(invite["Subject"]) in [int(g) for g, _, _ in mine], invite["Subject"])

        # every invitee accepts once; nothing starts before the last
        club.answer(PLAYERS[1], "accept")
        check("after one accept: told to wait, nothing starts",
              "you are in" in str(club.last[PLAYERS[1]]["Subject"]) and
              "active" not in club.tabula("games").stdout, club.last[PLAYERS[1]]["Subject"])
        check("the accept twice is refused",
              any("Not accepted" in str(m["Subject"]) for _, m in club.answer(PLAYERS[1], "accept")))
        club.deliver(PLAYERS[2], "accept", reply=club.game_mail[(PLAYERS[2], min(
            g for (a, g) in club.game_mail if a == PLAYERS[2]))])
        started = club.answer(PLAYERS[3], "accept")
        starts = {p: [m for t, m in started if t == p] for p in PLAYERS}
        check("the last accept starts all 12 games: one mail to each player, no more",
              len(started) == 4 and all(len(v) == 1 and "your 6 games start" in
                                        str(v[0]["Subject"]) for v in starts.values()),
              [(t, str(m["Subject"])) for t, m in started])
        colours = {}
        for t, m in started:
            for g, side in re.findall(r"(?m)^Game (\d+): you play (White|Black) against",
                                      body(m)):
                colours.setdefault(int(g), [None, None])[side == "Black"] = t
        check("each start mail lists the player's 6 games, each with its address",
              all(len([g for (a, g) in club.game_address if a == p]) == 6 for p in PLAYERS) and
              sorted(colours) == sorted(ids) and
              all(None not in v for v in colours.values()), colours)
        games_out = club.tabula("games").stdout
        check("12 games active", len(re.findall(r"^\d+\s+chess\s+active", games_out, re.M)) == 12,
              games_out)

        # play them all
        number = {p: i + 1 for i, p in enumerate(PLAYERS)}
        played = []
        order = sorted(ids)
        for k, g in enumerate(order):
            white, black = colours[g]
            result = rng.choice(["white", "black", "draw"])
            club.play(white, g, "e4")
            if result == "white":
                club.play(black, g, "resign")
            elif result == "black":
                club.play(black, g, "e5")
                club.play(white, g, "resign")
            else:
                club.play(black, g, "e5\ndraw offer")
                club.play(white, g, "draw accept")
            played.append((number[white], number[black],
                           {"white": 1.0, "black": 0.0, "draw": 0.5}[result]))
            if k == 5:
                club.play(PLAYERS[2], g if (PLAYERS[2], g) in club.game_mail else order[0],
                          "standings")
                text = body(club.last[PLAYERS[2]])
                check("standings half way: 6 of 12 decided",
                      re.search(r"6 of 12 games\s+decided, 6 still to play", text), text)
                table_agrees(text, played, 4, "standings half way")
            if k < 11:
                over = [m for _, m in club.mails if "final table" in str(m["Subject"])]
                if over:
                    check("no final table before the last game", False, k)
        finals = [(t, m) for t, m in club.mails if "final table" in str(m["Subject"])]
        check("the final table went to every player, once",
              sorted(t for t, _ in finals) == sorted(PLAYERS), [t for t, _ in finals])
        text = body(finals[0][1]) if finals else ""
        table_agrees(text, played, 4, "the final table")
        before = len(club.mails)
        club.deliver_raw(club.last_raw)
        check("the last mail again: nothing sent twice", len(club.mails) == before)
        club.deliver(PLAYERS[3], "standings spring")
        table_agrees(body(club.last[PLAYERS[3]]), played, 4, "standings spring after the end")

        # who may ask
        club.create("erin@example.org", "new chess with %s" % PLAYERS[0])
        club.deliver("erin@example.org", "standings spring")
        check("a player of no tournament is told so",
              "no tournament" in body(club.last["erin@example.org"]), body(club.last["erin@example.org"]))
        before = len(club.mails)
        club.deliver("zed@example.net", "standings spring")
        check("a stranger gets nothing", len(club.mails) == before)

        # the operator's tournament, then a declined one
        out = club.run("tournament", "new", "chess", "club4", *PLAYERS, "--double")
        new = club.mails[before + 0:]
        invited = sorted(t for t, m in new if "invites you to the Chess tournament club4"
                         in str(m["Subject"]))
        check("tabula tournament new: every player invited once", invited == sorted(PLAYERS),
              out + str(invited))
        show = club.run("tournament", "show", "club4")
        check("tabula tournament show: 0 of 12 decided, invited",
              "invited; 0 of 12 games decided" in show, show)
        before = len(club.mails)
        club.run("tournament", "new", "checkers", "autumn", *PLAYERS[:3])
        club.answer(PLAYERS[2], "decline")
        told = sorted(t for t, m in club.mails[before:] if "is cancelled" in str(m["Subject"]))
        check("a decline cancels the tournament, each player told once",
              told == sorted(PLAYERS[:3]), told)
        show = club.run("tournament", "show", "autumn")
        check("its 3 games are cancelled", "cancelled; 0 of 3 games decided" in show, show)

        p = club.tabula("check")
        check("tabula check passes", p.returncode == 0, p.stdout)
        r = club.run("ratings", "chess")
        check("the 12 games count for the ratings",
              sum(int(x) for x in re.findall(r"^\s*\d+\s+\S+\s+\S+\s+\S+\s+(\d+)", r, re.M)) == 24, r)
    except Exception as e:  # a crash is a failure with its story
        import traceback
        check("the tournament ran", False, traceback.format_exc())
    return finish(root)


if __name__ == "__main__":
    sys.exit(main())
