#!/usr/bin/env bash
# Nothing a writer puts into the inbox's new/ is lost (docs/architecture.md,
# "The inbox"): a mail written there in place, not by the Maildir way of
# tmp/ and a rename, is read only once it is whole: never while empty,
# never while a writer holds it open, never acknowledged (moved to cur/)
# before. Under `serve` (the watch) and `poll` (one pass, cron):
#   - a slow writer: `exec 3> new/x; sleep 2; printf ... >&3; exec 3>&-`;
#   - a writer that stops half way, the fd open, then writes the rest;
#   - `cat > new/m`;
#   - an empty file: left in new/, unanswered, until it is written.
# usage: inbox_writers.sh TABULA SOURCE_DIR
set -u
tabula=$1
. "${BASH_SOURCE%/*}/../harness/testlib.sh"
testlib_start writers
testlib_ini
head_of() { # head_of FROM ID: a mail's header and its blank line
  printf 'From: %s\nTo: referee@example.org\nSubject: a game\nMessage-ID: <%s@example.org>\n\n' "$1" "$2"
}
# answered FROM TEXT: a reply to FROM in out/new quotes TEXT (a first `new`
# is answered with a request to confirm it, which quotes the request)
answered() { grep -lq "^To: <$1>" "$dir"/out/new/* 2>/dev/null &&
  grep -l "^To: <$1>" "$dir"/out/new/* | xargs grep -q "$2"; }
in_cur() { ls "$dir/in/cur" | grep -q "^$1:"; }
in_new() { test -f "$dir/in/new/$1"; }

# ---- under serve ----
"$tabula" serve -c "$dir/t.ini" 2>"$dir/serve.log" &
pid=$!
wait_for 5 test -d "$dir/in/new"
sleep 0.5 # the watch opens after the first pass

# the slow writer of the brief: the file is empty for two seconds
( exec 3>"$dir/in/new/x"; sleep 2; { head_of alice@example.org x1; echo "new chess with bob@example.org"; } >&3; exec 3>&- ) &
w1=$!
# one that stops half way with the file open: the header, then the body
( exec 4>"$dir/in/new/y"; head_of carol@example.org y1 >&4; sleep 2; echo "new checkers with dave@example.org" >&4; exec 4>&- ) &
w2=$!
# cat > new/m, the quick start's way before it said otherwise
{ head_of erin@example.org m1; echo "new backgammon with frank@example.org"; } | cat >"$dir/in/new/m"
# an empty file
: >"$dir/in/new/e"
sleep 1
# after a second: neither slow mail was taken while unfinished
ok in_new x
ok in_new y
ok test ! -e "$dir/in/cur/x:2,S"
ok test ! -e "$dir/in/cur/y:2,S"
wait $w1 $w2
ok wait_for 10 answered alice@example.org "new chess with bob@example.org"
ok wait_for 10 answered carol@example.org "new checkers with dave@example.org"
ok wait_for 10 answered erin@example.org "new backgammon with frank@example.org"
ok wait_for 5 in_cur x
ok wait_for 5 in_cur y
ok wait_for 5 in_cur m
# the empty file: still in new/, never acknowledged, nothing sent for it
sleep 1
ok in_new e
ok test "$(ls "$dir/in/cur" | grep -c '^e:')" -eq 0
ok test "$(ls "$dir/out/new" | wc -l)" -eq 3
# written at last (an editor's save): answered
{ head_of gina@example.org e1; echo "new chess with hank@example.org"; } >"$dir/in/new/e"
ok wait_for 10 answered gina@example.org "new chess with hank@example.org"
ok wait_for 5 in_cur e
kill -TERM "$pid"
wait "$pid"
ok test $? -eq 0
ok grep -q "write each mail into .*/tmp/ and rename it into .*/new/" "$dir/serve.log"

# ---- one pass at a time: poll ----
exec 5>"$dir/in/new/p"
head_of ivan@example.org p1 >&5
: >"$dir/in/new/q"
"$tabula" poll -c "$dir/t.ini" 2>"$dir/poll.log"
ok test $? -eq 0
ok in_new p
ok in_new q
ok test "$(ls "$dir/out/new" | wc -l)" -eq 4
echo "new chess with judy@example.org" >&5
exec 5>&-
"$tabula" poll -c "$dir/t.ini" 2>>"$dir/poll.log"
ok answered ivan@example.org "new chess with judy@example.org"
ok in_cur p
ok in_new q
ok test "$(ls "$dir/out/new" | wc -l)" -eq 5
# ---- a writer the daemon cannot ask the kernel about ----
# The daemon as its own user, the operator writing as root: no read lease
# on another user's file, so the watch's word (written, not yet closed)
# decides; a writer that pauses longer than the 2 s of the modification
# time is still waited for. Only as root, who can be both.
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  rm -rf "$dir/in" "$dir/out" "$dir"/db*
  chmod 755 "$dir"
  mkdir -p "$dir/in" "$dir/out"
  chown -R 65534:65534 "$dir/in" "$dir/out"
  sed -i "s|store_path = .*|store_path = $dir/nb/db|" "$dir/t.ini"
  mkdir -p "$dir/nb" && chown 65534:65534 "$dir/nb"
  setpriv --reuid=65534 --regid=65534 --clear-groups "$tabula" serve -c "$dir/t.ini" 2>"$dir/nobody.log" &
  pid=$!
  wait_for 5 test -d "$dir/in/new"
  sleep 0.5
  ( exec 6>"$dir/in/new/r"; head_of kim@example.org r1 >&6; sleep 4; echo "new chess with lee@example.org" >&6; exec 6>&- )
  ok wait_for 10 answered kim@example.org "new chess with lee@example.org"
  ok wait_for 5 in_cur r
  kill -TERM "$pid"
  wait "$pid"
  ok test $? -eq 0
fi
testlib_finish "$dir"/*.log
