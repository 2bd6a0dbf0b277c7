// The floor under `svc account --json` (bench/run.mjs): GET /v1/account, then /v1/balance,
// as svc asks them, with node:http over one keep-alive agent, SVC_API_KEY as the bearer,
// both answers printed. What any Node CLI pays for the same work.
'use strict';
const http = require('node:http');
const base = new URL(process.env.SVC_BASE_URL);
const agent = new http.Agent({ keepAlive: true });
const headers = { authorization: `Bearer ${process.env.SVC_API_KEY}`, accept: 'application/json' };

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

get('/v1/account', () => get('/v1/balance', () => agent.destroy()));
