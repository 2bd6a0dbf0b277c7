// One human line per event: local time, type, id, and a short summary of the object.
import { EVENT, shapeProblem } from '../contract/answers.js';
import { money } from '../io/money.js';
import { clockTime } from '../io/output.js';
import { sanitizeLine } from '../io/sanitize.js';
import { cutEnd, displayWidth } from '../io/width.js';
import type { DeliveryReport } from './delivery.js';

export interface ApiEvent {
  object?: string;
  id: string;
  type: string;
  created_at?: string;
  livemode?: boolean;
  data?: Record<string, unknown>;
}

/**
 * Reads an SSE data field as an event: JSON of the contract's event shape (src/contract/answers.ts,
 * as `events list` answers are checked); null when it is not one (so the caller can report it).
 */
export function parseEvent(data: string): ApiEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  return shapeProblem(EVENT, value) === undefined ? (value as ApiEvent) : null;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : typeof v === 'number' ? String(v) : undefined);

function quoted(v: unknown, max = 48): string | undefined {
  const s = str(v);
  if (s === undefined) return undefined;
  // Caret notation first (^[), as every line shows control characters; JSON would write \u001b.
  const flat = sanitizeLine(s.replace(/\s+/g, ' '));
  return JSON.stringify(flat.length > max ? `${flat.slice(0, max - 1)}…` : flat);
}

function join(parts: Array<string | undefined>): string {
  return parts.filter((p): p is string => p !== undefined).join(' ');
}

/** A few words that say what happened to which object; never the whole payload. */
export function summarize(event: ApiEvent): string {
  const d = event.data ?? {};
  const family = event.type.split('.')[0];
  if (event.type === 'call.participant.dialed') {
    return join([str(d.id), str(d.phone), str(d.language), str(d.status), d.call_id ? `on ${str(d.call_id)}` : undefined]);
  }
  if (event.type === 'chat.message.created') {
    return join([str(d.id), d.chat_id ? `in ${str(d.chat_id)}` : undefined, str(d.kind) === 'voice' ? 'voice' : undefined, quoted(d.text ?? d.transcript)]);
  }
  if (d.object === 'synthetic') return join(['synthetic', typeof d.n === 'number' && typeof d.of === 'number' ? `${d.n}/${d.of}` : undefined]);
  switch (family) {
    case 'call': {
      const langs = Array.isArray(d.languages) ? d.languages.filter((l) => typeof l === 'string').join('→') : undefined;
      return join([str(d.id), quoted(d.title), langs || undefined, str(d.status)]);
    }
    case 'chat':
      return join([str(d.id), quoted(d.subject), str(d.language), str(d.status)]);
    case 'link':
      return join([str(d.id), str(d.url), str(d.language), d.call_id ? `for ${str(d.call_id)}` : undefined]);
    case 'line':
      return join([str(d.id), str(d.number), str(d.country), str(d.status)]);
    case 'translation': {
      const dir = d.to ? `${str(d.from) ?? '?'}→${str(d.to)}` : undefined;
      return join([dir, typeof d.characters === 'number' ? `${d.characters} chars` : undefined]);
    }
    case 'balance':
      return typeof d.available === 'number' ? `${money(d.available, str(d.currency))} available` : join([str(d.id)]);
    default:
      // An unknown kind (or the emulator's synthetic load events): whatever names it.
      return join([str(d.id) ?? str(d.object), str(d.status)]);
  }
}

export interface LineStyle {
  /** Aligned columns for a terminal; tab-separated fields when piped. */
  tty: boolean;
  /** Colours the type by its family (identity when colour is off). */
  paintType: (type: string, text: string) => string;
  /** The terminal's width: the summary is cut with … to fit it, as a table cell is. */
  columns?: number | undefined;
}

const TYPE_WIDTH = 'call.participant.dialed'.length;

export function formatEventLine(event: ApiEvent, nowMs: number, style: LineStyle): string {
  // The clock time every stream line shows (clockTime), of created_at, else of now.
  const created = event.created_at ? Date.parse(event.created_at) : Number.NaN;
  const time = clockTime(Number.isNaN(created) ? nowMs : created);
  // Every field comes from the server: control characters made inert before any colour is added.
  const summary = sanitizeLine(summarize(event));
  const type = sanitizeLine(event.type);
  const id = sanitizeLine(event.id);
  if (!style.tty) return [time, type, id, summary].join('\t');
  const before = `${time}  ${type.padEnd(TYPE_WIDTH)}  ${id}  `;
  const fitted = style.columns ? cutEnd(summary, Math.max(style.columns - displayWidth(before), 0)) : summary;
  return `${time}  ${style.paintType(event.type, type.padEnd(TYPE_WIDTH))}  ${id}  ${fitted}`.trimEnd();
}

/** The colour of each family, as chalk method names. */
export const FAMILY_COLOURS: Record<string, 'cyan' | 'magenta' | 'blue' | 'yellow' | 'green' | 'red'> = {
  call: 'cyan',
  chat: 'magenta',
  link: 'blue',
  line: 'yellow',
  translation: 'green',
  balance: 'red',
};

/** The stderr line of a settled delivery: `→ 200 POST http://… evt_1 call.started`. */
export function formatDelivery(d: DeliveryReport, url: string): string {
  const outcome = d.status === null ? `failed (${d.error ?? 'no response'})` : String(d.status);
  const tries = d.attempts > 1 ? ` after ${d.attempts} attempts` : '';
  const verdict = d.ok ? '' : ' — gave up';
  return `→ ${outcome} POST ${url} ${d.eventId} ${d.type}${tries}${verdict}`;
}
