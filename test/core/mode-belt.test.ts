// The test-mode belt: SVC_MODE=test with a live SVC_API_KEY is refused exactly as --test is
// (nothing sent, nothing billed, --dry-run included), and an SVC_MODE that is neither test nor
// live is refused whatever else is set. A server that records what reaches it stands in for the service.
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { recordingServer } from '../helpers/http-servers.js';

const LIVE = 'svc_live_0123456789abcdef0123';
const TEST = 'svc_test_0123456789abcdef0123';

let close = () => {};
afterEach(() => close());

async function counting() {
  const server = await recordingServer(
    (res) => res.end('{}'),
    (closer) => (close = closer),
  );
  return server;
}

describe('SVC_MODE holds as the flags do', () => {
  it('SVC_MODE=test with a live key is refused as --test is, before anything is sent; --dry-run too', async () => {
    const server = await counting();
    for (const extra of [[], ['--dry-run']]) {
      const argv = ['calls', 'start', '--languages', 'en,es', ...extra];
      const flag = await runCli([...argv, '--test'], { env: { SVC_API_KEY: LIVE, SVC_BASE_URL: server.origin } });
      const env = await runCli(argv, { env: { SVC_API_KEY: LIVE, SVC_MODE: 'test', SVC_BASE_URL: server.origin } });
      expect(flag.exitCode).toBe(2);
      expect(env.exitCode, env.stderr).toBe(2);
      expect(env.stdout).toBe('');
      expect(env.stderr).toContain('SVC_API_KEY is a live key but SVC_MODE=test asks for test mode');
      expect(env.stderr).toContain('unset SVC_API_KEY or unset SVC_MODE');
      expect(env.stderr).not.toContain(LIVE);
      // --json: the same code as --test's refusal.
      const json = await runCli([...argv, '--json'], { env: { SVC_API_KEY: LIVE, SVC_MODE: 'test', SVC_BASE_URL: server.origin } });
      expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'usage', exit_code: 2 });
    }
    // And the other way round: a test key asked to be live.
    const live = await runCli(['calls', 'list'], { env: { SVC_API_KEY: TEST, SVC_MODE: 'live', SVC_BASE_URL: server.origin } });
    expect(live.exitCode).toBe(2);
    expect(live.stderr).toContain('SVC_API_KEY is a test key but SVC_MODE=live asks for live mode');
    expect(server.requests).toEqual([]);
  });

  it('an SVC_MODE that is neither test nor live is refused, with a key, with a flag, with both', async () => {
    const server = await counting();
    for (const [env, flags] of [
      [{ SVC_API_KEY: LIVE }, []],
      [{ SVC_API_KEY: TEST }, []],
      [{ SVC_API_KEY: TEST }, ['--test']],
      [{}, ['--live']],
    ] as const) {
      const r = await runCli(['calls', 'list', ...flags], { env: { ...env, SVC_MODE: 'bogus', SVC_BASE_URL: server.origin } });
      expect(r.exitCode, JSON.stringify([env, flags])).toBe(2);
      expect(r.stderr).toContain('SVC_MODE must be "test" or "live", not "bogus"');
    }
    expect(server.requests).toEqual([]);
  });
});
