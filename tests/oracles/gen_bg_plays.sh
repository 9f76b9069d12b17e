#!/bin/sh
# Regenerates tests/data/backgammon/plays*.txt: the legal plays of 10,080
# random backgammon (position, roll) queries as GNU Backgammon lists them.
#
# Oracle: gnubg 1.07.001 (Debian package `gnubg`, binary /usr/games/gnubg),
# driven through its embedded Python by gnubg_moves.py (a copy of
# shared/oracles/gnubg_moves.py: one line per distinct resulting position,
# "notation<TAB>resulting Position ID from the next roller's view").
# Queries: bg_random_positions.py 480 SEED (a copy of the shared generator:
# five styles, spread / bar-heavy / bear-off / contact / mixed, times all 21
# rolls), so the set covers bar entry, hits, bear-off, doubles and rolls
# with no legal play.
#
# Output (committed):
#   plays.txt       one line per query: PID D1 D2 N FNV_IDS FNV_LINES
#                   N = number of distinct plays; FNV_IDS = FNV-1a 64 (hex)
#                   of the sorted resulting IDs, each followed by "\n";
#                   FNV_LINES = FNV-1a 64 of the lines "ID<TAB>notation\n"
#                   sorted by ID (so gnubg's notation is pinned too).
#   plays_full.txt  gnubg's raw answer for the first 210 queries (10
#                   positions), so a failing test can show the difference.
#
# usage: sh tests/oracles/gen_bg_plays.sh [SEED]   (default seed 20261122,
#        about two minutes; needs /usr/games/gnubg)
set -e
here=$(cd "$(dirname "$0")" && pwd)
data="$here/../data/backgammon"
seed=${1:-20261122}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
python3 "$here/bg_random_positions.py" 480 "$seed" > "$t/queries.txt"
sh "$here/gnubg_moves.sh" < "$t/queries.txt" > "$t/gnubg.txt"
python3 "$here/bg_compact.py" "$t/queries.txt" "$t/gnubg.txt" "$data/plays.txt" \
  "$data/plays_full.txt" 210
