#!/usr/bin/env python3
"""The Debian package, built, checked, installed and run.

usage: debian_package.py TABULA SOURCE_DIR

  1. `dpkg-buildpackage -us -uc -b` on a copy of the source tree (the tracked
     and new files, no build folders), then `lintian` on the result: no error;
  2. the .deb installed on this machine (apt-get, so its dependencies come
     too): the user tabula and /var/lib/tabula exist, /etc/tabula/tabula.ini
     is root:tabula 640, the installed `tabula check-config` reads it by
     itself, as root and as tabula;
  3. `man --warnings -l` renders the installed pages without a warning;
  4. the installed unit's ExecStart line, run as its User= with a scratch
     configuration ($TABULA_CONFIG: systemd is not running here), plays a
     whole game of chess through a scratch Maildir: confirmation (issue
     13), invitation, accept, Scholar's mate, result; SIGTERM ends it with
     status 0;
  5. `systemd-analyze security --offline` scores the installed unit (printed;
     it must stay "OK" or better, under 2.0);
  6. purged: the state directory is gone.

It installs a package on the machine, so it runs only as root (CI runs the
suite as root) and skips itself, saying so, otherwise. A tabula package
already installed with games of its own is never touched (skip). Runs
under a lock, so two suites on one machine take turns.
Prints "N passed, M failed" and the time of each step.
"""
import email
import email.policy
import fcntl
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

SRC = os.path.abspath(sys.argv[2])
SKIP = 77  # ctest's SKIP_RETURN_CODE for this test (tests/CMakeLists.txt)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "harness"))
from testkit import check, finish, tidy  # noqa: E402  (tests/harness/testkit.py)
T0 = time.time()


def step(name):
    print("-- %s (%.0f s)" % (name, time.time() - T0), flush=True)


def sh(cmd, **kw):
    kw.setdefault("capture_output", True)
    kw.setdefault("text", True)
    kw.setdefault("stdin", subprocess.DEVNULL)
    return subprocess.run(cmd, **kw)


def version():
    text = open(os.path.join(SRC, "debian", "changelog")).readline()
    return re.match(r"tabula \(([^)]+)\)", text).group(1)


def copy_tree(dest):
    """The sources as a clean clone would have them, with uncommitted work."""
    p = sh(["git", "-C", SRC, "ls-files", "-co", "--exclude-standard", "-z"])
    if p.returncode == 0:
        for name in p.stdout.split("\0"):
            if name and os.path.isfile(os.path.join(SRC, name)):
                os.makedirs(os.path.dirname(os.path.join(dest, name)), exist_ok=True)
                shutil.copy2(os.path.join(SRC, name), os.path.join(dest, name))
    else:  # a tarball: everything but build folders
        shutil.copytree(SRC, dest, ignore=shutil.ignore_patterns("build*", "tabula-data",
                                                                 "node_modules"))


