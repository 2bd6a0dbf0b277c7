// The emulator bounds how long a client may take to send its request, as a real service
// does (issue 32): a body that stops half-way, or headers that never end, get a 408 and the
// connection is closed, instead of Node's 300 s. What the emulator sends is not bounded: an
// event stream opened before keeps delivering. The bounds are lowered here (limits), so the
// test waits for the 408 itself, never a fixed time.
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEmulator, type TestEmulator } from '../helpers/emulator.js';

let emu: TestEmulator;
beforeAll(async () => {
  emu = await testEmulator({ limits: { headersMs: 200, requestMs: 400 } });
});
afterAll(() => emu?.close());

/** Sends `text` on a raw connection and returns all the server answers until it closes. */
function sendRaw(text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(emu.emulator.port, '127.0.0.1', () => socket.write(text));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => resolve(answer));
  });
}

/** Opens the test-mode event stream; `text()` is what arrived so far. */
function openStream(): Promise<{ text: () => string; close: () => void }> {
  return new Promise((resolve, reject) => {
    const req = request(`${emu.url}/v1/events/stream`, { headers: { authorization: `Bearer ${emu.seed.keys.test}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      resolve({ text: () => text, close: () => req.destroy() });
    });
    req.on('error', reject);
    req.end();
  });
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what}: not met after 10 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('emulator request receive bounds', () => {
  it('a body that stops half-way gets 408 and a closed connection; a stream opened before goes on', async () => {
    const stream = await openStream();
    try {
      await until(() => stream.text().includes('id: '), 'the stream opened with its position frame');
      const answer = await sendRaw(
        `POST /v1/translate HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${emu.seed.keys.test}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"text":"he`,
      );
      expect(answer).toMatch(/^HTTP\/1\.1 408 /);
      // The stream lived past the request bound: it still delivers.
      const { last_id } = await emu.plane.publishEvents({ org_id: emu.seed.org_id, mode: 'test', type: 'call.started', count: 1 });
      await until(() => stream.text().includes(`id: ${last_id}`), 'the stream delivered an event published after the 408');
    } finally {
      stream.close();
    }
  });

  it('headers that never end get 408 and a closed connection', async () => {
    const answer = await sendRaw('GET /v1/account HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('a request sent in time is answered as usual', async () => {
    const answer = await sendRaw(`GET /v1/account HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${emu.seed.keys.test}\r\nConnection: close\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
  });
});
