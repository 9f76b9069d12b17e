#!/bin/bash
# Perft speed of the chess rules core against Stockfish, and the deep published counts.
#
# usage: bench/perft.sh [TABULA=./build/referee/tabula] [RUNS=5]
#   env: STOCKFISH (default /usr/games/stockfish), DEPTH (default 6), EPD (default
#        tests/data/chess/perft.epd beside this script), SKIP_DEEP=1 to skip part 2.
# Builds nothing: point it at a built (Release or RelWithDebInfo) tabula.
#
# Part 1 times "tabula perft startpos DEPTH" and Stockfish's "go perft DEPTH" alternately,
# RUNS times each, and prints the median wall time, nodes and Mnps of each and the ratio
# tabula/stockfish. Stockfish's time includes its start-up (loading the NNUE net), so its
# median start-up ("quit" alone) is measured too and subtracted in the "stockfish net"
# row; the ratio uses that net time, which favours Stockfish.
# Part 2 runs the deeper published counts (start d6, Kiwipete d5, pos3 d7, pos4, pos4
# mirrored, pos5, pos6 d5) from perft.epd and prints OK or FAIL for each.
set -u
here=$(cd "$(dirname "$0")" && pwd)
tabula=${1:-./build/referee/tabula}
runs=${2:-5}
depth=${DEPTH:-6}
SF=${STOCKFISH:-/usr/games/stockfish}
epd=${EPD:-$here/../tests/data/chess/perft.epd}
[ -x "$tabula" ] || { echo "no tabula binary at $tabula (build it first)" >&2; exit 2; }

now() { date +%s%N; }
secs() { awk -v n="$1" 'BEGIN { printf "%.3f", n / 1e9 }'; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

t_tab=()
t_sf=()
t_sf0=()
for ((i = 0; i < runs; i++)); do
  t0=$(now)
  n_tab=$("$tabula" perft startpos "$depth")
  t1=$(now)
  t_tab+=($((t1 - t0)))
  if [ -x "$SF" ]; then
    t0=$(now)
    n_sf=$(printf 'position startpos\ngo perft %s\nquit\n' "$depth" | "$SF" |
      awk '/^Nodes searched:/ { print $3 }')
    t1=$(now)
    t_sf+=($((t1 - t0)))
    t0=$(now)
    printf 'quit\n' | "$SF" > /dev/null
    t1=$(now)
    t_sf0+=($((t1 - t0)))
  fi
done

m_tab=$(printf '%s\n' "${t_tab[@]}" | median)
printf '%-16s %10s %12s %8s\n' "perft d$depth" "median s" "nodes" "Mnps"
printf '%-16s %10s %12s %8.1f\n' "tabula" "$(secs "$m_tab")" "$n_tab" \
  "$(awk -v n="$n_tab" -v t="$m_tab" 'BEGIN { print n / t * 1000 }')"
if [ -x "$SF" ]; then
  m_sf=$(printf '%s\n' "${t_sf[@]}" | median)
  m_sf0=$(printf '%s\n' "${t_sf0[@]}" | median)
  net=$(awk -v a="$m_sf" -v b="$m_sf0" 'BEGIN { print (a > b) ? a - b : 1 }')
  printf '%-16s %10s %12s %8.1f\n' "stockfish" "$(secs "$m_sf")" "$n_sf" \
    "$(awk -v n="$n_sf" -v t="$m_sf" 'BEGIN { print n / t * 1000 }')"
  printf '%-16s %10s %12s %8.1f\n' "stockfish net" "$(secs "$net")" "$n_sf" \
    "$(awk -v n="$n_sf" -v t="$net" 'BEGIN { print n / t * 1000 }')"
  printf '%-16s %10s\n' "start-up" "$(secs "$m_sf0")"
  printf 'ratio tabula/stockfish (net): %s   (%d runs each, alternating)\n' \
    "$(awk -v a="$m_tab" -v b="$net" 'BEGIN { printf "%.2f", a / b }')" "$runs"
  [ "$n_tab" = "$n_sf" ] || echo "NODE COUNTS DIFFER: tabula $n_tab, stockfish $n_sf"
else
  echo "stockfish: not found at $SF, no ratio"
fi

[ "${SKIP_DEEP:-0}" = 1 ] && exit 0
echo
printf '%-10s %5s %14s %14s %9s  %s\n' "position" "depth" "published" "tabula" "seconds" "result"
bad=0
for want in start:6 kiwipete:5 pos3:7 pos4:5 pos4m:5 pos5:5 pos6:5; do
  id=${want%%:*}
  d=${want#*:}
  line=$(grep -E ";id $id\$" "$epd") || { echo "$id: not in $epd"; bad=1; continue; }
  fen=${line%% ;*}
  pub=$(printf '%s\n' "$line" | grep -oE ";D$d [0-9]+" | cut -d' ' -f2)
  t0=$(now)
  got=$("$tabula" perft "$fen" "$d")
  t1=$(now)
  res=OK
  [ "$got" = "$pub" ] || { res=FAIL; bad=1; }
  printf '%-10s %5s %14s %14s %9s  %s\n' "$id" "$d" "$pub" "$got" "$(secs $((t1 - t0)))" "$res"
done
exit $bad
