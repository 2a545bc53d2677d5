#!/bin/sh
# Builds the Firefox Profiler's own importer as one node script, for test_export_firefox.py (RSP_FIREFOX_IMPORTER):
# the profiler (github.com/firefox-devtools/profiler) is neither in Debian nor on npm, so its TypeScript sources
# (a checkout's src/) are bundled with esbuild around unserializeProfileOfArbitraryFormat, the function its "Load
# a profile from file" calls (it upgrades a Gecko profile and processes it). Two modules only the UI or other
# formats use are stubbed (json-slabs is not on the npm registry; devtools-reps draws values).
#   tests/export/firefox-importer.sh PROFILER_CHECKOUT OUT.js
#   RSP_FIREFOX_IMPORTER=OUT.js meson test -C build export-firefox
# OUT.js FILE prints {"meta": {...}, "threads": [{"name", "tid", "pid", "samples", "markers"}]} or {"error"}.
set -eu
src=$(cd "$1/src" && pwd)
out=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent esbuild @streamparser/json common-tags long memoize-immutable memoize-one \
  mixedtuplemap namedtuplemap reselect protobufjs escape-string-regexp
mkdir stubs
echo "export function isJsonSlabsFile() { return false; } export function decode() { throw new Error('json-slabs'); }
export function encode() { throw new Error('json-slabs'); }" > stubs/json-slabs.js
echo "export const ValueSummaryReader = {}; export const REPS = {}; export const MODE = {};" > stubs/devtools-reps.js
cat > entry.ts <<'EOT'
import { unserializeProfileOfArbitraryFormat } from 'firefox-profiler/profile-logic/process-profile';
import * as fs from 'fs';
(async () => {
  const profile: any = await unserializeProfileOfArbitraryFormat(fs.readFileSync(process.argv[2], 'utf8'));
  console.log(JSON.stringify({
    meta: { version: profile.meta.version, categories: profile.meta.categories.length },
    threads: profile.threads.map((t: any) => ({ name: t.name, tid: Number(t.tid), pid: Number(t.pid),
      samples: t.samples.length, markers: t.markers.length })),
  }));
})().catch((e) => { console.log(JSON.stringify({ error: String((e && e.message) || e) })); process.exit(1); });
EOT
cat > build.js <<EOT
const esbuild = require('esbuild');
const path = require('path');
const stubs = { 'json-slabs': 'stubs/json-slabs.js', 'devtools-reps': 'stubs/devtools-reps.js' };
esbuild.build({
  entryPoints: ['entry.ts'], bundle: true, platform: 'node', outfile: '$out', logLevel: 'error',
  alias: { 'firefox-profiler': '$src' }, nodePaths: [path.resolve('node_modules')],
  resolveExtensions: ['.ts', '.tsx', '.js', '.json'],
  loader: { '.ftl': 'text', '.svg': 'text', '.png': 'empty', '.css': 'empty' },
  plugins: [{ name: 'stubs', setup(build) {
    build.onResolve({ filter: /^(json-slabs|devtools-reps)$/ }, a => ({ path: path.resolve(stubs[a.path]) }));
  } }],
}).catch(() => process.exit(1));
EOT
node build.js
echo "firefox-importer.sh: wrote $out"
