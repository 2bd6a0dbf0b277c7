// Runs the shipped launcher (bin/svc.js, over the bundle) with the same argv, and reports
// the process's peak resident memory as the last line of stderr, for memory.test.ts.
'use strict';
process.on('exit', () => {
  require('node:fs').writeSync(2, `\nmaxrss_kib=${process.resourceUsage().maxRSS}\n`);
});
require('../../bin/svc.js');
