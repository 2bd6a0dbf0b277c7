// The request bodies of docs/contract.md "Resources", as data: each field's rule and
// whether it is required. The emulator builds its 422 validation from these rows
// (src/emulator/validate.ts), the CLI checks its flags with the same rules before sending.
import { LIMITS } from './constants.js';
import type { EndpointName } from './endpoints.js';
import type { FieldRule } from './rules.js';

export interface BodyField {
  rule: FieldRule;
  required: boolean;
}
export type BodySpec = Readonly<Record<string, BodyField>>;

const required = <R extends FieldRule>(rule: R) => ({ rule, required: true as const });
const optional = <R extends FieldRule>(rule: R) => ({ rule, required: false as const });
const language = { kind: 'language' } as const;
const label = { kind: 'text', max: LIMITS.labelCharacters, min: 0 } as const;
const message = { kind: 'text', max: LIMITS.textCharacters } as const;

export const BODIES = {
  'calls.create': { languages: required({ kind: 'languages', count: 2 }), title: optional(label) },
  'calls.dial': { to: required({ kind: 'e164' }), line_id: optional({ kind: 'id', of: 'line' }), language: optional(language) },
  'links.create': {
    call_id: optional({ kind: 'id', of: 'call' }),
    language: optional(language),
    expires_in: optional({ kind: 'integer', min: LIMITS.linkExpiresMinSeconds, max: LIMITS.linkExpiresMaxSeconds }),
  },
  'lines.create': { country: required({ kind: 'country' }), area_code: optional({ kind: 'areaCode' }) },
  'chats.create': { language: required(language), subject: optional(label) },
  'chats.messages.create': { text: required(message), language: optional(language) },
  translate: { text: required(message), to: required(language), from: optional(language) },
} as const satisfies Partial<Record<EndpointName, BodySpec>>;

export type BodyEndpoint = keyof typeof BODIES;

/** The value a rule admits, after normalisation. */
type ValueOf<R> = R extends { kind: 'integer' } ? number : R extends { kind: 'languages' } ? string[] : string;
type Spec<N extends BodyEndpoint> = (typeof BODIES)[N];
type RequiredKeys<N extends BodyEndpoint> = { [K in keyof Spec<N>]: Spec<N>[K] extends { required: true } ? K : never }[keyof Spec<N>];

/** The JSON body of an endpoint, as both sides type it: what the CLI sends, what the emulator reads. */
type RuleOf<F> = F extends { rule: infer R } ? R : never;
export type BodyOf<N extends BodyEndpoint> = { [K in RequiredKeys<N>]: ValueOf<RuleOf<Spec<N>[K]>> } & {
  [K in Exclude<keyof Spec<N>, RequiredKeys<N>>]?: ValueOf<RuleOf<Spec<N>[K]>>;
};
