// `svc emulator`: run the local emulator of the service until Ctrl-C.
import { commandModule, defineCommand, repeated, type FlagsOf } from '../kit/define.js';
import type { BaseContext } from '../context.js';
import { DEFAULT_EMULATOR_HOST, DEFAULT_EMULATOR_PORT } from '../contract/constants.js';
import { NewerFormatFileError, UsageError } from '../errors.js';
import { printText } from '../io/output.js';
import { browserUnreachable } from '../kit/no-browser.js';
import { configDir } from '../config/paths.js';
import { dirname, join, resolve } from 'node:path';

export interface EmulatorStartOptions {
  port: number;
  host: string;
  json: boolean;
  /** --state FILE: keep the world in FILE across restarts. */
  state?: string | undefined;
  /** --import FILE: start from this document instead of the seed. */
  importFrom?: string | undefined;
  /** --export FILE: write the state file's world as a document to FILE, then exit (no server). */
  exportTo?: string | undefined;
  /** --allow-host NAME (repeatable): more Host names to answer. */
  allowHosts?: string[] | undefined;
  /** --open: open the dashboard in the browser once listening. */
  open?: boolean | undefined;
  /** --https: serve over TLS from the local CA. */
  https?: boolean | undefined;
}

export const command = defineCommand({
  summary: 'run the local emulator of the service',
  flags: {
    port: { value: '<n>', kind: { type: 'integer', min: 0, max: 65535 }, default: `${DEFAULT_EMULATOR_PORT}`, help: 'port to listen on' },
    host: { value: '<host>', default: DEFAULT_EMULATOR_HOST, help: 'address to listen on' },
    state: { value: '<file>', help: 'keep the whole state in this file across restarts (created from the seed if missing)' },
    import: { value: '<file>', kind: { type: 'file' }, help: 'start from this exported document instead of the seed' },
    export: { value: '<file>', help: 'write the --state file as a readable document to this file, then exit' },
    allowHost: { value: '<name>', repeatable: true, help: 'also answer requests for this Host name (repeatable)' },
    open: { help: "open the dashboard (the emulator's root URL) in the browser" },
    https: { help: 'serve over https, with a certificate from a local CA the emulator makes once and keeps' },
  },
  examples: [
    'svc emulator',
    'svc emulator --https',
    'svc emulator --port 0',
    'svc emulator --state ~/.svc-emulator.jsonl',
    'svc emulator --state s.jsonl --export fixture.json',
  ],
  scopes: [],
});

/** The declaration's flags (each may be left out when called directly, as the tests do), and the global --json. */
export type EmulatorStartFlags = Partial<FlagsOf<typeof command>> & { json?: boolean };

/**
 * Validates the flags before anything starts. Accepts `(flags)` or the command tree's
 * generic `(args, flags)`.
 */
export function parseEmulatorStart(flagsOrArgs: EmulatorStartFlags | string[], maybeFlags?: EmulatorStartFlags): EmulatorStartOptions {
  const flags: EmulatorStartFlags = (Array.isArray(flagsOrArgs) ? maybeFlags : flagsOrArgs) ?? {};
  const args = Array.isArray(flagsOrArgs) ? flagsOrArgs : [];
  if (args.length > 0) throw new UsageError(`svc emulator takes no arguments (got ${args.join(' ')})`);
  const host = flags.host === undefined ? DEFAULT_EMULATOR_HOST : String(flags.host).trim();
  if (host === '' || /[\s/]/.test(host)) throw new UsageError(`--host must be an address such as 127.0.0.1 (got ${JSON.stringify(flags.host)})`);
  const file = (name: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    if (String(value).trim() === '') throw new UsageError(`--${name} needs a file name`);
    return String(value);
  };
  const state = file('state', flags.state);
  const importFrom = file('import', flags.import);
  const exportTo = file('export', flags.export);
  if (exportTo !== undefined && state === undefined) {
    throw new UsageError('--export needs --state FILE: the state file to export', `or fetch GET /_emulator/state from a running emulator`);
  }
  if (exportTo !== undefined && importFrom !== undefined) throw new UsageError('--export and --import do not go together');
  const allowHosts = flags.allowHost === undefined ? undefined : repeated(flags.allowHost).map((name) => name.trim());
  for (const name of allowHosts ?? []) {
    if (!/^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+|[0-9a-fA-F:]+)$/.test(name)) {
      throw new UsageError(`--allow-host takes a host name such as myhost.local (got ${JSON.stringify(name)})`);
    }
  }
  return {
    port: flags.port ?? DEFAULT_EMULATOR_PORT,
    host,
    json: flags.json === true,
    ...(state !== undefined ? { state } : {}),
    ...(importFrom !== undefined ? { importFrom } : {}),
    ...(exportTo !== undefined ? { exportTo } : {}),
    ...(allowHosts !== undefined ? { allowHosts: allowHosts.map((name) => name.replace(/^\[|\]$/g, '')) } : {}),
    ...(flags.open === true ? { open: true } : {}),
    ...(flags.https === true ? { https: true } : {}),
  };
}

