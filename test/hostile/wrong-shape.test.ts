// Answers of the wrong shape (issue 52): a 200 whose JSON is not what docs/contract.md says
// for its endpoint is one clear error naming the endpoint and what was wrong, exit 1 (the
// README's "an answer svc cannot use"), never a TypeError further on or `undefined` printed.
// One command of each group, over every wrong shape; with --json too (nothing on stdout).
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { json, useHostileServers } from './server.js';

const KEY = 'svc_test_hostile0000000000000000';

const WRONG: [string, unknown][] = [
  ['{}', {}],
  ['[]', []],
  ['null', null],
  ['a string', 'hello'],
  ['a list of the wrong objects', { object: 'list', data: [{ object: 'price', item: 'x' }], has_more: false, next_cursor: null }],
];

/** A command of each group, the path it asks, and the endpoint the message must name. */
const COMMANDS: { argv: string[]; method: string; path: string; endpoint: string }[] = [
  { argv: ['account'], method: 'GET', path: '/v1/account', endpoint: 'account.get' },
  { argv: ['account', 'balance'], method: 'GET', path: '/v1/balance', endpoint: 'balance.get' },
  { argv: ['account', 'prices'], method: 'GET', path: '/v1/prices', endpoint: 'prices.list' },
  { argv: ['calls', 'list'], method: 'GET', path: '/v1/calls', endpoint: 'calls.list' },
  { argv: ['calls', 'get', 'call_abcdef123456'], method: 'GET', path: '/v1/calls/{id}', endpoint: 'calls.get' },
  { argv: ['calls', 'links', 'list'], method: 'GET', path: '/v1/links', endpoint: 'links.list' },
  { argv: ['calls', 'lines', 'list'], method: 'GET', path: '/v1/lines', endpoint: 'lines.list' },
  { argv: ['chats', 'list'], method: 'GET', path: '/v1/chats', endpoint: 'chats.list' },
  { argv: ['chats', 'start', '--language', 'en'], method: 'POST', path: '/v1/chats', endpoint: 'chats.create' },
  { argv: ['translate', 'hello', '--to', 'es'], method: 'POST', path: '/v1/translate', endpoint: 'translate' },
  { argv: ['events', 'list'], method: 'GET', path: '/v1/events', endpoint: 'events.list' },
];

const served = (path: string) => path.replace('{id}', 'call_abcdef123456');

describe('an answer of the wrong shape', () => {
  const { server } = useHostileServers('http');
  const env = () => ({ SVC_API_KEY: KEY, SVC_BASE_URL: server.url });

  describe.each(COMMANDS)('svc $argv', ({ argv, method, path, endpoint }) => {
    it.each(WRONG)('%s: exit 1 naming the endpoint and what was wrong; nothing on stdout', async (_name, answer) => {
      server.on(served(path), (_req, res) => json(res, 200, answer));
      for (const line of [argv, ['--json', ...argv]]) {
        const r = await runCli(line, { env: env() });
        expect(r.exitCode, r.stderr).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toContain(`${method} ${path} (${endpoint})`);
        expect(r.stderr).toMatch(/JSON svc cannot use: .*(is missing|, not )/);
        expect(r.stderr).not.toMatch(/undefined|unexpected failure|Cannot read/);
      }
    });
  });

  it('the message says which field, and what it was', async () => {
    server.on('/v1/account', (_req, res) =>
      json(res, 200, { object: 'account', id: 'org_1', name: 'N', livemode: false, credential: { type: 'api_key', scopes: 'all' } }),
    );
    const r = await runCli(['account'], { env: env() });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('`credential.scopes` is the string "all", not a list');
  });

  it('fields the contract does not name are let through (a later service may add some)', async () => {
    server.on('/v1/balance', (_req, res) => json(res, 200, { object: 'balance', currency: 'usd', available: 150, livemode: false, extra: { new: 1 } }));
    const r = await runCli(['account', 'balance', '--json'], { env: env() });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ available: 150 });
  });
});
