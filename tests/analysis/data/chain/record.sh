#!/usr/bin/env bash
# Records chain.data, the paper's toy chain (chain.c), as root with rsp-record: chain-client -> chain-server
# -> chain-worker (compute_digest, then fsync). The binary is kept here (chain-client) and was recorded from
# /tmp/rsp-chain-fixture/chain-client: tests copy it there, so its symbols resolve on any machine.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../../../.." && pwd)
gcc -O2 -g -fno-omit-frame-pointer -o "$here/chain-client" "$here/chain.c"
mkdir -p /tmp/rsp-chain-fixture
cp "$here/chain-client" /tmp/rsp-chain-fixture/chain-client
sync
"$repo/build/src/tools/rsp-record" -o "$here/chain.data" -- /tmp/rsp-chain-fixture/chain-client /var/tmp/chain-digest
