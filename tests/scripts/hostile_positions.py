#!/usr/bin/env python3
"""Hostile position strings through the command line.

usage: hostile_positions.py TABULA SOURCE_DIR

Every line of tests/data/positions/hostile.txt names a game, a position
string and a text: `tabula moves -g GAME POS` and `tabula board -g GAME POS`
must each refuse it, exiting non-zero with the text on standard error, and
print no sanitizer report (the suite runs the ASan+UBSan build, which
aborts on an out-of-bounds write or a signed overflow).
A line may add a fourth field, the rule the position breaks (POS-1): the
text a player is shown for the refusal (templates/reasons.txt, the key the
command names, its {detail} filled in) must name that rule.
Prints one line per check and "N passed, M failed".
"""
import os
import subprocess
import sys

TABULA, SRC = sys.argv[1], sys.argv[2]
passed = failed = 0
REASONS = {}
with open(os.path.join(SRC, "templates", "reasons.txt"), encoding="utf-8") as f:
    for line in f:
        if " = " in line and not line.startswith("#"):
            key, text = line.rstrip("\n").split(" = ", 1)
            REASONS[key] = text


def player_text(err):
    """The refusal as a player reads it: "tabula: not a GAME position:
    KEY[: DETAIL]" worded by templates/reasons.txt."""
    tail = err.strip().split(" position: ", 1)[-1]
    key, _, detail = tail.partition(": ")
    return REASONS.get(key, "").replace("{detail}", detail)


with open(os.path.join(SRC, "tests", "data", "positions", "hostile.txt"),
          encoding="utf-8") as f:
    for line in f:
        line = line.rstrip("\n")
        if not line or line.startswith("#"):
            continue
        game, pos, want, *rule = line.split("\t")
        for cmd in ("moves", "board"):
            p = subprocess.run([TABULA, cmd, "-g", game, pos], capture_output=True,
                               stdin=subprocess.DEVNULL, timeout=60)
            err = p.stderr.decode(errors="replace")
            problems = []
            if p.returncode == 0:
                problems.append("accepted")
            if want not in err:
                problems.append("no %r in %r" % (want, err))
            if rule and rule[0] not in player_text(err):
                problems.append("the player's text %r names no %s" % (player_text(err), rule[0]))
            if "runtime error" in err or "AddressSanitizer" in err or p.returncode < 0:
                problems.append("sanitizer or signal: %r" % err)
            name = "%s %s -g %s %r" % ("refused", cmd, game, pos)
            if problems:
                failed += 1
                print("FAIL %s\n    %s" % (name, "; ".join(problems)))
            else:
                passed += 1
                print("ok   %s" % name)
# The file's cases, each refused by two commands: fewer means the data file
# was emptied or cut, and a test that checks nothing must not pass.
MIN_CASES = 4
if passed + failed < 2 * MIN_CASES:
    failed += 1
    print("FAIL only %d checks: hostile.txt holds fewer than %d cases" % (passed + failed - 1,
                                                                         MIN_CASES))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