/**
 * A state file or fixture problem names the file and is the user's to fix: exit 2, file
 * untouched; one written by a newer svc is reported as every such file is.
 */
function asUsageError(error: unknown, emulator: typeof import('../emulator/index.js'), file?: string): unknown {
  if (error instanceof emulator.StateFileError && error.newer)
    return new NewerFormatFileError('the emulator state file', error.path, error.newer.found, error.newer.newest);
  if (error instanceof emulator.NewerFormatError && file !== undefined)
    return new NewerFormatFileError('the --import document', file, error.found, error.newest);
  if (error instanceof emulator.StateFileError) return new UsageError(error.message);
  if (error instanceof emulator.LocalCaError) return new UsageError(error.message);
  if (error instanceof emulator.InvalidDocumentError)
    return new UsageError(`${file ?? 'the document'} is not a valid emulator state document: ${error.message}`);
  return error;
}

/**
 * --state names a file the emulator can keep (a folder, a missing folder or a read-only place
 * is the user's to fix): exit 2 naming the path, before anything starts.
 */
async function checkStatePath(path: string): Promise<void> {
  const { access, lstat } = await import('node:fs/promises');
  const { constants } = await import('node:fs');
  const info = await lstat(path).catch(() => null);
  if (info?.isDirectory())
    throw new UsageError(
      `--state ${path} is a folder; the emulator keeps its state in a file`,
      `name a file in it: --state ${join(path, 'emulator-state.jsonl')}`,
    );
  if (info && !info.isFile() && !info.isSymbolicLink()) throw new UsageError(`--state ${path} is not a regular file`);
  const folder = dirname(resolve(path));
  const parent = await lstat(folder).catch(() => null);
  if (!parent?.isDirectory())
    throw new UsageError(`--state ${path}: the folder ${folder} does not exist`, `make it first (mkdir -p ${folder}), or name a file in a folder that exists`);
  // (access() also answers EROFS for root on a read-only file system.)
  const writable = await access(info ? path : folder, constants.W_OK).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code,
  );
  if (writable !== true)
    throw new UsageError(
      `--state ${path} cannot be written: ${writable === 'EROFS' ? 'it is on a read-only file system' : 'permission denied'}`,
      'name a file in a folder you can write',
    );
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** Why the emulator did not start, as the user's to fix where it is (a taken port, a bad state file). */
function startFailure(error: NodeJS.ErrnoException, opts: EmulatorStartOptions, emulatorModule: typeof import('../emulator/index.js')): unknown {
  const known = asUsageError(error, emulatorModule, opts.importFrom);
  if (known !== error) return known;
  if (error.code === 'EADDRINUSE') {
    return new UsageError(`port ${opts.port} on ${opts.host} is already in use (another emulator?)`, 'choose another --port, or --port 0 for any free one');
  }
  if (error.code === 'EADDRNOTAVAIL' || error.code === 'EACCES') {
    return new UsageError(
      `cannot listen on ${opts.host}:${opts.port} (${error.code})`,
      'use an address of this machine (--host 127.0.0.1) and a port above 1023',
    );
  }
  return error;
}

