#!/usr/bin/env bash
# Records the kernel-work fixtures (tests/analysis/test_kernel_work.py) with rsp-record, as root:
#
#   bash tests/analysis/data/kwork/record.sh        (RSP_RECORD=path/to/rsp-record to choose the recorder)
#
#   bash tests/analysis/data/kwork/record.sh fsync  (or udp: only that one)
#
# kwork-fsync.data: two writers on a fresh ext4 with a journal (mkfs.ext4 defaults) on a loop device backed by a
#   file in /dev/shm (this VM's root ext4 has no journal), each appending 64 KiB and fsyncing, fsync-fast every
#   40 ms (20 times) and fsync-slow every 160 ms (5 times), offset by 20 ms so that their fsyncs do not share a
#   journal commit: the kernel work done for each (jbd2's commits, the loop device's kworkers, the block
#   completions) is in proportion to its fsyncs, 4 to 1.
# kwork-udp.data: udp-send sends 256-byte datagrams on loopback over 0.6 s, 480 to udp-fast (port 47311) and 120
#   to udp-slow (port 47312): the NET_RX softirq work delivering them is for the two receivers, 4 to 1.
# The workloads print what they did (pid, fsyncs, datagrams): FILE.truth, committed with the fixture; the test
# asserts against it. -F 99, short runs and zstd keep each fixture small (FILE.zst, < 3 MB with its side files).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../.." && pwd)
record=${RSP_RECORD:-$root/build/src/tools/rsp-record}
[ "$(id -u)" = 0 ] || { echo "record.sh: needs root" >&2; exit 1; }
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(fsync udp)
tmp=$(mktemp -d /var/tmp/rsp-kwork.XXXXXX)
cleanup() {
  mountpoint -q "$tmp/mnt" && umount "$tmp/mnt"
  rm -rf "$tmp" /dev/shm/rsp-kwork.img
}
trap cleanup EXIT
gcc -O2 -g -fno-omit-frame-pointer -Wall -o "$tmp/kwork-load" "$here/kwork-load.c"
sync

if [[ " ${names[*]} " == *" fsync "* ]]; then
  truncate -s 64M /dev/shm/rsp-kwork.img
  mkfs.ext4 -q -F /dev/shm/rsp-kwork.img
  mkdir -p "$tmp/mnt"
  mount -o loop /dev/shm/rsp-kwork.img "$tmp/mnt"
  cat > "$tmp/fsync.sh" << SH
"$tmp/kwork-load" fsync fsync-fast "$tmp/mnt/fast.out" 20 40 0 65536 &
"$tmp/kwork-load" fsync fsync-slow "$tmp/mnt/slow.out" 5 160 20 65536 &
wait
SH
  "$record" -q -F 99 -o "$here/kwork-fsync.data" -- bash "$tmp/fsync.sh" > "$here/kwork-fsync.data.truth"
  grep -h "$tmp/mnt\|loop" /proc/mounts | sed 's/^/# /' >> "$here/kwork-fsync.data.truth"
  umount "$tmp/mnt"
fi

if [[ " ${names[*]} " == *" udp "* ]]; then
cat > "$tmp/udp.sh" << SH
"$tmp/kwork-load" udp-recv udp-fast 47311 480 &
"$tmp/kwork-load" udp-recv udp-slow 47312 120 &
sleep 0.1
"$tmp/kwork-load" udp-send udp-send 47311 480 47312 120 600 256
wait
SH
"$record" -q -F 99 -o "$here/kwork-udp.data" -- bash "$tmp/udp.sh" > "$here/kwork-udp.data.truth"
fi
rm -rf "$here"/*.old "$here"/*.old.*
# stored compressed (the test decompresses them): 3-4 MB each raw, most of it other processes' activity
for n in "${names[@]}"; do
  zstd -q -19 -f --rm "$here/kwork-$n.data" -o "$here/kwork-$n.data.zst"
done
cat "$here"/*.truth
du -sh "$here"/kwork-*
