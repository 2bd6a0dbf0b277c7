// svc as a CI pipeline runs it: bash with `set -euo pipefail`, stdin closed, every output a
// pipe, the bundle users run (bin/svc.js over dist/), against the emulator and a server that
// sends malformed frames. Each `--jq` run is compared, bytes and exit status (and jq's words on
// a failure), with the same command's `--json` piped to Debian's jq 1.6 (/usr/bin/jq), on
// filters where jq 1.6 and the jq svc bundles (1.7.1) agree.
import { existsSync, mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { spawnCollect, svcPath, svcShellWords, type Spawned } from '../helpers/spawn.js';

let emulator: RunningEmulator;
let frames: Server;
let framesUrl: string;

beforeAll(async () => {
  emulator = await startTestEmulator();
  // A service whose event stream sends each malformed frame, then one event.
  frames = createServer((req, res) => {
    if (!req.url?.startsWith('/v1/events/stream')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end('{"detail":"not here"}');
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = { object: 'event', id: 'evt_000000000001', type: 'call.ended', created_at: '2026-01-01T00:00:00Z', livemode: false, data: { id: 'call_1' } };
    const bad = [
      '{}',
      '[]',
      'null',
      '"text"',
      '{"object":"event",',
      '',
      JSON.stringify({ ...event, data: undefined }),
      JSON.stringify({ ...event, livemode: 'no' }),
    ];
    res.write(bad.map((data) => `data: ${data}\n\n`).join('') + `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  });
  await new Promise<void>((resolve) => frames.listen(0, '127.0.0.1', resolve));
  framesUrl = `http://127.0.0.1:${(frames.address() as AddressInfo).port}`;
});
afterAll(async () => {
  frames?.closeAllConnections();
  frames?.close();
  await emulator?.close();
});

/** A bash script as CI runs one: strict mode, stdin closed, `svc` on the PATH-free words of the bundle. */
function pipeline(script: string, env: Record<string, string> = {}): Promise<Spawned> {
  const home = mkdtempSync(join(tmpdir(), 'svc-ci-'));
  return spawnCollect('bash', ['-c', `set -euo pipefail\nsvc() { ${svcShellWords()} "$@"; }\n${script}`], {
    env: {
      PATH: svcPath(),
      HOME: home,
      SVC_CONFIG_DIR: home,
      SVC_CREDENTIAL_STORE: 'file',
      SVC_BASE_URL: emulator.url,
      SVC_API_KEY: emulator.seed.keys.test,
      ...env,
    },
  });
}

const hasJq16 = existsSync('/usr/bin/jq');

describe('a CI pipeline', () => {
  it.skipIf(!hasJq16)(
    "--jq prints, says and exits as `--json | jq -r` with Debian's jq 1.6",
    async () => {
      // Some calls, one ended, so that the filters have something to say.
      const setup = await pipeline(
        'svc calls start --languages en,es --jq .id >/dev/null; id=$(svc calls start --languages en,es --jq .id); svc calls end "$id" --jq .status >/dev/null',
      );
      expect(setup.code, setup.stderr).toBe(0);
      const filters = [
        '.[].id',
        '.[] | if .status == "ended" then error("x") else .id end',
        '"  a"',
        '.[] | ""',
        '.[] | [.id, .status, ""] | @tsv',
        '"\\u00a0nbsp\\r"',
        '"bye\\n" | halt_error(3)',
        '$ENV.CALL_ID, env.CALL_ID, $ENV.HOME == env.HOME',
        'map(.languages | length) | add',
        '.[0] | keys | join(",")',
        '.[] | select(.status == "ended") | .id',
        'error({"a": 1})',
        '.[] | .nosuch.deeper',
      ];
      const seen = new Map<string, Spawned>();
      for (const filter of filters) {
        const env = { CALL_ID: 'call_from_env', FILTER: filter };
        const svc = await pipeline('svc calls list --jq "$FILTER"', env);
        const jq = await pipeline('svc calls list --json | /usr/bin/jq -r "$FILTER"', env);
        expect({ stdout: svc.stdout, code: svc.code, stderr: svc.stderr.replace(/<stdin>:\d+/, '<stdin>') }, filter).toEqual({
          stdout: jq.stdout,
          code: jq.code,
          stderr: jq.stderr.replace(/<stdin>:\d+/, '<stdin>'),
        });
        seen.set(filter, svc);
      }
      // (What the two agreed on is what svc got wrong before: nothing trimmed, jq's exit status, the real environment.)
      expect(seen.get('.[] | ""')!.stdout).toMatch(/^\n\n+$/);
      expect(seen.get('"  a"')!.stdout).toBe('  a\n');
      expect(seen.get('.[] | if .status == "ended" then error("x") else .id end')!.code).toBe(5);
      expect(seen.get('"bye\\n" | halt_error(3)')).toMatchObject({ code: 3, stderr: 'bye\n' });
      expect(seen.get('$ENV.CALL_ID, env.CALL_ID, $ENV.HOME == env.HOME')!.stdout).toBe('call_from_env\ncall_from_env\ntrue\n');
    },
    120_000,
  );

  it('a frame that is not an event never reaches a pipeline: one whole JSON line, exit 0', async () => {
    const r = await pipeline('svc events tail --json --max-events 1 | while IFS= read -r line; do printf "%s\\n" "$line"; done', { SVC_BASE_URL: framesUrl });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n')).toHaveLength(2);
    expect(JSON.parse(r.stdout).id).toBe('evt_000000000001');
    expect(r.stderr.match(/warning: skipped a stream message that is not an event/g)).toHaveLength(8);
  });

  it('waits for the event a select selects, then the next step runs with its output', async () => {
    const r = await pipeline(
      'id=$(svc events tail --since start --max-events 1 --jq \'select(.type == "call.ended") | .data.id\'); test -n "$id"; svc calls get "$id" --jq .status',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('ended\n');
  });

  it("a filter that fails stops the pipeline with jq's exit status, set -e and pipefail seeing it", async () => {
    const r = await pipeline('svc events tail --since start --jq \'if .type == "call.ended" then error("stop here") else .id end\' | cat; echo unreachable');
    expect(r.code).toBe(5);
    expect(r.stdout).not.toContain('unreachable');
    expect(r.stderr).toMatch(/^jq: error \(at <stdin>:1\): stop here$/m);
  });

  it('SVC_MODE=test with a live key stops the pipeline before anything is billed', async () => {
    const r = await pipeline('svc calls start --languages en,es --jq .id; echo unreachable', { SVC_API_KEY: emulator.seed.keys.live, SVC_MODE: 'test' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});

describe('a closed stdout', () => {
  it('ends a quiet tail within a second: `events tail | head -1` ends after its one line', async () => {
    const { controlPlane } = await import('../helpers/emulator.js');
    const plane = controlPlane(emulator);
    const before = (await plane.stats()).open_streams;
    const running = pipeline('svc events tail --json | head -1');
    await plane.streamsOpen(before + 1);
    await plane.publishEvents({ org_id: emulator.seed.org_id, mode: 'test', type: 'call.started', count: 1 });
    const published = Date.now();
    const r = await running;
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout).type).toBe('call.started');
    // Nothing more was published: the tail learnt of head's going without a write.
    expect(Date.now() - published).toBeLessThan(3_000);
  });
});
