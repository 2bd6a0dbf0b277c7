#!/usr/bin/env node
// Thin launcher for the bundle in dist/. CommonJS (bin/package.json says so): a CommonJS
// start never initialises Node's ESM loader, which costs ~10 ms a run on Node 20.
'use strict';
const { existsSync, fstatSync, readFileSync, writeSync } = require('node:fs');
const { join } = require('node:path');

const argv = process.argv.slice(2);
const DIST = join(__dirname, '..', 'dist');

/** Writes to fd 1 at once: process.stdout would load Node's stream modules first (~5 ms). */
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

/**
 * The build's answer file for this command line (scripts/static-answers.mjs), or null:
 * - `svc [group …] --help`, `svc … -h`, `svc help [group …]`, bare `svc`: that path's help,
 *   only on a pipe or a file (where commander writes 80 columns; a terminal gets help
 *   wrapped to its width from the bundle);
 * - `svc completion SHELL`: the script.
 * Any other command line (a flag among the words, say) goes to the bundle.
 */
function staticAnswerFile() {
  if (argv.length === 2 && argv[0] === 'completion' && WORD.test(argv[1])) return `completion.${argv[1]}.txt`;
  const last = argv[argv.length - 1];
  const words = argv[0] === 'help' ? argv.slice(1) : last === '--help' || last === '-h' ? argv.slice(0, -1) : argv.length === 0 ? [] : null;
  // (`svc help help` is the bundle's "no command help": its help command has no help of its own.)
  if (!words || !words.every((word) => WORD.test(word) && word !== 'help')) return null;
  return fstatSync(1).isCharacterDevice() ? null : `${['svc', ...words].join('.')}.txt`;
}

/**
 * Prints what the build wrote for this command line, so neither the bundle nor commander
 * loads; false when there is no such file (`svc help nope`: the bundle's error).
 */
function printStaticAnswer() {
  const file = staticAnswerFile();
  if (!file) return false;
  let text;
  try {
    text = readFileSync(join(DIST, 'help', file));
  } catch {
    return false;
  }
  writeOut(text);
  return true;
}

/** The global options that take a value (GLOBAL_FLAGS in src/commands/index.ts; a test checks the two agree). */
const GLOBAL_VALUE_OPTIONS = ['--profile', '--base-url'];

/** argv's words that are neither options nor global options' values: the command's path first. */
function commandWords() {
  const words = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') return [...words, ...argv.slice(i + 1)];
    if (GLOBAL_VALUE_OPTIONS.includes(argv[i])) i++;
    else if (!argv[i].startsWith('-')) words.push(argv[i]);
  }
  return words;
}

/** The command argv names (`['calls', 'list']`), as far as the build wrote help for it; [] for none. */
function commandPath() {
  const path = [];
  for (const word of commandWords().slice(0, 3)) {
    if (!WORD.test(word) || !existsSync(join(DIST, 'help', `svc.${[...path, word].join('.')}.txt`))) break;
    path.push(word);
  }
  return path;
}

if (argv.length === 1 && argv[0] === '--version') {
  // Answered without loading the bundle (parsing it is most of what `--version` would cost).
  writeOut(`${require('../package.json').version}\n`);
} else if (!printStaticAnswer()) {
  // Node's compile cache (22+) keeps V8's compiled code of the bundle between runs, in the OS
  // temp dir's node-compile-cache/ (NODE_COMPILE_CACHE moves it, NODE_DISABLE_COMPILE_CACHE=1
  // turns it off). Node 20 has none; there node:module is not loaded at all.
  if (Number(process.versions.node.split('.')[0]) >= 22) require('node:module').enableCompileCache?.();
  const path = commandPath();
  // A command line naming a command runs from that command's start file (start-<name>.cjs:
  // the command alone and what it runs on, in one file, faster to start: scripts/bundle.mjs)
  // when it is a valid line of that command's; any other (help, a usage error) runs from
  // main.cjs, which holds the whole tree and commander and loads the rest as needed.
  const startFile = path.length && !argv.includes('--help') && !argv.includes('-h') ? join(DIST, `start-${path[0]}.cjs`) : null;
  const started = startFile && existsSync(startFile) ? require(startFile).main() : null;
  if (!started) require('../dist/main.cjs').main();
}
