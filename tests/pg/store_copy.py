#!/usr/bin/env python3
"""Moving a club: `tabula store copy FROM TO`, SQLite -> PostgreSQL ->
SQLite (README, "Moving a club"; tabula(1), store), run under
tests/harness/pg_cluster.sh (TABULA_TEST_PG).

usage: store_copy.py TABULA SOURCE_DIR

An SQLite store holds a game of each of the twelve game systems played by
mail (tests/harness/bymail.py, as json_output.py makes it), one resigned
(rated), one adjudicated with a UTF-8 reason, an invitation nobody
accepted, a backgammon match of 3 points under way and a round robin all
its players accepted. Then:

  * copied into PostgreSQL: exit 0, `tabula check` clean on the copy, every
    game's `tabula export` and `tabula show` byte for byte the SQLite
    store's, `games`, `ratings` and `tournament show` the same, the store id
    and the outbox kept;
  * a backup of it (pg_dump -Fc, pg_restore into an empty database) checks
    clean and exports the same;
  * copied back from PostgreSQL into a new SQLite file: the same again;
  * ids go on after the copy: a new game on either copy is the next number
    (PostgreSQL's identity sequences were moved past the copied ids);
  * refused, nothing written: a target that is not empty (73), a source
    that does not exist (66, no file made), a source a daemon serves (75,
    the target left empty), and the source is never changed.

Prints "N passed, M failed".
"""
import os
import random
import re
import subprocess
import sys
import tempfile
import time

TABULA, SRC = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "tests", "harness"))
import bymail  # noqa: E402
from testkit import check, finish  # noqa: E402

PG = os.environ.get("TABULA_TEST_PG")
if not PG:
    sys.exit("run under tests/harness/pg_cluster.sh")
PSQL = os.path.join(os.environ.get("TABULA_TEST_PG_BIN", ""), "psql")

GAMES = ["chess", "checkers", "backgammon", "bgchess", "lagbgchess", "backtoback",
         "tableschess", "chessgammon", "chessgammon4x8", "doublemove", "racingkings",
         "bodlaender"]


def psql(sql, schema=None):
    conn = PG + (" options=-csearch_path=%s" % schema if schema else "")
    p = subprocess.run([PSQL, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", conn,
                        "-c", sql], capture_output=True, timeout=60)
    if p.returncode:
        raise RuntimeError("psql: %s" % p.stderr.decode())
    return p.stdout.decode().strip()


def pg_store(schema):
    psql("CREATE SCHEMA %s" % schema)
    return PG + " options=-csearch_path=%s" % schema


class Club(bymail.Table):
    """bymail's table, with players whose entropy words name nobody"""

    def deliver(self, sender, body, reply=None):
        if body.startswith("accept\nentropy:"):
            body = "accept\nentropy: lucky words %d" % self.n
        return super().deliver(sender, body, reply)


def conf_for(t, store_line, root):
    """a configuration like t's, its store replaced"""
    text = open(t.conf).read()
    text = re.sub(r"(?m)^(store_path|inbox|outbox)=.*\n", "", text)
    text += "inbox=%s/in\noutbox=%s/out\n" % (root, root)
    path = os.path.join(root, "copy.ini")
    os.makedirs(root, exist_ok=True)
    with open(path, "w") as f:
        f.write(text + store_line + "\n")
    return path


def tabula(conf, *args):
    return subprocess.run([TABULA, args[0], "-c", conf] + list(args[1:]), capture_output=True,
                          timeout=300)


def views(conf, ids):
    """everything the operator's commands show of the club"""
    out = {}
    for args in [("games",), ("ratings",), ("tournament", "show", "spring")] + \
            [("export", str(n)) for n in ids] + [("show", str(n)) for n in ids]:
        p = tabula(conf, *args)
        out[" ".join(args)] = (p.returncode, p.stdout)
    return out


def same_views(name, a, b):
    diff = [k for k in a if a[k] != b.get(k)]
    check(name, not diff and a.keys() == b.keys(),
          "differ: %s\n%s\n----\n%s" % (diff[:5], a[diff[0]][1][:600] if diff else "",
                                       b.get(diff[0], (0, b""))[1][:600] if diff else ""))


