// A throwaway machine for apt and dpkg: apt's whole configuration and state in a temp folder
// (APT_CONFIG: Dir::Etc, Dir::State, Dir::Cache, Dir::Log), the dpkg status a copy of this
// machine's (so an installed package's Depends are met as they are here), and dpkg installing
// into that folder (--root). The machine's own apt and dpkg are not touched.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface AptMachine {
  /** The root: its etc/apt/ is the machine's /etc/apt/. */
  dir: string;
  /** The environment apt-get runs with here (APT_CONFIG). */
  env: NodeJS.ProcessEnv;
  apt(...args: string[]): { status: number | null; out: string };
  /** The installed svc: the root's /usr/bin/svc. */
  svc: string;
}

/** Why apt cannot be tested on this machine, or null. */
export function aptProblem(tools: string[] = ['apt-get', 'gpg', 'dpkg-deb']): string | null {
  const missing = tools.filter((tool) => spawnSync(tool, ['--version']).error);
  if (missing.length) return `${missing.join(', ')} not installed (Debian's apt, gnupg, dpkg, curl)`;
  if (process.platform !== 'linux' || process.arch !== 'x64') return 'the apt tests install the amd64 package';
  if (process.getuid?.() !== 0) return 'dpkg --root installs root-owned files: run as root';
  return null;
}

export interface AptMachineOptions {
  /**
   * apt's downloads and signature checks as the `_apt` user, as on a real machine (apt's
   * default), rather than as root: a keyring `_apt` cannot read then fails as it does there.
   * The root's folders are made 0755 whatever the umask, as a real system's are.
   */
  sandboxed?: boolean;
  /** Whether etc/apt/keyrings/ exists (Debian 11 and Ubuntu 20.04 have none). */
  keyrings?: boolean;
}

export function aptMachine(parent: string, { sandboxed = false, keyrings = true }: AptMachineOptions = {}): AptMachine {
  const dir = mkdtempSync(join(parent, 'root-'));
  const folders = [
    'etc/apt/sources.list.d',
    ...(keyrings ? ['etc/apt/keyrings'] : []),
    'etc/apt/apt.conf.d',
    'etc/apt/preferences.d',
    'etc/apt/trusted.gpg.d',
    'var/lib/apt/lists/partial',
    'var/cache/apt/archives/partial',
    'var/lib/dpkg/info',
    'var/lib/dpkg/updates',
    'var/log/apt',
  ];
  for (const sub of folders) {
    mkdirSync(join(dir, sub), { recursive: true });
    if (sandboxed) for (let path = sub; path !== '.'; path = dirname(path)) chmodSync(join(dir, path), 0o755);
  }
  if (sandboxed) chmodSync(dir, 0o755);
  // The machine's packages but svc: an svc the admin installed here must not make the root's
  // apt answer "already the newest version" and install nothing.
  const status = readFileSync('/var/lib/dpkg/status', 'utf8')
    .split(/\n\n+/)
    .filter((stanza) => !/^Package: svc$/m.test(stanza))
    .join('\n\n');
  writeFileSync(join(dir, 'var/lib/dpkg/status'), status);
  writeFileSync(join(dir, 'var/lib/dpkg/available'), '');
  const conf = join(dir, 'apt.conf');
  writeFileSync(
    conf,
    [
      `Dir::Etc "${dir}/etc/apt";`,
      `Dir::State "${dir}/var/lib/apt";`,
      `Dir::State::status "${dir}/var/lib/dpkg/status";`,
      `Dir::Cache "${dir}/var/cache/apt";`,
      `Dir::Log "${dir}/var/log/apt";`,
      ...(sandboxed ? [] : ['APT::Sandbox::User "root";']),
      'APT::Architecture "amd64";',
      'APT::Architectures { "amd64"; };',
      `DPkg::Options { "--root=${dir}"; "--log=${dir}/var/log/dpkg.log"; };`,
      'DPkg::Use-Pty "false";',
      '',
    ].join('\n'),
  );
  const env = { ...process.env, APT_CONFIG: conf, DEBIAN_FRONTEND: 'noninteractive', LANG: 'C' };
  return {
    dir,
    env,
    svc: join(dir, 'usr/bin/svc'),
    apt: (...args) => {
      const ran = spawnSync('apt-get', ['-q', ...args], { env, encoding: 'utf8' });
      return { status: ran.status, out: `${ran.stdout}${ran.stderr}` };
    },
  };
}

/**
 * A package named svc at `version` for `arch` (Debian's name) whose /usr/bin/svc prints the
 * version: a stand-in where the real .deb is not built (another architecture, or no
 * `npm run dist` yet).
 */
export function standInDeb(parent: string, version: string, arch = 'amd64'): string {
  const tree = mkdtempSync(join(parent, 'stand-in-'));
  mkdirSync(join(tree, 'DEBIAN'), { recursive: true });
  mkdirSync(join(tree, 'usr/bin'), { recursive: true });
  writeFileSync(
    join(tree, 'DEBIAN/control'),
    `Package: svc\nVersion: ${version}\nArchitecture: ${arch}\nMaintainer: svc maintainers <maintainers@svc-cli.dev>\nDescription: a stand-in for tests\n`,
  );
  writeFileSync(join(tree, 'usr/bin/svc'), `#!/bin/sh\necho ${version}\n`);
  chmodSync(join(tree, 'usr/bin/svc'), 0o755);
  const deb = join(parent, `svc_${version}_${arch}.deb`);
  const built = spawnSync('dpkg-deb', ['--root-owner-group', '--build', tree, deb], { encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`dpkg-deb failed: ${built.stderr}`);
  return deb;
}
