// Words svc prints (issue 24): the missing message, and a 404 that talks about other
// organizations' objects only where the path names an object.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import type { Clock } from '../../src/context.js';
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
    // Where the paths are listed, so a new user finds /v1/translate without --debug.
    expect(r.stderr).toContain('`svc api --help` lists the paths');
    expect(r.stderr).not.toContain('another organization');

    const object = await runCli(['calls', 'get', 'call_00000000000000000000'], { env: env() });
    expect(object.exitCode).toBe(5);
    expect(object.stderr).toContain('objects of another organization or of the other mode answer 404 too (this is test mode)');
  });
});

// Hints fit the situation (issue 32): each names what happened once and a next step that applies.
describe('hints fit the situation', () => {
  /** Every hint line (the indented lines after `error:`), and the whole text. */
  const hintOf = (stderr: string) =>
    stderr
      .split('\n')
      .filter((line) => line.startsWith('  '))
      .join(' ');

  it('a link on an ended call says the call ended, once', async () => {
    const call = JSON.parse((await runCli(['calls', 'start', '--languages', 'en,es', '--json'], { env: env() })).stdout).id;
    expect((await runCli(['calls', 'end', call], { env: env() })).exitCode).toBe(0);
    const r = await runCli(['calls', 'links', 'create', '--call', call, '--language', 'es'], { env: env() });
    expect(r.exitCode).toBe(6);
    expect(r.stderr).toMatch(/^error: conflict: the call has ended /);
    expect(r.stderr.match(/ended/g)).toHaveLength(1);
  });

  it('with SVC_API_KEY set, a missing scope is fixed in the variable, not with svc keys add', async () => {
    const key = await emu().plane.createKey(emu().seed.org_id, 'test', ['account:read']);
    const r = await runCli(['calls', 'list'], { env: { SVC_API_KEY: key.key, SVC_BASE_URL: emu().url } });
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain('set SVC_API_KEY to it');
    expect(r.stderr).not.toContain('keys add');
  });

  it('events trigger never suggests --live, even when a step of a fixture needs live mode', async () => {
    const dir = tempConfigDir();
    const fixture = join(dir, 'dial.json');
    writeFileSync(
      fixture,
      JSON.stringify({
        type: 'call.participant.dialed',
        steps: [
          { name: 'call', request: 'calls.create', body: { languages: ['en', 'es'] } },
          { name: 'participant', request: 'calls.dial', params: { id: '${call.id}' }, body: { to: '+14155550100', language: 'es' } },
        ],
      }),
    );
    const r = await runCli(['events', 'trigger', '--fixture', fixture], { env: env() });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain('phones cannot be dialled in test mode');
    expect(r.stderr).not.toContain('--live');
  });

  it('events trigger prints an aligned table at a terminal, one tab-separated line per step when piped', async () => {
    const tty = await runCli(['events', 'trigger', 'call.ended'], { env: env(), tty: true, columns: 80 });
    expect(tty.exitCode, tty.stderr).toBe(0);
    const lines = stripVTControlCharacters(tty.stdout).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^STEP\s+REQUEST\s+OBJECT\s+ID\s+STATUS$/);
    expect(lines[1]).toMatch(/^call {3}calls\.create  call {4}call_\w{20}  active$/);
    expect(lines[2]).toMatch(/^ended  calls\.end {5}call {4}call_\w{20}  ended$/);
    const piped = await runCli(['events', 'trigger', 'call.ended'], { env: env() });
    expect(piped.stdout).toMatch(/^call\tcalls\.create\tcall\tcall_\w{20}\tactive\nended\tcalls\.end\tcall\tcall_\w{20}\tended\n$/);
  });

  it('login timing out after --no-browser, or with no display, does not suggest --no-browser; no display is one clause', async () => {
    const passes: Clock = { now: () => Date.now(), sleep: async () => {} }; // the wait passes at once
    // (At a terminal, where a pasted redirect could finish it; without one it fails at once.)
    const noBrowser = await runCli(['login', '--no-browser', '--timeout', '5m'], { env: { SVC_BASE_URL: emu().url }, clock: passes, tty: true });
    expect(noBrowser.exitCode).toBe(3);
    expect(noBrowser.stderr).toContain('no sign-in arrived within 5 min');
    expect(hintOf(noBrowser.stderr)).not.toContain('--no-browser');

    const noDisplay = await runCli(['login', '--timeout', '5m'], { env: { SVC_BASE_URL: emu().url }, clock: passes, tty: true });
    expect(noDisplay.exitCode).toBe(3);
    expect(noDisplay.stderr).toContain('No browser here (neither DISPLAY nor WAYLAND_DISPLAY is set).');
    expect(hintOf(noDisplay.stderr)).not.toContain('--no-browser');

    // A browser that opened (or seemed to) and no sign-in: --no-browser is the way out.
    const opened = await runCli(['login', '--timeout', '5m'], {
      env: { SVC_BASE_URL: emu().url, DISPLAY: ':0' },
      clock: passes,
      browser: { open: async () => {} },
    });
    expect(hintOf(opened.stderr)).toContain('--no-browser');
  });

  it('no hint names a placeholder like <command>', async () => {
    const r = await runCli(['api', 'POST', '/v1/calls', '-f', 'title=no languages'], { env: env() });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('invalid request');
    expect(r.stderr).not.toMatch(/<\w+>/);
  });

  it('svc_test_ alone is too short, not missing its prefix', async () => {
    for (const key of ['svc_test_', 'svc_test_abc']) {
      const r = await runCli(['keys', 'add', '--stdin'], { stdin: key, env: { SVC_BASE_URL: emu().url } });
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain('error: that key is too short: an svc API key is svc_test_ and at least 8 more characters');
      expect(r.stderr).not.toContain('must start with');
    }
    const wrong = await runCli(['keys', 'add', '--stdin'], { stdin: 'sk_test_1234567890abcdef', env: { SVC_BASE_URL: emu().url } });
    expect(wrong.stderr).toContain('it must start with svc_live_ or svc_test_');
  });
});
