// `svc emulator --https`: a local certificate authority the emulator makes on first use and
// keeps in a folder of the user's own (0700; the CA key 0600, never copied anywhere else), and
// a server certificate it issues from that CA at each start for the names the emulator
// answers. Clients trust the CA file through NODE_EXTRA_CA_CERTS, the Node convention.
// RSA keys come from Node's crypto (fast, native); node-forge only writes the certificates.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import forge from 'node-forge';
import { openOwnFile, OwnFileRefusedError } from '../files/own-file.js';

export const CA_CERT_FILE = 'ca.pem';
export const CA_KEY_FILE = 'ca-key.pem';
/** A PEM certificate or key is a few KiB: anything larger at these paths is not ours. */
const MAX_PEM_BYTES = 64 * 1024;
const DAY_MS = 86_400_000;

export interface LocalCa {
  /** The folder holding the CA (0700). */
  dir: string;
  /** The CA certificate's file: what NODE_EXTRA_CA_CERTS names. */
  certFile: string;
  certPem: string;
  keyPem: string;
  /** True when this call made the CA (first use). */
  created: boolean;
}

export interface ServerCertificate {
  cert: string;
  key: string;
}

/** A problem with the CA folder or its files: names the path; the user's to fix. */
export class LocalCaError extends Error {}

function rsaKeyPair(): { publicKey: forge.pki.rsa.PublicKey; privateKey: forge.pki.rsa.PrivateKey; privatePem: string } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privatePem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(privatePem) as forge.pki.rsa.PrivateKey;
  return { privateKey: forgeKey, publicKey: forge.pki.setRsaPublicKey(forgeKey.n, forgeKey.e), privatePem };
}

function serialNumber(): string {
  // Positive (high bit clear), random: RFC 5280 §4.1.2.2.
  const bytes = randomBytes(16);
  bytes[0] = bytes[0]! & 0x7f;
  return bytes.toString('hex');
}

/** The folder, made 0700 when missing; refused unless it is a real folder of this user. */
function ownFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const info = lstatSync(dir);
  if (!info.isDirectory()) throw new LocalCaError(`${dir} is not a folder (a link or a file?); the emulator keeps its CA only in a folder of its own`);
  if (process.getuid && info.uid !== process.getuid())
    throw new LocalCaError(`${dir} belongs to another user; the emulator keeps its CA key only in a folder of yours`);
  if ((info.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

/** A file of the CA folder: a regular file of bounded size, opened without following a link (src/files/own-file.ts); its mode repaired on the opened file. */
function readOwnFile(path: string, mode: number): string | undefined {
  let fd: number;
  try {
    fd = openOwnFile(path, constants.O_RDONLY, { what: 'the CA file', maxBytes: MAX_PEM_BYTES });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    if (error instanceof OwnFileRefusedError && error.reason !== 'link')
      throw new LocalCaError(`${path} is not a PEM file the emulator wrote; remove it to make a new CA`);
    const code = error instanceof OwnFileRefusedError ? 'ELOOP' : (error as NodeJS.ErrnoException).code;
    throw new LocalCaError(`cannot read ${path}: ${code ?? (error as Error).message}`);
  }
  try {
    // Repaired through the descriptor, never through a link.
    if ((fstatSync(fd).mode & 0o777 & ~mode) !== 0) fchmodSync(fd, mode);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function writeNewFile(path: string, text: string, mode: number): void {
  // 'wx': never over an existing file or through a link left there.
  writeFileSync(path, text, { mode, flag: 'wx' });
}

/**
 * The CA in `dir`: read when both files are there and the certificate is still valid, else
 * made (2048-bit RSA, ten years) and written, the key 0600.
 */
export function openLocalCa(dir: string, now: () => number = Date.now): LocalCa {
  ownFolder(dir);
  const certFile = join(dir, CA_CERT_FILE);
  const keyFile = join(dir, CA_KEY_FILE);
  const certPem = readOwnFile(certFile, 0o644);
  const keyPem = readOwnFile(keyFile, 0o600);
  if (certPem && keyPem) {
    let cert: forge.pki.Certificate;
    try {
      cert = forge.pki.certificateFromPem(certPem);
      forge.pki.privateKeyFromPem(keyPem);
    } catch {
      throw new LocalCaError(`${certFile} or ${CA_KEY_FILE} beside it does not parse; remove ${dir} to make a new CA`);
    }
    if (cert.validity.notAfter.getTime() > now() + DAY_MS) return { dir, certFile, certPem, keyPem, created: false };
  }
  if (certPem !== undefined || keyPem !== undefined) {
    if (certPem === undefined || keyPem === undefined)
      throw new LocalCaError(`${dir} holds only half of a CA (${certPem ? CA_KEY_FILE : CA_CERT_FILE} is missing); remove ${dir} to make a new one`);
    throw new LocalCaError(`the CA in ${dir} expires within a day; remove ${dir} to make a new one (and trust the new ${CA_CERT_FILE})`);
  }
  const keys = rsaKeyPair();
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now() - DAY_MS);
  cert.validity.notAfter = new Date(now() + 3650 * DAY_MS);
  // A name of its own: two trusted CAs (two machines' emulators) must not pass for each other.
  const subject = [
    { name: 'commonName', value: `svc emulator local CA ${cert.serialNumber.slice(0, 8)}` },
    { name: 'organizationName', value: 'svc emulator' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true, pathLenConstraint: 0 },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  const newCertPem = forge.pki.certificateToPem(cert);
  writeNewFile(keyFile, keys.privatePem, 0o600);
  writeNewFile(certFile, newCertPem, 0o644);
  return { dir, certFile, certPem: newCertPem, keyPem: keys.privatePem, created: true };
}

/** A server certificate for `names` (host names and IP addresses), signed by the CA; valid for a year. */
export function issueServerCertificate(ca: Pick<LocalCa, 'certPem' | 'keyPem'>, names: Iterable<string>, now: () => number = Date.now): ServerCertificate {
  const caCert = forge.pki.certificateFromPem(ca.certPem);
  const caKey = forge.pki.privateKeyFromPem(ca.keyPem);
  const keys = rsaKeyPair();
  const unique = [...new Set([...names].map((name) => name.replace(/^\[|\]$/g, '').toLowerCase()))];
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now() - DAY_MS);
  cert.validity.notAfter = new Date(now() + 365 * DAY_MS);
  cert.setSubject([{ name: 'commonName', value: unique[0] ?? 'localhost' }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: unique.map((name) => (isIP(name) ? { type: 7, ip: name } : { type: 2, value: name })) },
  ]);
  cert.sign(caKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: keys.privatePem };
}
