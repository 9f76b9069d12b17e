#!/usr/bin/env bash
# Latency of one move through real servers:
# from the moment Dovecot took the player's mail (LMTP 250) to the moment
# Postfix accepted tabula's reply (the 250 to DATA, which tabula logs as
# "sent (smtp)"), beside the floor: a bare IMAP IDLE client that does
# nothing but wake (bench/idle_floor.c), for mails delivered the same way.
# Goal: tabula's p50 within 50 ms of the floor's, its p99 within 200 ms;
# on the big store within 20 and 50 ms.
#
# usage: bench/mail_latency.sh [TABULA=./build/referee/tabula] [MOVES=200] [BIG=0] [RUNNING=100000]
#   (BIG and RUNNING may also come from the environment)
# BIG > 0: before the floor is measured and `serve` starts, tabula's store is
# grown to BIG games, RUNNING of them with a running clock (a
# million, 100,000): 1,000 games made through the mail by `tabula poll` from
# a Maildir (addresses w<n>/b<n>@example.org, not the bench's players), then
# copied in SQL by bench/bigstore.py, as bench/scale.sh does. A million takes
# a few minutes and about 1.5 GB of disk.
# Needs root and the servers (tests/harness/mailharness.sh install); starts
# them in a temporary directory and stops them at the end. Point it at a
# Release/RelWithDebInfo build.
#
# tabula runs as `tabula serve`: IMAPS with IDLE in, SMTP submission with
# STARTTLS and AUTH out, the connections kept open. One chess game
# (fide_draws=off) of MOVES knight moves, one move at a time: each mail is
# delivered over LMTP when the previous move's replies were accepted.
# "first" is the reply to the first of the two players, "both" the later.
set -u
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
tabula=$(realpath "${1:-./build/referee/tabula}")
moves=${2:-200}
big=${3:-${BIG:-0}}
running=${4:-${RUNNING:-100000}}
[ -x "$tabula" ] || { echo "no tabula binary at $tabula (build it first)" >&2; exit 2; }
[ "$(id -u)" = 0 ] || { echo "needs root (the mail servers)" >&2; exit 2; }
H=$src/tests/harness/mailharness.sh
command -v dovecot >/dev/null || bash "$H" install >/dev/null 2>&1
D=$(mktemp -d /tmp/tabula-lat.XXXXXX)
trap 'bash "$H" stop "$D" >/dev/null 2>&1; rm -rf "$D"' EXIT
MH_POSTFIX_QUICK=1 bash "$H" start "$D" 2>/dev/null || { echo "cannot start the servers" >&2; exit 1; }
cc -O2 -o "$D/idle_floor" "$here/idle_floor.c" $(pkg-config --cflags --libs libetpan) 2>&1 |
  grep -v "no-pie-link.specs" || true
[ -x "$D/idle_floor" ] || { echo "cannot build idle_floor" >&2; exit 1; }
PYTHONPATH=$here python3 - "$tabula" "$D" "$moves" "$big" "$running" <<'PY'
import email.utils, os, queue, smtplib, sqlite3, statistics, subprocess, sys, threading, time
from bigstore import fill
tabula, D, MOVES, BIG, RUNNING = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
env = dict(l.strip().split("=", 1) for l in open(D + "/env") if "=" in l)
load0 = os.getloadavg()

def lmtp(frm, to, subject, body, extra=""):
    msg = ("From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: %s\r\n%s\r\n%s\r\n"
           % (frm, to, subject, email.utils.formatdate(), email.utils.make_msgid(domain="example.test"),
              extra, body))
    with smtplib.LMTP("127.0.0.1", int(env["MH_LMTP_PORT"])) as s:
        rcpt = to.split("+")[0] + "@" + to.split("@")[1] if "+" in to else to
        s.sendmail(frm, [rcpt], msg)   # returns after Dovecot's 250
    return time.time()

def lines(stream, q):
    for line in iter(stream.readline, ""):
        q.put((time.time(), line))

def pct(v, p):
    v = sorted(v)
    k = (len(v) - 1) * p / 100.0
    f = int(k)
    return v[f] + (v[min(f + 1, len(v) - 1)] - v[f]) * (k - f)

