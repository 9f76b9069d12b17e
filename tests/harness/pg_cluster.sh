#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for one test command: initdb and pg_ctl
# from Debian's postgresql package (/usr/lib/postgresql/*/bin), listening
# on a Unix socket in a fresh temporary directory only (no TCP), trust
# authentication for its one role; the command runs with
#   TABULA_TEST_PG  a libpq connection string for the database "tabula"
#   TABULA_TEST_PG_BIN  the server's bin directory (psql, pg_ctl, ...)
#   TABULA_TEST_PG_DIR  the cluster's directory (data/postmaster.pid: the
#                       benches count the server's CPU)
# TABULA_TEST_PG_SETTINGS adds server settings ("-c shared_buffers=256MB").
# and the cluster is stopped and its directory removed when the command
# ends, however it ends: a trap for the usual exits, and a watcher that
# stops the server if this script is killed outright (kill -9), so nothing
# is left running.
#
# PostgreSQL refuses to run as root: as root the cluster belongs to nobody
# (65534, as tests/scripts/cli.py drops to), its tools run through setpriv.
#
# usage: pg_cluster.sh COMMAND [ARG...]
# Exits 77 (skipped) when the server is not installed, unless
# TABULA_REQUIRE_TOOLS=1 (scripts/test.sh), under which that fails.
set -u
[ $# -ge 1 ] || { echo "usage: pg_cluster.sh COMMAND [ARG...]" >&2; exit 2; }

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "pg_cluster: PostgreSQL's server is not installed (Debian: postgresql)" >&2
  [ "${TABULA_REQUIRE_TOOLS:-0}" = 1 ] && exit 1
  exit 77
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/tabula-pg-XXXXXX") || exit 1
chmod 0755 "$dir"
as_owner=()
if [ "$(id -u)" -eq 0 ]; then
  chown 65534:65534 "$dir"
  as_owner=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
fi

# The cluster's tools, as its owner, in its directory.
pgrun() { (cd "$dir" && "${as_owner[@]}" "$@"); }
stop() {
  if [ -f "$dir/data/postmaster.pid" ]; then
    pgrun "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1
  fi
  rm -rf "$dir"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

if ! pgrun "$bin/initdb" -D "$dir/data" -U tabula -A trust -E UTF8 --locale=C \
     --no-sync >"$dir/initdb.log" 2>&1; then
  cat "$dir/initdb.log" >&2
  exit 1
fi
# Tests only: fsync off (a crash of this machine loses a throwaway
# cluster, nothing else); the daemons' durability promises are checked
# against kills of the daemons, not of the server. TABULA_TEST_PG_DURABLE=1
# keeps the server's defaults (fsync, full pages): the benches compare it
# with SQLite's synchronous=FULL (bench/engines.sh).
settings="-c fsync=off -c full_page_writes=off"
[ "${TABULA_TEST_PG_DURABLE:-0}" = 1 ] && settings=""
if ! pgrun "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -s \
     -o "-k $dir -c listen_addresses= $settings ${TABULA_TEST_PG_SETTINGS:-}" start; then
  cat "$dir/server.log" >&2
  exit 1
fi
# The watcher: stops the server once this script is gone, whatever ended
# it (the trap above does it first when it can). Detached (its parent
# exits at once, setsid gives it a session of its own), so that a test
# runner that kills this script's whole tree or process group on a timeout
# (ctest does) does not kill the watcher with it: pg_ctl's server has left
# the tree already and would be left running.
(
  # $1: the owner's setpriv words (empty when not root), $2: this script
  setsid bash -c '
    as_owner=($1)
    while kill -0 "$2" 2>/dev/null; do sleep 1; done
    if [ -f "$3/data/postmaster.pid" ]; then
      (cd "$3" && "${as_owner[@]}" "$4/pg_ctl" -D "$3/data" -m immediate -w stop)
    fi
    rm -rf "$3"' watcher "${as_owner[*]:-}" "$$" "$dir" "$bin" </dev/null >/dev/null 2>&1 &
)

if ! "$bin/createdb" -h "$dir" -U tabula tabula; then
  cat "$dir/server.log" >&2
  exit 1
fi
export TABULA_TEST_PG="host=$dir user=tabula dbname=tabula"
export TABULA_TEST_PG_BIN="$bin"
export TABULA_TEST_PG_DIR="$dir"
"$@"
