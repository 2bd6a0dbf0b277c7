// Every command's flag rules, parsed apart from running (the runF seam): commander's part
// (required flags, choices, unknown flags, argument counts) and the command's parse()
// (value checks), each refusal a usage error (exit 2) before any side effect. No
// emulator, no context: parseCli's runtime throws if anything is touched.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { parseCli } from '../helpers/parse.js';
import { declaredTree } from '../../src/cli/declared.js';
import { nameOf, type FlagKind, type FlagsOf, type Node } from '../../src/kit/define.js';

/** The command tree, as the sources declare it. */
const ROOT = await declaredTree();

/** Leaves some test below parsed successfully (the last test checks that is every leaf). */
const covered = new Set<string>();

async function ok(...argv: string[]) {
  const r = await parseCli(argv);
  if (r.command) covered.add(r.command);
  expect(r.stderr, argv.join(' ')).toBe('');
  expect(r.exitCode, argv.join(' ')).toBe(0);
  return r.opts;
}

/** A usage error: exit 2, its message on stderr, nothing parsed. */
async function refused(...argv: string[]) {
  const r = await parseCli(argv);
  expect(r.exitCode, argv.join(' ')).toBe(2);
  expect(r.command, argv.join(' ')).toBeUndefined();
  return r.stderr;
}

describe('login / logout / auth / keys / mode', () => {
  it('login', async () => {
    expect(await ok('login')).toEqual({ browser: true, timeoutSeconds: 300 });
    expect(await ok('login', '--no-browser', '--scopes', 'calls:read,calls:read', '--port', '8123', '--timeout', '90s', '--client-id', 'svc_app_acme')).toEqual(
      {
        browser: false,
        scopes: ['calls:read'],
        port: 8123,
        timeoutSeconds: 90,
        clientId: 'svc_app_acme',
      },
    );
    expect(await refused('login', '--scopes', 'calls:fly')).toContain('unknown scope "calls:fly"');
    expect(await refused('login', '--port', '70000')).toContain('--port "70000" must be a whole number from 1 to 65535');
    expect(await refused('login', '--timeout', 'soon')).toContain('--timeout');
    expect(await refused('login', '--browser')).toContain("unknown option '--browser'");
  });

  it('logout', async () => {
    expect(await ok('logout')).toEqual({ all: false, local: false });
    expect(await ok('logout', '--all')).toEqual({ all: true, local: false });
    expect(await ok('logout', '--local')).toEqual({ all: false, local: true });
    expect(await refused('logout', 'work')).toContain('too many arguments');
  });

  it('auth status / token / switch', async () => {
    expect(await ok('auth', 'status')).toEqual({ offline: false });
    expect(await ok('auth', 'status', '--offline')).toEqual({ offline: true });
    expect(await ok('auth', 'token')).toEqual({});
    expect(await ok('auth', 'switch', 'work')).toEqual({ profile: 'work' });
    expect(await refused('auth', 'switch')).toContain("missing required argument 'profile'");
    expect(await refused('auth', 'token', 'extra')).toContain('too many arguments');
  });

  it('keys add / list / remove', async () => {
    expect(await ok('keys', 'add')).toEqual({ stdin: false, replace: false });
    expect(await ok('keys', 'add', '--name', 'ci', '--stdin')).toEqual({ name: 'ci', stdin: true, replace: false });
    expect(await ok('keys', 'add', '--org', 'org_acme')).toEqual({ stdin: false, org: 'org_acme', replace: false });
    expect(await ok('keys', 'add', '--replace')).toEqual({ stdin: false, replace: true });
    expect(await refused('keys', 'add', '--org', 'acme')).toContain('--org must be an organization id');
    expect(await refused('keys', 'add', '--name', 'bad name')).toContain('--name must be');
    expect(await ok('keys', 'list')).toEqual({});
    expect(await ok('keys', 'remove', 'ci')).toEqual({ name: 'ci' });
    expect(await refused('keys', 'remove')).toContain("missing required argument 'name'");
  });

  it('mode', async () => {
    expect(await ok('mode')).toEqual({});
    expect(await ok('mode', 'live')).toEqual({ set: 'live' });
    expect(await refused('mode', 'prod')).toContain('MODE must be one of test, live, not "prod"');
  });
});

