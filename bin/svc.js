#!/usr/bin/env node
// The launcher. `--version` (package.json) and `completion SHELL` (the script dist/completions/
// ships, generated from the manifest) are answered at once; any other command line runs in
// the bundle (dist/main.cjs, scripts/bundle.mjs), which finds its command in the manifest.
// CommonJS (bin/package.json says so): a CommonJS start never initialises Node's ESM loader.
'use strict';
const argv = process.argv.slice(2);

/** `svc completion SHELL`'s script, as the build writes it to dist/completions/ (scripts/gen-completions.mjs). */
const COMPLETION_FILES = { bash: 'svc.bash', zsh: 'svc.zsh', fish: 'svc.fish', powershell: 'svc.ps1' };

/** Writes to fd 1 at once: process.stdout would load Node's stream modules first. */
function writeOut(text) {
  const { writeSync } = require('node:fs');
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(1, bytes, offset);
  } catch (error) {
    if (error.code === 'EAGAIN')
      process.stdout.write(bytes.subarray(offset)); // a full non-blocking pipe: queued
    else if (error.code !== 'EPIPE') {
      // EPIPE: the reader has gone (`svc completion bash | head -1`). Anything else (a full
      // disk: ENOSPC) is said in a line, as the bundle says it, never as a stack trace.
      const reason = error.code === 'ENOSPC' ? 'the disk is full' : String(error.message || error.code);
      try {
        writeSync(2, `error: cannot write the output: ${reason}\n`);
      } catch {
        // stderr is gone too: the exit code says it
      }
      process.exitCode = 1;
    }
  }
}

if (argv.length === 1 && argv[0] === '__keychain-child') {
  // svc's own keychain process (bin/keychain-child.js), started by svc, never by a person.
  require('./keychain-child.js');
} else if (argv.length === 1 && argv[0] === '--version') {
  writeOut(`${require('../package.json').version}\n`);
} else if (argv.length === 2 && argv[0] === 'completion' && Object.hasOwn(COMPLETION_FILES, argv[1])) {
  writeOut(require('node:fs').readFileSync(require('node:path').join(__dirname, '..', 'dist', 'completions', COMPLETION_FILES[argv[1]])));
} else {
  // Node's compile cache (22+) keeps V8's compiled code of the bundle between runs, in the OS
  // temp dir's node-compile-cache/ (NODE_COMPILE_CACHE moves it, NODE_DISABLE_COMPILE_CACHE=1
  // turns it off). Node 20 has none, and there node:module is not loaded at all.
  // The standalone binary (packaging/sea-main.cjs) writes nothing of the program to disk, so
  // it keeps no compile cache.
  if (Number(process.versions.node.split('.')[0]) >= 22 && !globalThis.__SVC_INSTALL__) require('node:module').enableCompileCache?.();
  require('../dist/main.cjs').main();
}
