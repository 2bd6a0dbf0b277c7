// Secrets never reach stdout, stderr, --debug output or files other than their store.
// Keys and client secrets carry a recognisable prefix (docs/contract.md "Credentials and scopes");
// OAuth tokens are opaque (RFC 6749 §1.4), so they are scrubbed by value: every token svc
// receives or reads from its store is remembered here, and by the name of the field that
// carries it in a form or a JSON body.

/** `svc_test_abcdef…wxyz` → `svc_test_…wxyz`; anything else keeps only its last four. */
export function redact(secret: string): string {
  const match = /^(svc_(?:live|test|oat|ort|cs|app)_)/.exec(secret);
  const prefix = match?.[1] ?? '';
  const last4 = secret.length - prefix.length > 8 ? secret.slice(-4) : '';
  return `${prefix}…${last4}`;
}

const SECRET_PATTERN = /svc_(?:live|test|oat|ort|cs)_[A-Za-z0-9_-]+/g;

/** Shorter values could be ordinary words of a text; no token is this short. */
const MIN_REMEMBERED = 8;

/** The secret values this process holds (tokens received or read from the store). */
const known = new Set<string>();

/** Remembers a secret's value, so that redactText scrubs it wherever it appears; returns it. */
export function rememberSecret(value: string): string {
  if (value.length >= MIN_REMEMBERED) known.add(value);
  return value;
}

/** `"access_token": "…"` and the like in a JSON text (a token response under --debug, before svc knows its values). */
const SECRET_JSON_FIELD = /("(?:access_token|refresh_token|id_token|token|client_secret|code|code_verifier)"\s*:\s*")((?:[^"\\]|\\.)*)"/g;

/** Replaces every secret inside a text (headers, bodies, error messages): known values, secret JSON fields, svc's prefixed secrets. */
export function redactText(text: string): string {
  let out = text;
  for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(redact(secret));
  out = out.replace(SECRET_JSON_FIELD, (_, head: string, value: string) => `${head}${redact(value)}"`);
  return out.replace(SECRET_PATTERN, (secret) => redact(secret));
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
