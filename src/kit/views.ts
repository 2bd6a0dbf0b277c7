// What the resource objects look like (docs/contract.md "Resources") and how they are
// shown: columns for lists, fields for one object. On a terminal times are local and
// relative ("2026-11-22 19:35 (3 min ago)"); piped, they stay ISO 8601 for scripts.
import type { Context } from '../context.js';
import { type Column, localTime, relativeTime } from '../io/output.js';

interface ApiObject {
  id: string;
  object: string;
  livemode: boolean;
  created_at: string;
}

export interface Call extends ApiObject {
  status: 'active' | 'ended' | string;
  languages: string[];
  title?: string | null;
  ended_at?: string | null;
}

export interface Participant extends ApiObject {
  call_id: string;
  phone: string;
  language?: string | null;
  status: string;
}

export interface Link extends ApiObject {
  url: string;
  call_id: string | null;
  language?: string | null;
  expires_at?: string | null;
}

export interface Line extends ApiObject {
  number: string;
  country: string;
  status: 'active' | 'released' | string;
}

export interface TimeFormat {
  (iso: string | null | undefined): string;
  /** The narrow form for a table that does not fit the terminal: "3 min ago" alone. */
  short(iso: string | null | undefined): string;
}

/** Times as the output wants them: local + relative on a terminal, ISO when piped or JSON. */
export function timeFormat(ctx: Pick<Context, 'io' | 'clock'>): TimeFormat {
  if (!ctx.io.stdout.isTTY) return Object.assign((iso: string | null | undefined) => iso ?? '', { short: (iso: string | null | undefined) => iso ?? '' });
  const now = ctx.clock.now();
  return Object.assign((iso: string | null | undefined) => (iso ? `${localTime(iso)} (${relativeTime(iso, now)})` : ''), {
    short: (iso: string | null | undefined) => (iso ? relativeTime(iso, now) : ''),
  });
}

/** A time column: in full while the table fits the terminal, else "3 min ago". */
export function timeColumn<T>(header: string, time: TimeFormat, iso: (row: T) => string | null | undefined): Column<T> {
  return { header, value: (row) => time(iso(row)), narrow: (row) => time.short(iso(row)) };
}

const mode = (o: ApiObject) => (o.livemode ? 'live' : 'test');

export function callColumns(time: TimeFormat): Column<Call>[] {
  return [
    { header: 'ID', value: (c) => c.id },
    { header: 'STATUS', value: (c) => c.status },
    { header: 'LANGUAGES', value: (c) => c.languages?.join(',') },
    { header: 'TITLE', value: (c) => c.title, shrink: 10 },
    timeColumn('CREATED', time, (c) => c.created_at),
  ];
}

export function callFields(call: Call, time: TimeFormat): Array<readonly [string, unknown]> {
  const fields: Array<readonly [string, unknown]> = [
    ['id', call.id],
    ['status', call.status],
    ['languages', call.languages],
    ['title', call.title],
    ['mode', mode(call)],
    ['created', time(call.created_at)],
  ];
  if (call.ended_at) fields.push(['ended', time(call.ended_at)]);
  return fields;
}

export function participantFields(part: Participant, time: TimeFormat): Array<readonly [string, unknown]> {
  return [
    ['id', part.id],
    ['call', part.call_id],
    ['phone', part.phone],
    ['language', part.language],
    ['status', part.status],
    ['mode', mode(part)],
    ['created', time(part.created_at)],
  ];
}

export function linkColumns(time: TimeFormat): Column<Link>[] {
  return [
    // The URL is what people copy, and it ends with the link's id: on a narrow terminal the ID
    // column goes first, then the call and the language (`calls links get` shows them), and only
    // then is the URL shortened in the middle (its address and id stay).
    { header: 'ID', value: (l) => l.id, drop: 1 },
    { header: 'URL', value: (l) => l.url, shrink: 30, shorten: 'middle', cutLast: true },
    { header: 'CALL', value: (l) => l.call_id, drop: 2 },
    { header: 'LANGUAGE', value: (l) => l.language, drop: 3 },
    timeColumn('EXPIRES', time, (l) => l.expires_at),
  ];
}

export function linkFields(link: Link, time: TimeFormat): Array<readonly [string, unknown]> {
  return [
    ['id', link.id],
    ['url', link.url],
    ['call', link.call_id],
    ['language', link.language],
    ['expires', time(link.expires_at)],
    ['mode', mode(link)],
    ['created', time(link.created_at)],
  ];
}

export function lineColumns(time: TimeFormat): Column<Line>[] {
  return [
    { header: 'ID', value: (l) => l.id },
    { header: 'NUMBER', value: (l) => l.number },
    { header: 'COUNTRY', value: (l) => l.country },
    { header: 'STATUS', value: (l) => l.status },
    timeColumn('CREATED', time, (l) => l.created_at),
  ];
}

export function lineFields(line: Line, time: TimeFormat): Array<readonly [string, unknown]> {
  return [
    ['id', line.id],
    ['number', line.number],
    ['country', line.country],
    ['status', line.status],
    ['mode', mode(line)],
    ['created', time(line.created_at)],
  ];
}
