// Secrets never reach stdout, stderr, --debug output or files other than their store.
// Every credential the service issues has a recognisable prefix (docs/contract.md "Credentials and scopes"),
// so a text can be scrubbed without knowing which secrets it holds.

/** `svc_test_abcdef…wxyz` → `svc_test_…wxyz`; anything else keeps only its last four. */
export function redact(secret: string): string {
  const match = /^(svc_(?:live|test|oat|ort|cs|app)_)/.exec(secret);
  const prefix = match?.[1] ?? '';
  const last4 = secret.length - prefix.length > 8 ? secret.slice(-4) : '';
  return `${prefix}…${last4}`;
}

const SECRET_PATTERN = /svc_(?:live|test|oat|ort|cs)_[A-Za-z0-9_-]+/g;

/** Replaces every svc secret inside a text (headers, bodies, error messages). */
export function redactText(text: string): string {
  return text.replace(SECRET_PATTERN, (secret) => redact(secret));
}

/** Form/query parameters whose values are secrets even without an svc prefix. */
const SECRET_PARAMS = new Set(['token', 'refresh_token', 'access_token', 'code', 'code_verifier', 'client_secret', 'password']);

/** Redacts a form-encoded body: secret parameters by name, then any svc secret. */
export function redactForm(body: string): string {
  const params = new URLSearchParams(body);
  const out: string[] = [];
  for (const [name, value] of params) out.push(`${name}=${SECRET_PARAMS.has(name) ? redact(value) : value}`);
  return redactText(out.join('&'));
}

/** The last four characters kept in config.json to tell keys apart. */
export function lastFour(secret: string): string {
  return secret.slice(-4);
}
