"""A big store for the benches.

fill(db, total, running, templates) grows a tabula store whose games 1 ..
templates were made through the mail (invited, confirmed, accepted; made by
the caller) to `total` games, in SQL and untimed by the caller: copies of
those games, `running` of them active with a clock due in a month, the rest
finished, each with its seats (the template's addresses, the token made
unique) and its journal's entries. Nothing the benches then play touches
them, which is the point: a mail must cost the same whatever else the store
holds.

Shared by bench/scale.sh and bench/mail_latency.sh, which import it with
this directory on PYTHONPATH. Returns (games, running clocks, seconds).
"""
import sqlite3
import time


def fill(db, total, running, templates=1000):
    """total - templates more games, copies of games 1 .. templates, made in SQL"""
    t0 = time.time()
    con = sqlite3.connect(db)
    now = int(time.time())
    extra = total - templates
    con.executescript("""
      CREATE TEMP TABLE k(i INTEGER PRIMARY KEY);
      WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %(extra)d)
        INSERT INTO k SELECT i FROM c;
      INSERT INTO games(id, kind, rules_version, options, phase, state, turn, result, created,
          updated, deadline, draw_offer_seat, snapshot)
        SELECT %(t)d + k.i, g.kind, g.rules_version, g.options,
          CASE WHEN k.i <= %(running)d THEN 'active' ELSE 'finished' END, g.state,
          CASE WHEN k.i <= %(running)d THEN g.turn ELSE -1 END,
          CASE WHEN k.i <= %(running)d THEN g.result ELSE 'White resigned' END,
          g.created, g.updated, g.deadline, g.draw_offer_seat, g.snapshot
        FROM k JOIN games g ON g.id = 1 + (k.i %% %(t)d);
      INSERT INTO seats(game, seat, address, token, accepted, entropy)
        SELECT %(t)d + k.i, s.seat, s.address, s.token || printf('%%x', k.i), s.accepted, s.entropy
        FROM k JOIN seats s ON s.game = 1 + (k.i %% %(t)d);
      INSERT INTO journal(game, seq, time, seat, kind, text, dice, prev_hash, hash)
        SELECT %(t)d + k.i, j.seq, j.time, j.seat, j.kind, j.text, j.dice, j.prev_hash, j.hash
        FROM k JOIN journal j ON j.game = 1 + (k.i %% %(t)d);
      INSERT INTO clocks(game, days, weekends, seat, moves, started, deadline, reminded, next_event)
        SELECT %(t)d + k.i, c.days, c.weekends, c.seat, c.moves, %(now)d, %(deadline)d, 0, %(next)d
        FROM k JOIN clocks c ON c.game = 1 + (k.i %% %(t)d) WHERE k.i <= %(running)d;
      DROP TABLE k;
    """ % {"extra": extra, "t": templates, "running": running, "now": now,
           "deadline": now + 30 * 86400, "next": now + 25 * 86400})
    con.commit()
    n = con.execute("select count(*) from games").fetchone()[0]
    c = con.execute("select count(*) from clocks where seat >= 0").fetchone()[0]
    con.execute("pragma wal_checkpoint(truncate)")
    con.close()
    return n, c, time.time() - t0
