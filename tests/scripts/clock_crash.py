#!/usr/bin/env python3
"""kill -9 over ticks, with the time controls (rules-spec TM-1 to TM-4).

usage: clock_crash.py TABULA [SOURCE_DIR] [--trials N] [--seed S]

The crash trials of tests/crash/crash_trials.py (its store snapshot, its
daemon segments killed with SIGKILL, its comparison), driven along a
timeline instead of at one moment: for each control (Fischer 3d+1d,
periods 2/5d) the test clock steps through half times, last days and
deadlines while moves arrive, some of them late-read but arrived in time.
At each step the daemon (`serve`) and `tabula tick` are killed at random
moments, then `tabula tick` runs to the end. Each trial must equal the
unkilled reference: the same journal (no loss on time ruled twice or
otherwise), the same replies once each (no reminder twice). The
reference itself must not rule a loss that arrival does not justify: a
move that reached the mailbox before its deadline is played, even when
read after it.
"""
import argparse
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "crash"))
sys.path.insert(0, os.path.join(HERE, "..", "harness"))
import crash_trials as ct  # noqa: E402  (the crash trials' store, daemon and comparison)
from testkit import check, finish  # noqa: E402

T0 = ct.CLOCK  # the snapshot's games started then, White to move
H, D = 3600, 86400
NGAMES = 6  # chess games 1..6 (7, 8: the snapshot's backgammon games)


def controlled_config(control):
    """crash_trials.write_config with the control as the configuration's."""
    plain = ct.write_config

    def write(root, **kv):
        kv.setdefault("time_control", control)
        return plain(root, **kv)
    return write


def mail(n, tok, game, seat, body):
    frm = ("w%d" if seat == 0 else "b%d") % (game - 1) + "@example.org"
    return ct.mail_bytes(n, frm, "referee+%d.%s@example.org" % (game, tok[(game, seat)]), body)


def timeline(tok, n):
    """(clock, [(arrival, mail)]) steps, the same for every control."""
    steps = []
    n += 1
    # games 1-3: White moves, arrived at 20 h
    first = [(T0 + 20 * H, mail(n + g, tok, g, 0, "e4")) for g in (1, 2, 3)]
    steps.append((T0 + D, first))
    steps.append((T0 + D + 12 * H + 60, []))  # half time of a 3-day bank
    # games 1-2: Black answers, arrived at 2 days
    steps.append((T0 + 2 * D + 23 * H, [(T0 + 2 * D, mail(n + 10 + g, tok, g, 1, "e5"))
                                         for g in (1, 2)]))
    # game 6: White's move arrived a minute before 3 days (the Fischer
    # deadline), read only after it: on time (TM-1)
    steps.append((T0 + 3 * D + 30 * 60, [(T0 + 3 * D - 60, mail(n + 20, tok, 6, 0, "d4"))]))
    steps.append((T0 + 6 * D + H, []))
    steps.append((T0 + 9 * D, []))
    return steps


def drop(root, i, arrival, data):
    name = "%d.M%06dP1_0.clock" % (arrival, i)
    with open(os.path.join(root, "in", "tmp", name), "wb") as f:
        f.write(data)
    os.rename(os.path.join(root, "in", "tmp", name), os.path.join(root, "in", "new", name))


def set_clock(root, t):
    with open(root + "/clock.tmp", "w") as f:
        f.write("%d\n" % t)
    os.replace(root + "/clock.tmp", root + "/clock")


