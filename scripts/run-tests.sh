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
# One closing line over both runs, in the form CI counts.
python3 - <<'PY'
import json
passed = failed = skipped = 0
for d in ('build', 'build-asan'):
    try:
        with open(d + '/meson-logs/testlog.json') as f:
            for line in f:
                r = json.loads(line).get('result')
                if r == 'OK' or r == 'EXPECTEDFAIL':
                    passed += 1
                elif r == 'SKIP':
                    skipped += 1
                else:
                    failed += 1
    except FileNotFoundError:
        failed += 1
print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
PY
exit $status
