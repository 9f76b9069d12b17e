#!/usr/bin/env bash
# Quick start, command 2: install what the tests need, build with warnings
# as errors under AddressSanitizer + UndefinedBehaviorSanitizer, build once
# more with clang, and run the whole suite (ctest prints the summary line).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/deps.sh" test
# npm oracles (chess.js, rapid-draughts, html-validate) for the live
# cross-checks, pinned by tests/oracles/package-lock.json. deps.sh installed
# gnubg, Stockfish, node and Chromium; TABULA_REQUIRE_TOOLS=1 makes an
# oracle check that finds its tool missing fail instead of skip (77), so
# this command runs every one of them.
(cd "$root/tests/oracles" && npm ci --no-audit --no-fund --loglevel=error </dev/null) ||
  { echo "npm ci in tests/oracles failed: the oracle checks need its packages" >&2; exit 1; }
export TABULA_REQUIRE_TOOLS=1
build=${TABULA_TEST_BUILD:-$root/build-test}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DTABULA_WERROR=ON \
  -DTABULA_SANITIZE=ON >/dev/null
build_quietly() { # a failed build shows its whole log
  cmake --build "$1" -j"$(nproc)" >"$1/build.log" 2>&1 || { cat "$1/build.log"; exit 1; }
}
build_quietly "$build"
# clang must build it warning-free too, and gcc with optimisation (its
# -Wformat-truncation sees other things at -O2); tests run once, on the
# sanitized build.
CC=clang cmake -S "$root" -B "$build-clang" -DTABULA_WERROR=ON >/dev/null
build_quietly "$build-clang"
cmake -S "$root" -B "$build-release" -DCMAKE_BUILD_TYPE=Release -DTABULA_WERROR=ON >/dev/null
build_quietly "$build-release"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$build"
ctest --output-on-failure -j"$(nproc)" --timeout 900
