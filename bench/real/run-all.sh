#!/usr/bin/env bash
# Run every bench/real workload (as root), then check rsp's answer against the truth and write
# bench/real/RESULTS.md (the categories table of each workload with its truth and the issue's criteria).
# Usage: bash bench/real/run-all.sh [NAME...]   (default: all, in the issue's priority order)
# Env: RSP_REAL_OUT (default bench/out/real), RSP_RECORD, RSP_SUMMARY.
set -uo pipefail
cd "$(dirname "$0")"
OUT=${RSP_REAL_OUT:-$(cd ../.. && pwd)/bench/out/real}
export RSP_REAL_OUT=$OUT
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(dovecot webmail pgbench make xterm ffmpeg dovecot-hog)
dirs=()
for n in "${names[@]}"; do
  echo "=== $n" >&2
  case $n in
    dovecot-hog) bash ./dovecot.sh hog ;;
    *) bash "./$n.sh" ;;
  esac
  rc=$?
  [ $rc = 0 ] || echo "run-all: $n.sh failed ($rc)" >&2
  [ -e "$OUT/$n/truth.json" ] && dirs+=("$OUT/$n")
done
/usr/bin/python3 ./check.py --markdown RESULTS.md --json "$OUT/results.json" "${dirs[@]}"