describe('account / calls', () => {
  it('account and its subcommands take no arguments', async () => {
    for (const argv of [['account'], ['account', 'balance'], ['account', 'prices']]) expect(await ok(...argv)).toEqual({});
    expect(await refused('account', '--nope')).toContain("unknown option '--nope'");
  });

  it('calls list', async () => {
    expect(await ok('calls', 'list')).toEqual({ all: false });
    expect(await ok('calls', 'list', '--status', 'ended', '--limit', '5')).toEqual({ all: false, status: 'ended', limit: 5 });
    expect(await refused('calls', 'list', '--status', 'open')).toContain('--status must be one of active, ended');
    expect(await refused('calls', 'list', '--limit', '500')).toContain('1 to 100');
    expect(await refused('calls', 'list', '--limit', '5', '--all')).toContain('not both');
  });

  it('calls get / end / dial', async () => {
    expect(await ok('calls', 'get', 'call_1')).toEqual({ id: 'call_1' });
    expect(await refused('calls', 'get')).toContain("missing required argument 'id'");
    expect(await ok('calls', 'end', 'call_1')).toEqual({ id: 'call_1' });
    expect(await refused('calls', 'end', 'chat_1')).toContain('that is a chat id');
    expect(await ok('calls', 'dial', 'call_1', '--to', '+1 415 555 0100', '--line', 'line_9', '--language', 'es')).toEqual({
      callId: 'call_1',
      to: '+14155550100',
      lineId: 'line_9',
      language: 'es',
    });
    expect(await refused('calls', 'dial', 'call_1')).toContain("required option '--to <+E164>' not specified");
    expect(await ok('calls', 'dial', 'call_1', '--to', '+14155550100', '--dry-run')).toMatchObject({ callId: 'call_1', dryRun: true });
    expect(await refused('calls', 'dial', 'call_1', '--to', '555')).toContain('+14155550100');
  });

  it('calls start', async () => {
    expect(await ok('calls', 'start', '--languages', 'en,ES-mx', '--title', 'Intake')).toEqual({ languages: ['en', 'es-MX'], title: 'Intake' });
    expect(await refused('calls', 'start')).toContain("required option '--languages <a,b>' not specified");
    // A misspelled required flag is the typo it is, with its suggestion, not a missing flag.
    const typo = await refused('calls', 'start', '--langauges', 'en,es');
    expect(typo).toContain("unknown option '--langauges' (Did you mean --languages?)");
    expect(typo).not.toContain('required option');
    expect(await ok('calls', 'start', '--languages', 'en,es', '--dry-run')).toMatchObject({ dryRun: true });
    expect(await refused('calls', 'start', '--languages', 'en')).toContain('exactly two');
    expect(await refused('calls', 'start', '--languages', 'en,es', '--title', ' ')).toContain('--title is empty');
  });

  it('calls links and lines', async () => {
    expect(await ok('calls', 'links', 'list', '--limit', '3')).toEqual({ all: false, limit: 3 });
    expect(await ok('calls', 'links', 'create', '--call', 'call_1', '--language', 'fr', '--expires-in', '1h30m')).toEqual({
      callId: 'call_1',
      language: 'fr',
      expiresInSeconds: 5400,
    });
    expect(await refused('calls', 'links', 'create', '--expires-in', '60')).toContain('90s, 15m, 1h');
    expect(await ok('calls', 'lines', 'list', '--all')).toEqual({ all: true });
    expect(await ok('calls', 'lines', 'add', '--country', 'us', '--area-code', '415')).toEqual({ country: 'US', areaCode: '415' });
    expect(await refused('calls', 'lines', 'add')).toContain("required option '--country <cc>' not specified");
    expect(await ok('calls', 'lines', 'add', '--country', 'US', '--dry-run')).toMatchObject({ country: 'US', dryRun: true });
    expect(await ok('calls', 'lines', 'release', 'line_1')).toEqual({ id: 'line_1' });
    expect(await refused('calls', 'lines', 'release', 'call_1')).toContain('line_Q3vX8kTz1mLp9RbW2cYd');
  });
});

