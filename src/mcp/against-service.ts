// `svc mcp log --verify --against-service`: the acts the log records checked against the
// service's own records, which whoever can edit the log cannot: every object the service made
// in a session's window (its events: a call started, a phone dialled, a link, a line, a chat, a
// message, a translation) must be accounted for by an act of the log, in the mode of the
// credential asked. With the log deleted whole, `--since` names the window. An object no act
// accounts for is reported (the command fails); an act whose object the service does not show
// is said too.
import type { Context } from '../context.js';
import type { ListPage } from '../contract/endpoints.js';
import { characterCount } from '../contract/rules.js';
import { actedOrMay, type AuditEntry } from './audit.js';

/** The events that say the service made something, and so an act must account for. */
const MADE = new Set([
  'call.started',
  'call.participant.dialed',
  'link.created',
  'line.created',
  'chat.started',
  'chat.message.created',
  'translation.created',
]);
/** A session's window is widened by this on each side: the clocks of svc and the service differ a little. */
const SLACK_MS = 60_000;
/** No more events than this are read (the service keeps fewer). */
const MAX_EVENTS = 10_000;

interface ServiceEvent {
  id: string;
  type: string;
  created_at: string;
  data: { id?: string; to?: string; characters?: number } & Record<string, unknown>;
}

export interface AgainstService {
  mode: 'test' | 'live';
  /** The windows checked, as ISO times. */
  windows: Array<{ from: string; to: string }>;
  /** How many of the service's records of things made were read in them. */
  records: number;
  /** What the service made that no act accounts for. */
  unaccounted: string[];
  /** Acts whose object the service does not show in the window (said, not failed: it may have gone past the service's retention). */
  unseen: string[];
}

/** The session windows of the log's acts in `mode`, or the one window `sinceMs` names. */
function windowsOf(entries: AuditEntry[], mode: string, now: number, sinceMs: number | undefined): Array<[number, number]> {
  if (sinceMs !== undefined) return [[now - sinceMs, now]];
  const sessions = new Map<string, [number, number]>();
  for (const entry of entries) {
    if (entry.mode !== mode || !entry.session) continue;
    const at = Date.parse(entry.time);
    const window = sessions.get(entry.session);
    sessions.set(entry.session, window ? [Math.min(window[0], at), Math.max(window[1], at)] : [at, at]);
  }
  return [...sessions.values()].map(([from, to]) => [from - SLACK_MS, to + SLACK_MS]);
}

export async function checkAgainstService(ctx: Context, entries: AuditEntry[], sinceMs: number | undefined): Promise<AgainstService> {
  const api = await ctx.api();
  const mode = api.credential.mode;
  const windows = windowsOf(entries, mode, ctx.clock.now(), sinceMs);
  const within = (at: number) => windows.some(([from, to]) => at >= from && at <= to);
  const earliest = Math.min(...windows.map(([from]) => from));
  const made: ServiceEvent[] = [];
  let cursor: string | undefined;
  for (let read = 0; windows.length && read < MAX_EVENTS;) {
    const page = await api.request<ListPage<ServiceEvent>>({ endpoint: 'events.list', query: { limit: '100', ...(cursor ? { cursor } : {}) } });
    read += page.data.length;
    for (const event of page.data) if (MADE.has(event.type) && within(Date.parse(event.created_at))) made.push(event);
    const oldest = page.data.at(-1);
    if (!page.has_more || !page.next_cursor || !oldest || Date.parse(oldest.created_at) < earliest) break;
    cursor = page.next_cursor;
  }
  const acts = entries.filter((e) => e.mode === mode && e.session && actedOrMay(e) && within(Date.parse(e.time)));
  const accounted = new Set(acts.flatMap((e) => e.ids));
  // A translation has no id: each is matched to a translate act of the same language and length, nearest in time first.
  const translations = acts.filter((e) => e.tool === 'translate');
  const unaccounted: string[] = [];
  for (const event of made.reverse()) {
    if (event.type !== 'translation.created') {
      if (!event.data.id || !accounted.has(event.data.id)) unaccounted.push(`${event.type} ${event.data.id ?? event.id} at ${event.created_at}`);
      continue;
    }
    const at = Date.parse(event.created_at);
    const fits = (e: AuditEntry) =>
      e.args.to === event.data.to && (typeof e.args.text !== 'string' || e.args.text.includes('… (') || characterCount(e.args.text) === event.data.characters);
    const match = translations.filter(fits).sort((a, b) => Math.abs(Date.parse(a.time) - at) - Math.abs(Date.parse(b.time) - at))[0];
    if (match) translations.splice(translations.indexOf(match), 1);
    else unaccounted.push(`${event.type} ${event.id} (${event.data.characters ?? '?'} characters to ${event.data.to ?? '?'}) at ${event.created_at}`);
  }
  const seen = new Set(made.map((e) => e.data.id).filter(Boolean));
  const creates = new Set(['calls_start', 'calls_dial', 'calls_links_create', 'calls_lines_add', 'chats_start', 'chats_send']);
  const unseen = acts
    .filter((e) => creates.has(e.tool) && e.result === 'ok' && !e.ids.some((id) => seen.has(id)))
    .map((e) => `${e.tool} ${e.ids[0] ?? ''} at ${e.time}`.trim());
  for (const left of translations.filter((e) => e.result === 'ok')) unseen.push(`translate at ${left.time}`);
  return {
    mode,
    windows: windows.map(([from, to]) => ({ from: new Date(from).toISOString(), to: new Date(to).toISOString() })),
    records: made.length,
    unaccounted,
    unseen,
  };
}
