#!/usr/bin/env python3
"""`tabula check` on a store of many games, and behind its back;
`tabula export` of every game.

usage: admin_check.py TABULA SOURCE_DIR

Builds 60 games of chess, checkers and backgammon by mail, through the
inbox Maildir and `tabula poll` (every game's next mail in one batch per
round): finished by mate, resignation, agreement, a game-ending capture;
running; waiting for an answer to the invitation; declined. Then:
  - `tabula check` passes and counts every game;
  - a journal entry altered in the SQLite file: check fails and names the
    game and the entry (the hash chain);
  - the same entry altered with the hash chain recomputed (an editor who
    knows journal.c): check names the game and the entry that no longer
    replays through the rules;
  - a stored position altered: check names the game and both positions;
  - a game's snapshot damaged (bytes of its blob changed): check fails
    naming the game;
  - game state beside the games pointing nowhere (an observer of no game,
    a standing roll of no seat, a takeback request of no move): check
    fails naming each row;
  - `tabula export` of a game of each kind succeeds; a chess export is PGN, a
    backgammon export's dice verify with tools/tabula-verify-dice.py.
Prints one line per check and "N passed, M failed".
"""
import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests"))
import mailcases  # noqa: E402  (the mail client of tests/mailcases.py)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)


# Each game: (new command, [(who, text), ...]); "a" is the inviter, "b" the
# invitee; the invitee's accept comes first unless the steps say otherwise.
MATE = [("a", "f3"), ("b", "e5"), ("a", "g4"), ("b", "Qh4#")]
KINDS = [
    ("new chess with {b}", MATE),                                     # CH-1 mate
    ("new chess with {b}", [("a", "e4"), ("b", "c5")]),               # running
    ("new chess with {b}", [("a", "d4"), ("b", "draw offer"), ("a", "draw accept")]),
    ("new chess fide_draws=off with {b}", [("a", "resign")]),
    ("new checkers fen=B:W18:B14,5 with {b}", [("a", "14x23")]),      # CK-1: no move left
    ("new checkers with {b}", [("a", "11-15"), ("b", "22-18")]),      # running
    ("new backgammon with {b}", []),                                   # running, rolled
    ("new backgammon with {b}", [("a", "resign gammon"), ("b", "accept")]),  # BG-5
    ("new chess with {b}", None),                                     # invited only
    ("new checkers with {b}", "decline"),                              # declined
]
GAMES = 60


