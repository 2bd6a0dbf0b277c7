// What the user owns is not deleted unasked (issue 32): `svc keys add` replacing the
// profile's key of the same mode, `svc keys remove`, `svc profiles remove`. At a terminal
// they ask (--yes answers); without one, keys add refuses unless --replace, the removals unless
// --yes (issue 44, as gh).
import { describe, expect, it } from 'vitest';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { useTestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import type { Prompter } from '../../src/io/interactive.js';

const emulator = useTestEmulator({ resetEach: true });

/** A person at the terminal who types `key` at the hidden prompt and answers `answer` to any question, noting it. */
function person(answer: boolean, key = '') {
  const asked: string[] = [];
  const prompter: Prompter = {
    password: async () => key,
    confirm: async (message) => {
      asked.push(message);
      return answer;
    },
  };
  return { asked, prompter };
}

async function profileWithTestKey() {
  const configDir = tempConfigDir();
  const secrets = new MemorySecretStore();
  const first = await runCli(['keys', 'add', '--base-url', emulator().url], { configDir, secrets, stdin: emulator().seed.keys.test });
  expect(first.exitCode, first.stderr).toBe(0);
  const { key: second } = await emulator().makeKey('test');
  return { configDir, secrets, old: emulator().seed.keys.test, second };
}

describe('svc keys add over the profile key of the same mode', () => {
  it('without a terminal: refused with exit 2, naming both keys, the old one kept; --replace replaces it', async () => {
    const { configDir, secrets, old, second } = await profileWithTestKey();
    const refused = await runCli(['keys', 'add', '--name', 'ci'], { configDir, secrets, stdin: second });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(`svc_test_…${old.slice(-4)}`);
    expect(refused.stderr).toContain(`svc_test_…${second.slice(-4)}`);
    expect(refused.stderr).toContain('--replace');
    expect(secrets.secrets.get('default:test')).toBe(old);
    expect(secrets.secrets.has('default:ci')).toBe(false);

    const replaced = await runCli(['keys', 'add', '--name', 'ci', '--replace'], { configDir, secrets, stdin: second });
    expect(replaced.exitCode, replaced.stderr).toBe(0);
    expect(secrets.secrets.get('default:ci')).toBe(second);
    expect(secrets.secrets.has('default:test')).toBe(false);
  });

  it('the same name too: a new key under "test" is a replacement', async () => {
    const { configDir, secrets, old, second } = await profileWithTestKey();
    const refused = await runCli(['keys', 'add'], { configDir, secrets, stdin: second });
    expect(refused.exitCode).toBe(2);
    expect(secrets.secrets.get('default:test')).toBe(old);
    // The very same key again replaces nothing: not asked, not refused.
    const again = await runCli(['keys', 'add'], { configDir, secrets, stdin: old });
    expect(again.exitCode, again.stderr).toBe(0);
  });

  it('at a terminal: asks naming both keys; "no" keeps the old one, "yes" replaces it', async () => {
    const { configDir, secrets, old, second } = await profileWithTestKey();
    const no = person(false, second);
    const kept = await runCli(['keys', 'add'], { configDir, secrets, tty: true, prompter: no.prompter });
    expect(kept.exitCode).toBe(1);
    expect(no.asked).toHaveLength(1);
    expect(no.asked[0]).toContain(`svc_test_…${old.slice(-4)}`);
    expect(no.asked[0]).toContain(`svc_test_…${second.slice(-4)}`);
    expect(secrets.secrets.get('default:test')).toBe(old);

    const yes = person(true, second);
    const replaced = await runCli(['keys', 'add'], { configDir, secrets, tty: true, prompter: yes.prompter });
    expect(replaced.exitCode, replaced.stderr).toBe(0);
    expect(yes.asked).toHaveLength(1);
    expect(secrets.secrets.get('default:test')).toBe(second);
  });
});

describe('svc keys remove and svc profiles remove', () => {
  it('keys remove at a terminal asks, naming the key; "no" keeps it; --yes does not ask', async () => {
    const { configDir, secrets, old } = await profileWithTestKey();
    const no = person(false);
    const kept = await runCli(['keys', 'remove', 'test'], { configDir, secrets, tty: true, prompter: no.prompter });
    expect(kept.exitCode).toBe(1);
    expect(no.asked[0]).toContain(`svc_test_…${old.slice(-4)}`);
    expect(secrets.secrets.get('default:test')).toBe(old);

    const removed = await runCli(['keys', 'remove', 'test', '--yes'], { configDir, secrets, tty: true });
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(secrets.secrets.has('default:test')).toBe(false);
  });

  it('keys remove without a terminal needs --yes (as gh): refused with exit 2, the key kept', async () => {
    const { configDir, secrets, old } = await profileWithTestKey();
    const refused = await runCli(['keys', 'remove', 'test'], { configDir, secrets });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(secrets.secrets.get('default:test')).toBe(old);
    const removed = await runCli(['keys', 'remove', 'test', '--yes'], { configDir, secrets });
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(secrets.secrets.has('default:test')).toBe(false);
  });

  it('profiles remove at a terminal asks, naming what is deleted; "no" keeps everything; without a terminal it needs --yes', async () => {
    const { configDir, secrets, old } = await profileWithTestKey();
    const no = person(false);
    const kept = await runCli(['profiles', 'remove', 'default'], { configDir, secrets, tty: true, prompter: no.prompter });
    expect(kept.exitCode).toBe(1);
    expect(no.asked[0]).toContain('profile "default" (Acme)');
    expect(no.asked[0]).toContain('1 API key');
    expect(secrets.secrets.get('default:test')).toBe(old);
    expect((await runCli(['profiles', 'list', '--json'], { configDir, secrets })).stdout).toContain('"default"');

    const yes = person(true);
    const removed = await runCli(['profiles', 'remove', 'default'], { configDir, secrets, tty: true, prompter: yes.prompter });
    expect(removed.exitCode, removed.stderr).toBe(0);
    expect(secrets.secrets.has('default:test')).toBe(false);

    const script = await profileWithTestKey();
    const refused = await runCli(['profiles', 'remove', 'default'], { configDir: script.configDir, secrets: script.secrets });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--yes');
    expect(script.secrets.secrets.has('default:test')).toBe(true);
    const quiet = await runCli(['profiles', 'remove', 'default', '--yes'], { configDir: script.configDir, secrets: script.secrets });
    expect(quiet.exitCode, quiet.stderr).toBe(0);
    expect(script.secrets.secrets.has('default:test')).toBe(false);
  });
});