export async function runEmulatorStart(opts: EmulatorStartOptions, ctx: BaseContext): Promise<void> {
  const emulatorModule = await import('../emulator/index.js');
  const { startEmulator } = emulatorModule;
  if (opts.exportTo !== undefined && opts.state !== undefined) {
    try {
      const summary = emulatorModule.exportStateFile(opts.state, opts.exportTo);
      ctx.io.stderr.write(`exported ${opts.state} to ${opts.exportTo}: ${describeCounts(summary)}\n`);
      return;
    } catch (error) {
      throw asUsageError(error, emulatorModule);
    }
  }
  if (opts.state !== undefined) await checkStatePath(opts.state);
  let importDocument: unknown;
  if (opts.importFrom !== undefined) {
    try {
      importDocument = emulatorModule.readDocumentFile(opts.importFrom);
    } catch (error) {
      throw new UsageError(`cannot import ${opts.importFrom}: ${(error as Error).message}`);
    }
  }
  const emulator = await startEmulator({
    port: opts.port,
    host: opts.host,
    ...(opts.state !== undefined ? { statePath: opts.state } : {}),
    ...(importDocument !== undefined ? { importDocument } : {}),
    ...(opts.allowHosts !== undefined ? { allowHosts: opts.allowHosts } : {}),
    ...(opts.https ? { https: { caDir: caFolder(opts, ctx.env) } } : {}),
  }).catch((error: NodeJS.ErrnoException) => {
    throw startFailure(error, opts, emulatorModule);
  });
  const seed = emulator.state.seed;
  const loaded = emulator.loaded;
  const { stdout, stderr } = ctx.io;
  if (!isLoopbackHost(opts.host)) {
    stderr.write(`warning: the emulator listens on ${opts.host}; its control plane (/_emulator, no credential) is open to that network\n`);
  }
  for (const notice of loaded?.notices ?? []) stderr.write(`warning: ${notice}\n`);
  if (!seed && loaded) {
    // A loaded world: its keys are hashes now (they were shown once, when made), so none is printed.
    const summary = {
      path: loaded.path || null,
      loaded: true,
      imported: loaded.imported,
      orgs: loaded.orgs,
      keys: loaded.keys,
      apps: loaded.apps,
      events: loaded.events,
    };
    if (opts.json || ctx.globals.json) {
      stdout.write(`${JSON.stringify({ url: emulator.url, dashboard_url: emulator.dashboardUrl, ...caJson(emulator.ca), state: summary })}\n`);
    } else {
      // At a terminal each line wraps at its words, under its value (printText), never mid-word.
      printText(
        ctx,
        [
          `svc emulator listening on ${emulator.url}`,
          `dashboard     ${emulator.dashboardUrl}`,
          ...caLines(emulator.ca),
          `state         ${loaded.imported ? `imported from ${opts.importFrom}` : `loaded from ${loaded.path}`}: ${describeCounts(loaded)}`,
          ...loaded.orgs.map((org) => `organization  ${org.name} (${org.id})`),
          `keys          ${loaded.keys} loaded; the stored keys keep working (keys are shown only when made)`,
        ].join('\n'),
      );
      stderr.write(`${trustHint(emulator.ca)}try: SVC_BASE_URL=${emulator.url} svc account   (Ctrl-C stops the emulator)\n`);
    }
    await openDashboard(emulator.dashboardUrl, opts, ctx);
    return waitAndClose(emulator, ctx);
  }
  if (!seed) throw new Error('the emulator started without a seed');
  // The seeded keys are the emulator's own fake keys: printing them in full is the point
  // (like test fixtures), and they go to stdout only.
  const created = loaded?.path ? { state: { path: loaded.path, loaded: false } } : {};
  if (opts.json || ctx.globals.json) {
    stdout.write(
      `${JSON.stringify({ url: emulator.url, dashboard_url: emulator.dashboardUrl, ...caJson(emulator.ca), org_id: seed.org_id, org_name: seed.org_name, admin: seed.admin, keys: seed.keys, cli_client_id: seed.cli_client_id, ...created })}\n`,
    );
  } else {
    printText(
      ctx,
      [
        `svc emulator listening on ${emulator.url}`,
        `dashboard     ${emulator.dashboardUrl}`,
        ...caLines(emulator.ca),
        `organization  ${seed.org_name} (${seed.org_id})`,
        `admin         ${seed.admin.email} / ${seed.admin.password}`,
        `test key      ${seed.keys.test}`,
        `live key      ${seed.keys.live}`,
        `cli app       ${seed.cli_client_id}`,
        ...(loaded?.path ? [`state         ${loaded.path} (new; a restart with --state keeps all of this, keys included)`] : []),
      ].join('\n'),
    );
    stderr.write(`${trustHint(emulator.ca)}try: SVC_BASE_URL=${emulator.url} svc login   (Ctrl-C stops the emulator)\n`);
  }
  await openDashboard(emulator.dashboardUrl, opts, ctx);
  return waitAndClose(emulator, ctx);
}

