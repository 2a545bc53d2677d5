#!/usr/bin/env bash
# Workload 5 (the paper's "xterm launch"): xterm -e sleep 0.2 under Xvfb with a small window manager (twm).
# The truth: xterm connects to the X server over its unix socket and waits for Xvfb's replies (Xvfb does the
# drawing) and twm reparents the window; sleep's 200 ms clock_nanosleep must be "timed out".
source "$(dirname "$0")/lib.sh"
real_install xvfb xterm twm x11-utils strace
D=$(real_outdir xterm)
DPY=:91
PIDS=()
stop() { local p; for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap stop EXIT
Xvfb $DPY -screen 0 1024x768x24 -nolisten tcp >/dev/null 2>&1 & PIDS+=($!)
for i in $(seq 50); do DISPLAY=$DPY xdpyinfo >/dev/null 2>&1 && break; sleep 0.1; done
DISPLAY=$DPY twm >/dev/null 2>&1 & PIDS+=($!)
sleep 1
DISPLAY=$DPY xterm -e true >/dev/null 2>&1 || true      # warm the page cache: not recorded
export DISPLAY=$DPY
real_record "$D" xterm -e sleep 0.2
real_strace "$D" xterm -e sleep 0.2
real_truth "$D" "$(cat <<J
{"name": "xterm",
 "design": "xterm -e sleep 0.2 under Xvfb $DPY with twm (X over its unix socket); the X server's work is on xterm's paths",
 "workers": [{"label": "Xvfb", "comm": "^Xvfb\$"}],
 "related": "^(xterm|sleep|Xvfb|twm)\$",
 "kernel_helpers": "^(jbd2/.*|kworker/.*|ksoftirqd/.*|rcu.*|migration/.*|swapper.*)\$",
 "nanosleep_min_ms": 200,
 "socket_waits": true,
 "senders": "^(Xvfb|twm)\$"}
J
)"
echo "xterm: recorded in $D"
