# testlib.sh: what the shell test scripts (tests/scripts/*.sh) share, written
# once; sourced, never run (it is not in tests/scripts, so ctest does not
# register it). A script calls, in order:
#   testlib_start NAME        its scratch folder $dir (/tmp/tabula-NAME.XXXXXX),
#                             pass=0 fail=0
#   testlib_ini [LINE...]     $dir/t.ini: a store, an inbox and an outbox in
#                             $dir, the daemon's poll at 50 ms, then each LINE
#   ok CMD...                 counts CMD's success or failure, names a failure
#   wait_for SECONDS CMD...   polls until CMD succeeds (status 1 when it never does)
#   count DIR                 how many entries DIR holds (0 when it is missing)
#   drop NAME                 stdin as a mail into $dir/in/new/NAME, the Maildir
#                             way (written in tmp/, then renamed)
#   testlib_finish [LOG...]   "N passed, M failed"; $dir removed when all
#                             passed, else kept and named with the tail of the
#                             LOGs; the exit status (a script that checked
#                             nothing fails)

testlib_start() {
  dir=$(mktemp -d "/tmp/tabula-$1.XXXXXX")
  pass=0 fail=0
}

testlib_ini() {
  {
    printf '[tabula]\nstore_path = %s/db\ninbox = %s/in\noutbox = %s/out\n' "$dir" "$dir" "$dir"
    printf 'address = referee@example.org\ndomain = example.org\npoll_ms = 50\n'
    local line
    for line in "$@"; do printf '%s\n' "$line"; done
  } >"$dir/t.ini"
}

ok() { if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $*"; fi; }

wait_for() {
  local limit=$(($1 * 10)); shift
  while ! "$@"; do limit=$((limit - 1)); [ $limit -gt 0 ] || return 1; sleep 0.1; done
}

count() { ls "$1" 2>/dev/null | wc -l; }

drop() { cat >"$dir/in/tmp/$1" && mv "$dir/in/tmp/$1" "$dir/in/new/$1"; }

testlib_finish() {
  echo "$pass passed, $fail failed"
  if [ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]; then
    rm -rf "$dir"
    return 0
  fi
  echo "(kept $dir)"
  [ $# -eq 0 ] || cat "$@" 2>/dev/null | tail -30
  return 1
}
