#!/usr/bin/env bash
# Runs the reader's libFuzzer target (tests/fuzz/reader-fuzz.c), or with FUZZ_TARGET=model the model's
# (tests/fuzz/model-fuzz.c: record-level mutations, the model/paths/categories/profiles invariants).
# Usage: [FUZZ_TARGET=model] tests/fuzz/run-fuzzer.sh [SECONDS] [JOBS]   (default 600 s, 1 job)
# Builds build-fuzz/ with clang, libFuzzer, ASan and UBSan (coverage in the reader too, not only
# in the target); any sanitizer report, leak, crash, >10 s run or >2 GB RSS is a finding.
# New inputs go to tests/fuzz/corpus-run/ (git-ignored); findings to tests/fuzz/crash-*, leak-*,
# timeout-*, oom-*. Reproduce one with ./build-fuzz/tests/fuzz/reader-fuzz FILE; once it is
# fixed, add it to tests/fuzz/corpus/ as a regression seed (the gcc builds replay that corpus in
# every `meson test` run: test fuzz-corpus-replay).
# The log goes to stdout; the final line "Done N runs in S second(s)" and the last "cov:" line
# give executions and coverage.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-600}
jobs=${2:-1}
[ -d build-fuzz ] || CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Db_lto=false \
  -Dgui=disabled -Dc_args=-fsanitize=fuzzer-no-link
target=${FUZZ_TARGET:-reader}
ninja -C build-fuzz tests/fuzz/$target-fuzz
corpus=tests/fuzz/corpus; run=tests/fuzz/corpus-run
[ "$target" = model ] && corpus=tests/fuzz/model-corpus run=tests/fuzz/corpus-run-model
mkdir -p "$run"
export LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
maxlen=262144; [ "$target" = model ] && maxlen=1048576
args=(-max_total_time="$secs" -max_len=$maxlen -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
      -artifact_prefix=tests/fuzz/)
[ "$jobs" -gt 1 ] && args+=(-jobs="$jobs" -workers="$jobs")
exec ./build-fuzz/tests/fuzz/$target-fuzz "${args[@]}" "$run" "$corpus"
