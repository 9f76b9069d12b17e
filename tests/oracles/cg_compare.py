#!/usr/bin/env python3
"""Compares tabula's answers (tests/oracles/cg_moves.c) with the independent
generator's (tests/oracles/cg_armies.py) for Chessgammon with armies.

usage: cg_compare.py ORACLE_LINES TABULA_LINES [--min N]
For every position: the position string round-trips through tabula's decode
and encode unchanged, tabula's legal moves are exactly the generator's (as
sets, no move twice), and the move played gives the generator's next
position. Prints a count per game and pairing, the first differences, and
"N positions, M differences"; exits 1 on a difference or on fewer than N
positions compared.
"""
import collections
import sys


def main():
    oracle_file, tabula_file = sys.argv[1], sys.argv[2]
    need = int(sys.argv[sys.argv.index("--min") + 1]) if "--min" in sys.argv else 1
    with open(oracle_file) as f:
        want = [l.rstrip("\n").split("\t") for l in f if l.strip()]
    with open(tabula_file) as f:
        got = [l.rstrip("\n").split("\t") for l in f]
    if len(want) != len(got):
        print("FAIL: %d positions asked, %d answers" % (len(want), len(got)))
        return 1
    bad = 0
    per = collections.Counter()
    kinds = collections.Counter()
    for (game, pos, move, moves, after), row in zip(want, got):
        enc, legal, nxt = (row + ["", "", ""])[:3]
        theirs = moves.split(" ")
        ours = legal.split(" ") if legal else []
        armies = pos.split(" armies:")[1] if " armies:" in pos else "fide/fide"
        per[(game, armies)] += 1
        for m in theirs:
            for h in m.split(","):
                kinds["bring-in" if "@" in h else "bear-off" if h.endswith("9") else
                      "pass" if h == "0000" else "board"] += 1
        problems = []
        if enc != pos:
            problems.append("round trip: %s" % enc)
        if len(set(ours)) != len(ours):
            problems.append("a move listed twice")
        if set(ours) != set(theirs):
            problems.append("only tabula: %s; only the generator: %s"
                            % (" ".join(sorted(set(ours) - set(theirs))) or "-",
                               " ".join(sorted(set(theirs) - set(ours))) or "-"))
        if nxt != after:
            problems.append("after %s: tabula %s, generator %s" % (move, nxt, after))
        if problems:
            bad += 1
            if bad <= 10:
                print("DIFFERENCE %s %s\n  %s" % (game, pos, "\n  ".join(problems)))
    for (game, armies), n in sorted(per.items()):
        print("  %-12s %-22s %6d positions" % (game, armies, n))
    print("  moves compared: %s" % ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
    print("%d positions, %d differences" % (len(want), bad))
    return 1 if bad or len(want) < need else 0


if __name__ == "__main__":
    sys.exit(main())
