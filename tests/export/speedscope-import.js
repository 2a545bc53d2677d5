// Imports speedscope files with speedscope's own importer, headless: the npm package ships only its browser
// bundle, so the bundle runs in a node vm whose browser objects answer everything and do nothing; the UI's start-up
// fails there, but the importer of speedscope JSON (the function the bundle calls after "Importing as speedscope
// json file") is reached first and kept. Usage: node speedscope-import.js PACKAGE_DIR FILE...
// Prints one JSON line per FILE: {"file", "name", "profiles": [{"name", "total", "nonIdle"}]} or {"file",
// "error"}; exits 77 when the bundle does not have the expected shape (another speedscope version).
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');

const [dir, ...files] = process.argv.slice(2);
const release = path.join(dir, 'dist', 'release');
const bundle = fs.readdirSync(release).find(f => /^speedscope-.*\.js$/.test(f));
if (!bundle) {
  console.log('SKIP: no speedscope bundle in ' + release);
  process.exit(77);
}
let src = fs.readFileSync(path.join(release, bundle), 'utf8');
const m = src.match(/Importing as speedscope json file"\),(\w+)\(\w+\)/);
const at = m ? src.indexOf(`function ${m[1]}(`) : -1;
const next = at >= 0 ? src.indexOf('function ', at + 10) : -1;
if (next < 0) {
  console.log('SKIP: this speedscope bundle has no recognisable speedscope-JSON importer');
  process.exit(77);
}
// keep the importer where it is declared (its module's scope), before the UI starts
src = src.slice(0, next) + `globalThis.__rspImport=${m[1]};` + src.slice(next);

const nothing = new Proxy(function () {}, {
  get: (t, k) => (k === Symbol.toPrimitive ? () => '' : nothing),
  apply: () => nothing,
  construct: () => nothing,
  set: () => true,
});
const quiet = { log() {}, warn() {}, error() {}, info() {}, assert() {}, time() {}, timeEnd() {} };
const ctx = {
  console: quiet, window: nothing, document: nothing, navigator: nothing, location: nothing, localStorage: nothing,
  self: nothing, addEventListener() {}, removeEventListener() {}, requestAnimationFrame: () => 0,
  fetch: () => new Promise(() => {}), setTimeout, clearTimeout, URL, TextDecoder, TextEncoder,
};
vm.createContext(ctx);
try {
  vm.runInContext(src, ctx);
} catch (e) {
  // the UI's start-up, in no browser
}
if (typeof ctx.__rspImport !== 'function') {
  console.log('SKIP: speedscope\'s importer was not reached in the bundle');
  process.exit(77);
}
for (const file of files) {
  try {
    const group = ctx.__rspImport(JSON.parse(fs.readFileSync(file, 'utf8')));
    const profiles = group.profiles.map(p => ({
      name: p.getName(), total: p.getTotalWeight(), nonIdle: p.getTotalNonIdleWeight(),
    }));
    console.log(JSON.stringify({ file, name: group.name, profiles }));
  } catch (e) {
    console.log(JSON.stringify({ file, error: String(e && e.message || e) }));
  }
}
