// The tests' own certificate authority, made with the emulator's module (src/emulator/tls.ts)
// in .tmp/ of this checkout and reused. vitest.config.ts names it in NODE_EXTRA_CA_CERTS
// before the test processes start, so they trust it the way users trust the emulator's CA:
// Node reads that variable when a process starts. Servers of the tests' own (the hostile
// suite's https twin) get their certificates from it.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { issueServerCertificate, openLocalCa, type ServerCertificate } from '../../src/emulator/tls.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const TEST_CA_DIR = join(root, '.tmp', 'test-ca');

/** The CA certificate's file, the CA made on first use. */
export function testCaFile(): string {
  try {
    return openLocalCa(TEST_CA_DIR).certFile;
  } catch (error) {
    // Another run made it at the same moment: read what it wrote.
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return openLocalCa(TEST_CA_DIR).certFile;
    throw error;
  }
}

/** A server certificate for 127.0.0.1 and localhost, issued by the tests' CA. */
export function testServerCertificate(names: string[] = ['127.0.0.1', 'localhost', '::1']): ServerCertificate {
  return issueServerCertificate(openLocalCa(TEST_CA_DIR), names);
}
