#!/bin/bash
# Live cross-check of the chess rules core against outside programs (run by ctest as
# "bash chess_oracles.sh TABULA_BINARY SOURCE_DIR"):
#  - Stockfish (/usr/games/stockfish, or $STOCKFISH): "tabula divide FEN 3" must equal
#    Stockfish's "go perft 3" divide, line for line;
#  - chess.js 1.4.0 (node + "npm ci" in tests/oracles): "tabula moves FEN" must equal
#    chess.js's sorted "uci san" list.
# Positions: every 4th of tests/data/chess/divide.txt (random playouts, see
# tests/oracles/gen_chess_divide.sh) plus every position of perft.epd. A missing oracle
# is said and the test exits 77, ctest's skip (tests/CMakeLists.txt), after checking with
# the other; with TABULA_REQUIRE_TOOLS=1 (scripts/test.sh installs both) it fails.
# usage: bash tests/scripts/chess_oracles.sh TABULA_BINARY SOURCE_DIR [EVERY=4]
set -u
skipped=
tabula=${1:?usage: chess_oracles.sh TABULA_BINARY SOURCE_DIR [EVERY]}
src=${2:?usage: chess_oracles.sh TABULA_BINARY SOURCE_DIR [EVERY]}
every=${3:-4}
data=$src/tests/data/chess
oracles=$src/tests/oracles
SF=${STOCKFISH:-/usr/games/stockfish}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

[ -x "$tabula" ] || { echo "no tabula binary at $tabula" >&2; exit 1; }
awk -v k="$every" '/^fen / { if (n++ % k == 0) print substr($0, 5) }' "$data/divide.txt" > "$tmp/fens"
sed -e '/^#/d' -e 's/ ;.*//' "$data/perft.epd" >> "$tmp/fens"
count=$(wc -l < "$tmp/fens")
[ "$count" -ge 50 ] || { echo "only $count positions: data missing?" >&2; exit 1; }

check() { # NAME FEN OURS THEIRS
  if cmp -s "$3" "$4"; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL $1: $2"
    diff "$3" "$4" | head -10
  fi
}

if [ -x "$SF" ]; then
  # One Stockfish for all positions; "Nodes searched" closes each answer, which
  # goes to sf.1, sf.2, ... in input order.
  awk '{ print "position fen " $0; print "go perft 3" } END { print "quit" }' "$tmp/fens" |
    "$SF" 2>&1 | awk -v dir="$tmp" '
      /^[a-h][1-8][a-h][1-8][qrbn]?: [0-9]+$/ { lines[k++] = $0; next }
      /^Nodes searched:/ {
        f = dir "/sf." ++n; cmd = "LC_ALL=C sort > " f
        for (i = 0; i < k; i++) print lines[i] | cmd
        close(cmd); print "total " $3 >> f; close(f); k = 0
      }'
  i=0
  while IFS= read -r fen; do
    i=$((i + 1))
    "$tabula" divide "$fen" 3 > "$tmp/ours" 2>&1
    [ -f "$tmp/sf.$i" ] || : > "$tmp/sf.$i"
    check "stockfish divide 3" "$fen" "$tmp/ours" "$tmp/sf.$i"
  done < "$tmp/fens"
else
  echo "stockfish: skipped (not found at $SF)"
  skipped="$skipped stockfish"
fi

if command -v node > /dev/null && [ -d "$oracles/node_modules/chess.js" ]; then
  node "$oracles/chess_positions.cjs" moves < "$tmp/fens" > "$tmp/chessjs"
  while IFS= read -r fen; do
    "$tabula" moves "$fen" > "$tmp/ours" 2>&1
    awk -v f="fen $fen" '$0 == f { on = 1; next } on && $0 == "" { exit } on' "$tmp/chessjs" \
      > "$tmp/theirs"
    check "chess.js moves" "$fen" "$tmp/ours" "$tmp/theirs"
  done < "$tmp/fens"
else
  echo "chess.js: skipped (needs node and 'npm ci' in tests/oracles)"
  skipped="$skipped chess.js"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] || exit 1
# an oracle missing: a failure where the test command installed it
# (TABULA_REQUIRE_TOOLS=1, scripts/test.sh), else ctest's skip (77)
if [ -n "${skipped:-}" ]; then
  [ "${TABULA_REQUIRE_TOOLS:-0}" = 1 ] && { echo "FAIL: missing:$skipped"; exit 1; }
  exit 77
fi
