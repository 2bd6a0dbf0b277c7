// The package as a user gets it: `npm pack`, a global install into a temporary
// prefix, then the installed `svc` runs its commands (the emulator included) and
// its shell completions work in real bash, zsh and fish.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(import.meta.dirname, '../..');
const requireReal = process.env.SVC_REQUIRE_REAL === '1';

let scratch = '';
let prefix = '';
let svcBin = '';
let packageDir = '';
let emulator: ChildProcess | undefined;
let seed: { url: string; org_id: string; keys: { test: string; live: string } };
/** What `npm install -g` of the tarball printed on stderr. */
let installWarnings = '';

function svcEnv(env: Record<string, string> = {}) {
  return {
    ...process.env,
    PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`,
    SVC_CONFIG_DIR: join(scratch, 'config'),
    SVC_CREDENTIAL_STORE: 'file',
    NO_COLOR: '1',
    ...env,
  };
}

function svc(args: string[], env: Record<string, string> = {}) {
  return run(svcBin, args, { env: svcEnv(env), timeout: 30_000 });
}

/** Runs the installed svc with `input` on stdin (promisified execFile cannot). */
function svcWithStdin(args: string[], input: string, env: Record<string, string> = {}) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(svcBin, args, { env: svcEnv(env), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

/** Asks a real shell what <TAB> offers after `line`, using the installed completion file. */
async function complete(shell: 'bash' | 'zsh' | 'fish', line: string): Promise<string[]> {
  const file = join(packageDir, 'dist', 'completions', `svc.${shell}`);
  const shells = join(import.meta.dirname, 'shells');
  const [program, args] =
    shell === 'bash'
      ? ['bash', ['--norc', '--noprofile', join(shells, 'bash-complete.bash'), file, line]]
      : shell === 'zsh'
        ? ['zsh', ['-f', join(shells, 'zsh-complete.zsh'), file, line]]
        : ['fish', ['--no-config', '-c', `source ${file}; complete -C ${JSON.stringify(line)}`]];
  const { stdout } = await run(program as string, args as string[], { env: svcEnv(), timeout: 30_000 });
  // fish prints "candidate<TAB>description"; the others print bare candidates.
  return stdout
    .split('\n')
    .map((entry) => entry.split('\t')[0]!.trim())
    .filter(Boolean);
}

function shellMissing(shell: string): boolean {
  return !['/usr/bin', '/bin', '/usr/local/bin'].some((dir) => existsSync(join(dir, shell)));
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'svc-package-'));
  prefix = join(scratch, 'prefix');
  const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: root, timeout: 120_000 });
  const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
  const installed = await run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', join(scratch, filename)], {
    timeout: 180_000,
  });
  installWarnings = installed.stderr;
  svcBin = join(prefix, 'bin', 'svc');
  packageDir = join(prefix, 'lib', 'node_modules', 'svc');

  emulator = spawn(svcBin, ['emulator', '--port', '0', '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
  seed = await new Promise((resolve, reject) => {
    let buffered = '';
    emulator!.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const end = buffered.indexOf('\n');
      if (end >= 0) resolve(JSON.parse(buffered.slice(0, end)));
    });
    emulator!.on('exit', (code) => reject(new Error(`installed emulator exited ${code}`)));
  });
}, 300_000);

afterAll(() => {
  emulator?.kill('SIGINT');
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the packed and globally installed package', () => {
  it('ships only bin, dist (with its man pages and completions), fixtures, LICENSE, README and package.json', () => {
    const shipped = readdirSync(packageDir)
      .filter((name) => name !== 'node_modules')
      .sort();
    expect(shipped).toEqual(['LICENSE', 'README.md', 'bin', 'dist', 'fixtures', 'package.json']);
    // One `events trigger` fixture per event type.
    expect(readdirSync(join(packageDir, 'fixtures', 'triggers')).sort()).toHaveLength(11);
  });

  it('links its man pages where man finds them (package.json "man")', () => {
    const pages = join(prefix, 'share', 'man', 'man1');
    expect(readdirSync(pages)).toEqual(expect.arrayContaining(['svc.1', 'svc-calls-start.1']));
    if (!existsSync('/usr/bin/man')) return; // (man-db: .ci/run installs it)
    const found = spawnSync('man', ['-w', 'svc-calls-start'], { encoding: 'utf8', env: { ...process.env, MANPATH: join(prefix, 'share', 'man') } });
    // (man-db names the file the link leads to: the package's own page)
    expect(found.stdout.trim()).toBe(realpathSync(join(pages, 'svc-calls-start.1')));
  });

  it('installs with no install-script warning (npm 11 lists a package with preinstall, install, postinstall or prepare scripts)', () => {
    const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare']) expect(manifest.scripts ?? {}).not.toHaveProperty(script);
    expect(installWarnings).not.toMatch(/install-scripts|allowScripts|allow-scripts/);
  });

  it('has one production dependency, the prebuilt keychain addon', async () => {
    const installed = readdirSync(join(packageDir, 'node_modules')).flatMap((name) =>
      name.startsWith('@') ? readdirSync(join(packageDir, 'node_modules', name)).map((sub) => `${name}/${sub}`) : [name],
    );
    expect(installed.filter((name) => !name.startsWith('.'))).toEqual(expect.arrayContaining(['@napi-rs/keyring']));
    expect(installed.every((name) => name.startsWith('@napi-rs/keyring') || name.startsWith('.'))).toBe(true);
  });

  it('prints its version and help', async () => {
    const version = await svc(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const help = await svc(['--help']);
    for (const command of ['login', 'logout', 'auth', 'keys', 'mode', 'calls', 'chats', 'translate', 'events', 'account', 'api', 'completion', 'emulator']) {
      expect(help.stdout).toContain(command);
    }
  });

  it('runs the emulator it ships', () => {
    expect(seed.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(seed.keys.test.startsWith('svc_test_')).toBe(true);
  });

  it('runs account, calls, chats, translate, events and api against that emulator', async () => {
    const env = { SVC_API_KEY: seed.keys.test, SVC_BASE_URL: seed.url };
    const account = JSON.parse((await svc(['account', '--json'], env)).stdout);
    expect(account.id).toBe(seed.org_id);

    const call = JSON.parse((await svc(['calls', 'start', '--languages', 'en,es', '--json'], env)).stdout);
    expect(call.status).toBe('active');
    const ended = JSON.parse((await svc(['calls', 'end', call.id, '--json'], env)).stdout);
    expect(ended.status).toBe('ended');

    const chat = JSON.parse((await svc(['chats', 'start', '--language', 'en', '--json'], env)).stdout);
    await svc(['chats', 'send', chat.id, 'hello', '--json'], env);
    const messages = JSON.parse((await svc(['chats', 'messages', chat.id, '--json'], env)).stdout);
    expect(JSON.stringify(messages)).toContain('hello');

    const translated = await svc(['translate', 'good morning', '--to', 'es'], env);
    expect(translated.stdout.trim()).toBe('[es] good morning');

    // events: the API's list, then `events tail --since` replaying what followed call.started.
    const listed = JSON.parse((await svc(['api', 'GET', '/v1/events', '--json'], env)).stdout);
    const started = listed.data.find((event: { type: string; data: { id: string } }) => event.type === 'call.started' && event.data.id === call.id);
    expect(started).toBeDefined();
    const tail = await svc(['events', 'tail', '--json', '--since', started.id, '--type', 'call.ended', '--max-events', '1'], env);
    const replayed = JSON.parse(tail.stdout.trim());
    expect(replayed.type).toBe('call.ended');
    expect(replayed.data.id).toBe(call.id);
  });

  it("prints every command's help with an example", async () => {
    const leaves = [
      ['login'],
      ['logout'],
      ['auth', 'status'],
      ['auth', 'token'],
      ['auth', 'switch'],
      ['keys', 'add'],
      ['keys', 'list'],
      ['keys', 'remove'],
      ['mode'],
      ['account'],
      ['account', 'balance'],
      ['account', 'prices'],
      ['calls', 'list'],
      ['calls', 'start'],
      ['calls', 'dial'],
      ['calls', 'links', 'create'],
      ['calls', 'lines', 'add'],
      ['chats', 'send'],
      ['chats', 'voice'],
      ['chats', 'stream'],
      ['translate'],
      ['events', 'tail'],
      ['api'],
      ['completion'],
      ['emulator'],
    ];
    for (const leaf of leaves) {
      const { stdout } = await svc([...leaf, '--help']);
      expect(stdout, leaf.join(' ')).toMatch(/Examples?:/);
    }
  });
});

let profilesConfigured: Promise<void> | undefined;
/** Two configured profiles for `--profile <TAB>`, made once, the way a user makes them. */
function configureProfiles(): Promise<void> {
  profilesConfigured ??= (async () => {
    for (const profile of ['work', 'ci-bot']) {
      const added = await svcWithStdin(['keys', 'add', '--stdin', '--profile', profile], seed.keys.test, {
        SVC_BASE_URL: seed.url,
      });
      if (added.code !== 0) throw new Error(`svc keys add --profile ${profile} failed: ${added.stderr}`);
    }
  })();
  return profilesConfigured;
}

for (const shell of ['bash', 'zsh', 'fish'] as const) {
  // CI installs every shell (SVC_REQUIRE_REAL=1), so there a missing shell fails instead of skipping.
  const skip = shellMissing(shell) && !requireReal;
  if (skip) console.warn(`skipping the ${shell} completion suite: ${shell} is not installed`);
  describe.skipIf(skip)(`completions installed from the package, in a real ${shell}${skip ? ` (skipped: ${shell} is not installed)` : ''}`, () => {
    beforeAll(() => configureProfiles());

    it('completes `svc ca<TAB>` to calls', async () => {
      const offered = await complete(shell, 'svc ca');
      expect(offered).toContain('calls');
      expect(offered).not.toContain('chats');
    });

    it('completes `svc calls <TAB>` to its subcommands', async () => {
      const offered = await complete(shell, 'svc calls ');
      expect(offered).toEqual(expect.arrayContaining(['list', 'get', 'start', 'end', 'dial', 'links', 'lines']));
      expect(offered).not.toContain('messages');
    });

    it('completes `--profile <TAB>` from the configured profiles', async () => {
      const offered = await complete(shell, 'svc calls list --profile ');
      expect(offered).toEqual(expect.arrayContaining(['work', 'ci-bot']));
    });
  });
}
