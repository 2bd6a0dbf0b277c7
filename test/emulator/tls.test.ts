// The emulator's local CA (src/emulator/tls.ts): made once in a folder of the user's own,
// reused on later starts, its key 0600; the server certificate it issues is trusted by a
// client given only the CA file, for every name the emulator answers.
import { mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer, get } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { issueServerCertificate, LocalCaError, openLocalCa } from '../../src/emulator/tls.js';

const root = mkdtempSync(join(tmpdir(), 'svc-ca-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function fetchOver(port: number, host: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Every name resolves to 127.0.0.1 here; the certificate is checked against the name asked for.
    const lookup = (_name: string, options: { all?: boolean }, callback: (error: null, address: unknown, family?: number) => void) =>
      options.all ? callback(null, [{ address: '127.0.0.1', family: 4 }]) : callback(null, '127.0.0.1', 4);
    get({ host, port, ca, lookup: lookup as never }, (response) => {
      let text = '';
      response.on('data', (chunk) => (text += chunk));
      response.on('end', () => resolve(text));
    }).on('error', reject);
  });
}

describe('the local CA', () => {
  it('is made on first use (key 0600, folder 0700) and reused afterwards', () => {
    const dir = join(root, 'ca');
    const first = openLocalCa(dir);
    expect(first.created).toBe(true);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'ca-key.pem')).mode & 0o777).toBe(0o600);
    const again = openLocalCa(dir);
    expect(again.created).toBe(false);
    expect(again.certPem).toBe(first.certPem);
    expect(readFileSync(again.certFile, 'utf8')).toBe(first.certPem);
  });

  it('refuses a folder that is a link', () => {
    const real = join(root, 'real');
    openLocalCa(real);
    const link = join(root, 'link');
    symlinkSync(real, link);
    expect(() => openLocalCa(link)).toThrow(LocalCaError);
  });

  it('issues a certificate that a client trusting only the CA accepts for 127.0.0.1 and localhost', async () => {
    const ca = openLocalCa(join(root, 'issue'));
    const certificate = issueServerCertificate(ca, ['localhost', '127.0.0.1', '::1', 'myhost.test']);
    const server = createServer(certificate, (_req, res) => res.end('over tls'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      expect(await fetchOver(port, '127.0.0.1', ca.certPem)).toBe('over tls');
      expect(await fetchOver(port, 'localhost', ca.certPem)).toBe('over tls');
      expect(await fetchOver(port, 'myhost.test', ca.certPem)).toBe('over tls');
      await expect(fetchOver(port, 'other.test', ca.certPem)).rejects.toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
      const other = openLocalCa(join(root, 'other'));
      await expect(fetchOver(port, '127.0.0.1', other.certPem)).rejects.toMatchObject({ code: expect.stringMatching(/UNABLE_TO_VERIFY|SELF_SIGNED/) });
    } finally {
      server.close();
    }
  });
});
