#!/usr/bin/env bash
# Re-record the recordings kept here (as root, after building): each case's script in bench/real/ runs
# into a scratch directory, then the recording (zstd'd), its meta, ftrace capture and the truth files
# (truth.json, client.pid, schedstat before/after, strace.log) are copied to bench/real/data/NAME/.
# The kernel symbols are one shared kallsyms.zst (every FILE.kallsyms.zst here links to it; re-recording
# one case alone after a reboot needs its own copy instead of the link).
# check.py reads these directories as they are (it decompresses rec.data.zst next to it first):
#   /usr/bin/python3 bench/real/check.py bench/real/data/dovecot bench/real/data/webmail bench/real/data/xterm
# Usage: bash bench/real/data/record-data.sh [NAME...]   (default: dovecot webmail xterm)
#        RSP_REAL_DATA_COPY_ONLY=1 RSP_REAL_OUT=bench/out/real bash bench/real/data/record-data.sh NAME   (copy what run-all.sh recorded)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
names=("$@"); [ ${#names[@]} -gt 0 ] || names=(dovecot webmail xterm)
export RSP_REAL_OUT=${RSP_REAL_OUT:-/tmp/rsp-real-data}
for n in "${names[@]}"; do
  [ -n "${RSP_REAL_DATA_COPY_ONLY:-}" ] || case $n in dovecot-hog) bash "$HERE/../dovecot.sh" hog ;; *) bash "$HERE/../$n.sh" ;; esac
  src=$RSP_REAL_OUT/$n dst=$HERE/$n
  rm -rf "$dst"; mkdir -p "$dst"
  zstd -q -19 "$src/rec.data" -o "$dst/rec.data.zst"
  cp "$src/rec.data.meta" "$src/truth.json" "$src/client.pid" "$src/schedstat.before" "$src/schedstat.after" "$dst/"
  [ -e "$src/strace.log" ] && cp "$src/strace.log" "$dst/"
  cp -r "$src/rec.data.ftrace" "$dst/"
  if [ -e "$HERE/kallsyms.zst" ] && cmp -s "$HERE/kallsyms.zst" "$src/rec.data.kallsyms.zst"; then
    ln -sf ../kallsyms.zst "$dst/rec.data.kallsyms.zst"
  elif [ ! -e "$HERE/kallsyms.zst" ]; then
    cp "$src/rec.data.kallsyms.zst" "$HERE/kallsyms.zst"; ln -sf ../kallsyms.zst "$dst/rec.data.kallsyms.zst"
  else
    cp "$src/rec.data.kallsyms.zst" "$dst/"
  fi
done
