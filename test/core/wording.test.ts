// Words svc prints (issue 24): the missing message, and a 404 that talks about other
// organizations' objects only where the path names an object.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';

/** The file's emulator. */
const emu = useTestEmulator();
const env = () => ({ SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: emu().url });

describe('wording', () => {
  it('chats send with nothing to send says "no message given"', async () => {
    const r = await runCli(['chats', 'send', 'chat_00000000000000000000'], { env: env(), tty: true });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('error: no message given: pass it as an argument or pipe it on stdin');
    const empty = await runCli(['chats', 'send', 'chat_00000000000000000000'], { env: env(), stdin: '\n' });
    expect(empty.stderr).toContain('error: message on stdin is empty');
  });

  it("a 404 for a path the API does not have says so, not that it may be another organization's object", async () => {
    const r = await runCli(['api', 'GET', '/v1/bogus'], { env: env() });
    expect(r.exitCode).toBe(5);
    expect(r.stderr).toContain('the API has no such path');
    expect(r.stderr).not.toContain('another organization');

    const object = await runCli(['calls', 'get', 'call_00000000000000000000'], { env: env() });
    expect(object.exitCode).toBe(5);
    expect(object.stderr).toContain('objects of another organization or of the other mode answer 404 too (this is test mode)');
  });
});
