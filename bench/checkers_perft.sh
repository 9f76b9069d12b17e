#!/bin/bash
# checkers_perft.sh: speed of the checkers rules core (referee/rules/checkers.c) against the
# rapid-draughts oracle, on perft 9 and 10 from the start position. Both counts must equal the
# published ones (OEIS A133046: 3963680 and 18391564), or the script exits 1.
#
# usage: bash bench/checkers_perft.sh [TABULA_BINARY]
#   With a tabula binary (default: the first build*/referee/tabula found), times
#   `tabula perft -g checkers startpos N`. Without one, it compiles a small driver over
#   referee/rules/*.c and referee/base/*.c (the rules core needs nothing else but libc) with cc -O2 and times that.
#   rapid-draughts runs through tests/oracles/checkers_oracle.mjs (needs node and `npm ci` in
#   tests/oracles); without it, only our times are printed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
tabula=${1:-}
if [ -z "$tabula" ]; then
  for t in "$root"/build*/referee/tabula /work/build*/referee/tabula; do
    if [ -x "$t" ]; then
      tabula=$t
      break
    fi
  done
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -n "$tabula" ] && "$tabula" perft -g checkers startpos 1 >/dev/null 2>&1; then
  ours() { "$tabula" perft -g checkers startpos "$1"; }
  what="tabula perft ($tabula)"
else
  cat > "$tmp/perft.c" <<'C'
#include "rules.h"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
  const struct ref_game_desc *g = ref_game_find("checkers");
  struct ref_state *s = g ? ref_state_new(g) : NULL;
  struct ref_err err;
  if(!s || argc < 2 || g->ops->init(s, NULL, &err) != REF_OK)
    return 1;
  printf("%llu\n", (unsigned long long)ref_perft(g, s, (int)strtol(argv[1], NULL, 10)));
  free(s);
  return 0;
}
C
  cc -std=c17 -O2 -D_POSIX_C_SOURCE=200809L -I"$root/referee/rules" -I"$root/referee/base" \
    -o "$tmp/perft" "$tmp/perft.c" "$root"/referee/rules/*.c "$root"/referee/base/*.c || exit 1
  ours() { "$tmp/perft" "$1"; }
  what="rules core driver (cc -O2)"
fi

oracle=
if command -v node >/dev/null 2>&1 && [ -d "$root/tests/oracles/node_modules/rapid-draughts" ]; then
  oracle="$root/tests/oracles/checkers_oracle.mjs"
fi

now() { date +%s.%N; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
status=0
echo "checkers perft from B:W21-32:B1-12; ours: $what"
for depth in 9 10; do
  case $depth in
    9) want=3963680 ;;
    10) want=18391564 ;;
  esac
  t0=$(now)
  got=$(ours "$depth")
  t1=$(now)
  ours_s=$(minus "$t0" "$t1")
  line=$(printf 'depth %2d: %s (%s) ours %s s' "$depth" "$got" \
    "$([ "$got" = "$want" ] && echo ok || echo "WRONG, want $want")" "$ours_s")
  [ "$got" = "$want" ] || status=1
  if [ -n "$oracle" ]; then
    t0=$(now)
    theirs=$(node "$oracle" perft "B:W21-32:B1-12" "$depth")
    t1=$(now)
    theirs_s=$(minus "$t0" "$t1")
    [ "$theirs" = "$want" ] || status=1
    line="$line, rapid-draughts $theirs $theirs_s s, ratio $(awk -v a="$theirs_s" \
      -v b="$ours_s" 'BEGIN { printf "%.1f", a / (b > 0 ? b : 0.001) }')x"
  fi
  echo "$line"
done
exit $status
