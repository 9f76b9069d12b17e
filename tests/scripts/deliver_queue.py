#!/usr/bin/env python3
"""tabula-deliver, the MTA's pipe beside a running daemon.

usage: deliver_queue.py TABULA SOURCE_DIR   (tabula-deliver lies beside TABULA)

One chess game made through the mail, then:
  1. no daemon: tabula-deliver hands the mail to `tabula deliver`, which
     plays it at once;
  2. `tabula serve` running (poll_ms of a minute, so only its inbox watch
     can wake it in time): tabula-deliver exits 0 having left the mail in
     the inbox; the daemon plays it within seconds and answers both players;
  3. the same mail again: taken (exit 0), nothing played or sent twice;
  4. a forged sender (the game's tag, a stranger's From): nothing to the
     stranger, a word to the key's holder, the game unchanged;
  5. a mail over the size limit: exit 65 and the reason, nothing queued;
  6. the daemon stopped: the next move is played by `tabula deliver` again;
  7. a configuration that does not read: `tabula deliver`'s words and
     status (75: the MTA keeps the mail until the file is mended).
Prints "N passed, M failed".
"""
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

tabula = os.path.realpath(sys.argv[1])
thin = os.path.join(os.path.dirname(tabula), "tabula-deliver")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from testkit import check, finish, wait_for  # noqa: E402  (tests/harness/testkit.py)


work = tempfile.mkdtemp(prefix="tabula-deliver-queue.")
cfg = os.path.join(work, "t.ini")
with open(cfg, "w") as f:
    f.write("[tabula]\nstore_path = %s/db\ninbox = %s/in\noutbox = %s/out\n"
            "address = referee@example.org\ndomain = example.org\n"
            "poll_ms = 60000\n" % (work, work, work))
for sub in ("tmp", "new", "cur"):
    os.makedirs(os.path.join(work, "in", sub))
seq = [0]


def mail(frm, to, body, size=0):
    seq[0] += 1
    return ("From: %s\nTo: %s\nSubject: game\nMessage-ID: <q%d@test.example.org>\n"
            "Date: Fri, 27 Nov 2026 10:00:00 +0000\n\n%s\n%s" % (frm, to, seq[0], body, "x" * size)).encode()


def drop(data):
    name = "1700000000.M%dP1_0.test" % seq[0]
    with open(os.path.join(work, "in", "tmp", name), "wb") as f:
        f.write(data)
    os.rename(os.path.join(work, "in", "tmp", name), os.path.join(work, "in", "new", name))


def poll():
    subprocess.run([tabula, "poll", "-c", cfg], check=True, capture_output=True)


def q(sql):
    con = sqlite3.connect(os.path.join(work, "db"))
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def moves():
    return q("select count(*) from journal where kind = 'move'")[0][0]


def replies():
    return sorted(os.listdir(os.path.join(work, "out", "new")))


def to_whom(names):
    out = []
    for n in names:
        with open(os.path.join(work, "out", "new", n), errors="replace") as f:
            for line in f:
                if line.lower().startswith("to:"):
                    out.append(line.split(":", 1)[1].strip().strip("<>"))
                    break
    return sorted(out)


def run_thin(data, conf=cfg):
    return subprocess.run([thin, "-c", conf], input=data, capture_output=True, timeout=60)


# a game: white invites black, confirms its address, black accepts
drop(mail("white@example.org", "referee@example.org", "new chess with black@example.org"))
poll()
key = q("select key from confirmations where address = 'white@example.org'")[0][0]
drop(mail("white@example.org", "referee+confirm.%s@example.org" % key, "confirm"))
poll()
game = q("select id from games")[0][0]
tok = dict(q("select seat, token from seats where game = %d" % game))
drop(mail("black@example.org", "referee+%d.%s@example.org" % (game, tok[1]), "accept"))
poll()
white_to = "referee+%d.%s@example.org" % (game, tok[0])
black_to = "referee+%d.%s@example.org" % (game, tok[1])

