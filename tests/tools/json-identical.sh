#!/usr/bin/env bash
# Byte-identity of everything rsp writes as JSON (and the exports beside it), for a change that must not alter
# the output (one JSON writer instead of several escapers): capture the outputs of one build, capture those of
# another, compare them with cmp.
#
#   tests/tools/json-identical.sh capture BUILD_DIR OUT_DIR   every command's stdout, stderr and status in OUT_DIR
#   tests/tools/json-identical.sh compare OLD_DIR NEW_DIR     cmp file by file; status 1 on any difference
#   tests/tools/json-identical.sh normalize OUT_DIR           what varies from run to run made constant (below)
#
# Recordings: data/*.data, tests/**/*.data, bench/real/data/*/rec.data.zst (decompressed), a few of
# ../shared/robustness and ../shared/foreign when present, and one made here from the sample whose COMM records
# hold quotes, backslashes, control characters, DEL, non-BMP characters and invalid UTF-8 (FIXTURES, default
# /tmp/rsp-json-fixtures, holds the made and decompressed files).
#
# Two things differ from run to run whatever the build, and are normalized after the capture (normalize OUT_DIR):
# rsp-dump --stats's "seconds" (its own wall time) and the order of rsp-diff's error lines (it loads A and B on two
# threads). model-json (tests/model) is captured too; it is a test helper, not rsp's output.
set -uo pipefail
cd "$(dirname "$0")/../.."
SRC=$PWD
FIXTURES=${FIXTURES:-/tmp/rsp-json-fixtures}
SHARED=${SHARED:-/work/shared}

make_fixtures() {
  mkdir -p "$FIXTURES"
  for d in bench/real/data/*/; do
    name=$(basename "$d")
    [ -f "$d/rec.data.zst" ] || continue
    mkdir -p "$FIXTURES/bench-$name"
    [ -f "$FIXTURES/bench-$name/rec.data" ] || zstd -q -d -f "$d/rec.data.zst" -o "$FIXTURES/bench-$name/rec.data"
    for side in "$d"/rec.data.*; do
      case "$side" in *.zst) [ "$side" = "$d/rec.data.zst" ] && continue ;; esac
      ln -sfn "$SRC/$side" "$FIXTURES/bench-$name/$(basename "$side")"
    done
  done
  # COMM names no comm holds in a real recording, written over four COMM records of the sample (each within its
  # record's NUL-padded slot)
  python3 - "$SRC/data/sample.perf.data" "$FIXTURES/odd-comms.data" <<'PY'
import struct, sys
data = bytearray(open(sys.argv[1], 'rb').read())
names = {36608: b'm"\\\x01\xff\n',                          # make: quote, backslash, control, invalid byte, newline
         44248: b'\xf0\x9f\x98\x80\t\x7f',                   # cc1: U+1F600 (non-BMP), tab, DEL
         77640: b'\xc3\xa9\xe2\x82\xac\xc3',                 # cc1: é, €, a truncated character
         96864: b'\xed\xa0\x80x\xf4\x90\x80\x80\x1f\\"\x08'}  # collect2: a surrogate, past U+10FFFF, 0x1f, \b
for off, name in names.items():
    typ, _, size = struct.unpack_from('<IHH', data, off)
    slot = size - 16 - 32                                    # header, pid/tid; sample_id_all's 32 bytes after
    assert typ == 3 and len(name) < slot, (off, typ, size)
    data[off + 16:off + 16 + slot] = name + bytes(slot - len(name))
open(sys.argv[2], 'wb').write(data)
PY
}

recordings() {
  ls data/*.data
  find tests -name '*.data' -not -path '*/corpus*' | sort
  ls "$FIXTURES"/bench-*/rec.data "$FIXTURES/odd-comms.data"
  for f in robustness/run-longer-than-span.data robustness/runtime-gt-span.data robustness/sleep-gt-span.data \
           robustness/view-hang-walk.data foreign/hotspot__perf.data.true.v2 foreign/linux-perf-data__sleep.data \
           foreign/linux-perf-data__sleep.compressed.data foreign/perfparser__fork_static_gcc_perf.data.zstd \
           foreign/derived__junk-tail.pipe.data foreign/quipper__perf.data.armv7-3.4; do
    [ -f "$SHARED/$f" ] && echo "$SHARED/$f"
  done
}

