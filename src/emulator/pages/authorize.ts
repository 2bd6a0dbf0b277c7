import type { Scope } from '../../contract/constants.js';
import { escapeHtml as h, layout } from './html.js';

const SCOPE_TEXT: Record<Scope, string> = {
  'calls:read': 'List and read calls',
  'calls:write': 'Start, end and dial calls; make links; manage phone lines',
  'sessions:read': 'Read support chats, their messages and live streams',
  'sessions:write': 'Start support chats, post messages and voice messages',
  translate: 'Translate text',
  'events:read': "Read the organization's live event stream",
  'account:read': 'Read the organization, its balance and prices',
};

export interface FormBase {
  csrf: string;
  request: string;
  appName: string;
}

export function signInPage(form: FormBase & { error?: string; email?: string }): string {
  return layout(
    'Sign in',
    `<h1>Sign in to connect ${h(form.appName)}</h1>
${form.error ? `<p class="error" role="alert">${h(form.error)}</p>` : ''}
<form method="post" action="/oauth/authorize/signin">
<input type="hidden" name="csrf" value="${h(form.csrf)}">
<input type="hidden" name="request" value="${h(form.request)}">
<label>Email <input type="email" name="email" autocomplete="username" required value="${h(form.email ?? '')}"></label>
<label>Password <input type="password" name="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>
<p class="muted">The emulator's seeded admin is <code>admin@acme.test</code> / <code>acme-admin</code>.</p>`,
  );
}

export function consentPage(form: FormBase & { email: string; scopes: Scope[]; orgs: { id: string; name: string }[] }): string {
  const options = form.orgs.map((org) => `<option value="${h(org.id)}">${h(org.name)} (${h(org.id)})</option>`).join('');
  const scopes = form.scopes.map((scope) => `<li><code>${h(scope)}</code> — ${h(SCOPE_TEXT[scope])}</li>`).join('');
  return layout(
    'Approve app',
    `<h1>${h(form.appName)} wants to act for your organization</h1>
<p class="muted">Signed in as ${h(form.email)}.</p>
<form method="post" action="/oauth/authorize/decision">
<input type="hidden" name="csrf" value="${h(form.csrf)}">
<input type="hidden" name="request" value="${h(form.request)}">
<label>Organization <select name="org_id">${options}</select></label>
<p>It asks for:</p>
<ul>${scopes}</ul>
<button type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return layout(title, `<h1>${h(title)}</h1>\n<p class="error">${h(message)}</p>\n<p class="muted">You were not sent back to the app.</p>`);
}
