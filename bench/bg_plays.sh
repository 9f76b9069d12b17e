#!/bin/bash
# Benchmark: enumerate every legal backgammon play for the 10,080 queries of
# tests/data/backgammon/plays.txt, in tabula (tests/oracles/bg_plays.c over
# the rules core) and in GNU Backgammon (tests/oracles/gnubg_moves.sh, 0-ply
# hint of every play), in the same run; print both times (median of RUNS
# runs) and the ratio. Both sides print the same thing: per query every
# play's notation and resulting Position ID.
#
# usage: bash bench/bg_plays.sh [BUILD_DIR]   (RUNS=3 by default; gnubg takes
#        about 80 s a run). BUILD_DIR holds libtabula_rules.a (found below
#        it); without one the rules sources are compiled with -O2.
set -eu
src=$(cd "$(dirname "$0")/.." && pwd)
runs=${RUNS:-3}
gnubg=${GNUBG:-/usr/games/gnubg}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

lib=
if [ $# -ge 1 ]; then
  lib=$(find "$1" -name libtabula_rules.a | head -n 1)
  base=$(find "$1" -name libtabula_base.a | head -n 1) # the buffer the rules core draws in
fi
if [ -n "$lib" ] && [ -n "$base" ]; then
  cc -std=c17 -O2 -I"$src/referee/rules" -I"$src/referee/base" "$src/tests/oracles/bg_plays.c" \
    "$lib" "$base" -o "$t/bg_plays"
else
  cc -std=c17 -O2 -I"$src/referee/rules" -I"$src/referee/base" "$src/tests/oracles/bg_plays.c" \
    "$src"/referee/rules/*.c "$src"/referee/base/*.c -o "$t/bg_plays"
fi
cut -d' ' -f1-3 "$src/tests/data/backgammon/plays.txt" > "$t/queries.txt"
nq=$(wc -l < "$t/queries.txt")

# Wall time of one command in seconds (stdout to a file).
timeit() {
  local out=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  "$@" < "$t/queries.txt" > "$out"
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc -l
}
median() {
  sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}

: > "$t/tab.times"
: > "$t/gnu.times"
for i in $(seq "$runs"); do
  timeit "$t/tabula.txt" "$t/bg_plays" >> "$t/tab.times"
  if [ -x "$gnubg" ]; then
    timeit "$t/gnubg.txt" env GNUBG="$gnubg" sh "$src/tests/oracles/gnubg_moves.sh" >> "$t/gnu.times"
  fi
done
tab=$(median < "$t/tab.times")
plays=$(grep -vc '^#' "$t/tabula.txt")
printf '%-28s %10s %12s %12s\n' "backgammon legal plays" "queries" "plays" "seconds"
printf '%-28s %10d %12d %12.3f\n' "tabula (rules core)" "$nq" "$plays" "$tab"
if [ -s "$t/gnu.times" ]; then
  gnu=$(median < "$t/gnu.times")
  printf '%-28s %10d %12d %12.3f\n' "gnubg 1.07 (hint, 0-ply)" "$nq" \
    "$(grep -vc '^#' "$t/gnubg.txt")" "$gnu"
  printf 'ratio gnubg / tabula: %.1f   (median of %d runs; same answers: %s)\n' \
    "$(echo "$gnu / $tab" | bc -l)" "$runs" \
    "$(python3 "$src/tests/oracles/bg_compare.py" "$t/gnubg.txt" "$t/tabula.txt" | head -n 1)"
else
  echo "gnubg not installed ($gnubg): tabula only"
fi
