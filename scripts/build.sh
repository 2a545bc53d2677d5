#!/usr/bin/env bash
# Configures and builds rsp in build/ (release-ish) and, with --asan, in build-asan/ (ASan+UBSan).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = --asan ]; then
  dir=build-asan
  [ -d $dir ] || meson setup $dir -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debug -Db_lto=false
else
  dir=build
  [ -d $dir ] || meson setup $dir
fi
ninja -C $dir
