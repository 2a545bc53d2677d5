#!/usr/bin/env bash
# The README's first command: set up, build, and run rsp on the sample recording shipped in data/
# (`make -j2` of a small C project): the answer in words, where all of make's time went as the paper's
# categories table, and the process-running view exported as a PNG (no display needed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
./build/src/tools/rsp-summary --explain --categories data/sample.perf.data
if [ -x build/src/tools/rsp-view ]; then
  ./build/src/tools/rsp-view --export build/sample-running.png data/sample.perf.data
  echo "process-running view of data/sample.perf.data written to build/sample-running.png"
fi
