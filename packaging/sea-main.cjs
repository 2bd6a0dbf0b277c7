// The standalone svc's main script (Node's single executable application, built with
// "useVfs" by scripts/dist.mjs). The npm package's own files (bin/, dist/, package.json, …)
// are a read-only file system inside the executable, mounted at a path Node chooses
// (/dev/null/vfs/<n>/), with this script at its root: the npm package's launcher runs from
// there as it runs from node_modules, and nothing of the program is written to disk.
'use strict';
const { dirname } = require('node:path');

/** How this binary was installed, for `svc version --json`: the .deb's /usr/lib/svc/svc, else standalone. */
const install = dirname(process.execPath) === '/usr/lib/svc' ? 'deb' : 'standalone';
Object.defineProperty(globalThis, '__SVC_INSTALL__', { value: install, configurable: true });
require('./bin/svc.js');
