// The emulator's small pure rules, checked directly (the HTTP tests cover them end to end).
import { describe, expect, it } from 'vitest';
import { costOf } from '../../src/emulator/billing.js';
import { advancingClock } from '../../src/emulator/clock.js';
import { eventId, seqOfEventId, typeMatcher } from '../../src/emulator/events.js';
import { pkceMatches } from '../../src/emulator/oauth.js';
import { escapeHtml } from '../../src/emulator/pages/html.js';
import { isAllowedRedirectUri, redirectMatches } from '../../src/emulator/redirects.js';
import { pkcePair } from './helpers.js';

describe('emulator pure rules', () => {
  it('loopback redirect URIs match any port on the same host and path (RFC 8252 §7.3); others match exactly', () => {
    const registered = ['http://127.0.0.1/callback', 'http://[::1]/cb', 'https://app.example/cb'];
    expect(redirectMatches(registered, 'http://127.0.0.1:61234/callback')).toBe(true);
    expect(redirectMatches(registered, 'http://[::1]:8080/cb')).toBe(true);
    expect(redirectMatches(registered, 'https://app.example/cb')).toBe(true);
    expect(redirectMatches(registered, 'https://app.example:8443/cb')).toBe(false);
    expect(redirectMatches(registered, 'http://127.0.0.1:61234/callback/extra')).toBe(false);
    expect(redirectMatches(registered, 'https://127.0.0.1:61234/callback')).toBe(false);
    expect(redirectMatches(registered, 'not a uri')).toBe(false);
  });

  it('apps may register https redirect URIs, and http only for loopback', () => {
    expect(isAllowedRedirectUri('https://x.example/cb')).toBe(true);
    expect(isAllowedRedirectUri('http://localhost/cb')).toBe(true);
    expect(isAllowedRedirectUri('http://x.example/cb')).toBe(false);
    expect(isAllowedRedirectUri('https://x.example/cb#frag')).toBe(false);
    expect(isAllowedRedirectUri('javascript:alert(1)')).toBe(false);
  });

  it('PKCE S256 accepts only the verifier of the challenge', () => {
    const { verifier, challenge } = pkcePair();
    expect(pkceMatches(verifier, challenge)).toBe(true);
    expect(pkceMatches(`${verifier}x`, challenge)).toBe(false);
    expect(pkceMatches(verifier, verifier)).toBe(false);
  });

  it('event type filters: families at dot boundaries, exact types, * for all', () => {
    const call = typeMatcher(['call']);
    expect(['call.started', 'call.participant.dialed'].every(call)).toBe(true);
    expect(call('chat.started')).toBe(false);
    expect(typeMatcher(['call.*'])('callback.x')).toBe(false);
    expect(typeMatcher(['chat.closed', 'line.'])('line.created')).toBe(true);
    expect(typeMatcher(['chat.closed'])('chat.started')).toBe(false);
    expect(typeMatcher(['*'])('anything')).toBe(true);
    expect(typeMatcher([])('anything')).toBe(true);
  });

  it('event ids carry their order, so a resume point survives eviction', () => {
    expect(seqOfEventId(eventId(123_456))).toBe(123_456);
    expect(eventId(9) < eventId(10)).toBe(true);
    expect(seqOfEventId('msg_1')).toBeNull();
    expect(seqOfEventId('evt_!!')).toBeNull();
  });

  it('billing draws the exact price, in subcents (1/10,000 of a cent): no rounding up to a cent', () => {
    expect(costOf('translation_character', 1)).toBe(20);
    expect(costOf('translation_character', 21)).toBe(420);
    expect(costOf('translation_character', 5000)).toBe(100_000);
    expect(costOf('line_month')).toBe(1_000_000);
  });

  it('the clock only moves forward by advance()', () => {
    let base = 1_000;
    const clock = advancingClock({ now: () => base });
    clock.advance(500);
    expect(clock.now()).toBe(1_500);
    clock.advance(-10_000);
    expect(clock.now()).toBe(1_500);
    base = 2_000;
    expect(clock.now()).toBe(2_500);
  });

  it('HTML escaping covers every character that could break out of text or attributes', () => {
    expect(escapeHtml(`<a href="x" onclick='y'>&</a>`)).toBe('&lt;a href=&quot;x&quot; onclick=&#39;y&#39;&gt;&amp;&lt;/a&gt;');
  });
});
