#!/usr/bin/env bash
# `tabula serve` does the time-driven work by itself (clock.c, at
# most once a minute of the service's clock): with the test clock jumped
# past an invitation's 14 days, the running daemon cancels it and mails
# each player once; jumped again, it mails nobody twice.
# usage: clock_daemon.sh TABULA SOURCE_DIR
set -u
tabula=$1
. "${BASH_SOURCE%/*}/../harness/testlib.sh"
testlib_start clockd
start=1795424400 # Monday 2026-11-23 09:00 UTC
echo $start >"$dir/clock"
testlib_ini "test_clock_file = $dir/clock"
set_clock() { echo "$1" >"$dir/clock.tmp" && mv "$dir/clock.tmp" "$dir/clock"; }
expired() { grep -l "invitation has expired" "$dir"/out/new/* 2>/dev/null | wc -l; }
"$tabula" serve -c "$dir/t.ini" 2>"$dir/log" &
pid=$!
wait_for 5 test -d "$dir/in/new"
printf 'From: alice@example.org\nTo: referee@example.org\nSubject: hi\nMessage-ID: <cd-1@example.org>\n\nnew chess with bob@example.org\n' \
  | drop m1
# Alice's first `new` is confirmed from her address first: she
# answers the request's one-time key with the word.
ok wait_for 10 bash -c "[ \$(ls '$dir/out/new' | wc -l) -eq 1 ]"
key=$(grep -ho 'referee+confirm\.[a-z0-9]*@' "$dir"/out/new/* | head -1)
printf 'From: alice@example.org\nTo: %sexample.org\nSubject: Re: confirm\nMessage-ID: <cd-2@example.org>\n\nconfirm\n' \
  "$key" | drop m2
ok wait_for 10 bash -c "[ \$(ls '$dir/out/new' | wc -l) -eq 3 ]"
# 14 days on: the daemon notices within its next tick (a minute of the clock).
set_clock $((start + 14 * 86400 + 60))
ok wait_for 10 bash -c "[ \$(grep -l 'invitation has expired' '$dir'/out/new/* | wc -l) -eq 2 ]"
set_clock $((start + 20 * 86400))
sleep 1
ok test "$(expired)" -eq 2
ok test "$(count "$dir/out/new")" -eq 5
ok grep -q "test_clock_file" "$dir/log"
kill -TERM "$pid"
wait "$pid"
ok test $? -eq 0
# The clock options: shown by check-config, a bad timeout refused by name.
ok bash -c "'$tabula' check-config -c '$dir/t.ini' | grep -q '^timeout = auto'"
ok bash -c "'$tabula' check-config -c '$dir/t.ini' | grep -q '^invite_days = 14'"
printf '[tabula]\ntimeout = never\n' >"$dir/bad.ini"
ok bash -c "! '$tabula' check-config -c '$dir/bad.ini' 2>'$dir/err'"
ok grep -q "timeout: 'never' is neither auto nor claim" "$dir/err"
# (the store of the run above: `games` opens no store it would have to create)
printf '[tabula]\nstore_path = %s/db\ntest_clock_file = %s/none\n' "$dir" "$dir" >"$dir/bad.ini"
ok bash -c "! '$tabula' games -c '$dir/bad.ini' 2>'$dir/err'"
ok grep -q "does not hold epoch seconds" "$dir/err"
testlib_finish "$dir"/log
