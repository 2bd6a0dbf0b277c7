// The shape of each endpoint's answer (docs/contract.md "Resources", "Events"), as data: the
// CLI checks every answer against its row where it enters svc (src/api/client.ts), and the
// emulator's answers are held to the same rows (test/contract/answers.test.ts). A light form
// of a schema, not zod: it is read on every command's start path, where zod's load would show.
import type { EndpointName } from './endpoints.js';

export type Shape =
  | { readonly type: 'string' | 'number' | 'boolean' | 'unknown' }
  | { readonly type: 'literal'; readonly values: readonly string[] }
  | { readonly type: 'nullable'; readonly of: Shape }
  | { readonly type: 'array'; readonly of: Shape }
  | { readonly type: 'object'; readonly fields: Readonly<Record<string, Shape>>; readonly optional?: readonly string[] };

const string = { type: 'string' } as const;
const number = { type: 'number' } as const;
const boolean = { type: 'boolean' } as const;
const oneOf = <const V extends readonly string[]>(...values: V) => ({ type: 'literal', values }) as const;
const nullable = <S extends Shape>(of: S) => ({ type: 'nullable', of }) as const;
const arrayOf = <S extends Shape>(of: S) => ({ type: 'array', of }) as const;
function object<const F extends Record<string, Shape>, const O extends readonly (keyof F & string)[] = []>(fields: F, optional?: O) {
  return { type: 'object', fields, ...(optional ? { optional } : {}) } as { readonly type: 'object'; readonly fields: F; readonly optional?: O };
}
/** Fields every resource object has (docs/contract.md "Conventions"); `optional`, the ones the contract's table does not name. */
const resource = <const K extends string, const F extends Record<string, Shape>, const O extends readonly (keyof F & string)[] = []>(
  kind: K,
  fields: F,
  optional?: O,
) => object({ object: oneOf(kind), id: string, livemode: boolean, created_at: string, ...fields }, optional);
const list = <S extends Shape>(item: S) => object({ object: oneOf('list'), data: arrayOf(item), has_more: boolean, next_cursor: nullable(string) });

const account = object({
  object: oneOf('account'),
  id: string,
  name: string,
  livemode: boolean,
  credential: object({ type: oneOf('api_key', 'oauth'), scopes: arrayOf(string), key_id: string, client_id: string }, ['key_id', 'client_id']),
});
const balance = object({ object: oneOf('balance'), currency: string, available: number, livemode: boolean });
const price = object({ object: oneOf('price'), item: string, unit_amount: number, currency: string });
const call = resource('call', { status: oneOf('active', 'ended'), languages: arrayOf(string), title: nullable(string), ended_at: nullable(string) }, [
  'title',
  'ended_at',
]);
const participant = resource('participant', { call_id: string, phone: string, language: string, status: string });
const link = resource('link', { url: string, call_id: nullable(string), language: nullable(string), expires_at: string });
const line = resource('line', { number: string, country: string, status: oneOf('active', 'released') });
const chat = resource('chat', { status: oneOf('open', 'closed'), language: string, subject: nullable(string) });
const message = resource('message', {
  chat_id: string,
  kind: oneOf('text', 'voice'),
  text: string,
  language: string,
  translation: nullable(object({ language: string, text: string })),
  transcript: nullable(string),
});
const translation = object({ object: oneOf('translation'), text: string, to: string, from: nullable(string), characters: number, livemode: boolean });
/** An event's `type` is not checked against EVENT_TYPES (src/contract/constants.ts): a type added later is shown, not refused. */
export const EVENT = object({ object: oneOf('event'), id: string, type: string, created_at: string, livemode: boolean, data: object({}) });

/** The answer of each JSON endpoint; the event streams' frames are read by their own rules (src/api/sse.ts). */
export const ANSWERS = {
  'account.get': account,
  'balance.get': balance,
  'prices.list': list(price),
  'calls.list': list(call),
  'calls.get': call,
  'calls.create': call,
  'calls.end': call,
  'calls.dial': participant,
  'links.list': list(link),
  'links.create': link,
  'lines.list': list(line),
  'lines.create': line,
  'lines.release': line,
  'chats.list': list(chat),
  'chats.get': chat,
  'chats.create': chat,
  'chats.close': chat,
  'chats.messages.list': list(message),
  'chats.messages.create': message,
  'chats.voice': message,
  translate: translation,
  'events.list': list(EVENT),
} as const satisfies Partial<Record<EndpointName, Shape>>;

