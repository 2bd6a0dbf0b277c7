// The bench's slow link (bench/requests.mjs): a TCP relay to 127.0.0.1:<port> that holds
// each chunk <delay> ms in each direction, order kept. A process of its own, so the bench's
// timed spawnSync calls never stall it. Prints the port it listens on.
//   node bench/relay.cjs <port> <delay-ms>
'use strict';
const { createConnection, createServer } = require('node:net');
const [port, delayMs] = process.argv.slice(2).map(Number);

const server = createServer((client) => {
  const upstream = createConnection(port, '127.0.0.1');
  for (const socket of [client, upstream]) socket.on('error', () => {});
  const pipe = (from, to) => {
    from.on('data', (chunk) => setTimeout(() => to.writable && to.write(chunk), delayMs));
    from.on('end', () => setTimeout(() => to.end(), delayMs));
    from.on('close', () => setTimeout(() => to.destroy(), delayMs));
  };
  pipe(client, upstream);
  pipe(upstream, client);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
