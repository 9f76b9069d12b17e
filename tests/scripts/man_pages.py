#!/usr/bin/env python3
"""The manual pages say everything, and render cleanly.

usage: man_pages.py TABULA SOURCE_DIR

The pages are configured by CMake into BUILD/man (beside BUILD/referee/tabula):
  - tabula(1) names every command of `tabula --help`, every option, and every
    exit status referee/top/main.c can return (by its sysexits name);
  - tabula.ini(5) names every option `tabula check-config` prints;
  - `man --warnings -l` renders each page with no warning at 80 columns.
Prints "N passed, M failed".
"""
import os
import re
import shutil
import subprocess
import sys

TABULA, SRC = os.path.abspath(sys.argv[1]), sys.argv[2]
MAN = os.path.join(os.path.dirname(os.path.dirname(TABULA)), "man")
PAGES = ("tabula.1", "tabula.ini.5", "tabula-verify-dice.1", "tabula-deliver.1", "tabula-verify.1")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from testkit import check, finish  # noqa: E402  (tests/harness/testkit.py)


def page(name):
    with open(os.path.join(MAN, name), encoding="utf-8") as f:
        text = f.read()
    return text.replace("\\-", "-").replace("\\e", "\\")


def main():
    for p in PAGES:
        check("%s configured" % p, os.path.exists(os.path.join(MAN, p)) and
              "@TABULA" not in page(p), MAN)
    one, five = page("tabula.1"), page("tabula.ini.5")
    helptext = subprocess.run([TABULA, "--help"], capture_output=True, text=True).stdout
    commands = re.findall(r"^  ([a-z][a-z-]+) ", helptext, re.M)
    check("tabula --help lists the commands", len(commands) >= 15, helptext)
    for c in commands:
        check("tabula(1) describes %s" % c, re.search(r"^\.B[IR]? %s\b" % re.escape(c), one, re.M))
    for opt in ("-c", "--config", "-g", "--game", "-s", "--seat", "--reason", "--json", "-h",
                "--help", "-V", "--version"):
        check("tabula(1) names option %s" % opt, re.search(r"\.B[IR]? .*%s\b" % re.escape(opt), one))
    main_c = open(os.path.join(SRC, "referee", "top", "main.c")).read()
    statuses = sorted(set(re.findall(r"\bEX_(?!OK\b)[A-Z]+\b", main_c)))
    check("main.c returns sysexits statuses", len(statuses) >= 7, statuses)
    for ex in statuses:
        check("tabula(1) EXIT STATUS lists %s" % ex, re.search(r"^\.BR \d+ \" %s\"$" % ex, one, re.M))
    check("tabula(1) lists status 1", re.search(r"^\.B 1$", one, re.M))
    for word in ("TABULA_CONFIG", "pipe", "recipient_delimiter", "procmail", ".forward",
                 "JOURNAL_STREAM", "SyslogLevelPrefix", "./tabula-data"):
        check("tabula(1) mentions %s" % word, word in one)
    dump = subprocess.run([TABULA, "check-config", "-c", "/dev/null"], capture_output=True,
                          text=True).stdout
    options = re.findall(r"^([a-z_0-9]+) =", dump, re.M)
    check("check-config lists the options", len(options) >= 40, dump)
    for o in options:
        check("tabula.ini(5) describes %s" % o, re.search(r"^\.BR .*\b%s\b" % o, five, re.M))
    if not shutil.which("man"):
        check("man is installed (scripts/deps.sh test installs man-db)", False)
    else:
        for p in PAGES:
            r = subprocess.run(["man", "--warnings", "-l", os.path.join(MAN, p)],
                               capture_output=True, text=True, env=dict(os.environ, MANWIDTH="80",
                                                                        MAN_KEEP_FORMATTING="0"))
            check("man --warnings -l %s: no warning" % p, r.returncode == 0 and not r.stderr
                  and len(r.stdout) > 500, r.stderr)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
