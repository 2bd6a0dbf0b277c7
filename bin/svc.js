#!/usr/bin/env node
// The launcher. What the build wrote answers at once (`--version`, help on a pipe, `completion
// SHELL`); any other command line runs in the bundle (dist/main.cjs, scripts/bundle.mjs).
// CommonJS (bin/package.json says so): a CommonJS start never initialises Node's ESM loader.
'use strict';
const { fstatSync, readFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');

const argv = process.argv.slice(2);

/** Writes to fd 1 at once: process.stdout would load Node's stream modules first. */
function writeOut(text) {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  let offset = 0;
  try {
    while (offset < bytes.length) offset += writeSync(1, bytes, offset);
  } catch (error) {
    if (error.code === 'EAGAIN')
      process.stdout.write(bytes.subarray(offset)); // a full non-blocking pipe: queued
    else if (error.code !== 'EPIPE') throw error; // EPIPE: the reader has gone (`svc --help | head -1`)
  }
}

const WORD = /^[a-z0-9][a-z0-9-]*$/;
/** `svc completion SHELL`'s script, as completions/ ships it (scripts/gen-completions.mjs). */
const COMPLETION_FILES = { bash: 'svc.bash', zsh: 'svc.zsh', fish: 'svc.fish', powershell: 'svc.ps1' };

/**
 * The file the build wrote for this command line, or null:
 * - `svc [group …] --help`, `svc … -h`, `svc help [group …]`, bare `svc`: that path's help,
 *   only on a pipe or a file (a terminal gets help wrapped to its width, from the bundle);
 * - `svc completion SHELL`: the script.
 * Any other command line (a flag among the words, say) goes to the bundle.
 */
function answerFile() {
  if (argv.length === 2 && argv[0] === 'completion' && Object.hasOwn(COMPLETION_FILES, argv[1]))
    return join(__dirname, '..', 'completions', COMPLETION_FILES[argv[1]]);
  const last = argv[argv.length - 1];
  const words = argv[0] === 'help' ? argv.slice(1) : last === '--help' || last === '-h' ? argv.slice(0, -1) : argv.length === 0 ? [] : null;
  // (`svc help help` is the bundle's "no command help": its help command has no help of its own.)
  if (!words || !words.every((word) => WORD.test(word) && word !== 'help')) return null;
  return fstatSync(1).isCharacterDevice() ? null : join(__dirname, '..', 'dist', 'help', `${['svc', ...words].join('.')}.txt`);
}

/** Prints what the build wrote for this command line; false when there is no such file (`svc help nope`: the bundle's error). */
function printAnswer() {
  const file = answerFile();
  if (!file) return false;
  let text;
  try {
    text = readFileSync(file);
  } catch {
    return false;
  }
  writeOut(text);
  return true;
}

if (argv.length === 1 && argv[0] === '__keychain-child') {
  // svc's own keychain process (bin/keychain-child.js), started by svc, never by a person.
  require('./keychain-child.js');
} else if (argv.length === 1 && argv[0] === '--version') {
  writeOut(`${require('../package.json').version}\n`);
} else if (!printAnswer()) {
  // Node's compile cache (22+) keeps V8's compiled code of the bundle between runs, in the OS
  // temp dir's node-compile-cache/ (NODE_COMPILE_CACHE moves it, NODE_DISABLE_COMPILE_CACHE=1
  // turns it off). Node 20 has none, and there node:module is not loaded at all.
  if (Number(process.versions.node.split('.')[0]) >= 22) require('node:module').enableCompileCache?.();
  require('../dist/main.cjs').main();
}
