// `svc events tail` with an OAuth profile (its token refreshed under a stream), and starting with SVC_API_KEY.
import { createHash, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { MemorySecretStore } from '../../../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../../../helpers/cli.js';
import { useTailSuite } from '../../../helpers/tail.js';

const { emu, plane, publish, streamsOpen, ndjson, expectStrictlyIncreasingUnique } = useTailSuite();

describe('events tail with an OAuth profile', () => {
  it('refreshes an expired token mid-stream and resumes without a gap', async () => {
    // Sign in as `svc login` would, through the emulator's approvals and token endpoint.
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    await plane().approve({ email: emu().seed.admin.email, org_id: emu().seed.org_id });
    const redirectUri = 'http://127.0.0.1:53682/callback';
    const authorize = new URL(`${emu().url}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: emu().seed.cli_client_id,
      redirect_uri: redirectUri,
      state: 's1',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      response_type: 'code',
    }))
      authorize.searchParams.set(k, v);
    const redirect = await fetch(authorize, { redirect: 'manual' });
    const code = new URL(redirect.headers.get('location')!).searchParams.get('code')!;
    const tokenRes = await fetch(`${emu().url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: emu().seed.cli_client_id,
      }),
    });
    const tokens = (await tokenRes.json()) as { access_token: string; refresh_token: string; expires_in: number; scope: string; org_id: string };
    expect(tokens.access_token).toMatch(/^svc_oat_/);

    const configDir = tempConfigDir();
    const expiresAt = Date.now() + tokens.expires_in * 1000;
    writeFileSync(
      join(configDir, 'config.json'),
      JSON.stringify({
        version: 1,
        default_profile: 'acme',
        profiles: {
          acme: {
            base_url: emu().url,
            org_id: tokens.org_id,
            org_name: 'Acme',
            mode: 'live',
            oauth: { client_id: emu().seed.cli_client_id, scopes: tokens.scope.split(' '), expires_at: expiresAt, storage: 'memory' },
          },
        },
      }),
    );
    const secrets = new MemorySecretStore();
    await secrets.set(
      'acme',
      'oauth',
      JSON.stringify({
        org_id: tokens.org_id,
        access_token: tokens.access_token,
        refresh_token: tokens.refresh_token,
        expires_at: expiresAt,
        scope: tokens.scope,
        client_id: emu().seed.cli_client_id,
        token_endpoint: `${emu().url}/oauth2/token`,
      }),
    );

    const run = runCli(['events', 'tail', '--json', '--max-events', '40'], { configDir, secrets });
    await streamsOpen();
    await publish('call.started', 20, 'live');
    // An hour passes on the service's clock: the token expires and the stream ends.
    await plane().advanceClock(3601);
    await publish('call.ended', 20, 'live');
    const { exitCode, stdout, stderr } = await run;
    expect(exitCode, stderr).toBe(0);
    const events = ndjson(stdout);
    expect(events).toHaveLength(40);
    expectStrictlyIncreasingUnique(events.map((e) => e.id));
    expect(events.every((e) => e.livemode)).toBe(true);
    expect(events.filter((e) => e.type === 'call.ended')).toHaveLength(20);
    const stats = await plane().stats();
    expect(stats.refreshes).toBe(1);
    // The rotated pair was stored.
    const stored = JSON.parse((await secrets.get('acme', 'oauth'))!) as { refresh_token: string };
    expect(stored.refresh_token).not.toBe(tokens.refresh_token);
    expect(stderr).not.toContain(tokens.access_token);
  });
});

describe('starting with SVC_API_KEY', () => {
  it('asks who the organization is while the stream opens, not before it (one round trip to start)', async () => {
    // The account answer is held until the stream's request arrives (or 2 s pass): a tail that
    // waited for the answer before opening the stream would only send it after those 2 s.
    let streamAsked!: () => void;
    const streamArrived = new Promise<void>((resolve) => (streamAsked = resolve));
    let streamBeforeAccountAnswer: boolean | undefined;
    const server = createServer((req, res) => {
      if (req.url?.startsWith('/v1/account')) {
        const held = delay(2000).then(() => false);
        void Promise.race([streamArrived.then(() => true), held]).then((arrived) => {
          streamBeforeAccountAnswer = arrived;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(
            JSON.stringify({ object: 'account', id: 'org_race', name: 'Race', livemode: false, credential: { type: 'api_key', scopes: ['events:read'] } }),
          );
        });
        return;
      }
      streamAsked();
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(
        `id: evt_000000000001\nevent: call.started\ndata: ${JSON.stringify({ object: 'event', id: 'evt_000000000001', type: 'call.started', created_at: '2026-01-01T00:00:00Z', livemode: false, data: {} })}\n\n`,
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const r = await runCli(['events', 'tail', '--json', '--max-events', '1'], { env: { SVC_API_KEY: emu().seed.keys.test, SVC_BASE_URL: url } });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(streamBeforeAccountAnswer).toBe(true);
      expect(r.stderr).toMatch(/^Tailing test-mode events of Race \(org_race\), SVC_API_KEY/);
    } finally {
      server.close();
    }
  });
});