def build_and_lint(work):
    tree = os.path.join(work, "tabula-" + version())
    copy_tree(tree)
    # a checkout of its own, to see what the build leaves behind (and
    # .gitignore copied with it: what it names is not dirt)
    git = ["git", "-C", tree, "-c", "user.name=t", "-c", "user.email=t@example.org"]
    clean = sh(git + ["init", "-q"]).returncode == 0 and \
        sh(git + ["add", "-A"]).returncode == 0 and \
        sh(git + ["commit", "-qm", "sources"]).returncode == 0
    step("dpkg-buildpackage")
    # not niced, all cores: on a shared machine a niced one-job build took
    # 750 s; this test runs first and beside it ctest's other slot
    env = dict(os.environ, DEB_BUILD_OPTIONS="parallel=%d" % (os.cpu_count() or 1))
    for k in ("ASAN_OPTIONS", "UBSAN_OPTIONS"):
        env.pop(k, None)
    p = sh(["dpkg-buildpackage", "-us", "-uc", "-b"], cwd=tree, env=env)
    debs = glob.glob(os.path.join(work, "tabula_*.deb"))
    if not check("dpkg-buildpackage -us -uc -b builds tabula_%s_*.deb" % version(),
                 p.returncode == 0 and len(debs) == 1, p.stdout[-3000:] + p.stderr[-3000:]):
        return None
    dirt = sh(git + ["status", "--porcelain", "--untracked-files=all"])
    check("dpkg-buildpackage leaves the checkout clean (git status: %d line(s))"
          % len(dirt.stdout.splitlines()),
          clean and dirt.returncode == 0 and not dirt.stdout.strip(),
          sorted({"/".join(l[3:].split("/")[:2]) for l in dirt.stdout.splitlines()}))
    # libcurl is opened with dlopen (mail/smtp.c): dh_shlibdeps
    # cannot see it, so debian/control names it, and the binary must not
    # link it (that would load it in every `tabula deliver` again).
    p = sh(["dpkg-deb", "-f", debs[0], "Depends"])
    check("the package depends on libcurl (opened at run time for SMTP)",
          re.search(r"\blibcurl3(t64)?-gnutls\b", p.stdout), p.stdout + p.stderr)
    # The PostgreSQL store needs the client library only: a club keeps its
    # database on a server of its own (tabula.ini(5), store), never this one.
    check("the package depends on libpq (the PostgreSQL store), on no PostgreSQL server",
          re.search(r"\blibpq5\b", p.stdout) and
          not re.search(r"\bpostgresql(-\d+)?\b(?!-client)", p.stdout), p.stdout + p.stderr)
    p = sh("dpkg-deb --fsys-tarfile %s | tar -xO ./usr/bin/tabula > %s/tabula.bin && "
           "readelf -d %s/tabula.bin" % (shlex.quote(debs[0]), shlex.quote(work), shlex.quote(work)),
           shell=True)
    check("the packaged binary does not link libcurl",
          p.returncode == 0 and "NEEDED" in p.stdout and "libcurl" not in p.stdout,
          p.stdout + p.stderr)
    step("lintian")
    changes = glob.glob(os.path.join(work, "tabula_*.changes"))[0]
    p = sh(["lintian", "-I", "--pedantic", changes])
    out = (p.stdout + p.stderr).strip()
    print("lintian says:\n" + "\n".join("    " + l for l in out.split("\n") if l.strip()))
    check("lintian finds no error", not re.search(r"^E: ", out, re.M) and p.returncode in (0, 1),
          out)
    return debs[0]


def installed_version():
    p = sh(["dpkg-query", "-W", "-f=${Status} ${Version}", "tabula"])
    return p.stdout.split()[-1] if p.returncode == 0 and "ok installed" in p.stdout else None


def apt(*args):
    return sh(["apt-get", "-y", "-q", "-o", "DPkg::Lock::Timeout=600", "--no-install-recommends"]
              + list(args), env=dict(os.environ, DEBIAN_FRONTEND="noninteractive"), timeout=900)


def exec_start():
    unit = open("/lib/systemd/system/tabula.service").read()
    fields = dict(re.findall(r"^(ExecStart|User|WorkingDirectory)=(.*)$", unit, re.M))
    return shlex.split(fields["ExecStart"]), fields.get("User"), unit