export type AnsweredEndpoint = keyof typeof ANSWERS;

/** The value a shape admits, as TypeScript sees it. */
export type ValueOfShape<S> = S extends { type: 'string' }
  ? string
  : S extends { type: 'number' }
    ? number
    : S extends { type: 'boolean' }
      ? boolean
      : S extends { type: 'literal'; values: readonly (infer V)[] }
        ? V
        : S extends { type: 'nullable'; of: infer O }
          ? ValueOfShape<O> | null
          : S extends { type: 'array'; of: infer O }
            ? ValueOfShape<O>[]
            : S extends { type: 'object'; fields: infer F; optional?: infer Opt }
              ? ObjectValue<F, Opt extends readonly string[] ? Opt[number] : never>
              : unknown;
type ObjectValue<F, Opt extends string> = { [K in Exclude<keyof F, Opt>]: ValueOfShape<F[K]> } & { [K in Extract<keyof F, Opt>]?: ValueOfShape<F[K]> };

/** What an endpoint answers, as both sides type it. */
export type AnswerOf<N extends AnsweredEndpoint> = ValueOfShape<(typeof ANSWERS)[N]>;

function describeValue(value: unknown): string {
  if (value === undefined) return 'empty';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value === 'number' ? 'the number' : typeof value} ${String(value)}`;
}

const WANTED: Record<Shape['type'], string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'true or false',
  unknown: 'a value',
  literal: 'one of',
  nullable: 'null or',
  array: 'a list',
  object: 'an object',
};

function wanted(shape: Shape): string {
  if (shape.type === 'literal') return shape.values.map((v) => JSON.stringify(v)).join(' or ');
  if (shape.type === 'nullable') return `${wanted(shape.of)} or null`;
  return WANTED[shape.type];
}

/** The first way `value` differs from `shape`, as "`where` is X, not Y"; undefined when it fits. */
export function shapeProblem(shape: Shape, value: unknown, where = ''): string | undefined {
  const at = where || 'the answer';
  const wrong = () => `${where ? `\`${where}\`` : at} is ${describeValue(value)}, not ${wanted(shape)}`;
  switch (shape.type) {
    case 'unknown':
      return undefined;
    case 'string':
    case 'boolean':
      return typeof value === shape.type ? undefined : wrong();
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? undefined : wrong();
    case 'literal':
      return typeof value === 'string' && shape.values.includes(value) ? undefined : wrong();
    case 'nullable': {
      if (value === null) return undefined;
      const inner = shapeProblem(shape.of, value, where);
      return inner === undefined || typeof value === 'object' ? inner : wrong();
    }
    case 'array': {
      if (!Array.isArray(value)) return wrong();
      for (const [i, item] of value.entries()) {
        const problem = shapeProblem(shape.of, item, `${where}[${i}]`);
        if (problem) return problem;
      }
      return undefined;
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return wrong();
      const record = value as Record<string, unknown>;
      for (const [name, field] of Object.entries(shape.fields)) {
        const path = where ? `${where}.${name}` : name;
        if (record[name] === undefined) {
          if (shape.optional?.includes(name)) continue;
          return `\`${path}\` is missing`;
        }
        const problem = shapeProblem(field, record[name], path);
        if (problem) return problem;
      }
      return undefined;
    }
  }
}

/** Whether an endpoint's answers are checked here (every JSON one; not the streams, nor OAuth's). */
export function isAnswered(endpoint: EndpointName): endpoint is AnsweredEndpoint {
  return Object.hasOwn(ANSWERS, endpoint);
}

/** The first way an endpoint's answer differs from the contract; undefined when it fits. */
export function answerProblem(endpoint: AnsweredEndpoint, value: unknown): string | undefined {
  return shapeProblem(ANSWERS[endpoint], value);
}
