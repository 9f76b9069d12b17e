#!/usr/bin/env bash
# The command line on a PostgreSQL store (tabula.ini(5), store), run under
# tests/harness/pg_cluster.sh (TABULA_TEST_PG): a command that must not
# create a store refuses a database without one and creates nothing; the
# first poll makes the schema, after which the commands work and `tabula
# check` is clean; a store name that carries a password is refused and
# the password is not repeated; a server that cannot be reached is a
# temporary failure (75), not a missing store.
# usage: cli_store.sh TABULA
set -u
tabula=${1:?usage: cli_store.sh TABULA}
[ -n "${TABULA_TEST_PG:-}" ] || { echo "run under tests/harness/pg_cluster.sh" >&2; exit 2; }
psql="${TABULA_TEST_PG_BIN:+$TABULA_TEST_PG_BIN/}psql"
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
pass=0 fail=0
check() { # NAME CONDITION-STATUS DETAIL
  if [ "$2" -eq 0 ]; then pass=$((pass + 1)); echo "ok   $1"
  else fail=$((fail + 1)); echo "FAIL $1"; printf '    %s\n' "$3"; fi
}
"$psql" -X -q -d "$TABULA_TEST_PG" -c "CREATE SCHEMA cli" || exit 1
store="$TABULA_TEST_PG options=-csearch_path=cli"
ini() { printf '[tabula]\nstore_path = %s/tabula.db\ninbox = %s/in\noutbox = %s/out\nstore = %s\n' \
          "$dir" "$dir" "$dir" "$1" >"$dir/t.ini"; }
tables() { "$psql" -X -q -A -t -d "$store" -c \
             "SELECT count(*) FROM pg_tables WHERE schemaname = 'cli'"; }

ini "$store"
out=$("$tabula" games -c "$dir/t.ini" 2>&1); rc=$?
check "games on an empty database: no store, exit 66" $([ $rc -eq 66 ] && [[ $out == *"no store in the database"* ]]; echo $?) "$rc $out"
check "... and nothing was created" $([ "$(tables)" = 0 ]; echo $?) "tables: $(tables)"
check "... nor an SQLite file" $([ ! -e "$dir/tabula.db" ]; echo $?) "$(ls "$dir")"

out=$("$tabula" poll -c "$dir/t.ini" 2>&1); rc=$?
check "poll makes the store" $([ $rc -eq 0 ] && [ "$(tables)" -gt 10 ]; echo $?) "$rc $out tables $(tables)"
out=$("$tabula" games -c "$dir/t.ini" 2>&1); rc=$?
check "games then works" $([ $rc -eq 0 ]; echo $?) "$rc $out"
out=$("$tabula" check -c "$dir/t.ini" 2>&1); rc=$?
check "tabula check is clean" $([ $rc -eq 0 ]; echo $?) "$rc $out"
check "still no SQLite file" $([ ! -e "$dir/tabula.db" ]; echo $?) "$(ls "$dir")"

ini "postgresql://club:s3cret@localhost/club"
out=$("$tabula" poll -c "$dir/t.ini" 2>&1); rc=$?
check "a password in store is refused, not repeated" $([ $rc -ne 0 ] && [[ $out == *".pgpass"* ]] && [[ $out != *s3cret* ]]; echo $?) "$rc $out"

ini "host=$dir/nowhere dbname=club"
out=$("$tabula" poll -c "$dir/t.ini" 2>&1); rc=$?
check "an unreachable server: exit 75, said" $([ $rc -eq 75 ] && [[ $out == *"connecting to PostgreSQL"* ]]; echo $?) "$rc $out"

echo "$pass passed, $fail failed"
[ $fail -eq 0 ]
