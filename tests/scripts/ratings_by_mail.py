#!/usr/bin/env python3
"""Glicko-2 ratings from 20 games by mail between 4 players.

usage: ratings_by_mail.py TABULA SOURCE_DIR

Four players play 20 rated chess games by mail through `tabula deliver`, on
a test clock (each player's first `new` confirmed by reply): wins by resignation, agreed draws, a loss on time (the clock
runs out, `tabula tick`), operator adjudications (a win and a draw), and two
games that end in the same second in the opposite order of their numbers.
Beside them, games that must not count: one created `unrated`, one declined,
one resigned before anyone moved. Then:
  - `ratings chess` by mail: every player's rating, deviation and games
    equal an independent Glicko-2 computed here, in Python, from the paper
    ("Example of the Glicko-2 system", Glickman), one rating period per
    game, in the order the games ended (then by game number), tau 0.5;
    the sender's line is marked "*"; a stranger's `ratings` gets nothing
    (the table names players by address) and costs no budget;
  - `rating` by mail gives the sender's line of that table;
  - `tabula ratings chess` agrees to the hundredth;
  - `tabula check` passes; a rating changed behind tabula's back makes it
    fail and name the player; `tabula ratings --rebuild` mends it.
Prints "N passed, M failed".
"""
import math
import os
import random
import re
import sqlite3
import sys
import tempfile

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests", "harness"))
from club import Club, body  # noqa: E402  (tests/harness/club.py)

from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)


# ---- Glicko-2, from the paper, independently of tabula ----

SCALE = 173.7178


