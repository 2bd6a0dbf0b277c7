// The page a call link's URL answers (POST /v1/links makes `{base}/join/<id>`): what a person
// who opens the link would see, in words, since the emulator carries no audio.
import { escapeHtml as h, layout } from './html.js';

export function joinPage(link: { id: string; call_id: string | null; language: string | null; expires_at: string }, expired: boolean): string {
  const call = link.call_id ? `call <code>${h(link.call_id)}</code>` : 'a call that is not started yet';
  return layout(
    'Join a call',
    `<h1>Join a call</h1>
<p>This link (<code>${h(link.id)}</code>) joins ${call}${link.language ? ` in ${h(link.language)}` : ''}.</p>
${expired ? `<p class="error">This link expired at ${h(link.expires_at)}.</p>` : `<p class="muted">It works until ${h(link.expires_at)}.</p>`}
<p class="muted">This is the svc emulator: it has no audio, so nothing more happens here. On the real service this page opens the call in the browser.</p>`,
  );
}

export function noSuchLinkPage(id: string): string {
  return layout('No such link', `<h1>No such link</h1>\n<p>There is no call link <code>${h(id)}</code> on this emulator.</p>`);
}
