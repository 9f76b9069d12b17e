#!/usr/bin/env bash
# Quick start, command 1: build tabula and run the daemon on the embedded
# default: Maildir in, Maildir out, SQLite file, no server needed.
# Everything lives in ./tabula-data (override with TABULA_DATA=DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/deps.sh" build
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j"$(nproc)" >/dev/null
data=${TABULA_DATA:-$root/tabula-data}
mkdir -p "$data"
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
fi
cat <<MSG
tabula is running. Drop players' mails (RFC 5322 files) into
    $data/inbox/new/
and read the referee's replies in
    $data/outbox/new/
Try: a mail from you@example.org whose body says "new chess with friend@example.org".
Configuration: $conf    Stop with Ctrl-C.
MSG
exec "$root/build/referee/tabula" serve -c "$conf"