def killed_tick(cfg, delay):
    p = subprocess.Popen([ct.TABULA, "tick", "-c", cfg], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    t0 = time.time()
    while time.time() - t0 < delay and p.poll() is None:
        time.sleep(0.002)
    p.kill()
    p.wait()


def play(root, cfg, steps, rng, kills):
    """Every step: the clock set, its mails dropped, `kills` random kills of
    serve or tick, then a whole tick. Returns the time a tick took."""
    i = 0
    took = 0.0
    for clock, mails in steps:
        set_clock(root, clock)
        for arrival, data in mails:
            drop(root, i, arrival, data)
            i += 1
        for _ in range(kills):
            if rng.random() < 0.5:
                ct.killed_segment(cfg, root, rng.uniform(0, 0.4))
            else:
                killed_tick(cfg, rng.uniform(0, 0.3))
        t0 = time.time()
        p = ct.run("tick", cfg)
        took = max(took, time.time() - t0)
        if p.returncode:
            raise RuntimeError("tick: " + p.stderr[-2000:])
    return took


def subjects(rows):
    out = []
    for r in rows:
        m = re.search(r"^Subject: (.*)$", r[4], re.M)
        to = re.search(r"^To: (.*)$", r[4], re.M)
        out.append(((to.group(1) if to else ""), re.sub(r"\[tabula [^]]*\] ", "", m.group(1))
                    if m else ""))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tabula")
    ap.add_argument("source", nargs="?")
    ap.add_argument("--trials", type=int, default=3)
    ap.add_argument("--kills", type=int, default=2)
    ap.add_argument("--seed", type=int, default=29)
    a = ap.parse_args()
    ct.TABULA = os.path.abspath(a.tabula)
    rng = random.Random(a.seed)
    work = tempfile.mkdtemp(prefix="tabula-clockcrash.")
    keys = ["moves_lost", "moves_twice", "journal_differs", "outcomes_differ", "rows_differ",
            "rows_unsent", "replies_lost", "reply_files_duplicate", "reply_files_wrong"]
    for control in ("3d+1d", "2/5d"):
        ct.write_config = controlled_config(control)
        snap, tok, n0, last_row, _ = ct.snapshot(os.path.join(work, control.replace("/", "-")),
                                                 NGAMES)
        steps = timeline(tok, n0)
        ref_root = ct.fresh(work, "reference", snap)
        cfg = ct.write_config(ref_root)
        play(ref_root, cfg, steps, rng, 0)
        ref = ct.collect(ref_root, last_row)
        # what arrival justifies (TM-1): game 6's move, arrived before
        # the deadline, is played; games 4 and 5 (no move) are lost by White
        # on time; games 1 and 2 (both moved in time) are not lost
        lost = {g: t for g, _, _, _, k, t, _, _ in ref["journal"] if k == "timeout"}
        moved6 = [t for g, _, _, s, k, t, _, _ in ref["journal"] if g == 6 and k == "move"]
        check("%s reference: game 6's move arrived in time and is played" % control,
              moved6[:1] == ["d4"] and "White did not move" not in lost.get(6, ""), (moved6, lost))
        check("%s reference: games 4, 5 lost by White on time; in 1 and 2 Black moved in time"
              % control, all("White did not move" in lost.get(g, "") for g in (4, 5)) and
              all("Black did not move" not in lost.get(g, "") for g in (1, 2)), lost)
        # no reminder twice: each (player, subject) once, the subjects
        # name the game
        subs = subjects(ref["rows"])
        reminders = [s for s in subs if "half your time" in s[1] or "24 hours left" in s[1]]
        check("%s reference: %d reminders, none twice" % (control, len(reminders)),
              len(reminders) >= 4 and len(reminders) == len(set(reminders)), reminders)
        p = ct.run("check", cfg)
        check("%s reference: tabula check" % control, p.returncode == 0, p.stdout[-500:])
        # the snapshot's own replies, sent in the run, are files of no row
        # counted (crash_trials counts rows after the snapshot): the same in
        # every run, so a trial is measured against the reference's figures
        base = ct.compare(ref, ref, "maildir")
        for trial in range(a.trials):
            root = ct.fresh(work, "trial", snap)
            cfg = ct.write_config(root)
            play(root, cfg, steps, rng, rng.randint(1, a.kills))
            # what serve left queued goes out
            ct.serve_until_done(cfg, root, timeout=120)
            got = ct.collect(root, last_row)
            diff = ct.compare(ref, got, "maildir")
            bad = [k for k in keys if diff.get(k) != base.get(k)]
            p = ct.run("check", cfg)
            check("%s trial %d: as the reference%s" % (control, trial + 1,
                                                       "" if not bad else ": " + ", ".join(bad)),
                  not bad and p.returncode == 0, diff)
    return finish(work)


if __name__ == "__main__":
    sys.exit(main())