def glicko2(r, rd, sigma, opponents, tau=0.5, eps=0.000001):
    """One rating period. opponents: [(r_j, RD_j, s_j)]. Steps 2 to 8."""
    mu, phi = (r - 1500) / SCALE, rd / SCALE
    g = lambda p: 1 / math.sqrt(1 + 3 * p * p / math.pi ** 2)
    E = lambda mu_j, phi_j: 1 / (1 + math.exp(-g(phi_j) * (mu - mu_j)))
    opp = [((rj - 1500) / SCALE, rdj / SCALE, s) for rj, rdj, s in opponents]
    v = 1 / sum(g(pj) ** 2 * E(mj, pj) * (1 - E(mj, pj)) for mj, pj, _ in opp)
    delta = v * sum(g(pj) * (s - E(mj, pj)) for mj, pj, s in opp)
    a = math.log(sigma ** 2)

    def f(x):
        ex = math.exp(x)
        return (ex * (delta ** 2 - phi ** 2 - v - ex) / (2 * (phi ** 2 + v + ex) ** 2)
                - (x - a) / tau ** 2)
    A = a
    if delta ** 2 > phi ** 2 + v:
        B = math.log(delta ** 2 - phi ** 2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        B = a - k * tau
    fA, fB = f(A), f(B)
    while abs(B - A) > eps:
        C = A + (A - B) * fA / (fB - fA)
        fC = f(C)
        if fC * fB <= 0:
            A, fA = B, fB
        else:
            fA /= 2
        B, fB = C, fC
    sigma2 = math.exp(A / 2)
    phi_star = math.sqrt(phi ** 2 + sigma2 ** 2)
    phi2 = 1 / math.sqrt(1 / phi_star ** 2 + 1 / v)
    mu2 = mu + phi2 ** 2 * sum(g(pj) * (s - E(mj, pj)) for mj, pj, s in opp)
    return mu2 * SCALE + 1500, phi2 * SCALE, sigma2


def expected_table(games):
    """games: [(ended, game, white, black, white's score)] -> {address: [r, rd, sigma, n]}"""
    table = {}
    for ended, game, white, black, s in sorted(games):
        a = table.setdefault(white, [1500.0, 350.0, 0.06, 0])
        b = table.setdefault(black, [1500.0, 350.0, 0.06, 0])
        na = glicko2(a[0], a[1], a[2], [(b[0], b[1], s)])
        nb = glicko2(b[0], b[1], b[2], [(a[0], a[1], 1 - s)])
        table[white] = [*na, a[3] + 1]
        table[black] = [*nb, b[3] + 1]
    return table


def new_game(club, white, black, words=""):
    """white invites black; returns the game number (black accepts)."""
    club.create(white, "new chess %swith %s" % (words, black))
    subject = str(club.last[black]["Subject"])
    game = int(re.search(r"\[tabula (\d+) ", subject).group(1))
    club.play(black, game, "accept")
    return game


def end_game(club, game, white, black, result):
    """Moves, then the result: 'white', 'black', 'draw' by mail, 'time' by the
    clock, 'adjudicate-white' / 'adjudicate-draw' by the operator."""
    if result == "white":
        club.play(black, game, "resign")
    elif result == "black":
        club.play(white, game, "resign")
    elif result == "draw":
        club.play(black, game, "e5\ndraw offer")
        club.play(white, game, "draw accept")
    elif result == "time":
        # Black's 7 days run out (timeout = auto): the tick ends the game
        club.set_clock(club.now + 8 * 86400)
        club.run("tick")
    elif result.startswith("adjudicate-"):
        club.run("adjudicate", str(game), result.split("-")[1])
    else:
        raise ValueError(result)


def table_rows(body):
    """{address: (marked, rating, rd, games)} from a `ratings` mail."""
    rows = {}
    for m in re.finditer(r"^([* ])\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\S+@\S+)$", body, re.M):
        rows[m.group(6)] = (m.group(1) == "*", int(m.group(3)), int(m.group(4)), int(m.group(5)))
    return rows


def main():
    root = tempfile.mkdtemp(prefix="tabula-ratings-")
    club = Club(TABULA, root)
    players = ["alice@example.org", "bob@example.org", "carol@example.org", "dave@example.org"]
    rng = random.Random(19)
    kinds = (["white"] * 6 + ["black"] * 4 + ["draw"] * 4 + ["time"] * 2 +
             ["adjudicate-white", "adjudicate-draw"])
    rng.shuffle(kinds)
    score = {"white": 1.0, "black": 0.0, "draw": 0.5, "time": 1.0, "adjudicate-white": 1.0,
             "adjudicate-draw": 0.5}
    rated = []  # (ended, game, white, black, white's score)
    try:
        # 18 games one after another, each ending a minute after the last
        for i, kind in enumerate(kinds):
            white, black = rng.sample(players, 2)
            game = new_game(club, white, black)
            club.play(white, game, "e4")
            club.set_clock(club.now + 60)
            end_game(club, game, white, black, kind)
            rated.append((club.now, game, white, black, score[kind]))
        # the 19th and 20th end in one second, the later game first; both
        # are bob's, so their order matters (the rule: by game number)
        g1 = new_game(club, players[0], players[1])
        club.play(players[0], g1, "d4")
        g2 = new_game(club, players[1], players[2])
        club.play(players[1], g2, "c4")
        club.set_clock(club.now + 60)
        end_game(club, g2, players[1], players[2], "black")
        end_game(club, g1, players[0], players[1], "draw")
        rated.append((club.now, g2, players[1], players[2], 0.0))
        rated.append((club.now, g1, players[0], players[1], 0.5))
        # games that must not count
        club.create(players[2], "new chess unrated with %s" % players[3])
        invitation = club.last[players[3]]
        g = int(re.search(r"\[tabula (\d+) ", str(invitation["Subject"])).group(1))
        check("an unrated game says so in its invitation",
              "The game is unrated" in body(invitation), body(invitation))
        club.play(players[3], g, "accept")
        club.play(players[2], g, "e4")
        club.play(players[3], g, "resign")
        club.create(players[0], "new chess with %s" % players[1])
        subject = str(club.last[players[1]]["Subject"])
        declined = int(re.search(r"\[tabula (\d+) ", subject).group(1))
        club.play(players[1], declined, "decline")
        g = new_game(club, players[3], players[0])
        club.play(players[0], g, "resign")  # before anyone moved
        check("22 finished games, 20 of them rated", len(rated) == 20, len(rated))

        expected = expected_table(rated)
        club.deliver(players[0], "ratings chess", reply=club.last[players[0]])
        text = body(club.last[players[0]])
        rows = table_rows(text)
        check("ratings by mail lists the four players", sorted(rows) == sorted(players), text)
        for p in players:
            r, rd, _, n = expected.get(p, [0, 0, 0, 0])
            got = rows.get(p)
            check("%s: rating %d, RD %d, %d games, as computed from the paper"
                  % (p, round(r), round(rd), n),
                  got and got[1:] == (round(r), round(rd), n), "%s in:\n%s" % (got, text))
        check("the sender's line is marked, and only it",
              [p for p in rows if rows[p][0]] == [players[0]], text)
        order = [p for p in sorted(rows, key=lambda p: -expected[p][0])]
        check("ranked by rating", [m for m in re.findall(r"\S+@\S+", text)][:4] == order, text)

        club.deliver(players[2], "rating", reply=club.last[players[2]])
        mine = body(club.last[players[2]])
        r, rd, _, n = expected[players[2]]
        check("rating by mail: the sender's rating and deviation",
              "rating %d, deviation %d; rated games: %d" % (round(r), round(rd), n) in mine, mine)
        budget = club.stranger_budget()
        out = club.deliver("zed@example.net", "ratings chess")
        check("a stranger's `ratings` gets nothing (the table names players by address), "
              "and costs no budget",
              out == [] and club.stranger_budget() == budget,
              "%r %r" % ([(to, str(m["Subject"])) for to, m in out], club.stranger_budget()))

        p = club.tabula("ratings", "chess")
        ok = True
        for p_ in players:
            r, rd, sigma, n = expected[p_]
            line = "%7.2f  %7.2f  %10.6f  %5d" % (r, rd, sigma, n)
            ok = ok and any(line in l and p_ in l for l in p.stdout.splitlines())
        check("tabula ratings chess agrees to the hundredth", ok and p.returncode == 0, p.stdout)
        p = club.tabula("check")
        check("tabula check: the stored ratings are the rebuild", p.returncode == 0, p.stdout)

        con = sqlite3.connect(os.path.join(root, "db"))
        con.execute("UPDATE ratings SET rating = rating + 1 WHERE address = ?", (players[1],))
        con.commit()
        con.close()
        p = club.tabula("check")
        check("a rating changed behind tabula's back fails the check and is named",
              p.returncode != 0 and players[1] in p.stdout, p.stdout)
        p = club.tabula("ratings", "--rebuild")
        q = club.tabula("check")
        check("tabula ratings --rebuild mends it", p.returncode == 0 and q.returncode == 0,
              p.stdout + p.stderr + q.stdout)
    except Exception as e:  # a crash is a failure with its story
        check("the games ran", False, repr(e))
    return finish(root)


if __name__ == "__main__":
    sys.exit(main())
