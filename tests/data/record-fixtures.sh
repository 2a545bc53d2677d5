#!/usr/bin/env bash
# Records the perf.data fixtures of rsp's oracle tests (tests/oracle/) with the real perf on this machine.
#
#   sudo bash tests/data/record-fixtures.sh            # re-records every fixture
#   sudo bash tests/data/record-fixtures.sh zstd.data  # re-records the named ones only
#
# Needs root (system-wide recording, drop_caches), perf, python3, zstd. Each fixture is a short (< 1 s) system-wide
# recording of a workload made to produce every event in the set: a pipe ping-pong and a loopback TCP exchange
# between two python processes, fork/exec of short commands, a cold-cache read of 30 headers of /usr/include/linux
# (12 in the short workload) and a write with fsync (block events in task context as well as in the completion
# interrupt). The sizes are kept small (< 600 KB a file): a few hundred cold files would give megabytes.
# At the end of each recording the script prints the samples per event and flags the events that have none.
#
#   sched-block-irq-sock.data  file mode, -g, the full event set, --switch-events, cpu-clock at 997 Hz
#   pipe-mode.data             the same in pipe mode (perf record -o - > FILE), shorter workload
#   zstd.data                  the same in file mode with -z (PERF_RECORD_COMPRESSED)
#   nocallchain-switch.data    no -g, the sched tracepoints only, --switch-events
#
# Tracepoints keep the default period of 1 and only cpu-clock gets a frequency: a global -F would put the
# tracepoints in frequency mode and perf would keep a sample of them only (/work/shared/platform/perf-loss.md).
# Times are CLOCK_MONOTONIC (-k), as rsp expects.
#
# Kernel symbols: one snapshot of /proc/kallsyms for all fixtures, kallsyms.zst, and beside each fixture a relative
# symlink FIXTURE.kallsyms.zst -> kallsyms.zst (rsp looks for FILE.kallsyms or FILE.kallsyms.zst). All fixtures of a
# run come from the same boot, so the snapshot is re-taken at every run and is valid for all of them; re-recording
# only some fixtures on a later boot would leave the others with the wrong one, so the script refuses that.
#
# The build-id cache is left alone (-N): the oracle tests run perf with an empty cache so that perf, like rsp,
# resolves user symbols from the binaries on disk.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# The system python, not a pyenv/virtualenv shim that would fork and exec its own helpers into the recordings.
PY=${PY:-/usr/bin/python3}

sched_events=sched:sched_switch,sched:sched_wakeup,sched:sched_waking,sched:sched_wakeup_new
sched_events+=,sched:sched_process_fork,sched:sched_process_exec,sched:sched_process_exit
block_events=block:block_rq_insert,block:block_rq_issue,block:block_rq_complete
irq_events=irq:irq_handler_entry,irq:irq_handler_exit,irq:softirq_entry,irq:softirq_exit
sock_events=sock:sk_data_ready,sock:sock_send_length,sock:sock_recv_length,sock:inet_sock_set_state
# The event set of the full fixtures (and of data/sample.perf.data, see data/record-sample.sh).
full_events=(-e "$sched_events,$block_events,$irq_events,$sock_events" -e 'cpu-clock/freq=997/')
common=(-a -k CLOCK_MONOTONIC --switch-events -N -q)

# Two python processes: a pipe ping-pong (ROUNDS round trips of one byte), then a loopback TCP exchange (ROUNDS
# requests of growing size, each answered with twice as many bytes) between a forked server and the client.
# 127.0.0.1 only.
read -r -d '' PINGPONG_TCP <<'EOF' || true
import os, socket, sys
rounds = int(sys.argv[1])

a_r, a_w = os.pipe()
b_r, b_w = os.pipe()
pid = os.fork()
if pid == 0:
    for _ in range(rounds):
        os.read(a_r, 1)
        os.write(b_w, b'y')
    os._exit(0)
for _ in range(rounds):
    os.write(a_w, b'x')
    os.read(b_r, 1)
os.waitpid(pid, 0)

srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(('127.0.0.1', 0))
srv.listen(1)
port = srv.getsockname()[1]
pid = os.fork()
if pid == 0:
    conn, _ = srv.accept()
    while True:
        data = conn.recv(65536)
        if not data:
            break
        conn.sendall(data * 2)
    conn.close()
    os._exit(0)
srv.close()
cl = socket.create_connection(('127.0.0.1', port))
for i in range(rounds):
    size = 64 + 16 * i
    cl.sendall(b'q' * size)
    got = 0
    while got < 2 * size:
        got += len(cl.recv(65536))
cl.close()
os.waitpid(pid, 0)
EOF

