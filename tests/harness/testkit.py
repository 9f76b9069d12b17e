"""What the test scripts (tests/scripts/*.py) share, written once: each
check said and counted, and the end of a script.

Imported by the scripts, which put this folder on sys.path; it is not in
tests/scripts, so ctest does not register it as a test. A script calls
check() for each thing it asserts and ends with `return finish(work)`;
wait_for() polls for what a daemon does in its own time.
"""
import shutil
import time

results = []  # one bool a check, in order


def check(name, ok, detail=""):
    """Counts one check and says it: "ok   NAME", or "FAIL NAME" and the
    detail under it (its first and last 1,500 characters when longer).
    Returns ok, so that a script can go on only where it held."""
    results.append(bool(ok))
    if ok:
        print("ok   %s" % name, flush=True)
    else:
        detail = str(detail)
        if len(detail) > 3000:
            detail = detail[:1500] + "\n    [...]\n" + detail[-1500:]
        print("FAIL %s\n    %s" % (name, detail), flush=True)
    return ok


def wait_for(cond, seconds):
    """Polls cond() until it holds or `seconds` have passed; its last value."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def tidy(work, keep=False):
    """A script's folder `work` removed when every check so far passed and
    keep is not asked for, else kept and named, for inspection."""
    if results and all(results) and not keep:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print("kept for inspection: %s" % work, flush=True)


def finish(work=None, note="", keep=False):
    """The end of a test script: its folder `work` tidied (tidy()), "N
    passed, M failed" printed (and the note, " (12 s)"); returns the exit
    status (a script that checked nothing fails)."""
    if work is not None:
        tidy(work, keep)
    print("%d passed, %d failed%s" % (results.count(True), results.count(False), note),
          flush=True)
    return 0 if results and all(results) else 1
