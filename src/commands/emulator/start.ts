// `svc emulator`: run the local emulator of the service until Ctrl-C.
import { defineCommand, type ArgsOf, type FlagsOf } from '../../cli/define.js';
import type { BaseContext } from '../../context.js';
import { DEFAULT_EMULATOR_PORT } from '../../shared/constants.js';
import { UsageError } from '../../errors.js';

export interface EmulatorStartOptions {
  port: number;
  host: string;
  json: boolean;
}

export interface EmulatorStartFlags {
  port?: string;
  host?: string;
  json?: boolean;
}

export const command = defineCommand({
  name: 'emulator',
  summary: 'run the local emulator of the service',
  flags: {
    port: { value: '<n>', default: '4010', help: 'port to listen on' },
    host: { value: '<host>', default: '127.0.0.1', help: 'address to listen on' },
  },
  examples: ['svc emulator', 'svc emulator --port 0'],
  scopes: [],
});

/**
 * Validates the flags before anything starts. Accepts `(flags)` or the command tree's
 * generic `(args, flags)`.
 */
export function parseEmulatorStart(flagsOrArgs: EmulatorStartFlags | string[], maybeFlags?: EmulatorStartFlags): EmulatorStartOptions {
  const flags: EmulatorStartFlags = (Array.isArray(flagsOrArgs) ? maybeFlags : flagsOrArgs) ?? {};
  const args = Array.isArray(flagsOrArgs) ? flagsOrArgs : [];
  if (args.length > 0) throw new UsageError(`svc emulator takes no arguments (got ${args.join(' ')})`);
  const portText = flags.port === undefined ? String(DEFAULT_EMULATOR_PORT) : String(flags.port).trim();
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
    throw new UsageError(`--port must be an integer from 0 to 65535 (got ${portText})`, 'use --port 0 to pick a free port');
  }
  const host = flags.host === undefined ? '127.0.0.1' : String(flags.host).trim();
  if (host === '' || /[\s/]/.test(host)) throw new UsageError(`--host must be an address such as 127.0.0.1 (got ${JSON.stringify(flags.host)})`);
  return { port: Number(portText), host, json: flags.json === true };
}

function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

export async function runEmulatorStart(opts: EmulatorStartOptions, ctx: BaseContext): Promise<number> {
  const { startEmulator } = await import('../../emulator/index.js');
  const emulator = await startEmulator({ port: opts.port, host: opts.host }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') {
      throw new UsageError(`port ${opts.port} on ${opts.host} is already in use (another emulator?)`, 'choose another --port, or --port 0 for any free one');
    }
    if (error.code === 'EADDRNOTAVAIL' || error.code === 'EACCES') {
      throw new UsageError(`cannot listen on ${opts.host}:${opts.port} (${error.code})`, 'use an address of this machine (--host 127.0.0.1) and a port above 1023');
    }
    throw error;
  });
  const seed = emulator.seed;
  const { stdout, stderr } = ctx.io;
  if (!isLoopbackHost(opts.host)) {
    stderr.write(
      `warning: the emulator listens on ${opts.host}; its control plane (/_emulator, no credential) is open to that network\n`,
    );
  }
  // The seeded keys are the emulator's own fake keys: printing them in full is the point
  // (like test fixtures), and they go to stdout only.
  if (opts.json || ctx.globals.json) {
    stdout.write(
      `${JSON.stringify({ url: emulator.url, org_id: seed.org_id, org_name: seed.org_name, admin: seed.admin, keys: seed.keys, cli_client_id: seed.cli_client_id })}\n`,
    );
  } else {
    stdout.write(
      [
        `svc emulator listening on ${emulator.url}`,
        `organization  ${seed.org_name} (${seed.org_id})`,
        `admin         ${seed.admin.email} / ${seed.admin.password}`,
        `test key      ${seed.keys.test}`,
        `live key      ${seed.keys.live}`,
        `cli app       ${seed.cli_client_id}`,
        '',
      ].join('\n'),
    );
    stderr.write(`try: SVC_BASE_URL=${emulator.url} svc login   (Ctrl-C stops the emulator)\n`);
  }
  await new Promise<void>((resolve) => {
    if (ctx.signal.aborted) return resolve();
    ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await emulator.close();
  return 0;
}

export { parseEmulatorStart as parse, runEmulatorStart as run };
/** The emulator serves until Ctrl-C: that is how it is meant to stop (exit 0). */
export const stopsOnInterrupt = true;
