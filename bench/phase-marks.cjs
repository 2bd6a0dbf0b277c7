// Preloaded (node --require) into a measured process by bench/start-phases.mjs: on exit it
// writes to stderr, as one `PHASES {…}` line, when (ms since the process started) the main
// script began, the bundle's core had loaded, commander was asked for and had loaded, the
// command's file was asked for (the line parsed), node:http(s) was first asked for, the first
// socket opened and the last answer ended, and its garbage collections (count, ms).
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
  // (svc's parse: commander's file is asked for, then the command's own file once the line is parsed.)
  if (/commander\.cjs$/.test(request)) first('commanderAsked');
  if (/cmd-[\w-]+\.cjs$/.test(request)) first('parsed');
  const loaded = load.apply(this, arguments);
  if (/main\.cjs$/.test(request)) first('core');
  if (/commander\.cjs$/.test(request)) first('commander');
  return loaded;
};
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
