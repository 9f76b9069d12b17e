#!/usr/bin/env python3
"""Back-to-Back Chess perft against an independent generator.

usage: backtoback_oracle.py TABULA SOURCE_DIR

No outside program plays Back-to-Back Chess, so tests/oracles/
backtoback_perft.py is a second generator written from rules-spec §8 in
plain coordinates (no code shared with referee/rules/board_geometry.c).
For every position of tests/data/backtoback/perft.txt this checks, at a
depth the slow oracle reaches in seconds (3 for the two start positions,
2 for the others), that three numbers agree: the oracle's, `tabula perft
-g backtoback`'s, and the committed table's. The deeper rows of the table
were checked the same way by hand (see the table's header).
"""
import os
import subprocess
import sys


def main():
    tabula, source = sys.argv[1], sys.argv[2]
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, os.path.join(source, "tests", "oracles"))
    import backtoback_perft as oracle

    table = os.path.join(source, "tests", "data", "backtoback", "perft.txt")
    failures = checked = 0
    with open(table) as f:
        rows = [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]
    for i, row in enumerate(rows):
        board, fen, counts = [x.strip() for x in row.split(" | ")]
        counts = [int(x) for x in counts.split()]
        depth = 3 if i < 2 else 2
        pos = oracle.Pos(oracle.Board(board), fen)
        theirs = oracle.perft(pos, depth)
        ours = int(subprocess.run([tabula, "perft", "-g", "backtoback", fen, str(depth)],
                                  capture_output=True, text=True, check=True).stdout)
        checked += 1
        if not (theirs == ours == counts[depth - 1]):
            failures += 1
            print("MISMATCH %s d%d: oracle %d, tabula %d, table %d"
                  % (fen, depth, theirs, ours, counts[depth - 1]))
    print("%d positions, %d mismatches" % (checked, failures))
    return 1 if failures or checked < 10 else 0


if __name__ == "__main__":
    sys.exit(main())
