// `svc login` on a terminal also reads stdin for a pasted redirect. Whatever ends the login
// (the browser's callback, a refusal, the timeout) must end that read too: a read left
// pending keeps the process alive until Enter (test/real/terminal.test.ts shows it at a
// real terminal). Here stdin is a terminal whose read returns only when its signal aborts.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { execute } from '../../src/main.js';
import type { Runtime } from '../../src/cli/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { tempConfigDir } from '../helpers/cli.js';
import { envFor, scriptedBrowser } from './support.js';

const testEmulator = useTestEmulator();
const emulator = () => testEmulator().emulator;

interface Ran {
  exitCode: number;
  stderr: string;
  /** The signal each stdin read was given (undefined: nothing could end it). */
  reads: Array<AbortSignal | undefined>;
}

async function login(argv: string[], browser: Runtime['browser'], clock?: Runtime['clock']): Promise<Ran> {
  const configDir = tempConfigDir();
  const reads: Array<AbortSignal | undefined> = [];
  let stderr = '';
  const runtime: Runtime = {
    env: { HOME: configDir, SVC_CONFIG_DIR: configDir, ...envFor(emulator()) },
    stdout: { write: () => {}, isTTY: true },
    stderr: { write: (chunk) => void (stderr += chunk), isTTY: true },
    stdin: {
      isTTY: true,
      readAll: async () => '',
      // A terminal nobody types at: the read ends only through its signal.
      async *lines(signal) {
        reads.push(signal);
        await new Promise<void>((resolve) => signal?.addEventListener('abort', () => resolve(), { once: true }));
      },
    },
    clock: clock ?? {
      now: () => Date.now(),
      sleep: (ms, signal) =>
        new Promise<void>((resolve, reject) => {
          const timer = setTimeout(resolve, ms);
          signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
        }),
    },
    random: { bytes: (n) => new Uint8Array(randomBytes(n)) },
    browser,
    signal: new AbortController().signal,
    secrets: new MemorySecretStore(),
  };
  const exitCode = await execute(argv, runtime);
  return { exitCode, stderr, reads };
}

function expectReadsEnded(ran: Ran): void {
  expect(ran.reads.length).toBeGreaterThan(0);
  for (const signal of ran.reads) expect(signal?.aborted).toBe(true);
}

describe('svc login ends the pending read of a pasted redirect', () => {
  it('after signing in through the browser', async () => {
    const ran = await login(['login'], scriptedBrowser(emulator()));
    expect(ran.exitCode).toBe(0);
    expectReadsEnded(ran);
  });

  it('after a refusal (access_denied)', async () => {
    const ran = await login(['login'], scriptedBrowser(emulator(), { decision: 'deny' }));
    expect(ran.exitCode).toBe(3);
    expectReadsEnded(ran);
  });

  it('after --timeout expires (an injected clock: the wait passes at once)', async () => {
    const clock: Runtime['clock'] = { now: () => Date.now(), sleep: async () => {} };
    const ran = await login(['login', '--no-browser', '--timeout', '5m'], { open: async () => {} }, clock);
    expect(ran.exitCode).toBe(3);
    expect(ran.stderr).toContain('no sign-in arrived within 5 min');
    expectReadsEnded(ran);
  });
});
