#!/usr/bin/env bash
# Runs the reader's libFuzzer target. Usage: tests/fuzz/run-fuzzer.sh [SECONDS] (default 600).
# Builds build-fuzz/ with clang, ASan, UBSan and libFuzzer; new inputs go to tests/fuzz/corpus-run/
# (git-ignored), crashes to tests/fuzz/crash-*. Add fixed crashers to tests/fuzz/corpus/.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-600}
[ -d build-fuzz ] || CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false -Dgui=disabled \
  -Dc_args=-fsanitize=fuzzer-no-link  # coverage in the reader, not only in the target
ninja -C build-fuzz tests/fuzz/reader-fuzz
mkdir -p tests/fuzz/corpus-run
LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp ./build-fuzz/tests/fuzz/reader-fuzz -max_total_time="$secs" -max_len=262144 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix=tests/fuzz/ tests/fuzz/corpus-run tests/fuzz/corpus
