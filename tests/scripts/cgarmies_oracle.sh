#!/bin/bash
# cgarmies_oracle.sh: Diceless Chessgammon with different armies (rules-spec §5.7) against an
# independent generator, tests/oracles/cg_armies.py, written in Python from the seed and Betza's
# definitions of the pieces (no engine plays this game).
#
# usage: bash tests/scripts/cgarmies_oracle.sh TABULA_BINARY SOURCE_DIR
#   The generator plays seeded random games, every army against every army, in chessgammon,
#   racingkings, bodlaender and doublemove (seed: $CGARMIES_SEED, default the clock, printed so
#   a failure can be replayed; $CGARMIES_SCALE scales the 15,840 positions). For each position
#   tabula (tests/oracles/cg_moves.c on the rules library) must give back the same position
#   string, exactly the generator's legal moves, and the generator's position after the move
#   played. Exits 1 on any difference or when fewer than 10,000 positions were compared at the
#   default scale.
set -u
bin=${1:?usage: cgarmies_oracle.sh TABULA_BINARY SOURCE_DIR}
src=${2:?usage: cgarmies_oracle.sh TABULA_BINARY SOURCE_DIR}
orc="$src/tests/oracles"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# The driver links the rules library built beside the binary and the base
# library under it (a sanitizer build needs its runtime too); failing that,
# the rules and base sources (as bg_oracle.sh does).
lib=$(find "$(dirname "$bin")/.." -name libtabula_rules.a 2>/dev/null | head -n 1)
base=$(find "$(dirname "$bin")/.." -name libtabula_base.a 2>/dev/null | head -n 1)
[ -n "$base" ] || lib=
cflags="-std=c17 -O2 -I$src/referee/rules -I$src/referee/base"
if [ -n "$lib" ] && cc $cflags "$orc/cg_moves.c" "$lib" "$base" -o "$t/cg_moves" 2>/dev/null; then
  :
elif [ -n "$lib" ] && cc $cflags -fsanitize=address,undefined "$orc/cg_moves.c" "$lib" "$base" \
  -o "$t/cg_moves" 2>/dev/null; then
  :
else
  cc $cflags "$orc/cg_moves.c" "$src"/referee/rules/*.c "$src"/referee/base/*.c -o "$t/cg_moves"
fi

seed=${CGARMIES_SEED:-$(date +%s)}
scale=${CGARMIES_SCALE:-1}
min=10000
[ "$scale" = 1 ] || min=1
echo "cgarmies_oracle: seed $seed, scale $scale"
python3 -B "$orc/cg_armies.py" "$seed" "$scale" > "$t/oracle.txt" || {
  echo "FAIL: cg_armies.py did not run"
  exit 1
}
cut -f1-3 "$t/oracle.txt" | "$t/cg_moves" > "$t/tabula.txt" || {
  echo "FAIL: cg_moves did not run"
  exit 1
}
python3 -B "$orc/cg_compare.py" "$t/oracle.txt" "$t/tabula.txt" --min "$min"