describe('chats / translate / events / api / completion / emulator', () => {
  it('chats', async () => {
    expect(await ok('chats', 'list', '--status', 'closed')).toEqual({ all: false, status: 'closed' });
    expect(await refused('chats', 'list', '--status', 'ended')).toContain('--status must be one of open, closed');
    expect(await ok('chats', 'get', 'chat_1')).toEqual({ id: 'chat_1' });
    expect(await ok('chats', 'start', '--language', 'fr', '--subject', 'Order 42')).toEqual({ language: 'fr', subject: 'Order 42' });
    expect(await refused('chats', 'start')).toContain("required option '--language <lang>' not specified");
    expect(await ok('chats', 'close', 'chat_1')).toEqual({ id: 'chat_1' });
    expect(await refused('chats', 'close', 'call_1')).toContain('not a chat id');
    expect(await ok('chats', 'messages', 'chat_1', '--all')).toEqual({ id: 'chat_1', all: true });
    expect(await ok('chats', 'send', 'chat_1', 'Hello', 'there')).toEqual({ id: 'chat_1', text: 'Hello there' });
    expect(await ok('chats', 'send', 'chat_1')).toEqual({ id: 'chat_1' });
    expect(await ok('chats', 'send', 'chat_1', 'hi', '--dry-run')).toEqual({ id: 'chat_1', text: 'hi', dryRun: true });
    expect(await ok('chats', 'send', 'chat_1', '--language', 'fr', 'salut')).toEqual({ id: 'chat_1', text: 'salut', language: 'fr' });
    expect(await ok('chats', 'voice', 'chat_1', 'package.json')).toEqual({ id: 'chat_1', file: 'package.json' });
    expect(await refused('chats', 'voice', 'chat_1', 'note.ogg')).toContain('note.ogg does not exist');
    expect(await ok('chats', 'voice', 'chat_1', '-')).toEqual({ id: 'chat_1', file: '-' });
    expect(await refused('chats', 'voice', 'chat_1')).toContain("missing required argument 'file'");
    expect(await ok('chats', 'stream', 'chat_1')).toEqual({ id: 'chat_1' });
    expect(await ok('chats', 'stream', 'chat_1', '--fail-on-gap')).toEqual({ id: 'chat_1', failOnGap: true });
  });

  it('translate', async () => {
    expect(await ok('translate', 'Good', 'morning', '--to', 'ES', '--from', 'en')).toEqual({ to: 'es', from: 'en', text: 'Good morning', lines: false });
    expect(await ok('translate', '--to', 'de', '--lines')).toEqual({ to: 'de', lines: true });
    expect(await refused('translate', 'hi')).toContain("required option '--to <lang>' not specified");
    expect(await ok('translate', 'hi', '--to', 'es', '--dry-run')).toMatchObject({ to: 'es', dryRun: true });
    expect(await refused('translate', 'hi', '--to', 'es', '--lines')).toContain('stdin');
  });

  it('events tail', async () => {
    const opts = (await ok(
      'events',
      'tail',
      '--type',
      'call.',
      '--type',
      'chat.closed',
      '--since',
      'evt_1',
      '--max-events',
      '10',
      '--forward-to',
      'http://localhost:3000/h',
      '--timeout',
      '30s',
    )) as Record<string, unknown>;
    expect(opts).toMatchObject({ since: 'evt_1', maxEvents: 10, routes: [{ url: 'http://localhost:3000/h' }], deadlineMs: 30_000 });
    expect(opts.types).toHaveLength(2);
    expect(await refused('events', 'tail', '--max-events', '0')).toContain('--max-events');
    expect(await refused('events', 'tail', '--forward-to', 'ftp://x')).toContain('http or https');
    expect(await refused('events', 'tail', '--type', 'nonsense')).toContain('not an event type');
    expect(
      await ok(
        'events',
        'tail',
        '--forward-to',
        'call.*=http://localhost:3000/calls',
        '--forward-header',
        'X-Env: test',
        '--dead-letter',
        'dead.ndjson',
        '--record',
        'all.ndjson',
        '--checkpoint',
        'tail.ckpt',
        '--fail-on-gap',
      ),
    ).toMatchObject({ deadLetter: 'dead.ndjson', record: 'all.ndjson', checkpoint: 'tail.ckpt', failOnGap: true, forwardHeaders: { 'x-env': 'test' } });
    expect(await ok('events', 'tail', '--print-secret')).toMatchObject({ printSecret: true });
  });

  it('events list / get / trigger / replay', async () => {
    expect(await ok('events', 'list', '--type', 'call.*', '--limit', '5')).toMatchObject({ limit: 5, all: false });
    expect(await refused('events', 'list', 'extra')).toContain('too many arguments');
    expect(await ok('events', 'get', 'evt_1')).toEqual({ id: 'evt_1' });
    expect(await refused('events', 'get')).toContain("missing required argument 'id'");
    expect(await ok('events', 'trigger', 'call.ended', '--override', 'call.title=Support')).toMatchObject({ type: 'call.ended' });
    expect(await refused('events', 'trigger', 'call.nope')).toContain('is not an event type');
    expect(await ok('events', 'replay', 'package.json', '--no-wait')).toMatchObject({ file: 'package.json', speed: 0 });
    expect(await refused('events', 'replay', 'events.ndjson')).toContain('events.ndjson does not exist');
    expect(await ok('events', 'replay', 'package.json', '--speed', '10', '--type', 'call.*')).toMatchObject({ speed: 10 });
    expect(await refused('events', 'replay', 'package.json', '--speed', '10', '--no-wait')).toContain('not both');
    expect(await refused('events', 'replay')).toContain("missing required argument 'file'");
  });

  it('api', async () => {
    expect(await ok('api', 'post', '/v1/chats', '-F', 'language=en', '-f', 'n=3', '-i')).toEqual({
      method: 'POST',
      path: '/v1/chats',
      fields: [
        { key: 'n', path: ['n'], value: '3', kind: 'raw' },
        { key: 'language', path: ['language'], value: 'en', kind: 'typed' },
      ],
      headers: {},
      include: true,
      paginate: false,
    });
    // gh's form: the path alone, -X for the method; a missing leading / is added.
    expect(await ok('api', 'v1/calls', '--paginate', '--jq', '.[].id', '-H', 'Last-Event-ID: evt_1')).toEqual({
      method: 'GET',
      path: '/v1/calls',
      fields: [],
      headers: { 'last-event-id': 'evt_1' },
      include: false,
      paginate: true,
    });
    expect(await ok('api', '/v1/calls/call_1', '-X', 'delete')).toMatchObject({ method: 'DELETE', path: '/v1/calls/call_1' });
    expect(await refused('api', 'GET', 'https://elsewhere.example/v1')).toContain('PATH must be a path such as /v1/calls');
    expect(await refused('api', 'FETCH', '/v1/calls')).toContain('METHOD must be one of');
    expect(await refused('api', 'GET', '/v1/calls', '-X', 'GET')).toContain('give the method once');
    expect(await refused('api', '/v1/calls', '-H', 'Authorization: Bearer x')).toContain('svc sends the credential itself');
    expect(await refused('api')).toContain("missing required argument 'method-or-path'");
  });

  it('completion / __complete / emulator', async () => {
    expect(await ok('completion', 'zsh')).toEqual({ shell: 'zsh' });
    expect(await refused('completion', 'tcsh')).toContain('SHELL must be one of bash, zsh, fish, powershell, not "tcsh"');
    expect(await ok('completion', 'powershell')).toEqual({ shell: 'powershell' });
    expect(await ok('__complete', 'profiles')).toEqual({ what: 'profiles' });
    expect(await ok('emulator')).toEqual({ port: 4010, host: '127.0.0.1', json: false });
    expect(await ok('emulator', '--port', '0', '--host', '0.0.0.0')).toEqual({ port: 0, host: '0.0.0.0', json: false });
    expect(await refused('emulator', '--port', '65536')).toContain('--port "65536" must be a whole number from 0 to 65535');
    expect(await ok('emulator', '--state', 's.jsonl', '--export', 'out.json', '--allow-host', 'svc.test', '--allow-host', 'b.test')).toMatchObject({
      state: 's.jsonl',
      exportTo: 'out.json',
      allowHosts: ['svc.test', 'b.test'],
    });
  });
});