# ---- the big store (not timed), made before the floor so both are measured beside it ----
TEMPLATES = 1000
def setup_poll():
    p = subprocess.run([tabula, "poll", "-c", D + "/setup.ini"], capture_output=True, text=True)
    if p.returncode:
        sys.exit("setup poll failed: " + p.stderr[-800:])
def setup_drop(frm, to, body, seq=[0]):
    seq[0] += 1
    name = "1700000000.M%dP1_0.bench" % seq[0]
    with open(D + "/setup-in/tmp/" + name, "w") as f:
        f.write("From: %s\nTo: %s\nSubject: game\nMessage-ID: <s%d@bench.example.org>\n"
                "Date: Sun, 22 Nov 2026 10:00:00 +0000\n\n%s\n" % (frm, to, seq[0], body))
    os.rename(D + "/setup-in/tmp/" + name, D + "/setup-in/new/" + name)
if BIG > 0:
    t0 = time.time()
    with open(D + "/setup.ini", "w") as f:   # the same store, a Maildir in and out
        f.write("[tabula]\nstore_path = %s/t.db\ninbox = %s/setup-in\noutbox = %s/setup-out\n"
                "address = referee@example.test\ndomain = example.test\nlog_level = 1\n"
                "batch_max = 256\nrate_limit = 0\nstranger_mails_per_hour = 100000\n" % (D, D, D))
    for sub in ("tmp", "new", "cur"):
        os.makedirs(D + "/setup-in/" + sub)
    for g in range(TEMPLATES):
        setup_drop("w%d@example.org" % g, "referee@example.test", "new chess with b%d@example.org" % g)
    setup_poll()
    con = sqlite3.connect(D + "/t.db")
    keys = dict(con.execute("select address, key from confirmations"))
    con.close()
    for g in range(TEMPLATES):
        setup_drop("w%d@example.org" % g, "referee+confirm.%s@example.test" % keys["w%d@example.org" % g],
                   "confirm")
    setup_poll()
    con = sqlite3.connect(D + "/t.db")
    seats = {(r[0], r[1]): r[2] for r in con.execute("select game, seat, token from seats")}
    con.close()
    for g in range(1, TEMPLATES + 1):
        setup_drop("b%d@example.org" % (g - 1), "referee+%d.%s@example.test" % (g, seats[(g, 1)]), "accept")
    setup_poll()
    n, clocks, secs = fill(D + "/t.db", BIG, RUNNING, TEMPLATES)
    print("big store: %d games, %d running clocks, %.0f MB, made in %.0f s" %
          (n, clocks, os.path.getsize(D + "/t.db") / 1e6, time.time() - t0), flush=True)
    subprocess.run(["sync"])
    time.sleep(5)   # let the writeback settle before anything is timed

# ---- the floor: a bare IDLE client as carol ----
fl = subprocess.Popen([D + "/idle_floor", "127.0.0.1", env["MH_IMAPS_PORT"], "carol@example.test",
                       "secret", str(MOVES)], stdout=subprocess.PIPE, text=True)
q = queue.Queue()
threading.Thread(target=lines, args=(fl.stdout, q), daemon=True).start()
assert "READY" in q.get(timeout=20)[1]
time.sleep(0.3)
floor = []
for i in range(MOVES):
    t0 = lmtp("alice@example.test", "carol@example.test", "ping %d" % i, "ping")
    t, line = q.get(timeout=10)
    floor.append(t - t0)   # stamped when read; the client's own WAKE stamp agrees within ~0.1 ms
    time.sleep(0.05)
fl.wait(timeout=10)

