#!/usr/bin/env bash
# The README's test command: set up, build (normal and ASan+UBSan), run every test under both.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
bash scripts/build.sh --asan
status=0
meson test -C build --print-errorlogs --num-processes 2 || status=1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C build-asan --print-errorlogs --num-processes 2 --timeout-multiplier 4 || status=1
exit $status
