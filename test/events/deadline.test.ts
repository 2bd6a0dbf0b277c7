// Streams a script can start and stop: the tail's header is printed once the stream is
// connected (an event published right after it is never missed), and --timeout is a deadline for
// the whole command on `events tail` and `chats stream`, which keep-alives do not move (the
// silence limit is --idle-timeout).
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { execute } from '../../src/main.js';
import type { Runtime } from '../../src/cli/context.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';

const emu = useTestEmulator();

let closers: Array<() => void> = [];
afterEach(() => {
  for (const close of closers) close();
  closers = [];
});

/** svc running in this process, its stderr readable while it runs. */
function startCli(argv: string[], env: Record<string, string>) {
  let stdout = '';
  let stderr = '';
  const configDir = tempConfigDir();
  const runtime: Runtime = {
    env: { HOME: configDir, SVC_CONFIG_DIR: configDir, ...env },
    stdout: { isTTY: false, write: (chunk) => void (stdout += chunk) },
    stderr: { isTTY: false, write: (chunk) => void (stderr += chunk) },
    stdin: { isTTY: false, readAll: async () => '', lines: async function* () {} },
    clock: { now: () => Date.now(), sleep: (ms, signal) => delay(ms, undefined, { signal }) },
    random: { bytes: (n) => new Uint8Array(randomBytes(n)) },
    browser: { open: async () => {} },
    signal: new AbortController().signal,
    secrets: new MemorySecretStore(),
  };
  return { done: execute(argv, runtime), stdout: () => stdout, stderr: () => stderr };
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    if (condition()) return;
    await delay(5);
  }
  throw new Error(`${what}: not met after 5 s`);
}

describe('events tail: the header', () => {
  it('is printed once the stream is connected: an event published right after it is printed', async () => {
    const env = { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url };
    for (let run = 0; run < 5; run++) {
      const cli = startCli(['events', 'tail', '--json', '--max-events', '1'], env);
      await until(() => cli.stderr().includes('Tailing test-mode events'), 'the header');
      await emu().plane.publishEvents({ org_id: emu().seed.org_id, mode: 'test', type: 'call.started', count: 1 });
      expect(await cli.done, cli.stderr()).toBe(0);
      expect(JSON.parse(cli.stdout()).type).toBe('call.started');
    }
  });
});

describe('--timeout is a deadline for the whole command', () => {
  it('events tail: keep-alives every 50 ms do not move it; exit 9, network_failed', async () => {
    const server = createServer((req, res) => {
      if (!req.url?.startsWith('/v1/events/stream')) {
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end('{"detail":"not here"}');
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const beat = setInterval(() => res.write(': keepalive\n\n'), 50);
      res.on('close', () => clearInterval(beat));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(() => {
      server.closeAllConnections();
      server.close();
    });
    const env = { SVC_API_KEY: 'svc_test_0123456789abcdef', SVC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    const started = Date.now();
    const r = await runCli(['events', 'tail', '--json', '--timeout', '1s'], { env });
    expect(r.exitCode, r.stderr).toBe(9);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr.trim().split('\n').at(-1)!).error).toMatchObject({ code: 'network_failed', exit_code: 9 });
    expect(r.stderr).toContain('--timeout 1.0 s passed before the tail ended (0 events printed)');
    // Ended at the deadline, though the service never went silent for 1 s (its silence limit is 5 min).
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('chats stream: ends at --timeout on an open chat, exit 9', async () => {
    const env = { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url };
    const chat = JSON.parse((await runCli(['chats', 'start', '--language', 'en', '--json'], { env })).stdout) as { id: string };
    const r = await runCli(['chats', 'stream', chat.id, '--timeout', '1s'], { env });
    expect(r.exitCode, r.stderr).toBe(9);
    expect(r.stderr).toContain(`--timeout 1.0 s passed before the chat ${chat.id} closed`);
  });
});
