#!/bin/bash
# Regenerates the chess goldens from outside oracles (run by hand, output committed):
#   tests/data/chess/divide.txt  Stockfish 15.1 divide ("go perft DEPTH") per position
#   tests/data/chess/san.txt     chess.js 1.4.0 legal moves as "uci san" per position
# Positions: chess_positions.cjs (random playouts from the six CPW perft roots,
# stratified so e.p., castling, promotion and check positions are all present).
#
# usage: bash tests/oracles/gen_chess_divide.sh [N=240] [SEED=20261122] [DEPTH=3]
# needs: /usr/games/stockfish (Debian "stockfish"), node >= 18, and chess.js
#        installed here by "npm ci" (package.json/package-lock.json pin 1.4.0).
# Last run: 2026-11-22, Debian 12, stockfish 15.1-4, node 20; about 40 s.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../data/chess
N=${1:-240}
SEED=${2:-20261122}
DEPTH=${3:-3}
SF=${STOCKFISH:-/usr/games/stockfish}

[ -x "$SF" ] || { echo "no stockfish at $SF" >&2; exit 1; }
[ -d "$here/node_modules/chess.js" ] || (cd "$here" && npm ci --no-audit --no-fund)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

node "$here/chess_positions.cjs" "$N" "$SEED" > "$tmp/fens"
[ "$(wc -l < "$tmp/fens")" -eq "$N" ] || { echo "position generator failed" >&2; exit 1; }

# One Stockfish process for all positions; "Nodes searched" closes each block.
# Stockfish does not validate FENs (oracles.md §1.1): these all come from chess.js.
awk -v d="$DEPTH" '{ print "position fen " $0; print "go perft " d } END { print "quit" }' \
  "$tmp/fens" | "$SF" > "$tmp/sf"
{
  echo "# Stockfish 15.1 divide (go perft $DEPTH), made by tests/oracles/gen_chess_divide.sh $N $SEED $DEPTH"
  echo "# Blocks: 'fen FEN', 'depth D', sorted 'uci: nodes' lines, 'total N', blank line."
  awk -v d="$DEPTH" '
    FILENAME == ARGV[1] { fen[n++] = $0; next }
    /^[a-h][1-8][a-h][1-8][qrbn]?: [0-9]+$/ { lines[k++] = $0; next }
    /^Nodes searched:/ {
      print "fen " fen[b++]; print "depth " d
      fflush()
      cmd = "LC_ALL=C sort"
      for (i = 0; i < k; i++) print lines[i] | cmd
      close(cmd)
      print "total " $3; print ""; k = 0
    }
    END { if (b != n) { print "stockfish answered " b " of " n > "/dev/stderr"; exit 1 } }
  ' "$tmp/fens" "$tmp/sf"
} > "$tmp/divide"

{
  echo "# chess.js 1.4.0 legal moves, made by tests/oracles/gen_chess_divide.sh $N $SEED $DEPTH"
  echo "# Blocks: 'fen FEN', sorted 'uci san' lines, blank line."
  node "$here/chess_positions.cjs" moves < "$tmp/fens"
} > "$tmp/san"

mv "$tmp/divide" "$data/divide.txt"
mv "$tmp/san" "$data/san.txt"
echo "wrote $data/divide.txt and $data/san.txt ($N positions, depth $DEPTH)"
