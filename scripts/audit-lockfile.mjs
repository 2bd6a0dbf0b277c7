// CI's supply-chain check of package-lock.json, run before `npm ci` installs anything.
// Offline rules, which always run:
// - lockfile version 3, and every dependency of package.json locked at a version its
//   range allows (a hand-edited package.json cannot drift from what CI installs);
// - every locked package comes from the registry by name and version: no git, file,
//   link or tarball-URL sources, which bypass the registry's publishing;
// - only the packages in INSTALL_SCRIPTS_ALLOWED may run install scripts.
// Then the registry's advisory database (`npm audit`), when this network reaches it:
// high or critical advisories fail; an unreachable audit endpoint is said, not hidden.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

/**
 * Packages that declare install scripts: esbuild's and unrs-resolver's (the lint's import
 * resolver) only check that their platform binary is present. Nothing else may have one.
 */
const INSTALL_SCRIPTS_ALLOWED = new Set(['node_modules/esbuild', 'node_modules/unrs-resolver']);

const pkg = JSON.parse(readFileSync('package.json', 'utf8'));
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
const problems = [];

/** Enough of semver ranges for package.json's `^x.y.z`, `~x.y.z` and exact versions. */
function satisfies(version, range) {
  const [maj, min, pat] = version.split(/[.+-]/).map(Number);
  const m = /^([\^~]?)(\d+)\.(\d+)\.(\d+)$/.exec(range);
  if (!m) return false;
  const [op, rMaj, rMin, rPat] = [m[1], Number(m[2]), Number(m[3]), Number(m[4])];
  const atLeast = maj > rMaj || (maj === rMaj && (min > rMin || (min === rMin && pat >= rPat)));
  if (op === '') return version === range;
  if (op === '~') return atLeast && maj === rMaj && min === rMin;
  return atLeast && (rMaj > 0 ? maj === rMaj : min === rMin);
}

if (lock.lockfileVersion !== 3) problems.push(`lockfileVersion is ${lock.lockfileVersion}, expected 3 (npm 9+)`);
for (const field of ['dependencies', 'devDependencies']) {
  for (const [name, range] of Object.entries(pkg[field] ?? {})) {
    const locked = lock.packages[`node_modules/${name}`];
    if (!locked) problems.push(`${name} (${field}) is not in package-lock.json: run npm install`);
    else if (!satisfies(locked.version, range)) problems.push(`${name} is locked at ${locked.version}, outside package.json's ${range}: run npm install`);
  }
}
for (const [path, entry] of Object.entries(lock.packages)) {
  if (path === '') continue;
  if (entry.link) problems.push(`${path} is a link to ${entry.resolved}, not a registry package`);
  if (entry.resolved && !/^https:\/\/registry\.npmjs\.org\//.test(entry.resolved)) problems.push(`${path} comes from ${entry.resolved}, not the registry`);
  if (!/^\d+\.\d+\.\d+/.test(entry.version ?? '')) problems.push(`${path} has version "${entry.version}", not a registry version`);
  if (entry.hasInstallScript && !INSTALL_SCRIPTS_ALLOWED.has(path))
    problems.push(`${path} runs an install script and is not on the allow-list in scripts/audit-lockfile.mjs`);
}

const packages = Object.keys(lock.packages).length - 1;
if (problems.length) {
  for (const p of problems) process.stderr.write(`lockfile: ${p}\n`);
  process.exit(1);
}
process.stdout.write(`lockfile: ${packages} packages, all from the registry, scripts only from ${[...INSTALL_SCRIPTS_ALLOWED].join(', ')}\n`);

if (process.env.SVC_AUDIT_OFFLINE === '1') process.exit(0); // the tests check the offline rules only
const audit = spawnSync('npm', ['audit', '--package-lock-only', '--audit-level=high', '--json'], { encoding: 'utf8', timeout: 60_000 });
let report;
try {
  report = JSON.parse(audit.stdout);
} catch {
  report = undefined;
}
const counts = report?.metadata?.vulnerabilities;
if (!counts) {
  process.stdout.write('lockfile: npm audit: the advisory database did not answer from this network; advisories were not checked\n');
} else {
  process.stdout.write(`lockfile: npm audit: ${JSON.stringify(counts)}\n`);
  if ((counts.high ?? 0) + (counts.critical ?? 0) > 0) process.exit(1);
}