describe('profiles / doctor / version / help', () => {
  it('profiles list / remove', async () => {
    expect(await ok('profiles', 'list')).toEqual({});
    expect(await ok('profiles', 'remove', 'old', '--revoke')).toEqual({ name: 'old', revoke: true });
    expect(await refused('profiles', 'remove')).toContain("missing required argument 'name'");
  });

  it('mcp / mcp log', async () => {
    expect(await ok('mcp')).toEqual({ allowWrite: false });
    expect(await ok('mcp', '--allow-write', '--live', '--max-spend', '0.10')).toEqual({ allowWrite: true, maxSpend: 100_000 });
    expect(await refused('mcp', '--max-spend', 'lots')).toContain('--max-spend "lots" is not an amount of dollars');
    expect(await ok('mcp', 'log', '--limit', '5')).toEqual({ limit: 5 });
    expect(await refused('mcp', 'log', '--limit', '0')).toContain('--limit "0" must be a whole number of at least 1');
    // mcp's own flags before `log` are read by mcp (commander's way), so log runs, with its own flags.
    expect(await ok('mcp', 'log', '--verify')).toEqual({ verify: true });
    // ...but a flag of the server is no flag of its log: refused, not ignored.
    for (const line of [
      ['mcp', '--max-spend', '5', 'log', '--verify'],
      ['mcp', 'log', '--max-spend', '5', '--allow-write', '--verify'],
      ['mcp', '--allow-write', 'log'],
      ['mcp', 'log', '--confirm-over=1'],
    ])
      expect(await refused(...line), line.join(' ')).toMatch(
        /--(max-spend|allow-write|confirm-over)( and --[a-z-]+)* (is a flag|are flags) of `svc mcp` itself, not of `svc mcp log`/,
      );
    expect(await refused('mcp', 'log', '--max-spend', '5', '--allow-write')).toMatch(
      /--allow-write and --max-spend are flags of `svc mcp` itself|--max-spend and --allow-write are flags of `svc mcp` itself/,
    );
  });

  it('`--` before the command: commander reads the words after it as the command, and that command runs', async () => {
    const r = await parseCli(['--', 'version']);
    expect(r).toMatchObject({ exitCode: 0, command: 'version', opts: {} });
    expect(await parseCli(['--json', '--', 'calls', 'list'])).toMatchObject({ exitCode: 0, command: 'calls list' });
    expect(await parseCli(['calls', '--', 'list'])).toMatchObject({ exitCode: 0, command: 'calls list' });
  });

  it('`help` before flags with values: the values are no command words', async () => {
    // (The help is printed on stdout, which parseCli's runtime refuses: the error is that, not an unknown command.)
    for (const line of [
      ['help', '--profile', 'work', 'calls'],
      ['calls', 'help', '--base-url', 'http://x', 'list'],
      ['help', '--profile=work', 'calls', 'list'],
    ])
      expect((await parseCli(line)).stderr, line.join(' ')).not.toMatch(/unknown command/);
    expect(await refused('help', '--profile', 'work', 'calls', 'nope')).toContain("unknown command 'nope'");
  });

  it('doctor / version', async () => {
    expect(await ok('doctor')).toEqual({});
    expect(await refused('doctor', 'now')).toContain('too many arguments');
    expect(await ok('version')).toEqual({});
  });
});

