// The reference under svc's request commands (bench/run.mjs, bench/requests.mjs,
// bench/start-phases.mjs): what any Node CLI pays for the same requests. A script of a few
// lines with node:http or node:https (by the address; an emulator's CA trusted through
// NODE_EXTRA_CA_CERTS, as svc's is), one keep-alive agent, the requests sent at once as svc
// sends them, each answer printed. The bearer is SVC_API_KEY; with BENCH_KEYCHAIN_ACCOUNT the
// key read from the OS keychain with @napi-rs/keyring; with BENCH_CREDENTIALS_FILE (and
// BENCH_CREDENTIALS_ACCOUNT) the key read from svc's credentials.json: as svc reads a stored key.
//   node bench/bare-requests.cjs /v1/account /v1/balance     (SVC_BASE_URL, SVC_API_KEY)
'use strict';
const base = new URL(process.env.SVC_BASE_URL);
const client = require(base.protocol === 'https:' ? 'node:https' : 'node:http');
const agent = new client.Agent({ keepAlive: true });
const paths = process.argv.slice(2);

async function bearer() {
  if (process.env.BENCH_CREDENTIALS_FILE) {
    // svc's file store: credentials.json, { "<profile>:<name>": secret } (src/credentials/store.ts).
    const stored = JSON.parse(require('node:fs').readFileSync(process.env.BENCH_CREDENTIALS_FILE, 'utf8'));
    return stored[process.env.BENCH_CREDENTIALS_ACCOUNT] ?? stored.secrets?.[process.env.BENCH_CREDENTIALS_ACCOUNT];
  }
  if (!process.env.BENCH_KEYCHAIN_ACCOUNT) return process.env.SVC_API_KEY;
  const { AsyncEntry } = require('@napi-rs/keyring');
  return new AsyncEntry('svc', process.env.BENCH_KEYCHAIN_ACCOUNT).getPassword();
}

bearer().then((key) => {
  const headers = { authorization: `Bearer ${key}`, accept: 'application/json' };
  let pending = paths.length;
  for (const path of paths) {
    client.get(new URL(path, base), { agent, headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => {
        if (response.statusCode !== 200) process.exitCode = 1;
        process.stdout.write(`${body}\n`);
        if (--pending === 0) agent.destroy();
      });
    });
  }
});
