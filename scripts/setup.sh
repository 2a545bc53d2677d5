#!/usr/bin/env bash
# Installs every Debian 12 package rsp and its tests need. Run as root on a fresh machine.
set -euo pipefail
packages=(
  # build
  gcc meson ninja-build pkg-config gettext
  libglib2.0-dev libtraceevent-dev libdw-dev libelf-dev libzstd-dev libgtk-3-dev libiberty-dev
  libcairo2-dev
  # recording and oracles (libc6-dbg: the symbols perf and rsp both read for libc frames)
  linux-perf libc6-dbg
  # (binutils: addr2line -i, the oracle of inlined frames)
  binutils
  # (chromium: rsp-report's HTML opened headless, as a person would; debuginfod: a local server for the
  # test of symbols fetched through DEBUGINFOD_URLS)
  chromium
  debuginfod
  # tests: sanitizers and fuzzing (clang + libFuzzer runtime), JSON tools, GUI under Xvfb
  clang libclang-rt-14-dev python3 jq
  # rsp-export tests: protoc decodes the pprof output; python3-jsonschema checks speedscope's schema
  protobuf-compiler python3-jsonschema
  # (pprof itself, built from Debian's source package by tests/export/test_export_pprof.py)
  golang-go golang-github-google-pprof-dev
  # (xauth: xvfb-run needs it, and it is only a recommendation of xvfb)
  xvfb xauth x11-apps xdotool imagemagick at-spi2-core desktop-file-utils
  # (GTK draws its theme's SVG assets through the pixbuf loader; both are only recommendations)
  librsvg2-common shared-mime-info
  # test workloads (nginx-light, sqlite3, curl, make: tests/model/data/record-workloads.sh)
  zstd nginx-light sqlite3 curl make
  # export tests: protoc decodes rsp-export --to perfetto against tests/export/perfetto_subset.proto
  protobuf-compiler
)
# (nodejs, npm: speedscope's own importer loads rsp-export's speedscope files.) Only when the machine has
# no node and npm of its own: a machine with NodeSource's nodejs (which bundles npm) cannot take Debian's
# npm package beside it ("nodejs : Conflicts: npm"), and apt then refuses the whole install.
command -v node >/dev/null 2>&1 || packages+=(nodejs)
command -v npm >/dev/null 2>&1 || packages+=(npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" != 0 ]; then
    echo "setup.sh: missing packages (${missing[*]}); run as root to install them" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "setup.sh: all packages present"
