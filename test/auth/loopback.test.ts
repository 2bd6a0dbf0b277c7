import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PortInUseError, escapeHtml, startLoopbackServer, type LoopbackServer } from '../../src/auth/loopback.js';

let server: LoopbackServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('loopback redirect server (RFC 8252 §7.3)', () => {
  it('listens on 127.0.0.1 at a random port and /callback', async () => {
    server = await startLoopbackServer({ expectedState: 's' });
    expect(server.redirectUri).toBe(`http://127.0.0.1:${server.port}/callback`);
    expect(server.port).toBeGreaterThan(0);
  });

  it('answers 400 to anything but the callback with our state, and keeps waiting', async () => {
    server = await startLoopbackServer({ expectedState: 'good' });
    const base = `http://127.0.0.1:${server.port}`;
    let settled = false;
    void server.outcome.then(() => (settled = true));

    const wrongPath = await fetch(`${base}/favicon.ico`);
    expect(wrongPath.status).toBe(400);
    const wrongState = await fetch(`${base}/callback?code=c&state=bad%3Cscript%3E`);
    expect(wrongState.status).toBe(400);
    const forgedDenial = await fetch(`${base}/callback?error=access_denied&state=bad`);
    expect(forgedDenial.status).toBe(400);
    expect(settled).toBe(false);

    const right = await fetch(`${base}/callback?code=the-code&state=good`);
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('Signed in');
    await expect(server.outcome).resolves.toEqual({ kind: 'code', code: 'the-code' });
  });

  it('escapes what it echoes from the request', async () => {
    server = await startLoopbackServer({ expectedState: 'good' });
    const response = await fetch(`http://127.0.0.1:${server.port}/callback?error=x%3Cscript%3Ealert(1)%3C/script%3E&state=good`);
    const html = await response.text();
    expect(html).not.toContain('<script>');
    expect(html).toContain('x&#60;script&#62;');
    await expect(server.outcome).resolves.toMatchObject({ kind: 'error', error: 'x<script>alert(1)</script>' });
  });

  it('closes after the answer, so the port is free again', async () => {
    server = await startLoopbackServer({ expectedState: 'good' });
    const port = server.port;
    await fetch(`http://127.0.0.1:${port}/callback?error=access_denied&state=good`);
    await expect(server.outcome).resolves.toEqual({ kind: 'denied' });
    await server.close();
    const again = await startLoopbackServer({ expectedState: 'x', port });
    expect(again.port).toBe(port);
    await again.close();
  });

  it('reports a port in use', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(startLoopbackServer({ expectedState: 's', port })).rejects.toBeInstanceOf(PortInUseError);
    } finally {
      blocker.close();
    }
  });

  it('escapeHtml covers the five special characters', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe('&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;&#38;&#60;/a&#62;');
  });
});
