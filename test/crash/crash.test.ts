// The crash suite (docs/design.md "Tests"): the built svc is SIGKILLed at random moments of an
// OAuth refresh and of `keys add` / `keys remove`, and after each kill the state on disk must
// be whole: config.json parses, every key's metadata has its secret and every secret its
// metadata, the next command works or says why with its documented exit code, and no stored
// secret ever reaches another origin.
//
// Kill moments: half the rounds at a uniformly random time of the whole run; the other half
// anchored to the moment the work starts (the service answering the refresh or the key
// check, or the first write in the config dir), then a random delay up to how long the rest
// took in a measured run. The file store (SVC_CREDENTIAL_STORE=file) and a temp config dir
// per round; each round has its own proxy in front of the emulator, which tells the anchor.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, watch, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { FileSecretStore } from '../../src/credentials/store.js';
import { parseConfig } from '../../src/config/config.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { control, scriptedBrowser } from '../auth/support.js';
import { svcBin as launcher } from '../helpers/spawn.js';

const ROUNDS = Number(process.env.SVC_CRASH_ROUNDS ?? 50);
/** Rounds in flight at once: a round mostly waits (for a process, or for a stale lock to age). */
const LANES = 10;

let emulator: RunningEmulator;
let foreign: { url: string; seen: string[]; close(): Promise<void> };

/** A server posing as an unrelated local service: records any svc secret it is sent. */
async function recorder() {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      seen.push(...(`${JSON.stringify(req.headers)} ${body}`.match(/svc_(?:test|live|oat|ort)_[A-Za-z0-9]+/g) ?? []));
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

interface Proxy {
  url: string;
  /** Resolves when the service's answer to `METHOD path` has been passed on. */
  answered(method: string, path: string): Promise<void>;
  close(): Promise<void>;
}

/** A proxy to the emulator that presents itself as the service (its metadata names the proxy as issuer). */
async function proxy(): Promise<Proxy> {
  const waiters: Array<{ key: string; resolve: () => void }> = [];
  const target = new URL(emulator.url);
  let self = '';
  const server: Server = createServer((req, res) => {
    const upstream = request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: { ...req.headers, host: target.host } },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () => {
          let body = Buffer.concat(chunks);
          if (req.url?.startsWith('/.well-known/')) body = Buffer.from(body.toString().replaceAll(emulator.url, self));
          const headers = { ...answer.headers, 'content-length': String(body.length) };
          delete headers['transfer-encoding'];
          // The sign-in's answer names its issuer (RFC 9207): the proxy, which presents itself as the service.
          if (headers.location?.includes('iss=')) {
            const location = new URL(headers.location);
            if (location.searchParams.get('iss') === emulator.url) location.searchParams.set('iss', self);
            headers.location = location.href;
          }
          res.writeHead(answer.statusCode ?? 502, headers);
          res.end(body, () => {
            const key = `${req.method} ${new URL(req.url ?? '/', self).pathname}`;
            for (const waiter of waiters.filter((w) => w.key === key)) waiter.resolve();
          });
        });
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: self,
    answered: (method, path) => new Promise((resolve) => waiters.push({ key: `${method} ${path}`, resolve })),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

interface Ran {
  child: ChildProcess;
  done: Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number; stderr: string }>;
}

function svc(args: string[], env: Record<string, string>, stdin?: string): Ran {
  const started = performance.now();
  const child = spawn(process.execPath, [launcher, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: [stdin === undefined ? 'ignore' : 'pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  if (stdin !== undefined) child.stdin!.end(stdin);
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; ms: number; stderr: string }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, ms: performance.now() - started, stderr }));
  });
  return { child, done };
}

const envOf = (configDir: string, baseUrl: string) => ({ HOME: configDir, SVC_CONFIG_DIR: configDir, SVC_CREDENTIAL_STORE: 'file', SVC_BASE_URL: baseUrl });
const inProcess = (configDir: string) => ({ configDir, secrets: new FileSecretStore(configDir) });

/** Kills `ran` at `delay` ms after `anchor` (or lets it finish first). Resolves whether it was killed. */
async function killAfter(ran: Ran, anchor: Promise<unknown>, delay: number): Promise<boolean> {
  const finished = ran.done.then(() => 'finished' as const);
  if ((await Promise.race([anchor.then(() => 'anchor' as const), finished])) === 'finished') return false;
  await new Promise((resolve) => setTimeout(resolve, delay));
  const killed = ran.child.exitCode === null && ran.child.signalCode === null && ran.child.kill('SIGKILL');
  await ran.done;
  return killed;
}

