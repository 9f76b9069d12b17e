#!/usr/bin/env bash
# Runs the libFuzzer targets of tests/fuzz/ for a while each (the goal:
# "each fuzz target run >= 10 minutes under ASan+UBSan").
#
# usage: bench/fuzz.sh [SECONDS_PER_TARGET] [TARGET ...]
#   SECONDS_PER_TARGET  default 600
#   TARGET              default: every fuzz_* target of the build
# environment:
#   TABULA_FUZZ_BUILD   the clang -DTABULA_FUZZ=ON build (default build-fuzz
#                       in the source tree; configured and built if needed)
#   TABULA_FUZZ_GAME    pin the rules targets to one game (rules_fuzz.c)
#   TABULA_FUZZ_JOBS    libFuzzer processes per target (default 1)
#   TABULA_FUZZ_NICE    niceness of the fuzzers (default 10)
#   TABULA_FUZZ_WORK    where the growing corpora and crashes go (default
#                       BUILD/fuzz-work; kept between runs, so a second run
#                       goes on from the first)
#
# Each target fuzzes a copy of its seed corpus (tests/fuzz/corpus/NAME/,
# never written to), with NAME.dict when there is one, niced. Prints per
# target: executions, corpus size (inputs and bytes), crashes (inputs
# kept as WORK/NAME/crash-*), and exits 1 if any target crashed: replay
# one with `BUILD/tests/fuzz/NAME WORK/NAME/crash-...`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
secs=${1:-600}
shift || true
build=${TABULA_FUZZ_BUILD:-$root/build-fuzz}
work=${TABULA_FUZZ_WORK:-$build/fuzz-work}
jobs=${TABULA_FUZZ_JOBS:-1}
niceness=${TABULA_FUZZ_NICE:-10}
# clang's libFuzzer runtime is a separate Debian package
probe=$(mktemp)
if ! printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' |
   clang -fsanitize=fuzzer -x c - -o "$probe" 2>/dev/null; then
  rm -f "$probe"
  echo "clang cannot link libFuzzer: apt-get install clang libclang-rt-14-dev" >&2
  exit 2
fi
rm -f "$probe"
if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTABULA_FUZZ=ON \
    >/dev/null
fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cd "$root/tests/fuzz" && ls -d corpus/fuzz_* | sed 's|corpus/||')
fi
nice cmake --build "$build" -j2 --target "${targets[@]}" >/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
status=0
printf '| %-14s | %7s | %12s | %8s | %8s | %9s | %7s |\n' target seconds executions \
  "exec/s" corpus "bytes" crashes
echo "|----------------|---------|--------------|----------|----------|-----------|---------|"
for t in "${targets[@]}"; do
  bin="$build/tests/fuzz/$t"
  dir="$work/$t"
  mkdir -p "$dir/corpus"
  dict=()
  par=()
  [ "$jobs" -gt 1 ] && par=(-jobs="$jobs" -workers="$jobs")
  [ -f "$root/tests/fuzz/$t.dict" ] && dict=(-dict="$root/tests/fuzz/$t.dict")
  start=$(date +%s)
  # -timeout: an input slower than 10 s is a finding too (a mail must not
  # stall the referee); new inputs go to the first directory only.
  set +e
  # (in $dir: with -jobs libFuzzer writes fuzz-N.log into the current directory)
  (cd "$dir" && exec nice -n "$niceness" "$bin" -max_total_time="$secs" -timeout=10 -max_len=1024 \
    -print_final_stats=1 "${par[@]}" -artifact_prefix="$dir/" "${dict[@]}" \
    "$dir/corpus" "$root/tests/fuzz/corpus/$t") >"$dir/log" 2>&1
  rc=$?
  set -e
  if [ "$jobs" -gt 1 ]; then cat "$dir"/fuzz-*.log >>"$dir/log" 2>/dev/null || true; fi
  took=$(( $(date +%s) - start ))
  execs=$(grep -h 'stat::number_of_executed_units' "$dir/log" | awk '{s += $2} END {print s + 0}')
  files=$(find "$dir/corpus" -type f | wc -l)
  bytes=$(du -sb "$dir/corpus" | cut -f1)
  crashes=$(find "$dir" -maxdepth 1 \( -name 'crash-*' -o -name 'timeout-*' -o -name 'leak-*' \
    -o -name 'oom-*' \) | wc -l)
  printf '| %-14s | %7d | %12d | %8d | %8d | %9d | %7d |\n' "$t" "$took" "$execs" \
    $(( execs / (took > 0 ? took : 1) )) "$files" "$bytes" "$crashes"
  grep -h '^fuzz_[a-z]*: ' "$dir/log" | sed 's/^/    /' || true
  if [ "$crashes" -gt 0 ] || [ "$rc" -ne 0 ]; then
    status=1
    grep -h -m3 'PROPERTY FAILED\|ERROR: AddressSanitizer\|runtime error\|ERROR: libFuzzer' \
      "$dir/log" | sed 's/^/    /' || true
  fi
done
exit $status
