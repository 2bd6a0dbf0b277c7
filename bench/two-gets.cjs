// The floor under `svc account --json` (bench/run.mjs): GET /v1/account, then /v1/balance,
// as svc asks them, with node:http over one keep-alive agent, both answers printed: what any
// Node CLI pays for the same work. The bearer is SVC_API_KEY, or with BENCH_KEYCHAIN_ACCOUNT
// the key read from the OS keychain with @napi-rs/keyring, as svc reads a stored key.
'use strict';
const http = require('node:http');
const base = new URL(process.env.SVC_BASE_URL);
const agent = new http.Agent({ keepAlive: true });
let headers;

function get(path, then) {
  http.get({ agent, hostname: base.hostname, port: base.port, path, headers }, (response) => {
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk) => (body += chunk));
    response.on('end', () => {
      if (response.statusCode !== 200) process.exitCode = 1;
      process.stdout.write(`${body}\n`);
      then();
    });
  });
}

async function bearer() {
  if (!process.env.BENCH_KEYCHAIN_ACCOUNT) return process.env.SVC_API_KEY;
  const { AsyncEntry } = require('@napi-rs/keyring');
  return new AsyncEntry('svc', process.env.BENCH_KEYCHAIN_ACCOUNT).getPassword();
}

bearer().then((key) => {
  headers = { authorization: `Bearer ${key}`, accept: 'application/json' };
  get('/v1/account', () => get('/v1/balance', () => agent.destroy()));
});