def main():
    work = tempfile.mkdtemp(prefix="tabula-admin-check-")
    conv = mailcases.Conversation(TABULA, work)
    with open(conv.config, "a") as f:  # 60 new players at once (the budget for mail to strangers)
        f.write("stranger_mails_per_hour = 1000\n")
    inbox_new = os.path.join(work, "inbox", "new")
    os.makedirs(inbox_new, exist_ok=True)
    os.makedirs(os.path.join(work, "inbox", "tmp"), exist_ok=True)
    count = [0]

    def batch(mails):
        """Every mail of a round into inbox/new, then one `tabula poll`."""
        for raw in mails:
            count[0] += 1
            name = "%d.A%06d.test" % (time.time(), count[0])
            tmp = os.path.join(work, "inbox", "tmp", name)
            with open(tmp, "wb") as f:
                f.write(raw)
            os.rename(tmp, os.path.join(inbox_new, name))
        p = conv.run("poll")
        if p.returncode != 0:
            raise SystemExit("tabula poll failed: %s" % p.stderr.decode())
        conv.collect()

    games = []
    for i in range(GAMES):
        new, steps = KINDS[i % len(KINDS)]
        a, b = "p%da@example.org" % i, "p%db@example.org" % i
        games.append({"a": a, "b": b, "new": new.format(b=b), "steps": steps})
    batch([conv.compose(g["a"], g["new"]) for g in games])
    # Each inviter's first `new` is confirmed from its address
    batch([conv.reply(g["a"], "confirm") for g in games])
    answers = []
    for g in games:
        if g["steps"] is None:
            continue
        answers.append(conv.reply(g["b"], "decline" if g["steps"] == "decline"
                                  else "accept\nentropy: player %s" % g["b"]))
    batch(answers)
    for r in range(max(len(s) for _, s in KINDS if isinstance(s, list))):
        mails = [conv.reply(g[s[r][0]], s[r][1]) for g in games
                 for s in [g["steps"]] if isinstance(s, list) and r < len(s)]
        batch(mails)

    for g in games:  # the game's number, from the subject tag of its mails
        g["id"] = int(conv.last_to[g["a"]]["subject"].split()[1])
    chess_mate, chess_running, checkers_running, bg_resigned = (
        games[0]["id"], games[1]["id"], games[5]["id"], games[7]["id"])

    out = conv.run("games").stdout.decode()
    phases = {p: out.count(" %s " % p) for p in ("active", "finished", "invited", "cancelled")}
    check("60 games by mail: %(finished)d finished, %(active)d running, %(invited)d "
          "invited, %(cancelled)d declined" % phases,
          phases["finished"] == 30 and phases["active"] == 18 and phases["invited"] == 6 and
          phases["cancelled"] == 6, out)

    p = conv.run("check")
    text = p.stdout.decode()
    check("tabula check passes on all 60 games",
          p.returncode == 0 and "60 game(s) checked, 0 bad" in text, text)

    # Every game exports; chess as PGN, backgammon with verifiable dice.
    exported = 0
    for g in games[:len(KINDS)]:  # one game of each kind and phase
        p = conv.run("export", str(g["id"]))
        exported += p.returncode == 0 and len(p.stdout) > 0
    check("tabula export works for a game of every kind and phase", exported == len(KINDS),
          "%d of %d exported" % (exported, len(KINDS)))
    pgn = conv.run("export", str(chess_mate)).stdout.decode()
    check("a chess export is PGN: tags, movetext, result",
          '[Result "0-1"]' in pgn and "1. f3 e5 2. g4 Qh4# 0-1" in pgn and
          '[White "p0a@example.org"]' in pgn, pgn)
    bg = conv.run("export", str(bg_resigned)).stdout
    path = os.path.join(work, "export8.txt")
    with open(path, "wb") as f:
        f.write(bg)
    v = subprocess.run([sys.executable, os.path.join(SRC, "tools", "tabula-verify-dice.py"),
                        path], capture_output=True)
    check("a backgammon export carries its dice: tabula-verify-dice.py verifies it",
          v.returncode == 0 and b"rolls verify" in v.stdout and
          b"Black won 2 points by resignation" in bg, (v.stdout + v.stderr + bg).decode())

    # Behind its back: each tamper on its own copy of the store.
    db = os.path.join(work, "tabula.db")
    pristine = os.path.join(work, "pristine.db")
    shutil.copy(db, pristine)

    def tampered(sql_fn):
        shutil.copy(pristine, db)
        for ext in ("-wal", "-shm"):
            if os.path.exists(db + ext):
                os.remove(db + ext)
        con = sqlite3.connect(db)
        sql_fn(con)
        con.commit()
        con.close()
        p = conv.run("check")
        return p.returncode, p.stdout.decode() + p.stderr.decode()

    # a running chess game: its move "c5" becomes "c6"
    G = chess_running

    def edit_text(con):
        con.execute("update journal set text = 'c6' where game = ? and text = 'c5'", (G,))
    rc, text = tampered(edit_text)
    shown = [text]
    seq = sqlite3.connect(pristine).execute(
        "select seq from journal where game = ? and text = 'c5'", (G,)).fetchone()[0]
    check("an altered journal entry: check fails naming the game and the entry",
          rc != 0 and ("game %d: journal hash chain broken at entry %d" % (G, seq)) in text and
          "59 game(s)" not in text and "1 bad" in text, text)

    # the same, but the chain recomputed as journal.c documents it; the
    # entry now reads "Ke2", which the rules refuse in that position
    def rechain(con):
        con.execute("update journal set text = 'Ke2' where game = ? and text = 'c5'", (G,))
        rows = con.execute("select seq, time, seat, kind, text, dice from journal "
                           "where game = ? order by seq", (G,)).fetchall()
        prev = "0" * 64
        for seq_, t, seat, kind, txt, dice in rows:
            data = "tabula-journal-1\n%s\n%d\n%d\n%d\n%d\n%s\n%s\n%s\n" % (
                prev, G, seq_, t, seat, kind, txt, dice)
            h = hashlib.sha256(data.encode()).hexdigest()
            con.execute("update journal set prev_hash = ?, hash = ? where game = ? and seq = ?",
                        (prev, h, G, seq_))
            prev = h
    rc, text = tampered(rechain)
    shown.append(text)
    check("an altered entry with a recomputed chain: check names the entry that does "
          "not replay", rc != 0 and
          ("game %d: journal entry %d (move 'Ke2') does not replay" % (G, seq)) in text, text)

    # a stored position altered (a running checkers game)
    def edit_state(con):
        con.execute("update games set state = 'W:W21-32:B1-12' where id = ?",
                    (checkers_running,))
    rc, text = tampered(edit_state)
    shown.append(text)
    check("an altered stored position: check names the game and both positions",
          rc != 0 and ("game %d: stored position 'W:W21-32:B1-12' but the journal "
                       "replays to" % checkers_running) in text and "1 bad" in text, text)

    # a damaged snapshot (a games page's bytes changed inside the blob,
    # which SQLite's own check cannot tell from data): loads replay the
    # journal and poll warns, so check must say so too, and fail
    def edit_snapshot(con):
        blob = bytearray(con.execute("select snapshot from games where id = ?",
                                     (chess_running,)).fetchone()[0])
        blob[len(blob) // 2] ^= 0x5A
        con.execute("update games set snapshot = ? where id = ?", (bytes(blob), chess_running))
    rc, text = tampered(edit_snapshot)
    shown.append(text)
    check("a damaged snapshot: check fails naming the game",
          rc != 0 and ("game %d: its snapshot is damaged" % chess_running) in text and
          "1 bad" in text, text)

    # the game state beside the games (schema v10) written behind the
    # store's back, its foreign keys off: an observer of a game that does
    # not exist, a standing roll of a seat the game does not have, a
    # takeback request naming no move
    def edit_state_rows(con):
        con.execute("insert into observers(game, address) values(9999, 'ghost@example.org')")
        con.execute("insert into standing_rolls(game, seat) values(?, 7)", (chess_running,))
        con.execute("insert into takeback_requests(game, seat, seq) values(?, 0, 999)",
                    (chess_running,))
    rc, text = tampered(edit_state_rows)
    shown.append(text)
    check("game state pointing nowhere: check fails naming each row",
          rc != 0 and "state: observers: game 9999, ghost@example.org: no such game" in text and
          ("state: standing_rolls: game %d seat 7: no such seat" % chess_running) in text and
          ("state: takeback_requests: game %d seat 0: names no move of the game's journal"
           % chess_running) in text, text)

    shutil.copy(pristine, db)
    for ext in ("-wal", "-shm"):
        if os.path.exists(db + ext):
            os.remove(db + ext)
    p = conv.run("check")
    check("the untouched store checks again", p.returncode == 0, p.stdout.decode())
    if os.environ.get("TABULA_SHOW"):
        print(pgn, bg.decode(), *shown, sep="\n")

    return finish(work)


if __name__ == "__main__":
    sys.exit(main())
