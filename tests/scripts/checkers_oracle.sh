#!/bin/bash
# checkers_oracle.sh: re-checks English checkers move generation against an outside program,
# npm rapid-draughts 1.0.6 (shared oracles.md 3.2), on a fresh sample of positions each run.
#
# usage: bash tests/scripts/checkers_oracle.sh TABULA_BINARY SOURCE_DIR [COUNT [SEED]]
#   (ctest passes the first two.) COUNT random positions (default 25, or $CHECKERS_ORACLE_COUNT)
#   reached by random play with seed SEED (default: the clock, or $CHECKERS_ORACLE_SEED; it is
#   printed so a failure can be replayed), plus the start position at depth 6. For each, the
#   output of `tabula divide -g checkers FEN 3` must equal the oracle's divide byte for byte
#   (sorted "MOVE: n" lines, then "total N"). Positions with king ring captures in the tree
#   are left out by checkers_random.mjs: rapid-draughts gets those wrong, and
#   tests/unit/rules/test_checkers.c checks them by hand.
# Needs node and the npm package: `npm ci` in tests/oracles. Without them it says SKIP and
# exits 77, ctest's skip (tests/CMakeLists.txt); with TABULA_REQUIRE_TOOLS=1 (scripts/test.sh,
# which installs both) their absence fails. Prints "N passed, M failed"; exits 1 on any
# failure, and when fewer than half of COUNT positions (plus the start) were compared.
set -u
tabula=${1:?usage: checkers_oracle.sh TABULA_BINARY SOURCE_DIR [COUNT [SEED]]}
src=${2:?usage: checkers_oracle.sh TABULA_BINARY SOURCE_DIR [COUNT [SEED]]}
count=${3:-${CHECKERS_ORACLE_COUNT:-25}}
seed=${4:-${CHECKERS_ORACLE_SEED:-$(date +%s)}}
oracles="$src/tests/oracles"

skip() {
  if [ "${TABULA_REQUIRE_TOOLS:-0}" = 1 ]; then
    echo "FAIL: $1, and TABULA_REQUIRE_TOOLS=1"
    exit 1
  fi
  echo "SKIP: $1"
  exit 77
}
command -v node >/dev/null 2>&1 || skip "node is not installed"
[ -d "$oracles/node_modules/rapid-draughts" ] ||
  skip "rapid-draughts is not installed (run: cd tests/oracles && npm ci)"


positions=$(node "$oracles/checkers_random.mjs" "$count" "$seed" 3) || {
  echo "FAIL: checkers_random.mjs did not run"
  exit 1
}
echo "seed $seed: $(echo "$positions" | wc -l) random positions at depth 3, the start at depth 6"

pass=0
fail=0
check() { # FEN DEPTH
  local want got
  want=$(node "$oracles/checkers_oracle.mjs" divide "$1" "$2" | sed 's/^total: /total /')
  got=$("$tabula" divide -g checkers "$1" "$2" 2>&1)
  if [ -n "$want" ] && [ "$want" = "$got" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $1 depth $2 (< rapid-draughts, > tabula)"
    diff <(echo "$want") <(echo "$got") | head -20
  fi
}

while read -r fen; do
  check "$fen" 3
done <<< "$positions"
check "B:W21-32:B1-12" 6

echo "$pass passed, $fail failed"
if [ "$pass" -lt $((count / 2 + 1)) ]; then
  echo "FAIL: only $pass positions compared, fewer than half of $count and the start"
  exit 1
fi
[ "$fail" -eq 0 ]