# 1. no daemon: played by `tabula deliver`, in the pipe's own process
before = replies()
r = run_thin(mail("white@example.org", white_to, "e4"))
check("no daemon: tabula-deliver exits 0", r.returncode == 0, r.stderr)
check("no daemon: the move is played before the pipe returns", moves() == 1, moves())
check("no daemon: both players are answered at once", len(replies()) == len(before) + 2)

# 2. a daemon: the mail is queued, and the daemon's inbox watch wakes it
serve = subprocess.Popen([tabula, "serve", "-c", cfg], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
lock = os.path.join(work, "db.lock")
check("serve holds the store's daemon lock",
      wait_for(lambda: os.path.exists(lock) and open(lock).read().strip() == str(serve.pid), 20))
time.sleep(0.5)  # its first pass; a mail before its watch opens is found by the next pass
before = replies()
black_move = mail("black@example.org", black_to, "e5")
r = run_thin(black_move)
check("with serve: tabula-deliver exits 0, silent", r.returncode == 0 and not r.stderr, r.stderr)
# poll_ms is a minute: only the watch can have woken the daemon this soon
check("with serve: the daemon plays the queued move and answers within seconds",
      wait_for(lambda: moves() == 2 and len(replies()) == len(before) + 2, 20),
      (moves(), len(replies()) - len(before)))
new = [n for n in replies() if n not in before]
check("the two replies go to the players",
      to_whom(new) == ["black@example.org", "white@example.org"], to_whom(new))
check("the queued mail is acknowledged (new/ to cur/) once played",
      wait_for(lambda: not os.listdir(os.path.join(work, "in", "new")), 20))

# 3. the same mail again (an MTA retrying): taken, nothing twice
before = replies()
r = run_thin(black_move)
check("a repeated mail: exit 0", r.returncode == 0, r.stderr)
check("the repeat is read", wait_for(lambda: not os.listdir(os.path.join(work, "in", "new")), 20))
time.sleep(0.3)
check("a repeated mail: nothing played, nothing sent", moves() == 2 and replies() == before,
      (moves(), len(replies()) - len(before)))

# 4. a forged sender: the game's tag from a stranger
snap = q("select * from journal order by 1")
r = run_thin(mail("mallory@example.net", white_to, "Nf3"))
check("a forged mail is taken from the MTA", r.returncode == 0, r.stderr)
check("the forged mail is read",
      wait_for(lambda: not os.listdir(os.path.join(work, "in", "new")), 20))
time.sleep(0.3)
check("a forged mail changes nothing", q("select * from journal order by 1") == snap)
# the key's holder is told someone used it; the stranger hears nothing
check("a forged mail: nothing to the stranger, a word to the key's holder",
      to_whom([n for n in replies() if n not in before]) == ["white@example.org"],
      to_whom([n for n in replies() if n not in before]))

# 5. over the size limit (10 MiB): refused for good, nothing queued
r = run_thin(mail("white@example.org", white_to, "Nf3", size=10 * 1024 * 1024 + 10))
check("too big: exit 65 with the reason", r.returncode == 65 and b"size limit" in r.stderr,
      (r.returncode, r.stderr))
check("too big: nothing left in the inbox",
      not os.listdir(os.path.join(work, "in", "new"))
      and not os.listdir(os.path.join(work, "in", "tmp")))

# 6. the daemon stopped: tabula deliver plays again
serve.send_signal(signal.SIGTERM)
serve.wait(timeout=30)
before = replies()
r = run_thin(mail("white@example.org", white_to, "Nf3"))
check("daemon stopped: the move is played in the pipe's process",
      r.returncode == 0 and moves() == 3 and len(replies()) == len(before) + 2,
      (r.returncode, r.stderr, moves()))

# 7. a configuration that does not read: tabula deliver's words and status
bad = os.path.join(work, "bad.ini")
with open(bad, "w") as f:
    f.write("[tabula]\nno_such_option = 1\n")
r = run_thin(mail("white@example.org", white_to, "Nc6"), conf=bad)
check("a bad configuration: exit 75, the reason said",
      r.returncode == 75 and b"no_such_option" in r.stderr, (r.returncode, r.stderr))

sys.exit(finish(work))