/** The invariant after any kill: config.json parses; metadata and secrets match one to one; nothing left in flight. */
function expectWhole(configDir: string): void {
  const config = parseConfig(readFileSync(join(configDir, 'config.json'), 'utf8'), 'config.json');
  let secrets: Record<string, string> = {};
  try {
    secrets = (JSON.parse(readFileSync(join(configDir, 'credentials.json'), 'utf8')) as { secrets: Record<string, string> }).secrets;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const described = new Set<string>();
  for (const [profileName, profile] of Object.entries(config.profiles)) {
    for (const key of Object.values(profile.keys ?? {})) {
      const secret = secrets[`${profileName}:${key.name}`];
      expect(secret, `the secret of key ${key.name}`).toBeDefined();
      expect(secret!.slice(-4)).toBe(key.last4);
      described.add(`${profileName}:${key.name}`);
    }
    if (profile.oauth) described.add(`${profileName}:oauth`);
  }
  expect(
    Object.keys(secrets).filter((name) => !described.has(name)),
    'secrets without metadata',
  ).toEqual([]);
  expect(config.secrets_in_flight ?? []).toEqual([]);
}

/** Runs `count` rounds, `LANES` at a time. */
async function rounds(count: number, round: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: LANES }, async () => {
      while (next < count) await round(next++);
    }),
  );
}

const uniform = (max: number) => Math.random() * max;

beforeAll(async () => {
  [emulator, foreign] = await Promise.all([startEmulator({ port: 0 }), recorder()]);
  await control(emulator, 'POST', '/_emulator/reset');
}, 120_000);

afterAll(async () => {
  await Promise.all([emulator?.close(), foreign?.close()]);
});