# run OUT NAME COMMAND...: stdout, stderr and the exit status of COMMAND
run() {
  local out=$1 name=$2
  shift 2
  timeout 300 "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo $? >"$out/$name.rc"
}

capture() {
  local build=$1 out=$2 t=$1/src/tools
  mkdir -p "$out"
  make_fixtures
  local prev=data/sample.perf.data
  recordings | while read -r f; do
    n=$(echo "${f#"$SHARED"/}" | sed "s|^$FIXTURES/||; s|[/.]|_|g")
    for mode in "" --tasks --categories --waits --paths --explain --accounting "--categories --waits --explain" \
                --profiles "--profiles --resolution=4 --time-slices=0.05"; do
      run "$out" "$n.summary$(echo "$mode" | tr -d ' =')" "$t/rsp-summary" --format=json $mode "$f"
    done
    for to in perfetto speedscope firefox pprof folded; do
      run "$out" "$n.export-$to" "$t/rsp-export" --to=$to "$f"
    done
    run "$out" "$n.export-folded-oncpu" "$t/rsp-export" --to=folded --stacks=on-cpu "$f"
    run "$out" "$n.export-folded-offcpu" "$t/rsp-export" --to=folded --stacks=off-cpu "$f"
    run "$out" "$n.export-firefox-range" "$t/rsp-export" --to=firefox --range=0.01:0.05 "$f"
    run "$out" "$n.dump-jsonl" "$t/rsp-dump" --format=jsonl "$f"
    run "$out" "$n.dump-jsonl-stacks-details" "$t/rsp-dump" --format=jsonl --stacks --details "$f"
    run "$out" "$n.dump-stats" "$t/rsp-dump" --format=json --stats --symbolize "$f"
    run "$out" "$n.dump-header" "$t/rsp-dump" --header "$f"
    run "$out" "$n.diff" "$t/rsp-diff" --format=json --top=0 "$prev" "$f"
    run "$out" "$n.diff-all" "$t/rsp-diff" --format=json --all --top=0 "$f" "$prev"
    [ -x "$build/tests/model/model-json" ] && run "$out" "$n.model-json" "$build/tests/model/model-json" "$f"
    prev=$f
  done
  normalize "$out"
  echo "$(ls "$out" | wc -l) files in $out"
}

normalize() {
  local f
  for f in "$1"/*.dump-stats.out; do
    sed -i 's/"seconds":[0-9.]*/"seconds":TIME/' "$f"
  done
  for f in "$1"/*.diff.err "$1"/*.diff-all.err; do
    LC_ALL=C sort -o "$f" "$f"
  done
}

compare() {
  local old=$1 new=$2 differ=0 n=0
  for f in "$old"/*; do
    n=$((n + 1))
    if ! cmp -s "$f" "$new/$(basename "$f")"; then
      echo "differs: $(basename "$f")"
      differ=$((differ + 1))
    fi
  done
  [ "$(ls "$old" | wc -l)" = "$(ls "$new" | wc -l)" ] || { echo "not the same files"; differ=$((differ + 1)); }
  echo "$n files compared, $differ differ"
  [ $differ = 0 ]
}

case "${1:-}" in
capture) capture "$2" "$3" ;;
normalize) normalize "$2" ;;
compare) compare "$2" "$3" ;;
*) echo "usage: $0 capture BUILD_DIR OUT_DIR | normalize OUT_DIR | compare OLD_DIR NEW_DIR" >&2; exit 2 ;;
esac
