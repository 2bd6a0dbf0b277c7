// Preloaded (node --require) into a measured process by bench/start-phases.mjs: on exit it
// writes to stderr, as one `PHASES {…}` line, when (ms since the process started) the main
// script began, the bundle (dist/main.cjs) had loaded, svc said each of its phases
// (src/cli/phase.ts: manifest read, line parsed, command's module loaded, context made),
// commander was asked for and had loaded, node:http(s) was first asked for, the first socket
// opened and the last answer ended, and its garbage collections (count, ms).
'use strict';
const { performance, PerformanceObserver } = require('node:perf_hooks');
const diagnostics = require('node:diagnostics_channel');
const Module = require('node:module');

const marks = {};
const first = (name) => (marks[name] ??= performance.now());
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (isMain) first('script');
  if (request === 'node:http' || request === 'node:https') first('http');
  if (/commander\.cjs$/.test(request)) first('commanderAsked');
  const loaded = load.apply(this, arguments);
  if (/main\.cjs$/.test(request)) first('core');
  if (/commander\.cjs$/.test(request)) first('commander');
  return loaded;
};
process.on('svc:phase', (name) => first(name));
diagnostics.subscribe('net.client.socket', () => first('socket'));
diagnostics.subscribe('http.client.response.finish', () => (marks.answered = performance.now()));
let collections = 0;
let collectionMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    collections++;
    collectionMs += entry.duration;
  }
}).observe({ entryTypes: ['gc'] });
process.on('exit', () => {
  marks.exit = performance.now();
  require('node:fs').writeSync(2, `PHASES ${JSON.stringify({ ...marks, collections, collectionMs })}\n`);
});
