#!/usr/bin/env python3
"""`tabula site DIR` with a folder whose name leaves no room for a file's
name in the path the web view builds: the file is written under its own
name or the command fails and says so; never a file under a cut name
("inde" for "index.html") with success reported.

usage: site_long_dir.py TABULA SOURCE_DIR

A fresh store (one `tabula poll` over empty Maildirs), then `tabula site`
into folders whose paths run from well under to past the 1200 bytes
site.c builds a file's path in. Prints "N passed, M failed".
"""
import os
import subprocess
import sys
import tempfile

TABULA = sys.argv[1]
results = []


def check(name, ok, detail=""):
    results.append(bool(ok))
    print("%s %s%s" % ("ok  " if ok else "FAIL", name, "" if ok else "\n    " + str(detail)[-1500:]))


def run(args, cwd):
    e = dict(os.environ)
    e.pop("TABULA_CONFIG", None)
    e.pop("JOURNAL_STREAM", None)
    return subprocess.run([TABULA] + args, cwd=cwd, env=e, capture_output=True, timeout=120)


def main():
    with tempfile.TemporaryDirectory() as work:
        for box in ("inbox", "outbox"):
            for sub in ("new", "cur", "tmp"):
                os.makedirs(os.path.join(work, "tabula-data", box, sub))
        p = run(["poll"], work)
        check("a fresh store", p.returncode == 0, p.stderr)
        # folders 40 bytes a level, then one to reach the length wanted
        for length in (300, 1180, 1190, 1194, 1199, 1250):
            d = work
            while len(d) + 41 < length:
                d = os.path.join(d, "a" * 40)
            d = os.path.join(d, "b" * (length - len(d) - 1))
            os.makedirs(d, exist_ok=True)
            p = run(["site", d], work)
            names = sorted(os.listdir(d))
            if p.returncode == 0:
                # the index page and its JSON (docs/json.md), whole names
                check("%d bytes: index.html and index.json written, nothing else" % len(d),
                      names == ["index.html", "index.json"], names)
            else:
                check("%d bytes: refused with a reason, nothing written" % len(d),
                      names == [] and p.stderr.strip(), (names, p.stderr))
    print("%d passed, %d failed" % (results.count(True), results.count(False)))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
