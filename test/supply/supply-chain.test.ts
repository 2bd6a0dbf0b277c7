// Licences and supply chain: what the bundle inlines is listed with its licence text and in
// an SBOM, the package ships them, and CI's lockfile audit refuses what bypasses the registry.
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
const out = join(root, 'dist'); // (built by the suites' global setup)

interface Component {
  'bom-ref': string;
  name: string;
  version: string;
  purl: string;
  licenses: unknown[];
  properties?: { name: string; value: string }[];
}

describe('licence notices and SBOM of the bundle', () => {
  it('lists every library svc imports, with its licence text, once per version', () => {
    const notices = readFileSync(join(out, 'THIRD_PARTY_NOTICES.txt'), 'utf8');
    const sbom = JSON.parse(readFileSync(join(out, 'sbom.cdx.json'), 'utf8')) as { bomFormat: string; specVersion: string; components: Component[] };
    expect(sbom.bomFormat).toBe('CycloneDX');
    const inlined = sbom.components.filter((c) => c.properties?.some((p) => p.name === 'svc:inlined'));
    // The libraries src/ imports by name, each compiled into dist/ (an independent list, not the metafile).
    for (const name of ['commander', 'hono', 'zod', 'eventsource-parser', 'undici', 'chalk', 'get-east-asian-width', 'ora', 'jq-wasm', '@hono/node-server']) {
      // (a library may be there in two versions: svc's own and one another library brings.)
      const version = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
      const c = inlined.find((x) => x.name === name && x.version === version);
      expect(c, `${name} ${version}`).toBeDefined();
      expect(c!.version).toBe(version);
      expect(c!.purl).toBe(`pkg:npm/${name.replace('@', '%40')}@${version}`);
      expect(notices).toContain(`${name} ${version} (`);
    }
    // The keychain addon is not inlined but is a runtime dependency: in the SBOM, not inlined.
    expect(sbom.components.some((c) => c.name === '@napi-rs/keyring' && !c.properties)).toBe(true);
    const refs = sbom.components.map((c) => c['bom-ref']);
    expect(new Set(refs).size).toBe(refs.length);
    for (const c of sbom.components) expect(c.licenses.length, c.name).toBeGreaterThan(0);
    // Licence texts, not just names: commander's MIT text and its copyright line.
    expect(notices).toMatch(/commander[\s\S]*Permission is hereby granted/);
    expect(notices).not.toMatch(/ships no licence file[\s\S]{0,10}commander/);
  });

  it('ships LICENSE, the notices and the SBOM in the package', () => {
    const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' });
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'dist/THIRD_PARTY_NOTICES.txt', 'dist/sbom.cdx.json']));
  });
});

describe('lockfile audit (scripts/audit-lockfile.mjs)', () => {
  const audit = (mutate: (lock: { packages: Record<string, Record<string, unknown>> }, pkg: Record<string, Record<string, string>>) => void) => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-audit-'));
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8'));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    mutate(lock, pkg);
    writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lock));
    writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg));
    cpSync(join(root, 'scripts', 'audit-lockfile.mjs'), join(dir, 'audit.mjs'));
    cpSync(join(root, 'scripts', 'help.mjs'), join(dir, 'help.mjs'));
    const r = spawnSync(process.execPath, ['audit.mjs'], { cwd: dir, encoding: 'utf8', env: { ...process.env, SVC_AUDIT_OFFLINE: '1' } });
    rmSync(dir, { recursive: true, force: true });
    return r;
  };

  it('passes the project lockfile', () => {
    const r = audit(() => {});
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/all from the registry/);
  });

  it('refuses a git source, a tarball URL, an unlisted install script and a range drift', () => {
    const r = audit((lock, pkg) => {
      lock.packages['node_modules/chalk']!.resolved = 'git+ssh://git@example.invalid/chalk.git#abc';
      lock.packages['node_modules/zod']!.resolved = 'https://example.invalid/zod.tgz';
      lock.packages['node_modules/ora']!.hasInstallScript = true;
      pkg.devDependencies!.commander = '^15.0.0';
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/node_modules\/chalk comes from git\+ssh/);
    expect(r.stderr).toMatch(/node_modules\/zod comes from https:\/\/example\.invalid/);
    expect(r.stderr).toMatch(/node_modules\/ora runs an install script/);
    expect(r.stderr).toMatch(/commander is locked at 14\.\d+\.\d+, outside package\.json's \^15\.0\.0/);
  });
});