def play_scholars_mate(base, user):
    """The unit's ExecStart under its user, against a scratch Maildir."""
    argv, unit_user, _ = exec_start()
    check("the unit runs 'tabula serve' as the user tabula",
          argv[:2] == ["/usr/bin/tabula", "serve"] and unit_user == user, argv)
    scratch = os.path.join(base, "scratch")
    os.makedirs(scratch)
    conf = os.path.join(scratch, "tabula.ini")
    with open(conf, "w") as f:
        f.write("[tabula]\naddress = referee@club.example.org\ndomain = club.example.org\n"
                "store_path = data/tabula.db\ninbox = data/inbox\noutbox = data/outbox\n"
                "poll_ms = 50\n")
    sh(["chown", "-R", "%s:%s" % (user, user), scratch])
    log = open(os.path.join(base, "serve.log"), "w")
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "TABULA_CONFIG": conf, "LANG": "C.UTF-8"}
    # setpriv execs the command itself, as systemd's User= does (runuser
    # would stay in between and answer SIGTERM itself)
    serve = subprocess.Popen(["setpriv", "--reuid=" + user, "--regid=" + user, "--init-groups"]
                             + argv, cwd=scratch, env=env,
                             stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    inbox, outbox = os.path.join(scratch, "data", "inbox"), os.path.join(scratch, "data", "outbox")
    seen, last, n = set(), {}, [0]

    def collect(want, timeout=20):
        end = time.time() + timeout
        got = []
        while time.time() < end and len(got) < want:
            for path in sorted(glob.glob(os.path.join(outbox, "new", "*"))):
                if path not in seen:
                    seen.add(path)
                    with open(path, "rb") as f:
                        m = email.message_from_binary_file(f, policy=email.policy.default)
                    last[str(m["To"]).split("@")[0]] = m
                    got.append(m)
            time.sleep(0.05)
        return got

    def send(who, text, reply=True):
        n[0] += 1
        to, subject = "referee@club.example.org", "a game?"
        if reply:
            to, subject = str(last[who]["Reply-To"]), "Re: " + str(last[who]["Subject"])
        raw = ("From: %s@example.org\nTo: %s\nSubject: %s\nMessage-ID: <deb%d@example.org>\n\n%s\n"
               % (who, to, subject, n[0], text))
        tmp = os.path.join(inbox, "tmp", "m%d" % n[0])
        with open(tmp, "w") as f:
            f.write(raw)
        os.rename(tmp, os.path.join(inbox, "new", "m%d" % n[0]))

    try:
        end = time.time() + 30  # the Maildirs first, then the store (ref_service_open)
        db = os.path.join(scratch, "data", "tabula.db")
        while not (os.path.isdir(os.path.join(inbox, "new")) and os.path.exists(db)) and \
                time.time() < end:
            time.sleep(0.05)
        check("serve made its store and Maildirs as tabula",
              os.path.isdir(os.path.join(inbox, "new")) and os.path.exists(db) and
              os.stat(db).st_uid == int(sh(["id", "-u", user]).stdout), open(log.name).read())
        send("alice", "new chess with bob@example.org", reply=False)
        # Alice's first `new` is confirmed from her address (her
        # reply to the request) before Bob is invited
        check("the confirmation request", len(collect(1)) == 1)
        send("alice", "confirm")
        check("the invitation and its notice", len(collect(2)) == 2)
        send("bob", "accept")
        check("the start, to both", len(collect(2)) == 2)
        for who, move in (("alice", "e4"), ("bob", "e5"), ("alice", "Bc4"), ("bob", "Nc6"),
                          ("alice", "Qh5"), ("bob", "Nf6"), ("alice", "Qxf7#")):
            send(who, move)
            got = collect(2)
            if not check("%s plays %s, both are told" % (who, move), len(got) == 2,
                         open(log.name).read()):
                break
        over = last.get("bob")
        check("the game ends: White won by checkmate",
              over is not None and "White won by checkmate" in str(over["Subject"]),
              over and over["Subject"])
        p = sh(["runuser", "-u", user, "--", "/usr/bin/tabula", "games"], cwd=scratch,
               env=env)
        check("tabula games (the installed binary, $TABULA_CONFIG) shows the result",
              p.returncode == 0 and "White won by checkmate" in p.stdout, p.stdout + p.stderr)
    finally:
        serve.terminate()
        try:
            rc = serve.wait(timeout=20)
        except subprocess.TimeoutExpired:
            serve.kill()
            rc = serve.wait()
        log.close()
    text = open(log.name).read()
    check("SIGTERM ends serve with status 0", rc == 0, "rc %s: %s" % (rc, text))
    check("one log line per mail, with its game",
          len(re.findall(r"info: mail <deb\d+@example.org> from \S+: (game \d+, )?applied", text))
          == 10, text)


def main():
    if os.geteuid() != 0:
        print("SKIP: the Debian package test installs a package on this machine, so it runs "
              "only as root (CI runs the suite as root)")
        return SKIP
    missing = [t for t in ("dpkg-buildpackage", "dh", "lintian", "apt-get", "runuser", "setpriv",
                                 "man")
               if not shutil.which(t)]
    if missing:
        check("the packaging tools are installed (scripts/deps.sh test installs them): %s"
              % " ".join(missing), False)
        return 1
    work = tempfile.mkdtemp(prefix="tabula-deb.", dir="/tmp")
    os.chmod(work, 0o755)
    lock = open("/tmp/tabula-debian-package-test.lock", "w")
    try:
        deb = build_and_lint(work)
        if deb is None:
            return 1
        step("waiting for the machine's package lock")
        fcntl.flock(lock, fcntl.LOCK_EX)
        before = installed_version()
        if before and os.path.exists("/var/lib/tabula/tabula.db"):
            print("SKIP: a tabula package (%s) with games of its own is installed here; "
                  "not touched" % before)
            return SKIP
        step("apt-get install")
        p = apt("install", deb)
        if not check("the .deb installs", p.returncode == 0 and installed_version() == version(),
                     p.stdout[-2000:] + p.stderr[-2000:]):
            return 1
        try:
            installed_checks(work)
        finally:
            step("purge")
            p = apt("purge", "tabula")
            check("purged: the package and /var/lib/tabula are gone",
                  p.returncode == 0 and installed_version() is None and
                  not os.path.exists("/var/lib/tabula"), p.stdout[-1000:] + p.stderr[-1000:])
    except Exception as e:  # a broken step is a failure, never a skip
        import traceback
        traceback.print_exc()
        check("no exception", False, repr(e))
    finally:
        lock.close()
        tidy(work)
    return finish(note=" (%.0f s)" % (time.time() - T0))


def installed_checks(work):
    step("installed files")
    p = sh(["id", "tabula"])
    check("the user tabula exists, with its group", p.returncode == 0 and "(tabula)" in p.stdout,
          p.stdout + p.stderr)
    st = os.stat("/var/lib/tabula")
    check("/var/lib/tabula is tabula's, mode 750",
          sh(["stat", "-c", "%U:%G %a", "/var/lib/tabula"]).stdout.strip() == "tabula:tabula 750",
          st)
    check("/etc/tabula/tabula.ini is root:tabula, mode 640",
          sh(["stat", "-c", "%U:%G %a", "/etc/tabula/tabula.ini"]).stdout.strip() ==
          "root:tabula 640")
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
    for who in ("root", "tabula"):
        p = sh(["runuser", "-u", who, "--", "/usr/bin/tabula", "check-config"], cwd="/", env=env)
        check("installed tabula check-config as %s reads /etc/tabula/tabula.ini by itself" % who,
              p.returncode == 0 and p.stdout.startswith(
                  "; configuration: /etc/tabula/tabula.ini (the system configuration)") and
              "store_path = /var/lib/tabula/tabula.db" in p.stdout, p.stdout[:400] + p.stderr)
    p = sh(["runuser", "-u", "tabula", "--", "/usr/bin/tabula", "games"], cwd="/", env=env)
    check("tabula games before any mail: no store, none created (66)",
          p.returncode == 66 and not os.path.exists("/var/lib/tabula/tabula.db") and
          "/var/lib/tabula/tabula.db" in p.stderr, p.stderr)
    p = sh(["/usr/bin/tabula", "--version"])
    check("tabula --version says %s" % version(), p.stdout.strip() == "tabula " + version(),
          p.stdout)
    # The MTA's pipe beside a daemon; with none it is tabula deliver
    p = sh(["/usr/bin/tabula-deliver", "--help"])
    check("tabula-deliver is installed and hands over to /usr/bin/tabula deliver",
          p.returncode == 0 and p.stdout.startswith("usage: tabula deliver"), p.stdout + p.stderr)
    p = sh(["/usr/bin/tabula-verify-dice", "/dev/null"])
    check("tabula-verify-dice runs (no dice lines: exit 1)",
          p.returncode == 1 and "no dice lines" in p.stdout + p.stderr, p.stdout + p.stderr)
    step("man pages")
    for page in ("/usr/share/man/man1/tabula.1.gz", "/usr/share/man/man5/tabula.ini.5.gz",
                 "/usr/share/man/man1/tabula-verify-dice.1.gz",
                 "/usr/share/man/man1/tabula-deliver.1.gz"):
        p = sh(["man", "--warnings", "-l", page], env=dict(os.environ, MANWIDTH="80"))
        check("man --warnings -l %s: no warning" % os.path.basename(page),
              p.returncode == 0 and not p.stderr and len(p.stdout) > 500, p.stderr)
    p = sh(["man", "-l", "/usr/share/man/man1/tabula.1.gz"], env=dict(os.environ, MANWIDTH="80"))
    check("tabula(1) names the installed paths",
          "/etc/tabula/tabula.ini" in p.stdout and "/usr/bin/tabula deliver" in p.stdout)
    step("the unit's ExecStart, a game by mail")
    play_scholars_mate(work, "tabula")
    if shutil.which("systemd-analyze"):
        p = sh(["systemd-analyze", "security", "--offline=true",
                "/lib/systemd/system/tabula.service"])
        m = re.search(r"Overall exposure level for tabula.service: ([0-9.]+) (\w+)", p.stdout)
        print("systemd-analyze security: " + (m.group(0) if m else p.stdout[-300:] + p.stderr))
        check("systemd-analyze security scores the unit under 2.0",
              m and float(m.group(1)) < 2.0, p.stdout[-500:] + p.stderr)
        p = sh(["systemd-analyze", "verify", "/lib/systemd/system/tabula.service"])
        bad = [l for l in (p.stdout + p.stderr).split("\n")
               if l.strip() and "man " not in l and "Failed to" not in l]
        check("systemd-analyze verify: the unit file is clean", not bad, p.stdout + p.stderr)


if __name__ == "__main__":
    sys.exit(main())
