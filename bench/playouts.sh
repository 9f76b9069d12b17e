#!/bin/bash
# The playout table of every registered game system: 1,000 seeded random
# games each (bench/playouts.c), with the invariant, position and notation
# checks after every step.
#
# usage: bench/playouts.sh [BUILD_DIR=./build] [GAMES=1000] [CAP=2000]
# Point it at a Release/RelWithDebInfo build dir; prints one Markdown table.
set -eu
build=${1:-./build}
exe=$build/bench/tabula-playouts
[ -x "$exe" ] || { echo "no $exe (build the tabula-playouts target first)" >&2; exit 2; }
exec "$exe" -n "${2:-1000}" -c "${3:-2000}" -s 1
