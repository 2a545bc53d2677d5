#!/usr/bin/env bash
# rsp-view's memory as a user meets it (issue 18: at most 0.3x the file): the app opened on FILE with no settings,
# under Xvfb, as it loads (first window, then the whole), opens the recorded command's flame and consolidated
# views, explanation and histograms. Prints its resident memory every second, then the peak (VmHWM) and the
# settled RSS, in MB and as a share of the file's size, and the time until it settled.
#
# Usage: bench/view-memory.sh FILE [TIMEOUT_S]   (after building; needs Xvfb; TIMEOUT_S default 120)
#   RSP_VIEW  the rsp-view to measure (default build/src/tools/rsp-view)
# Settled: RSS unchanged (within 1 MB) for 3 s.
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:?usage: bench/view-memory.sh FILE [TIMEOUT_S]}
timeout_s=${2:-120}
view=${RSP_VIEW:-build/src/tools/rsp-view}
[ -x "$view" ] || { echo "no rsp-view at $view: build first (bash scripts/build.sh)" >&2; exit 1; }
[ -f "$file" ] || { echo "no $file" >&2; exit 1; }
command -v Xvfb > /dev/null || { echo "needs Xvfb (apt-get install xvfb)" >&2; exit 1; }
display=:$((90 + RANDOM % 100))
config=$(mktemp -d)
Xvfb "$display" -screen 0 1400x900x24 > /dev/null 2>&1 &
xvfb=$!
sleep 1
DISPLAY=$display XDG_CONFIG_HOME=$config "$view" "$file" > /dev/null 2>&1 &
app=$!
trap 'kill $app $xvfb 2> /dev/null; rm -rf "$config"' EXIT
size=$(stat -c %s "$file")
start=$(date +%s.%N)
last=0 same=0 rss=0 hwm=0
for ((i = 0; i < timeout_s * 4; i++)); do
  sleep 0.25
  [ -r /proc/$app/status ] || { echo "rsp-view ended" >&2; exit 1; }
  rss=$(awk '/^VmRSS/ { print $2 }' /proc/$app/status)
  hwm=$(awk '/^VmHWM/ { print $2 }' /proc/$app/status)
  ((i % 4 == 3)) && printf '%5.1f s: RSS %d MB, peak %d MB\n' "$(echo "$(date +%s.%N) - $start" | bc)" \
    $((rss / 1024)) $((hwm / 1024))
  if ((rss - last < 1024 && last - rss < 1024)); then
    ((++same >= 12)) && break
  else
    same=0
  fi
  last=$rss
done
awk -v hwm="$hwm" -v rss="$rss" -v size="$size" -v t="$(echo "$(date +%s.%N) - $start - 3" | bc)" -v f="$file" 'BEGIN {
  printf "%s (%.0f MB): peak RSS %.0f MB (%.3fx the file), settled %.0f MB (%.3fx) after %.1f s\n", f, size / 1e6,
    hwm * 1024 / 1e6, hwm * 1024 / size, rss * 1024 / 1e6, rss * 1024 / size, t }'
