#!/usr/bin/env bash
# The README's first command: set up, build, and run rsp on the sample recording shipped in data/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
./build/src/tools/rsp-dump --stats data/sample.perf.data
