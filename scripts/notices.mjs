// Licence notices and an SBOM for what the bundle inlines. esbuild drops every licence
// comment (legalComments: 'none' keeps start-up small), and `npm audit` on an installed
// svc cannot see bundled code, so the build writes, from esbuild's metafiles:
// - dist/THIRD_PARTY_NOTICES.txt: each bundled package's name, version, licence and the
//   text of its licence file, as the MIT/ISC/BSD/Apache licences ask of redistributors;
// - dist/sbom.cdx.json: a CycloneDX 1.5 SBOM listing the same packages (with purls) plus
//   the one runtime dependency that stays a real npm dependency (@napi-rs/keyring).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

/** The package root (the folder holding its package.json) of a node_modules input path. */
function packageRootOf(root, input) {
  const parts = input.split(/[\\/]/);
  const at = parts.lastIndexOf('node_modules');
  if (at < 0) return undefined;
  const depth = parts[at + 1]?.startsWith('@') ? 2 : 1;
  return join(root, ...parts.slice(0, at + 1 + depth));
}

function licenceText(dir) {
  const file = readdirSync(dir).find((name) => /^(licen[cs]e|copying|notice)(\.|$|-)/i.test(name));
  return file ? readFileSync(join(dir, file), 'utf8').trim() : undefined;
}

function licenceId(pkg) {
  if (typeof pkg.license === 'string') return pkg.license;
  if (pkg.license && typeof pkg.license.type === 'string') return pkg.license.type;
  if (Array.isArray(pkg.licenses)) return pkg.licenses.map((l) => l.type).join(' OR ');
  return 'UNKNOWN';
}

function purl(name, version) {
  return `pkg:npm/${name.startsWith('@') ? '%40' + name.slice(1) : name}@${version}`;
}

/** The packages whose code a set of esbuild metafiles says went into the bundle. */
export function bundledPackages(root, metafiles) {
  const byId = new Map(); // name@version: a package nested twice at one version is listed once
  for (const meta of metafiles) {
    for (const output of Object.values(meta.outputs)) {
      for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
        if (bytesInOutput === 0) continue; // tree-shaken away entirely
        const dir = packageRootOf(root, input);
        if (!dir || !existsSync(join(dir, 'package.json'))) continue;
        const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
        const id = `${pkg.name}@${pkg.version}`;
        if (byId.has(id)) continue;
        byId.set(id, { name: pkg.name, version: pkg.version, licence: licenceId(pkg), text: licenceText(dir), homepage: pkg.homepage });
      }
    }
  }
  return [...byId.values()].sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

/** Writes THIRD_PARTY_NOTICES.txt and sbom.cdx.json into `outdir`; returns the package list. */
export function writeNotices(root, outdir, metafiles) {
  const self = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const bundled = bundledPackages(root, metafiles);
  const runtime = Object.keys(self.dependencies ?? {}).map((name) => {
    const dir = join(root, 'node_modules', ...name.split('/'));
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    return { name, version: pkg.version, licence: licenceId(pkg) };
  });

  const notices = [
    `svc ${self.version} bundles the following packages into dist/. Their licences follow.`,
    '',
    ...bundled.flatMap((p) => [
      '='.repeat(78),
      `${p.name} ${p.version} (${p.licence})${p.homepage ? `\n${p.homepage}` : ''}`,
      '-'.repeat(78),
      p.text ?? `Licensed under ${p.licence}; the package ships no licence file.`,
      '',
    ]),
  ].join('\n');
  writeFileSync(join(outdir, 'THIRD_PARTY_NOTICES.txt'), notices + '\n');

  const component = (p, scope) => ({
    type: 'library',
    'bom-ref': purl(p.name, p.version),
    name: p.name,
    version: p.version,
    scope,
    purl: purl(p.name, p.version),
    licenses: p.licence.includes(' ') ? [{ expression: p.licence }] : [{ license: { id: p.licence } }],
  });
  const sbom = {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: {
      component: {
        type: 'application',
        'bom-ref': purl(self.name, self.version),
        name: self.name,
        version: self.version,
        purl: purl(self.name, self.version),
        licenses: [{ license: { id: self.license } }],
      },
      properties: [{ name: 'svc:bundled', value: 'components with scope "required" and property svc:inlined are compiled into dist/' }],
    },
    components: [
      ...bundled.map((p) => ({ ...component(p, 'required'), properties: [{ name: 'svc:inlined', value: 'true' }] })),
      ...runtime.map((p) => component(p, 'required')),
    ],
  };
  writeFileSync(join(outdir, 'sbom.cdx.json'), JSON.stringify(sbom, null, 2) + '\n');
  return bundled;
}
