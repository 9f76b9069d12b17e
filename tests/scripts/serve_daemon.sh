#!/usr/bin/env bash
# The daemon as an operator runs it: `tabula serve` answers a mail dropped
# into the inbox Maildir, leaves it in cur/ only after answering, and ends
# cleanly (exit 0, "stopping" logged) on SIGTERM and on SIGINT.
# usage: serve_daemon.sh TABULA SOURCE_DIR
set -u
tabula=$1
. "${BASH_SOURCE%/*}/../harness/testlib.sh"
testlib_start serve
testlib_ini
for sig in TERM INT; do
  rm -rf "$dir/in" "$dir/out" "$dir/db"*
  "$tabula" serve -c "$dir/t.ini" 2>"$dir/log.$sig" &
  pid=$!
  wait_for 5 test -d "$dir/in/new"
  printf 'From: alice@example.org\nTo: referee@example.org\nSubject: hi\nMessage-ID: <s-%s@example.org>\n\nnew chess with bob@example.org\n' \
    "$sig" | drop m1
  # one answer: a first `new` asks its sender to confirm
  ok wait_for 10 bash -c "[ \$(ls '$dir/out/new' | wc -l) -eq 1 ]"
  ok test "$(count "$dir/in/cur")" -eq 1
  ok test "$(count "$dir/in/new")" -eq 0
  kill -"$sig" "$pid"
  ok wait_for 5 bash -c "! kill -0 $pid 2>/dev/null"
  wait "$pid"; rc=$?
  ok test "$rc" -eq 0
  ok grep -q "stopping" "$dir/log.$sig"
done

# One daemon per store, whatever the store is called: a second serve on the
# same database named through a symlink, a symlinked directory or a `..`
# path refuses to start and names the first's pid (the lock lies beside the
# real file, store/lock.c).
rm -rf "$dir/in" "$dir/out" "$dir/db"*
mkdir -p "$dir/sub"
ln -sfn db "$dir/db-alias"
ln -sfn "$dir" "$dir/dirlink"
"$tabula" serve -c "$dir/t.ini" 2>"$dir/log.first" &
first=$!
ok wait_for 5 test -s "$dir/db.lock"
for name in "$dir/db-alias" "$dir/dirlink/db" "$dir/sub/../db"; do
  sed "s|^store_path = .*|store_path = $name|" "$dir/t.ini" >"$dir/t2.ini"
  timeout 10 "$tabula" serve -c "$dir/t2.ini" 2>"$dir/log.second"
  rc=$?
  ok test "$rc" -ne 0 -a "$rc" -ne 124
  ok grep -q "pid $first" "$dir/log.second"
done
kill -TERM "$first"; wait "$first"
ok test $? -eq 0
rm -f "$dir/db-alias" "$dir/dirlink"; rmdir "$dir/sub"

# The MTA-pipe mode (`tabula deliver`): a mail over the size limit can never
# be taken, so the exit is 65 (EX_DATAERR: the MTA returns it to its sender
# with the reason) rather than 75 (EX_TEMPFAIL: retried for days); nothing
# is stored and nothing is sent. A normal mail exits 0.
rm -rf "$dir/in" "$dir/out" "$dir/db"*
{ printf 'From: alice@example.org\nTo: referee@example.org\nSubject: big\nMessage-ID: <big@example.org>\n\n'
  head -c 12000000 /dev/zero | tr '\0' 'x'; } | "$tabula" deliver -c "$dir/t.ini" 2>"$dir/log.big"
ok test $? -eq 65
ok grep -q "size limit" "$dir/log.big"
ok test "$(count "$dir/out/new")" -eq 0
printf 'From: alice@example.org\nTo: referee@example.org\nSubject: hi\nMessage-ID: <d1@example.org>\n\nnew chess with bob@example.org\n' |
  "$tabula" deliver -c "$dir/t.ini" 2>>"$dir/log.big"
ok test $? -eq 0
ok test "$(count "$dir/out/new")" -eq 1
testlib_finish "$dir"/log.*
