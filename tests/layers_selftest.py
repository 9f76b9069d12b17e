#!/usr/bin/env python3
"""layers_selftest: scripts/check-layers.py fails on the fixture of
tests/data/layers/ (an upward call, an upward include, an upward call
through a function pointer, a file without a row) and names each; the
downward call of the fixture is not reported.

Usage: layers_selftest.py CHECK_LAYERS NM FIXTURE_DIR OBJECTS..."""
import subprocess
import sys

check, nm, fixture, objects = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
run = subprocess.run([sys.executable, check, "--nm", nm, "--group", "fixture",
                      "--layers", fixture + "/layers.md", "--sources", fixture] + objects,
                     capture_output=True, text=True)
out = run.stdout + run.stderr
print(out)
want = [
    "fixture: UPWARD low.c (1 low) -> high.c (2 high): high_fn",
    "fixture: UPWARD include in low/low.c (1 low): high.h (2 high)",
    "fixture: UPWARD low.c (1 low) -> high2.c (2 high) through a pointer: "
    "low_walk() is handed high2_visit (in high2.c)",
    "fixture: low/norow.c has no row in the table of files",
    "fixture: 4 files, 2 edges, 0 cycle(s), layers from the folders of",
]
bad = [w for w in want if w not in out]
if "UPWARD high2.c" in out:
    bad.append("the downward call high2.c -> low.c reported as upward")
if run.returncode != 1:
    bad.append("exit status %d, not 1" % run.returncode)
for b in bad:
    print("layers_selftest: MISSING: %s" % b)
sys.exit(1 if bad else 0)