describe('the declarations', () => {
  it('every leaf has its flag rules tested above; global flags parse around any command', async () => {
    const leaves = (nodes: readonly Node[], prefix: string[] = []): string[][] =>
      nodes.flatMap((n) =>
        n.kind === 'leaf' ? [[...prefix, nameOf(n)]] : [...(n.self ? [[...prefix, n.name]] : []), ...leaves(n.commands, [...prefix, n.name])],
      );
    const all = leaves(ROOT.commands).map((path) => path.join(' '));
    expect(all.length).toBeGreaterThan(35);
    // `svc help A B` never runs its leaf: execute() turns it into `svc A B --help` (declared for help and completions).
    expect(all.filter((name) => !covered.has(name) && name !== 'help')).toEqual([]);
    expect(await refused('help', 'nope')).toContain("unknown command 'nope'");
    // The runF seam names each leaf as the tree does.
    const r = await parseCli(['--profile', 'work', '--test', 'calls', 'list', '--json']);
    expect(r).toMatchObject({ exitCode: 0, command: 'calls list' });
    expect(await refused('--test', '--live', 'account')).toContain("option '--test' cannot be used with option '--live'");
  });

  it("every declared kind is one the parse reads: an id's prefix is the contract's, a default reads as its kind", async () => {
    const { ID_PREFIX } = await import('../../src/contract/constants.js');
    const { readKind } = await import('../../src/validate/kinds.js');
    const specs = (nodes: readonly Node[]): Array<{ name: string; kind?: FlagKind; default?: string }> =>
      nodes.flatMap((n) => {
        const decls = n.kind === 'leaf' ? [n.decl] : n.self ? [n.self.decl] : [];
        const own = decls.flatMap((d) => [...Object.entries(d.flags ?? {}).map(([name, f]) => ({ name, ...f })), ...(d.args ?? [])]);
        return n.kind === 'leaf' ? own : [...own, ...specs(n.commands)];
      });
    const kinded = specs(ROOT.commands).filter((s) => s.kind);
    expect(kinded.length).toBeGreaterThan(20);
    for (const spec of kinded) {
      if (spec.kind!.type === 'id') expect(Object.values(ID_PREFIX), spec.name).toContain(spec.kind!.prefix);
      if (spec.default !== undefined) expect(() => readKind(spec.kind!, spec.default!, spec.name), spec.name).not.toThrow();
    }
  });

  it('parse() receives each kind typed (FlagsOf infers it from the declaration)', async () => {
    const tail = await import('../../src/commands/events/tail.js');
    const login = await import('../../src/commands/login.js');
    expectTypeOf<FlagsOf<typeof tail.command>['maxEvents']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<FlagsOf<typeof tail.command>['since']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<FlagsOf<typeof login.command>['timeout']>().toEqualTypeOf<number>();
    expect(await ok('events', 'tail', '--max-events', '3', '--timeout', '2m')).toMatchObject({ maxEvents: 3, deadlineMs: 120_000 });
    expect(await ok('events', 'tail', '--idle-timeout', '2m')).toMatchObject({ idleTimeoutMs: 120_000 });
    expect(await ok('login', '--timeout', '90s')).toMatchObject({ timeoutSeconds: 90 });
  });
});

