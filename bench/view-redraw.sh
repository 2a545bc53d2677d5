#!/usr/bin/env bash
# rsp-view's drawing speed on the large recording of bench/reader-throughput.sh: time to first paint
# (model build + view precomputation + first draw) and the best redraw of 5 at full zoom-out and at a
# 1 ms window, 1600x900, into a cairo image surface (what the window's draw handler does).
#
# Usage: bench/view-redraw.sh [FILE [PID]]  (after building; FILE defaults to bench/out/large.data;
#        PID: also the flame and consolidated views of that process, default: the busiest process)
#   Make the large recording first with bench/reader-throughput.sh (as root; it is kept in bench/out/).
#   RSP_VIEW  the rsp-view to measure (default build/src/tools/rsp-view)
# Target: redraw under 16 ms at every zoom.
set -euo pipefail
cd "$(dirname "$0")/.."
file=${1:-bench/out/large.data}
view=${RSP_VIEW:-build/src/tools/rsp-view}
[ -x "$view" ] || { echo "no rsp-view at $view: build first (bash scripts/build.sh)" >&2; exit 1; }
[ -f "$file" ] || { echo "no $file: record it with bench/reader-throughput.sh" >&2; exit 1; }
pid=${2:-}
if [ -z "$pid" ] && [ -x build/src/tools/rsp-summary ]; then
  pid=$(build/src/tools/rsp-summary "$file" 2>/dev/null | awk 'NR == 2 { print $1 }')
fi
echo "== with sleeps and links (the default view)${pid:+, and the flame views of pid $pid}"
"$view" --bench ${pid:+--flame "$pid"} "$file"
echo "== runs only (--no-sleeps --no-links)"
"$view" --bench --no-sleeps --no-links "$file" | grep redraw