/** --open: the dashboard in the browser; one that cannot open is a warning, the emulator keeps serving. */
async function openDashboard(url: string, opts: EmulatorStartOptions, ctx: BaseContext): Promise<void> {
  if (!opts.open) return;
  // No browser would reach the person (SSH, no display): say where to go instead of opening one nobody sees.
  const unreachable = browserUnreachable(ctx.env, process.platform);
  if (unreachable) {
    ctx.io.stderr.write(`no browser here (${unreachable}): open ${url} in a browser to see the dashboard\n`);
    return;
  }
  try {
    await ctx.browser.open(url);
  } catch (error) {
    ctx.io.stderr.write(`warning: the browser could not be opened (${(error as Error).message}); open ${url} yourself\n`);
  }
}

/**
 * Where the local CA lives: beside the --state file (one CA for the emulators of that
 * folder), else in svc's own folder. Made on first use, kept and reused.
 */
function caFolder(opts: EmulatorStartOptions, env: BaseContext['env']): string {
  return opts.state !== undefined ? join(dirname(resolve(opts.state)), 'svc-emulator-ca') : join(configDir(env), 'emulator-ca');
}

type CaInfo = { certFile: string; created: boolean } | null;

/** How a client trusts the CA: Node's own variable, so other Node clients of the service work too. */
function trustCommand(ca: NonNullable<CaInfo>): string {
  return `export NODE_EXTRA_CA_CERTS=${quoteForShell(ca.certFile)}`;
}

function quoteForShell(path: string): string {
  return /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

function caJson(ca: CaInfo): Record<string, unknown> {
  return ca ? { ca_file: ca.certFile, ca_created: ca.created, trust: trustCommand(ca) } : {};
}

function caLines(ca: CaInfo): string[] {
  // The note on a line of its own under the path: one 80-column line cannot hold both.
  return ca ? [`ca            ${ca.certFile}`, ...(ca.created ? ['              new: made by the emulator and kept, its key in that folder'] : [])] : [];
}

function trustHint(ca: CaInfo): string {
  return ca ? `trust its certificate first, in each shell that runs svc: ${trustCommand(ca)}\n` : '';
}

function describeCounts(counts: { orgs: unknown[]; keys: number; apps: number; events: number }): string {
  return `${counts.orgs.length} organization(s), ${counts.keys} key(s), ${counts.apps} app(s), ${counts.events} retained event(s)`;
}

async function waitAndClose(emulator: { close(): Promise<void> }, ctx: BaseContext): Promise<void> {
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await emulator.close();
}

export { parseEmulatorStart as parse, runEmulatorStart as run };
/** The emulator serves until Ctrl-C: that is how it is meant to stop (exit 0). */
export const stopsOnInterrupt = true;

export default commandModule({ command, parse: parseEmulatorStart, run: runEmulatorStart, stopsOnInterrupt });