describe('declared scopes', () => {
  it("cover the scopes of every endpoint a command's module names (docs/contract.md Resources)", async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { ENDPOINTS } = await import('../../src/contract/endpoints.js');
    const dir = join(import.meta.dirname, '../../src/commands');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('index.ts'));
    // Uses that fail soft, so the command does not need the scope: events tail names the
    // organization in its header when the key may read the account.
    const optional: Record<string, string[]> = { [join('events', 'tail.ts')]: ['account:read'] };
    let checked = 0;
    for (const file of files) {
      const module = (await import(join(dir, file))) as { command?: { scopes?: readonly string[] } };
      const declared = module.command?.scopes;
      if (!declared) continue;
      const text = readFileSync(join(dir, file), 'utf8');
      const used = Object.entries(ENDPOINTS)
        .filter(([name]) => text.includes(`'${name}'`))
        .map(([, e]) => e.scope)
        .filter((s): s is NonNullable<typeof s> => s !== null);
      expect(
        used.filter((s) => !declared.includes(s) && !optional[file]?.includes(s)),
        file,
      ).toEqual([]);
      checked++;
    }
    expect(checked).toBeGreaterThan(30);
  });

  it('are declared by every command, [] for one that asks the service nothing', () => {
    const undeclared: string[] = [];
    const walk = (nodes: readonly Node[], prefix: string) => {
      for (const node of nodes) {
        const name = `${prefix}${nameOf(node)}`;
        if (node.kind === 'leaf') {
          if (!node.decl.scopes) undeclared.push(name);
        } else {
          if (node.self && !node.self.decl.scopes) undeclared.push(name);
          walk(node.commands, `${name} `);
        }
      }
    };
    walk(ROOT.commands, '');
    // `svc api` asks whatever path it is given: its scopes are that endpoint's.
    expect(undeclared).toEqual(['api']);
  });

  it('of events trigger cover every request of the fixtures it ships', async () => {
    const { readdirSync, readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { ENDPOINTS } = await import('../../src/contract/endpoints.js');
    const { command } = await import('../../src/commands/events/trigger.js');
    const dir = join(import.meta.dirname, '../../fixtures/triggers');
    const requested = readdirSync(dir).flatMap((file) =>
      (JSON.parse(readFileSync(join(dir, file), 'utf8')) as { steps: { request: string }[] }).steps.map((s) => s.request),
    );
    expect(requested.length).toBeGreaterThan(10);
    const needed = new Set(requested.map((name) => ENDPOINTS[name as keyof typeof ENDPOINTS].scope));
    expect([...needed].filter((scope) => scope !== null && !(command.scopes ?? []).includes(scope))).toEqual([]);
  });
});
