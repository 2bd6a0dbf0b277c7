// The floor under `svc account --json` as svc now makes its requests (bench/run.mjs): the same
// two GETs as two-gets.cjs, written on one node:net socket with the least HTTP/1.1 that reads
// the emulator's answers (a Content-Length body), both answers printed. svc's own client
// (src/api/serial.ts) also speaks HTTP/1.1 on a socket, so this is what its requests cost
// without svc: the difference is svc's own work (parsing, config, credentials, output).
'use strict';
const net = require('node:net');
const base = new URL(process.env.SVC_BASE_URL);
const paths = ['/v1/account', '/v1/balance'];
const socket = net.connect(Number(base.port), base.hostname);
let received = Buffer.alloc(0);

function ask() {
  socket.write(`GET ${paths[0]} HTTP/1.1\r\nhost: ${base.host}\r\nauthorization: Bearer ${process.env.SVC_API_KEY}\r\naccept: application/json\r\n\r\n`);
}

socket.on('connect', ask);
socket.on('data', (chunk) => {
  received = Buffer.concat([received, chunk]);
  const end = received.indexOf('\r\n\r\n');
  if (end < 0) return;
  const head = received.subarray(0, end).toString('latin1');
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1]);
  if (received.length < end + 4 + length) return;
  if (!head.startsWith('HTTP/1.1 200')) process.exitCode = 1;
  process.stdout.write(`${received.subarray(end + 4, end + 4 + length)}\n`);
  received = received.subarray(end + 4 + length);
  paths.shift();
  if (paths.length) ask();
  else socket.end();
});
