// Preloaded (node --require) into a measured process: on exit it appends the
// process's own peak resident set size, in KiB, to the file named by SVC_BENCH_RSS_FILE.
'use strict';
const file = process.env.SVC_BENCH_RSS_FILE;
if (file) {
  process.on('exit', () => {
    require('node:fs').appendFileSync(file, `${process.resourceUsage().maxRSS}\n`);
  });
}
