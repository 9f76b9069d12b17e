#!/usr/bin/env python3
"""Player-facing text never points into tabula's source tree.

usage: player_texts.py TABULA SOURCE_DIR

A player has the mail, not the sources: no template's subject or body (the
lines after its `##` comments) may name a file or folder of the tree
(docs/, tools/, templates/, referee/, a .md or .py file). The help texts
say it in the mail, or name the operator's page (help_url). The mails
themselves are checked by tests/data/mailcases/150-help.case.
Prints "N passed, M failed".
"""
import glob
import os
import re
import sys

SRC = sys.argv[2]
TREE = re.compile(r"\b(docs|tools|templates|referee|tests|scripts)/|\b[\w-]+\.(md|py)\b")
passed = failed = 0
for path in sorted(glob.glob(os.path.join(SRC, "templates", "*.txt"))):
    with open(path, encoding="utf-8") as f:
        lines = [l for l in f.read().split("\n") if not l.startswith("##")]
    bad = [l for l in lines if TREE.search(l)]
    if bad:
        failed += 1
        print("FAIL %s names the source tree: %s" % (os.path.basename(path), bad[0].strip()))
    else:
        passed += 1
# every help text offers the operator's page when there is one
for path in sorted(glob.glob(os.path.join(SRC, "templates", "help*.txt"))):
    text = open(path, encoding="utf-8").read()
    if "{?help_url}" in text:
        passed += 1
    else:
        failed += 1
        print("FAIL %s does not name help_url" % os.path.basename(path))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed or passed < 20 else 0)
