// The emulator's typed errors. One error middleware (server.ts) turns them into the
// spec's `{"detail": …}` bodies (docs/contract.md "Errors" and "Conventions").

export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | ValidationItem[],
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof detail === 'string' ? detail : 'invalid request');
  }
}

export const badRequest = (msg: string) => new HttpError(400, msg);
export const unauthorized = (msg = 'missing, unknown, revoked or expired key or token') => new HttpError(401, msg);
export const paymentRequired = () => new HttpError(402, "the organization's prepaid balance has run out");
export const missingScope = (scope: string) => new HttpError(403, `this key or app lacks the ${scope} scope`);
export const notFound = (what = 'no such object') => new HttpError(404, what);
export const conflict = (msg: string) => new HttpError(409, msg);
export const invalid = (items: ValidationItem[]) => new HttpError(422, items);
export const invalidOne = (loc: (string | number)[], msg: string, type: string) => invalid([{ loc, msg, type }]);

/** RFC 6749 §5.2 error of the token endpoint (a different body shape than `/v1`). */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error: string,
    readonly description?: string,
  ) {
    super(error);
  }
}