# ---- tabula ----
cfg = D + "/t.ini"
with open(cfg, "w") as f:
    f.write("""[tabula]
store_path = %(D)s/t.db
inbox = %(D)s/t-in
outbox = %(D)s/t-out
address = referee@example.test
domain = example.test
log_level = 2
rate_limit = 0
stranger_mails_per_hour = 100000
source = imap
in_host = localhost
in_port = %(imaps)s
in_user = referee@example.test
in_password = secret
sink = smtp
smtp_host = localhost
smtp_port = %(sub)s
smtp_user = referee@example.test
smtp_password = secret
tls_cafile = %(ca)s
""" % {"D": D, "imaps": env["MH_IMAPS_PORT"], "sub": env["MH_SUBMISSION_PORT"], "ca": env["MH_CACERT"]})
sv = subprocess.Popen([tabula, "serve", "-c", cfg], stderr=subprocess.PIPE, text=True)
q = queue.Queue()
threading.Thread(target=lines, args=(sv.stderr, q), daemon=True).start()

seen_log = []
def wait_sent(n, timeout=30):
    got = []
    end = time.time() + timeout
    while len(got) < n:
        try:
            t, line = q.get(timeout=max(0.1, end - time.time()))
        except queue.Empty:
            sys.exit("no reply within %d s; tabula said:\n" % timeout + "".join(seen_log[-20:]))
        seen_log.append(line)
        if "sent (smtp)" in line:
            got.append(t)
    return got

time.sleep(1.0)
lmtp("alice@example.test", "referee@example.test", "bench", "new chess fide_draws=off with bob@example.test")
wait_sent(1)  # A first `new` is confirmed from its address first
con = sqlite3.connect(D + "/t.db")
key = con.execute("select key from confirmations where address = 'alice@example.test'").fetchone()[0]
con.close()
lmtp("alice@example.test", "referee+confirm.%s@example.test" % key, "Re: bench", "confirm")
wait_sent(2)
con = sqlite3.connect(D + "/t.db")
game = con.execute("select game from seats where address = 'alice@example.test'").fetchone()[0]
tok = {r[0]: r[1] for r in con.execute("select seat, token from seats where game = ?", (game,))}
con.close()
lmtp("bob@example.test", "referee+%d.%s@example.test" % (game, tok[1]), "Re: bench", "accept")
wait_sent(2)
cycle = ["Nf3", "Nf6", "Ng1", "Ng8"]
first, both = [], []
for i in range(MOVES):
    seat = i % 2
    who = "alice@example.test" if seat == 0 else "bob@example.test"
    t0 = lmtp(who, "referee+%d.%s@example.test" % (game, tok[seat]), "Re: bench", cycle[i % 4])
    t1, t2 = wait_sent(2)
    first.append(t1 - t0)
    both.append(t2 - t0)
    time.sleep(0.05)
sv.terminate()
sv.wait(timeout=20)
con = sqlite3.connect(D + "/t.db")
applied = con.execute("select count(*) from journal where kind = 'move' and game = ?", (game,)).fetchone()[0]
con.close()

ms = lambda x: "%8.1f" % (x * 1000)
print("mail latency, delivery to Dovecot (LMTP 250) -> reply accepted by Postfix (250), "
      "%d moves, %s store, %d cores" % (MOVES, "small (1 game)" if BIG <= 0 else
      "big (%d games, %d running clocks)" % (BIG, RUNNING), os.cpu_count()))
print("%-44s %8s %8s %8s" % ("", "p50 ms", "p99 ms", "max ms"))
print("%-44s %s %s %s" % ("floor: bare IDLE client wakes", ms(pct(floor, 50)), ms(pct(floor, 99)), ms(max(floor))))
print("%-44s %s %s %s" % ("tabula: first reply accepted", ms(pct(first, 50)), ms(pct(first, 99)), ms(max(first))))
print("%-44s %s %s %s" % ("tabula: both replies accepted", ms(pct(both, 50)), ms(pct(both, 99)), ms(max(both))))
d50 = pct(both, 50) - pct(floor, 50)
d99 = pct(both, 99) - pct(floor, 99)
print("tabula (both) - floor: p50 %+.1f ms (goal <= 50; on the big store <= 20), "
      "p99 %+.1f ms (goal <= 200; on the big store <= 50); %d moves journaled" % (d50 * 1000, d99 * 1000, applied))
print("load average (1, 5, 15 min) before: %.2f %.2f %.2f, after: %.2f %.2f %.2f" % (load0 + os.getloadavg()))
PY
