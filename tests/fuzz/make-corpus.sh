#!/usr/bin/env bash
# Makes the seed corpus: tiny real recordings (file, pipe, zstd), the synthetic all-records file,
# and heads of the test fixtures. Run as root; re-run to refresh.
set -euo pipefail
cd "$(dirname "$0")"
c=corpus
mkdir -p $c
perf record -q -o $c/file-mode.data -a -e sched:sched_switch,sched:sched_wakeup -e cpu-clock/freq=200/ -g -- sleep 0.02
perf record -q -o - -a -e sched:sched_switch -e cpu-clock/freq=200/ -- sleep 0.02 > $c/pipe-mode.data
perf record -q -z -o $c/zstd.data -a --switch-events -e sched:sched_switch -- sleep 0.02
RSP_DUMP=${RSP_DUMP:-../../build/src/tools/rsp-dump} RSP_SYNTHETIC_OUT=$c/synthetic.data \
  python3 ../unit/test_synthetic_records.py > /dev/null
for f in ../data/sched-block-irq-sock.data ../data/pipe-mode.data ../data/zstd.data; do
  head -c 16384 "$f" > "$c/head-$(basename "$f")"
done
# hand-made minimal files, and an unfinished recording (data size 0, as perf leaves it when
# killed) cut after ~6 KB of records; regress-* files are fuzz findings, kept as they were
python3 - <<'PY'
import struct
c = 'corpus'
open(c + '/min-pipe-header', 'wb').write(b'PERFILE2' + struct.pack('<Q', 16))
open(c + '/min-file-empty', 'wb').write(b'PERFILE2' + struct.pack('<6Q', 104, 136, 104, 0, 104, 0) + bytes(48))
b = bytearray(open('../data/nocallchain-switch.data', 'rb').read())
struct.pack_into('<Q', b, 48, 0)
off = data_off = struct.unpack_from('<Q', b, 40)[0]
while off < data_off + 6000:
    off += struct.unpack_from('<H', b, off + 6)[0]
open(c + '/unfinished-nocallchain-switch', 'wb').write(bytes(b[:off]))
PY
rm -f $c/*.old
ls -la $c