describe('SIGKILL at random moments', () => {
  /** A profile signed in through `service`, its access token made to look expired so the next command refreshes first. */
  async function signedInExpired(service: Proxy): Promise<string> {
    const configDir = tempConfigDir();
    const login = await runCli(['login'], { env: { SVC_BASE_URL: service.url, DISPLAY: ':0' }, browser: scriptedBrowser(emulator), ...inProcess(configDir) });
    expect(login.exitCode, login.stderr).toBe(0);
    const path = join(configDir, 'credentials.json');
    const file = JSON.parse(readFileSync(path, 'utf8')) as { secrets: Record<string, string> };
    file.secrets['default:oauth'] = JSON.stringify({ ...JSON.parse(file.secrets['default:oauth']!), expires_at: 0 });
    writeFileSync(path, JSON.stringify(file), { mode: 0o600 });
    return configDir;
  }

  it(`during an OAuth refresh (${ROUNDS} rounds): the sign-in survives or is reported as an interrupted refresh, exit 3`, async () => {
    // Calibration: one refresh not killed.
    const service = await proxy();
    const calibrationDir = await signedInExpired(service);
    const tokenAnswered = service.answered('POST', '/oauth2/token');
    const calibration = svc(['account', '--live', '--json'], envOf(calibrationDir, service.url));
    const start = performance.now();
    const afterToken = await tokenAnswered.then(() => performance.now() - start);
    const measured = await calibration.done;
    expect(measured.code, measured.stderr).toBe(0);
    const tail = measured.ms - afterToken; // from the service's answer to the end
    await service.close();

    const outcomes = { killed: 0, survived: 0, interrupted: 0 };
    await rounds(ROUNDS, async (index) => {
      const service = await proxy();
      try {
        const configDir = await signedInExpired(service);
        const ran = svc(['account', '--live', '--json'], envOf(configDir, service.url));
        const anchored = index % 2 === 1;
        const killed = anchored
          ? await killAfter(ran, service.answered('POST', '/oauth2/token'), uniform(tail * 1.2))
          : await killAfter(ran, Promise.resolve(), uniform(measured.ms * 1.2));
        if (killed) outcomes.killed++;

        expectWhole(configDir);
        const next = await runCli(['account', '--live', '--json'], inProcess(configDir));
        if (next.exitCode === 0) outcomes.survived++;
        else {
          // Lost only because the killed refresh was spent at the service: said so, with the fix.
          expect(next.exitCode, next.stderr).toBe(3);
          expect(next.stderr).toContain('was interrupted before its new tokens were stored');
          expect(next.stderr).toContain('svc login');
          outcomes.interrupted++;
        }
        expectWhole(configDir);
        // The stored token is bound to this service: another address is refused, nothing sent.
        const elsewhere = await runCli(['account', '--live', '--base-url', foreign.url], inProcess(configDir));
        expect(elsewhere.exitCode).toBe(2);
      } finally {
        await service.close();
      }
    });
    expect(foreign.seen).toEqual([]);
    expect(outcomes.killed).toBeGreaterThan(ROUNDS / 3);
    expect(outcomes.survived + outcomes.interrupted).toBe(ROUNDS);
  }, 180_000);

  it(`during keys add and keys remove (${ROUNDS} rounds): either nothing or a whole key, never an orphan secret`, async () => {
    // Every round starts from a profile with the seed's test key "test"; a round adds another
    // test key "ci" (which replaces "test": one key per mode) or removes "test".
    const second = await control<{ key: string }>(emulator, 'POST', `/_emulator/orgs/${emulator.seed.org_id}/keys`, { mode: 'test' });
    const prepared = async (service: Proxy) => {
      const configDir = tempConfigDir();
      const add = await runCli(['keys', 'add', '--stdin'], { ...inProcess(configDir), env: { SVC_BASE_URL: service.url }, stdin: emulator.seed.keys.test });
      expect(add.exitCode, add.stderr).toBe(0);
      return configDir;
    };
    const firstChange = (dir: string) =>
      new Promise<void>((resolve) => {
        const watcher = watch(dir, () => {
          watcher.close();
          resolve();
        });
      });

    // Calibration: one add and one remove, not killed.
    const service = await proxy();
    const addDir = await prepared(service);
    const checked = service.answered('GET', '/v1/account');
    const add = svc(['keys', 'add', '--stdin', '--name', 'ci', '--replace'], envOf(addDir, service.url), second.key);
    const t0 = performance.now();
    const afterCheck = await checked.then(() => performance.now() - t0);
    const addRun = await add.done;
    expect(addRun.code, addRun.stderr).toBe(0);
    const addTail = addRun.ms - afterCheck;
    const removeDir = await prepared(service);
    const changed = firstChange(removeDir);
    const remove = svc(['keys', 'remove', 'test', '--yes'], envOf(removeDir, service.url));
    const t1 = performance.now();
    const afterWrite = await changed.then(() => performance.now() - t1);
    const removeRun = await remove.done;
    expect(removeRun.code, removeRun.stderr).toBe(0);
    const removeTail = Math.max(removeRun.ms - afterWrite, 5);
    await service.close();

    let killed = 0;
    await rounds(ROUNDS, async (index) => {
      const service = await proxy();
      try {
        const configDir = await prepared(service);
        const adding = index % 2 === 0;
        const anchored = index % 4 >= 2;
        let ran: Ran;
        let anchor: Promise<unknown>;
        let window: number;
        if (adding) {
          anchor = anchored ? service.answered('GET', '/v1/account') : Promise.resolve();
          ran = svc(['keys', 'add', '--stdin', '--name', 'ci', '--replace'], envOf(configDir, service.url), second.key);
          window = anchored ? addTail : addRun.ms;
        } else {
          anchor = anchored ? firstChange(configDir) : Promise.resolve();
          ran = svc(['keys', 'remove', 'test', '--yes'], envOf(configDir, service.url));
          window = anchored ? removeTail : removeRun.ms;
        }
        if (await killAfter(ran, anchor, uniform(window * 1.2))) killed++;

        // The next command settles what the kill left, then the invariant holds.
        const list = await runCli(['keys', 'list', '--json'], inProcess(configDir));
        expect(list.exitCode, list.stderr).toBe(0);
        expectWhole(configDir);
        const names = (JSON.parse(list.stdout) as Array<{ name: string }>).map((k) => k.name);
        // Before, after, or (an add cut short) the old key still there: never two test keys, never a key without its secret.
        expect(adding ? [['test'], ['ci']] : [['test'], []]).toContainEqual(names);
        const next = await runCli(['account', '--test', '--json'], inProcess(configDir));
        if (names.length) expect(next.exitCode, next.stderr).toBe(0);
        else {
          expect(next.exitCode).toBe(3);
          expect(next.stderr).toContain('svc keys add');
        }
        const elsewhere = await runCli(['account', '--test', '--base-url', foreign.url], inProcess(configDir));
        expect(elsewhere.exitCode).toBe(2); // the profile is bound to the proxy, with or without a key
        // A write after the kill leaves no temp file of the killed writer behind.
        expect((await runCli(['mode', 'test'], inProcess(configDir))).exitCode).toBe(0);
        expect(readdirSync(configDir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      } finally {
        await service.close();
      }
    });
    expect(foreign.seen).toEqual([]);
    expect(killed).toBeGreaterThan(ROUNDS / 3);
  }, 180_000);
});
