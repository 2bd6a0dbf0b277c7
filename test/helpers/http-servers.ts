// Servers of the tests' own for svc's HTTP client (src/api/http.ts): a
// node:http one that records each request, and a raw TCP one for the bytes node:http
// never sends (split heads, 1xx, answers without a length, garbage). Each hands its
// clean-up to `onClose` (the test file's afterEach list).
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** Which connection it came on: 1 for the first the server saw, and so on. */
  socket: number;
}

/** A node:http server that records each request (body read) and answers as `answer` says. */
export async function recordingServer(answer: (res: ServerResponse, request: SeenRequest, n: number) => void, onClose: (close: () => void) => void) {
  const requests: SeenRequest[] = [];
  const sockets = new Map<Socket, number>();
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size + 1);
      const request = {
        method: req.method!,
        url: req.url!,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        socket: sockets.get(req.socket)!,
      };
      requests.push(request);
      answer(res, request, requests.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onClose(() => {
    server.closeAllConnections();
    server.close();
  });
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, connections: () => sockets.size };
}

/** A raw TCP server: `onRequest(socket, n)` once per complete request (head, and a Content-Length body). */
export async function rawServer(onRequest: (socket: Socket, n: number) => void, onClose: (close: () => void) => void) {
  let n = 0;
  let connections = 0;
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('error', () => {});
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      for (;;) {
        const end = text.indexOf('\r\n\r\n');
        if (end < 0) return;
        const length = Number(/content-length: (\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
        if (text.length < end + 4 + length) return;
        text = text.slice(end + 4 + length);
        onRequest(socket, ++n);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  onClose(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connections: () => connections, requests: () => n };
}
