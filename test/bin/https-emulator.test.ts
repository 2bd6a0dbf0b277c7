// `svc emulator --https` and svc over it, the path users take (issue 25): the shipped
// program in processes of its own, trusting the emulator's local CA the Node way
// (NODE_EXTRA_CA_CERTS, read when a process starts). Login by paste, keys, resource
// commands, `events tail` and `--forward-to` to an https handler, and the CA kept and
// reused across starts.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueServerCertificate, openLocalCa } from '../../src/emulator/tls.js';
import { root, spawnCollect, type Spawned } from '../helpers/spawn.js';

const bin = join(root, 'bin/svc.js');

interface Started {
  url: string;
  ca_file: string;
  ca_created: boolean;
  trust: string;
  org_id?: string;
  admin?: { email: string; password: string };
  keys?: { test: string; live: string };
}

let dir: string;
let configDir: string;
let statePath: string;
let emulator: ChildProcess;
let started: Started;
let ca: string;

/** Starts the built emulator over https; answers its --json line. */
function startEmulator(port = 0): Promise<{ child: ChildProcess; info: Started }> {
  const child = spawn(process.execPath, [bin, 'emulator', '--https', '--port', String(port), '--json', '--state', statePath], {
    env: { PATH: process.env.PATH ?? '', HOME: dir, SVC_CONFIG_DIR: configDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve({ child, info: JSON.parse(line!) as Started });
    });
    child.on('exit', (code) => reject(new Error(`svc emulator exited ${code}: ${err}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGINT');
  await exited;
}

/** A request of the test's own to the emulator (its control plane, the authorize page), trusting only its CA. */
function call(method: string, url: string, body?: unknown): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, ca, headers: body === undefined ? {} : { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

async function control<T>(method: string, path: string, body?: unknown): Promise<T> {
  const answer = await call(method, `${started.url}/_emulator${path}`, body);
  if (answer.status >= 300) throw new Error(`control ${path}: ${answer.status} ${answer.text}`);
  return (answer.text ? JSON.parse(answer.text) : undefined) as T;
}

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    SVC_CONFIG_DIR: configDir,
    SVC_CREDENTIAL_STORE: 'file',
    SVC_BASE_URL: started.url,
    NODE_EXTRA_CA_CERTS: started.ca_file,
    NO_COLOR: '1',
    ...extra,
  };
}

function svc(args: string[], extra: Record<string, string> = {}, stdin?: string): Promise<Spawned> {
  return spawnCollect(process.execPath, [bin, ...args], { env: env(extra), ...(stdin !== undefined ? { stdin } : {}) });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-https-'));
  configDir = join(dir, 'config');
  statePath = join(dir, 'world.jsonl');
  ({ child: emulator, info: started } = await startEmulator());
  ca = readFileSync(started.ca_file, 'utf8');
}, 60_000);

afterAll(async () => {
  if (emulator) await stop(emulator);
  rmSync(dir, { recursive: true, force: true });
});

describe('svc emulator --https', () => {
  it('serves https with a CA it made beside the state file, and says how to trust it', async () => {
    expect(started.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    expect(started.ca_file).toBe(join(dir, 'svc-emulator-ca', 'ca.pem'));
    expect(started.ca_created).toBe(true);
    expect(started.trust).toBe(`export NODE_EXTRA_CA_CERTS=${started.ca_file}`);
    expect(statSync(join(dir, 'svc-emulator-ca')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'svc-emulator-ca', 'ca-key.pem')).mode & 0o777).toBe(0o600);
    const metadata = JSON.parse((await call('GET', `${started.url}/.well-known/oauth-authorization-server`)).text) as Record<string, string>;
    expect(metadata.issuer).toBe(started.url);
    expect(metadata.authorization_endpoint).toMatch(/^https:\/\//);
    expect(metadata.token_endpoint).toMatch(/^https:\/\//);
  });

  it('answers svc with a test key: account, resource commands, keys', async () => {
    const key = { SVC_API_KEY: started.keys!.test };
    const account = await svc(['account', '--json'], key);
    expect(account.code, account.stderr).toBe(0);
    expect(JSON.parse(account.stdout)).toMatchObject({ id: started.org_id, balance: expect.any(Object) });
    const call = await svc(['calls', 'start', '--languages', 'en,es', '--json'], key);
    expect(call.code, call.stderr).toBe(0);
    const id = (JSON.parse(call.stdout) as { id: string }).id;
    const list = await svc(['calls', 'list', '--json'], key);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(id);
    for (const args of [
      ['calls', 'get', id, '--json'],
      ['calls', 'end', id, '--json'],
      ['chats', 'start', '--language', 'en', '--subject', 'Over TLS', '--json'],
      ['chats', 'list', '--json'],
      ['translate', 'Good morning', '--to', 'es', '--json'],
      ['events', 'list', '--json'],
      ['account', 'balance', '--json'],
      ['account', 'prices', '--json'],
    ]) {
      const ran = await svc(args, key);
      expect(ran.code, `${args.join(' ')}: ${ran.stderr}`).toBe(0);
      expect(() => JSON.parse(ran.stdout)).not.toThrow();
    }
    const added = await svc(['keys', 'add', '--stdin', '--name', 'ci'], {}, `${started.keys!.test}\n`);
    expect(added.code, added.stderr).toBe(0);
    const listed = await svc(['keys', 'list', '--json']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain('"ci"');
  });

  it('is refused without its CA: exit 9, nothing sent, the way to trust it named', async () => {
    const ran = await svc(['account', '--json'], { SVC_API_KEY: started.keys!.test, NODE_EXTRA_CA_CERTS: '' });
    expect(ran.code).toBe(9);
    expect(ran.stderr).toContain('its TLS certificate was refused');
    expect(ran.stderr).toContain('NODE_EXTRA_CA_CERTS');
  });

  it('svc login by pasting the redirect, then live-mode commands on the OAuth connection', async () => {
    const child = spawn(process.execPath, [bin, 'login', '--no-browser', '--profile', 'tls'], { env: env(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    let pasted = false;
    const done = new Promise<number | null>((resolve) => child.on('close', resolve));
    child.stdout!.resume();
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const url = /https:\/\/\S+\/oauth\/authorize\?\S+/.exec(stderr)?.[0];
      if (!url || pasted) return;
      pasted = true;
      void control('POST', '/approvals', { decision: 'approve', email: started.admin!.email, org_id: started.org_id })
        .then(() => call('GET', url))
        .then((answer) => child.stdin!.write(`${new URL(String(answer.headers.location), url).href}\n`));
    });
    expect(await done, stderr).toBe(0);
    const token = await svc(['auth', 'token', '--profile', 'tls']);
    expect(token.code, token.stderr).toBe(0);
    const account = await svc(['account', '--json', '--profile', 'tls', '--live']);
    expect(account.code, account.stderr).toBe(0);
    expect(JSON.parse(account.stdout)).toMatchObject({ id: started.org_id, livemode: true });
  }, 30_000);

  it('svc login through a browser: the authorize page over https, the redirect to the loopback', async () => {
    // The "browser": a Node script that approves as the admin, opens the authorize URL over
    // https (trusting the CA through the inherited NODE_EXTRA_CA_CERTS) and follows its
    // redirect to svc's loopback server, as a browser does.
    const browser = join(dir, 'browser.cjs');
    writeFileSync(
      browser,
      `const https = require('node:https'); const http = require('node:http');
const url = process.argv[2]; const base = new URL(url).origin;
const approve = https.request(base + '/_emulator/approvals', { method: 'POST', headers: { 'content-type': 'application/json' } }, (r) => {
  r.resume();
  r.on('end', () => https.get(url, (page) => { page.resume(); http.get(new URL(page.headers.location, url), (done) => done.resume()); }));
});
approve.end(JSON.stringify({ decision: 'approve', email: ${JSON.stringify(started.admin!.email)}, org_id: ${JSON.stringify(started.org_id)} }));
`,
    );
    const ran = await svc(['login', '--profile', 'browser'], { DISPLAY: ':0', BROWSER: `${process.execPath} ${browser}` });
    expect(ran.code, ran.stderr).toBe(0);
    const account = await svc(['account', '--json', '--profile', 'browser', '--live']);
    expect(account.code, account.stderr).toBe(0);
    expect(JSON.parse(account.stdout)).toMatchObject({ id: started.org_id });
  }, 30_000);

  it('events tail reads the stream and --forward-to delivers to an https handler', async () => {
    // The handler's certificate comes from the same CA, so NODE_EXTRA_CA_CERTS covers both.
    const certificate = issueServerCertificate(openLocalCa(join(dir, 'svc-emulator-ca')), ['127.0.0.1']);
    const delivered: string[] = [];
    const handler: Server = createServer(certificate, (req, res) => {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        delivered.push(JSON.parse(body).type as string);
        res.end();
      });
    });
    await new Promise<void>((resolve) => handler.listen(0, '127.0.0.1', resolve));
    try {
      const hook = `https://127.0.0.1:${(handler.address() as AddressInfo).port}/hook`;
      const tail = svc(['events', 'tail', '--json', '--max-events', '3', '--forward-to', hook], {
        SVC_API_KEY: started.keys!.test,
        SVC_FORWARD_SECRET: 'a-long-forwarding-secret-for-tests',
      });
      for (let i = 0; i < 100 && (await control<{ open_streams: number }>('GET', '/stats')).open_streams < 1; i++) await new Promise((r) => setTimeout(r, 50));
      await control('POST', '/events', { org_id: started.org_id, mode: 'test', type: 'call.started', count: 3 });
      const ran = await tail;
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stdout.trim().split('\n')).toHaveLength(3);
      expect(delivered).toEqual(['call.started', 'call.started', 'call.started']);
    } finally {
      handler.close();
    }
  }, 30_000);

  it('keeps its CA: a later start reuses it, and clients that trusted it still do', async () => {
    const port = new URL(started.url).port;
    await stop(emulator);
    // The same address: the stored sign-in is bound to it.
    ({ child: emulator, info: started } = await startEmulator(Number(port)));
    expect(started.ca_created).toBe(false);
    expect(readFileSync(started.ca_file, 'utf8')).toBe(ca);
    const account = await svc(['account', '--json', '--profile', 'tls', '--live']);
    expect(account.code, account.stderr).toBe(0);
  }, 60_000);
});
