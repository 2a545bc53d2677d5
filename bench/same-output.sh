#!/usr/bin/env bash
# Speed work must not change what rsp says. Runs the commands whose output a change to the reader, the model
# or the analyses could move, with two builds, on the given recordings, and compares their outputs byte for
# byte. Usage: bench/same-output.sh BUILD_BEFORE BUILD_AFTER FILE...   (prints one line per file and command
# that differs, then "same" or "DIFFERENT"; exit 0 when all are the same)
set -uo pipefail
before=$1 after=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmds=(
  "rsp-dump --stats --format=json"
  "rsp-dump --stacks --format=jsonl"
  "rsp-summary --tasks --format=json"
  "rsp-summary --categories --waits --format=json"
  "rsp-summary --categories --paths"
  "rsp-summary --explain"
  "rsp-export --to=folded"
  "rsp-export --to=folded --stacks=on-cpu"
  "rsp-export --to=folded --stacks=off-cpu"
)
status=0
for f in "$@"; do
  for c in "${cmds[@]}"; do
    read -r tool args <<< "$c"
    # shellcheck disable=SC2086
    "$before/src/tools/$tool" $args "$f" > "$work/a" 2> "$work/a.err"; ra=$?
    # shellcheck disable=SC2086
    "$after/src/tools/$tool" $args "$f" > "$work/b" 2> "$work/b.err"; rb=$?
    sed -i -E 's/"seconds":[0-9.e+-]+//' "$work/a" "$work/b" # --stats times itself
    if [ $ra = 2 ]; then # a usage error: the command itself is wrong
      echo "NOT RUN: $f: $c (exit $ra): $(head -c 200 "$work/a.err")"
      status=1
    fi
    if [ $ra != $rb ] || ! cmp -s "$work/a" "$work/b" || ! cmp -s "$work/a.err" "$work/b.err"; then
      echo "DIFFERENT: $f: $c (exit $ra vs $rb)"
      status=1
    fi
  done
done
[ $status = 0 ] && echo same || echo DIFFERENT
exit $status
