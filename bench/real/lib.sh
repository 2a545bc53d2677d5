# Shared helpers for bench/real/*.sh (sourced, not run). Run as root.
# Each workload writes into $RSP_REAL_OUT/NAME/ (default bench/out/real/NAME, git-ignored):
#   rec.data (+ .kallsyms.zst, .meta, .ftrace/)  the rsp-record recording of the client command
#   strace.log                                  strace -f -T -tt of the same client in a second run
#   truth.json                                  the workload's design: which process does the work, which are related
#   schedstat.before/.after                     every task's sum_exec_runtime (ns) around the recorded run
set -euo pipefail
REAL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$REAL_DIR/../.." && pwd)
RSP_RECORD=${RSP_RECORD:-$REPO/build/src/tools/rsp-record}
RSP_SUMMARY=${RSP_SUMMARY:-$REPO/build/src/tools/rsp-summary}
RSP_REAL_OUT=${RSP_REAL_OUT:-$REPO/bench/out/real}
PY=/usr/bin/python3
export DEBIAN_FRONTEND=noninteractive

die() { echo "$(basename "$0"): $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "run as root (rsp-record records system-wide)"
[ -x "$RSP_RECORD" ] || die "build first: meson setup build && ninja -C build ($RSP_RECORD missing)"

# apt-get update once per machine boot / run-all (stamp in /run), then install what is missing
real_install() {
  local missing=() p
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ ! -e /run/rsp-real-apt-updated ]; then apt-get update -q >/dev/null && touch /run/rsp-real-apt-updated; fi
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

# real_outdir NAME: fresh output directory, path on stdout
real_outdir() {
  local d="$RSP_REAL_OUT/$1"
  rm -rf "$d"; mkdir -p "$d"; echo "$d"
}

# every task's cumulative CPU time in ns (/proc/PID/task/TID/schedstat field 1): "pid tid comm ns"
real_schedstat() {
  local t
  for t in /proc/[0-9]*/task/[0-9]*; do
    local s c
    s=$(cut -d' ' -f1 "$t/schedstat" 2>/dev/null) || continue
    c=$(cat "$t/comm" 2>/dev/null) || continue
    local pid=${t#/proc/}; pid=${pid%%/*}
    echo "$pid ${t##*/} ${c// /_} $s"
  done > "$1"
}

# real_record OUTDIR CMD...: record CMD with rsp-record, its own pid in OUTDIR/client.pid
real_record() {
  local d=$1; shift
  real_schedstat "$d/schedstat.before"
  local rc=0
  "$RSP_RECORD" -q -o "$d/rec.data" -- bash -c 'echo $$ > "$0"; exec "$@"' "$d/client.pid" "$@" \
    > "$d/client.out" 2> "$d/record.err" || rc=$?
  real_schedstat "$d/schedstat.after"
  echo "$rc" > "$d/client.rc"
  [ "$rc" = 0 ] || echo "warning: recorded client exited $rc (see $d/record.err)" >&2
}

# real_strace OUTDIR CMD...: the same client again under strace (a second run: truth for syscalls and their blocking)
real_strace() {
  local d=$1; shift
  strace -f -T -tt -o "$d/strace.log" "$@" > "$d/strace.out" 2>&1 || true
}

# real_strace_pid OUTDIR PID...: attach strace to server processes too, while the client runs (used by some workloads)
real_truth() {  # real_truth OUTDIR JSON (the workload's design)
  printf '%s\n' "$2" > "$1/truth.json"
}

# A private PostgreSQL cluster on 127.0.0.1:$PG_PORT (data in /run/rsp-real-pg), database "bench".
PG_PORT=15432
PG_DIR=/run/rsp-real-pg
real_pg_bin() { ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1; }
real_pg_start() {
  real_install postgresql
  local bin; bin=$(real_pg_bin)
  real_pg_stop
  rm -rf "$PG_DIR"; mkdir -p "$PG_DIR"; chown postgres:postgres "$PG_DIR"
  su postgres -s /bin/sh -c "$bin/initdb -D $PG_DIR/data -A trust -U postgres >/dev/null"
  su postgres -s /bin/sh -c "$bin/pg_ctl -D $PG_DIR/data -l $PG_DIR/log -w -o '-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PG_DIR -c fsync=on -c synchronous_commit=on' start >/dev/null"
  "$bin/createdb" -h 127.0.0.1 -p $PG_PORT -U postgres bench
}
real_pg_stop() {
  local bin; bin=$(real_pg_bin)
  [ -e "$PG_DIR/data/postmaster.pid" ] && su postgres -s /bin/sh -c "$bin/pg_ctl -D $PG_DIR/data -m fast -w stop >/dev/null" || true
  rm -rf "$PG_DIR"     # /run is memory
}