# The workload that perf records, run by this script itself (see record()): $1 = full or short, $2 = a scratch dir.
workload() {
  local kind=$1 dir=$2 rounds=25 nfiles=30
  exec >/dev/null   # in pipe mode stdout is the recording
  if [ "$kind" = short ]; then rounds=10 nfiles=12; fi
  # fork/exec of short commands
  /bin/true
  uname -a >/dev/null
  ls / >/dev/null
  # pipe ping-pong and loopback TCP
  "$PY" -c "$PINGPONG_TCP" "$rounds"
  # The block I/O runs beside a busy loop on each CPU: on this VM perf drops the events fired in softirq context
  # on an idle CPU, block_rq_complete among them (perf-loss.md, section 2).
  local spinners=() i
  for i in $(seq "$(nproc)"); do
    (while :; do :; done) &
    spinners+=($!)
  done
  # a small cold-cache read (record() dropped the caches): block_rq_* with completions in interrupt context
  local files=(/usr/include/linux/*.h)
  cat "${files[@]:0:nfiles}" >/dev/null
  # a write with fsync: block_rq_insert/issue in task context
  dd if=/dev/zero of="$dir/fsync.out" bs=64k count=4 conv=fsync status=none
  rm -f "$dir/fsync.out"
  kill "${spinners[@]}"
  wait "${spinners[@]}" 2>/dev/null || true
}

if [ "${1:-}" = --workload ]; then
  workload "$2" "$3"
  exit 0
fi

# record NAME: records tests/data/NAME
record() {
  local name=$1 out=$here/$1 scratch
  scratch=$(mktemp -d -p /var/tmp)   # on disk, not tmpfs: the fsync must reach the block layer
  local run=(bash "$here/record-fixtures.sh" --workload full "$scratch")
  # The caches are dropped before the recording, not in it: dropping dentries and inodes sets off hundreds of RCU
  # softirqs that would double the size of the file. Then everything the workload runs is read back into the cache,
  # so that the cold reads in the recording are those of the files it cats.
  sync
  echo 3 >/proc/sys/vm/drop_caches
  "$PY" -c "$PINGPONG_TCP" 1
  /bin/true; uname -a >/dev/null; ls / >/dev/null; cat /dev/null; seq 1 >/dev/null; nproc >/dev/null
  dd if=/dev/zero of="$scratch/warm" bs=1 count=1 status=none
  perf version >/dev/null
  sleep 0.5
  case $name in
    sched-block-irq-sock.data)
      perf record "${common[@]}" -g "${full_events[@]}" -o "$out" -- "${run[@]}" ;;
    pipe-mode.data)
      run[3]=short
      perf record "${common[@]}" -g "${full_events[@]}" -o - -- "${run[@]}" >"$out" ;;
    zstd.data)
      perf record "${common[@]}" -g -z "${full_events[@]}" -o "$out" -- "${run[@]}" ;;
    nocallchain-switch.data)
      run[3]=short
      perf record "${common[@]}" -e "$sched_events" -o "$out" -- "${run[@]}" ;;
    *)
      echo "record-fixtures.sh: unknown fixture $name" >&2; rm -rf "$scratch"; return 1 ;;
  esac
  rm -rf "$scratch" "$out.old"
  chmod 644 "$out"
  ln -sfn kallsyms.zst "$out.kallsyms.zst"
  printf '%-28s %8d bytes\n' "$name" "$(stat -c %s "$out")"
  # Every event of the set should have samples; say which have none (another machine, another kernel).
  local want=$sched_events
  [ "$name" = nocallchain-switch.data ] || want+=",$block_events,$irq_events,$sock_events,cpu-clock/freq=997/"
  perf script -i "$out" -F event -G 2>/dev/null | sed 's/^ *//; s/: *$//' | sort | uniq -c |
    awk -v want="$want" 'BEGIN { n = split(want, w, ","); for (i = 1; i <= n; i++) if (w[i] != "") miss[w[i]] = 1 }
         { printf "  %-28s %5d\n", $2, $1; delete miss[$2] }
         END { for (e in miss) printf "  %-28s     0  <- no samples\n", e }'
}

all=(sched-block-irq-sock.data pipe-mode.data zstd.data nocallchain-switch.data)
if (($#)); then
  boot_id=$(cat /proc/sys/kernel/random/boot_id)
  if [ "$(cat "$here/kallsyms.boot_id" 2>/dev/null)" != "$boot_id" ]; then
    echo "record-fixtures.sh: kallsyms.zst comes from another boot; re-record all fixtures (no arguments)" >&2
    exit 1
  fi
  fixtures=("$@")
else
  fixtures=("${all[@]}")
  cat /proc/kallsyms | zstd -q -19 -T0 -f -o "$here/kallsyms.zst"
  cat /proc/sys/kernel/random/boot_id >"$here/kallsyms.boot_id"
fi
for f in "${fixtures[@]}"; do
  record "$f"
done
