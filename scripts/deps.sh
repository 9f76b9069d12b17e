#!/usr/bin/env bash
# Installs what tabula needs on Debian 12, only what is missing.
#   scripts/deps.sh build   the libraries and tools to build and run tabula
#   scripts/deps.sh test    the above, plus what the test suite uses
# As root it runs apt-get itself; otherwise it prints the command to run.
set -euo pipefail
# libpq-dev: the store's PostgreSQL driver (store/driver_pg.c); no server
want=(cmake make gcc pkg-config libsqlite3-dev libpq-dev libjansson-dev libinih-dev check
      nettle-dev libcurl4-gnutls-dev libetpan-dev libgnutls28-dev)
if [ "${1:-build}" = test ]; then
  # clang: the second compiler CI builds with; python3: the mail-case runner
  # and the dice verifier; stockfish, gnubg, node: the live oracle checks;
  # gnubg and pgn-extract read the exports back (tests/scripts/records.py);
  # chromium draws the HTML mails and the web view, DejaVu has the chess
  # symbols (tests/scripts/html_views.py); jq checks the shape of the
  # --json output and the web view's JSON (tests/scripts/json_output.py).
  want+=(clang python3 sqlite3 stockfish gnubg pgn-extract chromium fonts-dejavu-core jq)
  # python3-icalendar reads the calendar events of "your move" mails
  # (tests/scripts/calendar_mail.py, RFC 5545)
  want+=(python3-icalendar)
  # python3-cryptography: the second Ed25519 of the history's test vectors
  # (tests/scripts/history_vectors.py; tabula-verify itself needs nothing)
  want+=(python3-cryptography)
  # the Debian package test (tests/scripts/debian_package.py) and
  # the manual pages' check: dpkg-buildpackage, lintian, man
  want+=(debhelper lintian man-db)
  # node may come from elsewhere (nodesource bundles npm): only when absent
  command -v npm >/dev/null || want+=(nodejs npm)
  # The mail servers of tests/scripts/mail_servers.py (Dovecot, Postfix,
  # openssl for their certificate): installed by the harness, which
  # preseeds Postfix's "No configuration" and keeps both from starting
  # system-wide (tests/harness/mailharness.sh install).
  servers=(dovecot-imapd dovecot-pop3d dovecot-lmtpd dovecot-submissiond postfix openssl)
  for p in "${servers[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
      if [ "$(id -u)" -ne 0 ]; then
        echo "the mail tests need: ${servers[*]} (run tests/harness/mailharness.sh install as root)" >&2
        exit 1
      fi
      bash "$(dirname "$0")/../tests/harness/mailharness.sh" install </dev/null >/dev/null
      break
    fi
  done
  # PostgreSQL's server, for the store's tests on the PostgreSQL driver:
  # tests/harness/pg_cluster.sh runs initdb and pg_ctl from it in a
  # temporary directory. The package's own cluster must not start: a
  # temporary /usr/sbin/policy-rc.d denies it, as mailharness.sh does for
  # Dovecot and Postfix (without a running init, invoke-rc.d denies anyway).
  if ! dpkg-query -W -f='${Status}' postgresql 2>/dev/null | grep -q "ok installed"; then
    if [ "$(id -u)" -ne 0 ]; then
      echo "the PostgreSQL driver's tests need: postgresql (install it as root)" >&2
      exit 1
    fi
    made_policy=
    if [ ! -e /usr/sbin/policy-rc.d ]; then
      printf '#!/bin/sh\ncase "$1" in postgresql*) exit 101;; esac\nexit 0\n' \
        >/usr/sbin/policy-rc.d
      chmod 755 /usr/sbin/policy-rc.d
      made_policy=1
    fi
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql \
      </dev/null >/dev/null
    [ -z "$made_policy" ] || rm -f /usr/sbin/policy-rc.d
  fi
fi
missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "tabula needs these Debian packages: ${missing[*]}" >&2
  echo "install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" \
  </dev/null >/dev/null
