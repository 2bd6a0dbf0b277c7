#!/usr/bin/env node
// Thin launcher for the bundle in dist/. CommonJS (bin/package.json says so): a CommonJS
// start never initialises Node's ESM loader, which costs ~10 ms a run on Node 20.
'use strict';
if (process.argv.length === 3 && process.argv[2] === '--version') {
  // Answered without loading the bundle (parsing it is most of what `--version` would cost).
  process.stdout.write(`${require('../package.json').version}\n`);
} else {
  // Node 22.8+ keeps V8's compiled code of the bundle on disk between runs (the OS temp
  // dir's node-compile-cache/), so a run skips most of the parsing and compiling of
  // main.cjs. Older Node has no such API; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
  // (node:module is not even loaded on Node 20, where it pulls in the ESM loader, ~3 ms.)
  if (Number(process.versions.node.split('.')[0]) >= 22) {
    const { enableCompileCache } = require('node:module');
    if (typeof enableCompileCache === 'function') enableCompileCache();
  }
  require('../dist/main.cjs').main();
}
