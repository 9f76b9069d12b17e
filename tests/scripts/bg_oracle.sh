#!/bin/bash
# Live cross-check of the backgammon rules core against GNU Backgammon:
# fresh random (position, roll) queries, the set of legal plays compared as
# resulting Position IDs together with gnubg's notation of each.
#
# usage: bash tests/scripts/bg_oracle.sh TABULA_BINARY SOURCE_DIR
#   BG_ORACLE_POSITIONS (default 12, times 21 rolls = 252 queries)
#   BG_ORACLE_SEED      (default: a new one each run, printed)
# Without /usr/games/gnubg it says so and exits 77, ctest's skip
# (SKIP_RETURN_CODE, tests/CMakeLists.txt); with TABULA_REQUIRE_TOOLS=1
# (scripts/test.sh, which installs gnubg) a missing gnubg fails the test.
# Fewer answers compared than queries asked (an empty gnubg output) fails.
# The committed golden data (tests/data/backgammon/plays.txt, checked by
# test_backgammon) needs no gnubg; this script checks new positions.
set -eu
bin=$1
src=$2
gnubg=${GNUBG:-/usr/games/gnubg}
if [ ! -x "$gnubg" ]; then
  if [ "${TABULA_REQUIRE_TOOLS:-0}" = 1 ]; then
    echo "bg_oracle: FAIL, $gnubg is not installed and TABULA_REQUIRE_TOOLS=1 (apt-get install gnubg)"
    exit 1
  fi
  echo "bg_oracle: skipped, $gnubg not installed (apt-get install gnubg)"
  exit 77
fi
orc="$src/tests/oracles"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# The driver links the rules library built beside the binary, and the
# base library under it (a sanitizer build needs the sanitizer runtime
# too); failing that, the rules and base sources.
lib=$(find "$(dirname "$bin")/.." -name libtabula_rules.a 2>/dev/null | head -n 1)
base=$(find "$(dirname "$bin")/.." -name libtabula_base.a 2>/dev/null | head -n 1)
[ -n "$base" ] || lib=
cflags="-std=c17 -O2 -I$src/referee/rules -I$src/referee/base"
if [ -n "$lib" ] && cc $cflags "$orc/bg_plays.c" "$lib" "$base" -o "$t/bg_plays" 2>/dev/null; then
  :
elif [ -n "$lib" ] && cc $cflags -fsanitize=address,undefined "$orc/bg_plays.c" "$lib" "$base" \
  -o "$t/bg_plays" 2>/dev/null; then
  :
else
  cc $cflags "$orc/bg_plays.c" "$src"/referee/rules/*.c "$src"/referee/base/*.c -o "$t/bg_plays"
fi

seed=${BG_ORACLE_SEED:-$(date +%s)}
echo "bg_oracle: seed $seed"
python3 "$orc/bg_random_positions.py" "${BG_ORACLE_POSITIONS:-12}" "$seed" > "$t/queries.txt"
GNUBG="$gnubg" sh "$orc/gnubg_moves.sh" < "$t/queries.txt" > "$t/gnubg.txt"
"$t/bg_plays" < "$t/queries.txt" > "$t/tabula.txt"
python3 "$orc/bg_compare.py" "$t/gnubg.txt" "$t/tabula.txt" --min "$(grep -c . "$t/queries.txt")"
