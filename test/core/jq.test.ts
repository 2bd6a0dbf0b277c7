// `--jq EXPR` on every command that prints JSON (issue 49): each command of the table runs
// with --json, and its output goes through jq (the bundled jq-wasm's own run, as the reference);
// the same command with --jq must print just that. Reads run twice over the same state and
// compare whole documents; writes make a new object each run, so their filter reads its shape.
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { recordingServer } from '../helpers/http-servers.js';
import { MemorySecretStore } from '../../src/credentials/store.js';

const emu = useTestEmulator();

/** The reference: jq -r over the --json output, as the bundled jq prints it. */
async function referenceJq(json: string, filter: string): Promise<string> {
  const jq = (await import('jq-wasm')) as unknown as {
    start(env: object): Promise<{ run(input: string, args: string[]): Promise<{ status: number; stdout: string }> }>;
  };
  const ran = await (await jq.start({})).run(json, ['-r', filter]);
  expect(ran.status, filter).toBe(0);
  return ran.stdout;
}

/** Every document, whole (compact), or the first item of a list. */
const WHOLE = 'if type == "array" then (.[0] // "empty") else . end | tojson';
/** The shape of a new object: its keys, and a string field printed raw. */
const SHAPE = '(keys | join(",")), .object';

describe('--jq on every command that prints JSON', () => {
  it('prints what jq prints over the --json output, strings raw', async () => {
    const env = { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url };
    const configDir = tempConfigDir();
    const secrets = new MemorySecretStore();
    const run = (argv: string[]) => runCli(argv, { env, configDir, secrets });
    const json = async (argv: string[]) => {
      const r = await run([...argv, '--json']);
      expect(r.exitCode, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      return r.stdout;
    };
    const call = JSON.parse(await json(['calls', 'start', '--languages', 'en,es'])) as { id: string };
    const another = JSON.parse(await json(['calls', 'start', '--languages', 'en,es'])) as { id: string };
    const chat = JSON.parse(await json(['chats', 'start', '--language', 'en'])) as { id: string };
    await json(['chats', 'send', chat.id, 'hello there']);
    const event = (JSON.parse(await json(['events', 'list'])) as Array<{ id: string }>)[0]!;

    // (A write that cannot be made twice takes another object with --jq.)
    const table: Array<[argv: string[], filter: string, jqArgv?: string[]]> = [
      [['account'], WHOLE],
      [['account', 'balance'], WHOLE],
      [['account', 'prices'], WHOLE],
      [['calls', 'list'], WHOLE],
      [['calls', 'get', call.id], '.id, .status, .languages[]'],
      [['calls', 'links', 'list'], WHOLE],
      [['calls', 'lines', 'list'], WHOLE],
      [['chats', 'list'], WHOLE],
      [['chats', 'get', chat.id], WHOLE],
      [['chats', 'messages', chat.id], '.[] | .text'],
      [['events', 'list'], 'length, (.[0] | .type)'],
      [['events', 'get', event.id], WHOLE],
      [['auth', 'status'], WHOLE],
      [['auth', 'token'], '.type, .mode'],
      [['version'], '.version'],
      [['doctor'], '.checks | length'],
      [['api', 'GET', '/v1/account'], '.credential.scopes | join(" ")'],
      [['calls', 'start', '--languages', 'en,es'], SHAPE],
      [['calls', 'links', 'create', '--call', call.id, '--language', 'es'], SHAPE],
      [['chats', 'start', '--language', 'en'], SHAPE],
      [['chats', 'send', chat.id, 'hi'], SHAPE],
      [['translate', 'hello', '--to', 'es'], SHAPE],
      [['events', 'trigger', 'call.started'], 'type == "array"'],
      [['calls', 'end', call.id], '.status', ['calls', 'end', another.id]],
      // The streams: each event filtered as it comes.
      [['events', 'tail', '--since', event.id, '--max-events', '2'], '.type'],
    ];
    for (const [argv, filter, jqArgv = argv] of table) {
      const reference = await referenceJq(await json(argv), filter);
      const filtered = await run([...jqArgv, '--jq', filter]);
      expect(filtered.exitCode, `${argv.join(' ')} --jq: ${filtered.stderr}`).toBe(0);
      expect(filtered.stdout, `${argv.join(' ')} --jq '${filter}'`).toBe(reference);
      expect(reference, `${argv.join(' ')}: the filter printed something`).not.toBe('');
    }

    // chats stream: two messages said while it runs, then the chat closed, which ends it.
    const streamed = async (extra: string[]) => {
      const { id } = JSON.parse(await json(['chats', 'start', '--language', 'en'])) as { id: string };
      const running = run(['chats', 'stream', id, ...extra]);
      await emu().plane.streamsOpen(1);
      await json(['chats', 'send', id, 'one']);
      await json(['chats', 'send', id, 'two']);
      await json(['chats', 'close', id]);
      const r = await running;
      expect(r.exitCode, r.stderr).toBe(0);
      await emu().plane.streamsClosed(0);
      return r.stdout;
    };
    const filter = 'select(.kind == "text") | .text';
    const reference = await referenceJq(await streamed(['--json']), filter);
    expect(reference).toBe('one\ntwo\n');
    expect(await streamed(['--jq', filter])).toBe(reference);
  });

  it('a filter that does not compile is a usage error before any request; --jq implies --json', async () => {
    // A server that records what reaches it.
    let close = () => {};
    const counting = await recordingServer(
      (res) => res.end('{}'),
      (closer) => (close = closer),
    );
    try {
      const counted = { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: counting.origin };
      for (const filter of ['.data |||', '.a) | (.b', 'nosuchfunction', '']) {
        const r = await runCli(['calls', 'start', '--languages', 'en,es', '--jq', filter], { env: counted });
        expect(r.exitCode, filter).toBe(2);
        expect(r.stdout).toBe('');
        expect(JSON.parse(r.stderr).error.code).toBe('usage');
      }
    } finally {
      close();
    }
    expect(counting.requests).toEqual([]);
    const env = { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url };
    // Nothing of the filter runs while it is checked: an endless one still compiles, and runs only over the answer.
    const endless = await runCli(['account', '--jq', 'if .id then .id else repeat(1) end'], { env });
    expect(endless.stdout).toBe(`${emu().seed.org_id}\n`);
  });

  it("a filter that fails on the answer ends svc as jq ends: what it printed, jq's words, jq's exit status", async () => {
    const env = { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url };
    const r = await runCli(['account', '--jq', '.id | tonumber'], { env });
    expect(r.exitCode).toBe(5);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^jq: error \(at <stdin>:\d+\): [^\n]*\(while parsing 'org_\w+'\)\n$/);
    const printed = await runCli(['account', '--jq', '.id, error("stop"), .id'], { env });
    expect([printed.exitCode, printed.stdout, printed.stderr]).toEqual([
      5,
      `${emu().seed.org_id}\n`,
      expect.stringMatching(/^jq: error \(at <stdin>:\d+\): stop\n$/),
    ]);
    const halted = await runCli(['account', '--jq', '"bye\\n" | halt_error(3)'], { env });
    expect([halted.exitCode, halted.stdout, halted.stderr]).toEqual([3, '', 'bye\n']);
  });
});
