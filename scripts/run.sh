#!/usr/bin/env bash
# Quick start, command 1: build tabula and run the daemon on the embedded
# default: Maildir in, Maildir out, SQLite file, no server needed.
# Everything lives in ./tabula-data (override with TABULA_DATA=DIR).
# TABULA_STORE=NAME keeps the games in a PostgreSQL database instead of the
# SQLite file (postgresql:///club, service=club: tabula.ini(5), store),
# written into a new DIR/tabula.ini; the database must exist already.
# It says what it is doing: the first build takes a few minutes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build="$root/build"
log="$build/build.log"
step() { printf '==> %s\n' "$*"; }

step "checking the Debian packages tabula needs"
bash "$root/scripts/deps.sh" build
step "configuring the build in $build"
mkdir -p "$build"
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$log" 2>&1 ||
  { cat "$log"; exit 1; }
step "building tabula and tabula-deliver with $(nproc) jobs (the first build takes a few minutes)"
# One line of progress: the percentage and the file being compiled (a
# terminal sees it overwrite itself, a log sees every tenth percent).
progress() {
  local line pct last=-10
  while IFS= read -r line; do
    printf '%s\n' "$line" >>"$log"
    [[ $line =~ ^\[\ *([0-9]+)%\]\ (Building|Linking)\ [A-Za-z\ ]*\ (.*)$ ]] || continue
    pct=${BASH_REMATCH[1]}
    if [ -t 1 ]; then
      printf '\r    %3d%%  %-60.60s' "$pct" "${BASH_REMATCH[3]##*/}"
    elif [ "$pct" -ge $((last + 10)) ]; then
      printf '    %3d%%  %s\n' "$pct" "${BASH_REMATCH[3]##*/}"
      last=$pct
    fi
  done
  [ -t 1 ] && printf '\r%-72s\r' '' || true
}
# `programs`: every program `cmake --install` installs (CMakeLists.txt)
if ! cmake --build "$build" --target programs -j"$(nproc)" 2>&1 | progress; then
  echo "the build failed; its log:" >&2
  tail -40 "$log" >&2
  exit 1
fi
step "built: $build/referee/tabula (install it with: sudo cmake --install $build)"
data=${TABULA_DATA:-$root/tabula-data}
mkdir -p "$data"
# absolute: tabula.ini's relative paths are its own folder's (tabula.ini(5)),
# so TABULA_DATA=./club would name ./club/club/inbox from inside it
data=$(cd "$data" && pwd)
conf="$data/tabula.ini"
if [ ! -f "$conf" ]; then
  cat >"$conf" <<INI
[tabula]
store_path = $data/tabula.db
inbox = $data/inbox
outbox = $data/outbox
address = referee@localhost
domain = localhost
INI
  if [ -n "${TABULA_STORE:-}" ]; then
    printf 'store = %s\n' "$TABULA_STORE" >>"$conf"
  fi
elif [ -n "${TABULA_STORE:-}" ] && ! grep -qxF "store = $TABULA_STORE" "$conf"; then
  echo "$conf exists and names another store; choose a new TABULA_DATA=DIR for this one" >&2
  exit 1
fi
cat <<MSG
==> tabula is running. Hand it players' mails (RFC 5322 files) the Maildir
way: write each into $data/inbox/tmp/
and rename it into $data/inbox/new/, or pipe it to
    $build/referee/tabula-deliver -c $conf
(a file written in new/ itself is read too, once its writer closes it).
Read the referee's replies in
    $data/outbox/new/
Try: a mail from you@example.org whose body says "new chess with friend@example.org".
Configuration: $conf    Stop with Ctrl-C.
In another terminal, the operator's view:
    $build/referee/tabula games -c $conf
MSG
exec "$build/referee/tabula" serve -c "$conf"
