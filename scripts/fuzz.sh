#!/usr/bin/env bash
# Fuzzes the engine's readers with libFuzzer under AddressSanitizer + UBSan (issue 15): configures build-fuzz/
# with clang++ and -DWORKBENCH_FUZZ=ON, builds only the fuzz targets (tests/fuzz/fuzz_<name>.cpp) and the small
# libraries they link, and runs each for FUZZ_SECONDS with the kept corpus tests/fuzz/corpus/<name>/ as seeds.
# New inputs go to build-fuzz/corpus/<name>/, crashes to build-fuzz/crashes/<name>/; the repository's corpus is
# only read. A crash found gets a fix and its input copied into tests/fuzz/corpus/<name>/, where the ctest entry
# fuzz_replay_<name> (label fuzz-replay, every CI run) replays it.
#
#   scripts/fuzz.sh                          # every target, 60 s each
#   FUZZ_SECONDS=300 scripts/fuzz.sh override run_history
#   FUZZ_BUILD_JOBS=1 scripts/fuzz.sh        # builds share /tmp/wb-build.lock with the other build folders
#
# Exit status: 0 when no target crashed, 1 otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

FUZZ_SECONDS=${FUZZ_SECONDS:-60}
FUZZ_BUILD_JOBS=${FUZZ_BUILD_JOBS:-2}
BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
ALL_TARGETS=(experiment override run_history run_index idx cifar10 csv checkpoint tensorboard image weights)
if [ $# -gt 0 ]; then TARGETS=("$@"); else TARGETS=("${ALL_TARGETS[@]}"); fi

if ! command -v clang++ >/dev/null; then
  echo "fuzz.sh: clang++ is needed (Debian: apt-get install clang libclang-rt-dev or clang-14)" >&2
  exit 2
fi

# Sanitizers on, no window, no precompiled header (clang cannot reuse GCC's, and the fuzz targets need no Torch).
if [ ! -f "$BUILD_DIR/CMakeCache.txt" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DWORKBENCH_FUZZ=ON -DWORKBENCH_SANITIZE=ON -DWORKBENCH_GUI=OFF -DWORKBENCH_PCH=OFF >/dev/null
fi
build_targets=()
for t in "${TARGETS[@]}"; do build_targets+=("fuzz_$t"); done
flock /tmp/wb-build.lock cmake --build "$BUILD_DIR" --target "${build_targets[@]}" -j"$FUZZ_BUILD_JOBS"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}

status=0
summary=()
for t in "${TARGETS[@]}"; do
  seeds="tests/fuzz/corpus/$t"
  found="$BUILD_DIR/corpus/$t"
  crashes="$BUILD_DIR/crashes/$t"
  log="$BUILD_DIR/fuzz-$t.log"
  mkdir -p "$found" "$crashes" "$seeds"
  echo "== fuzz_$t: ${FUZZ_SECONDS} s, seeds $seeds, log $log"
  before=$(find "$crashes" -type f | wc -l)
  set +e
  "$BUILD_DIR/tests/fuzz_$t" "$found" "$seeds" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
    -dict=tests/fuzz/json.dict -artifact_prefix="$crashes/" -print_final_stats=1 >"$log" 2>&1
  rc=$?
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  after=$(find "$crashes" -type f | wc -l)
  new_crashes=$((after - before))
  line="fuzz_$t: ${execs:-?} executions in ${FUZZ_SECONDS} s (${speed:-?}/s), corpus $(ls "$found" | wc -l) found + $(ls "$seeds" | wc -l) kept, crashes: $new_crashes"
  if [ $rc -ne 0 ] || [ "$new_crashes" -gt 0 ]; then
    status=1
    line="$line (exit $rc; see $log and $crashes/)"
    grep -m1 -E "ERROR: (AddressSanitizer|libFuzzer)|runtime error|broken promise" "$log" || true
  fi
  echo "$line"
  summary+=("$line")
done

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
exit $status