def main():
    work = tempfile.mkdtemp(prefix="tabula-copy-")
    t = Club(TABULA, os.path.join(work, "sqlite"))
    rng = random.Random(3030)
    played = {}
    for i, game in enumerate(GAMES):
        a = "alice%d@hermes%d.example" % (i, i)
        b = "bob%d@pc%d.example" % (i, i)
        played[game] = (bymail.play(t, game, a, b, rng, 3), a, b)
    num, a, b = played["chess"]
    bymail.resign(t, num, a, b)
    t.run("adjudicate", str(played["checkers"][0]), "1-0", "--reason",
          "Zeitüberschreitung — « vu » 対局")
    t.invite("carol@athena.example", "new chess with dave@zeus.example")
    # a backgammon match under way
    bymail.play(t, "backgammon", "mia@m.example", "max@m.example", rng, 4,
                new_opts="match=3")
    # a round robin its three players accepted (its games started)
    players = ["p1@x.example", "p2@x.example", "p3@x.example"]
    t.run("tournament", "new", "chess", "spring", *players)
    t.collect()
    for p in players:
        t.deliver(p, "accept", reply=t.last[p])

    src = os.path.join(t.root, "db")
    games = re.findall(r"(?m)^(\d+)\s", tabula(t.conf, "games").stdout.decode())
    ids = [int(g) for g in games]
    kinds = tabula(t.conf, "games").stdout.decode()
    check("the SQLite store holds the twelve systems, a match, a tournament's games",
          all(re.search(r"\b%s\b" % k, kinds) for k in GAMES) and len(ids) >= 12 + 1 + 1 + 3,
          kinds)
    p = tabula(t.conf, "check")
    check("tabula check is clean on the SQLite store", p.returncode == 0, p.stdout + p.stderr)
    before = views(t.conf, ids)
    check("... and its matches: one checked",
          b"1 match(es) checked, 0 bad" in p.stdout, p.stdout)
    src_bytes = open(src, "rb").read()

    # ---- SQLite -> PostgreSQL ----
    pg = pg_store("club")
    p = tabula(t.conf, "store", "copy", src, pg)
    out = p.stdout.decode()
    check("store copy SQLite -> PostgreSQL: exit 0, checked clean", p.returncode == 0 and
          "the copy checks clean" in out and "0 bad" in out, out + p.stderr.decode())
    check("... every table's rows counted on both sides", "the same count on both sides" in out
          and re.search(r"\bjournal \d+", out) and re.search(r"\bmatch_games \d+", out) and
          re.search(r"\btournament_games 3\b", out), out)
    pconf = conf_for(t, "store=" + pg, os.path.join(work, "pg"))
    p = tabula(pconf, "check")
    check("tabula check is clean on the PostgreSQL copy", p.returncode == 0 and
          b"%d game(s) checked, 0 bad" % len(ids) in p.stdout, p.stdout + p.stderr)
    same_views("every game's export and show, games, ratings, standings: the same on PostgreSQL",
               before, views(pconf, ids))
    sqlite_kv = subprocess.run(["sqlite3", src, "select value from kv where key = 'store id'"],
                               capture_output=True).stdout.decode().strip()
    check("the store id came along (the outbox's reply files are named by it)",
          sqlite_kv and psql("SELECT value FROM kv WHERE key = 'store id'", "club") == sqlite_kv,
          sqlite_kv)
    check("the outbox came along, row for row",
          psql("SELECT count(*) || ' ' || max(id) FROM outbox", "club") ==
          subprocess.run(["sqlite3", src, "select count(*) || ' ' || max(id) from outbox"],
                         capture_output=True).stdout.decode().strip())
    check("the source was only read", open(src, "rb").read() == src_bytes)
    # the referee's key goes with the club: the copy signs the games' records
    # as the source did (docs/history-protocol.md, "The referee's key")
    key = tabula(t.conf, "key").stdout.decode().strip()
    check("the referee's key came along: tabula key on the PostgreSQL copy prints the source's",
          key and "the referee's key copied" in out and
          tabula(pconf, "key").stdout.decode().strip() == key, (key, out))

    # ---- a backup of the PostgreSQL store: pg_dump, pg_restore ----
    dump = os.path.join(work, "club.dump")
    bin_ = os.path.dirname(PSQL)
    p = subprocess.run([os.path.join(bin_, "pg_dump"), "-Fc", "-n", "club", "-f", dump, "-d", PG],
                       capture_output=True, timeout=300)
    check("pg_dump -Fc of the club's schema", p.returncode == 0, p.stderr)
    psql("CREATE DATABASE restored")
    restored = PG.replace("dbname=tabula", "dbname=restored")
    p = subprocess.run([os.path.join(bin_, "pg_restore"), "-d", restored, dump],
                       capture_output=True, timeout=300)
    rconf = conf_for(t, "store=%s options=-csearch_path=club" % restored,
                     os.path.join(work, "restored"))
    c = tabula(rconf, "check")
    check("pg_restore into an empty database: tabula check clean, every export the same",
          p.returncode == 0 and c.returncode == 0 and views(rconf, ids) == before,
          p.stderr + c.stdout + c.stderr)

    # ---- PostgreSQL -> SQLite ----
    back = os.path.join(work, "back", "db")
    os.makedirs(os.path.dirname(back))
    p = tabula(t.conf, "store", "copy", pg, back)
    out = p.stdout.decode()
    check("store copy PostgreSQL -> SQLite: exit 0, checked clean", p.returncode == 0 and
          "the copy checks clean" in out, out + p.stderr.decode())
    bconf = conf_for(t, "store_path=" + back, os.path.join(work, "back"))
    p = tabula(bconf, "check")
    check("tabula check is clean on the SQLite copy of the copy", p.returncode == 0,
          p.stdout + p.stderr)
    same_views("every game's export and show, games, ratings, standings: the same back on SQLite",
               before, views(bconf, ids))
    check("... and back: the SQLite copy's key file holds it (tabula key prints the source's)",
          "the referee's key copied" in out and os.path.exists(back + ".key") and
          tabula(bconf, "key").stdout.decode().strip() == key, out)

    # ---- refusals ----
    p = tabula(t.conf, "store", "copy", src, pg)
    check("a target that is not empty: refused (73), said", p.returncode == 73 and
          b"not empty" in p.stderr, p.stdout + p.stderr)
    check("... and it is unchanged", tabula(pconf, "check").returncode == 0 and
          psql("SELECT count(*) FROM games", "club") == str(len(ids)))
    p = tabula(t.conf, "store", "copy", pg, back)
    check("... the same into a non-empty SQLite file (73)", p.returncode == 73, p.stderr)
    # a key file of another referee already where the copy's key goes: the
    # copy would sign as someone else; refused, the file left as it was
    other = os.path.join(work, "other", "db")
    os.makedirs(os.path.dirname(other))
    with open(other + ".key", "w") as f:
        f.write("ab" * 32 + "\n")
    p = tabula(t.conf, "store", "copy", pg, other)
    check("a target whose key file holds another key: refused (73), said, the key kept",
          p.returncode == 73 and b"holds another referee key" in p.stderr and
          open(other + ".key").read() == "ab" * 32 + "\n", p.stdout + p.stderr)
    nowhere = os.path.join(work, "nowhere.db")
    p = tabula(t.conf, "store", "copy", nowhere, pg_store("empty1"))
    check("no store at FROM: refused (66), no file made there", p.returncode == 66 and
          b"no store at" in p.stderr and not os.path.exists(nowhere), p.stderr)
    p = tabula(t.conf, "store", "copy", pg_store("empty2"), os.path.join(work, "x.db"))
    check("a database without a store as FROM: refused (66)", p.returncode == 66, p.stderr)

    # a daemon serving the source
    serve = subprocess.Popen([TABULA, "serve", "-c", t.conf], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if os.path.exists(src + ".lock"):
                break
            time.sleep(0.1)
        time.sleep(1.5)
        target = pg_store("served")
        p = tabula(t.conf, "store", "copy", src, target)
        check("a source a daemon serves: refused (75), said", p.returncode == 75 and
              b"stop it first" in p.stderr, p.stdout + p.stderr)
        check("... nothing written to the target (not even the schema)",
              psql("SELECT count(*) FROM pg_tables WHERE schemaname = 'served'") == "0")
    finally:
        serve.terminate()
        serve.wait(timeout=60)

    # a daemon serving the PostgreSQL copy
    serve = subprocess.Popen([TABULA, "serve", "-c", pconf], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if psql("SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE "
                    "'tabula serve%'") != "0":
                break
            time.sleep(0.1)
        other = os.path.join(work, "other.db")
        p = tabula(t.conf, "store", "copy", pg, other)
        check("a PostgreSQL source a daemon serves: refused (75), said, no file made",
              p.returncode == 75 and b"stop it first" in p.stderr and not os.path.exists(other),
              p.stdout + p.stderr)
    finally:
        serve.terminate()
        serve.wait(timeout=60)

    # ---- ids go on after the copy ----
    top = max(ids)
    for conf, name in ((pconf, "PostgreSQL"), (bconf, "SQLite")):
        c = Club(TABULA, os.path.dirname(conf))
        c.conf = conf  # its own Maildirs: the copies share the store id
        c.invite("erin@new.example", "new chess with frank@new.example")
        m = re.search(r"\[tabula (\d+)", str(c.last["frank@new.example"]["Subject"]))
        check("a new game on the %s copy is number %d, after the copied ones" % (name, top + 1),
              m and int(m.group(1)) == top + 1, m and m.group(0))
    finish()


if __name__ == "__main__":
    main()
