// `svc mcp log --verify --against-service`: the acts the log records checked against the
// service's own records, which whoever can edit the log cannot: every object the service made
// in a session's window must be accounted for by an act of the log, in the mode of the
// credential asked. Two records are read: its events (a call started, a phone dialled, a link,
// a line, a chat, a message, a translation) and its lists of calls, links, chats and their
// messages, which still hold what the events' retention has let go. With the log deleted whole, `--since` names the window. An object no act
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
/** No more events, nor objects of one list, than this are read (the service keeps fewer events). */
const MAX_EVENTS = 10_000;

/** The lists that hold what was made, each named as the event that says it was made. */
const MADE_LISTS = [
  { endpoint: 'calls.list', type: 'call.started' },
  { endpoint: 'links.list', type: 'link.created' },
  { endpoint: 'chats.list', type: 'chat.started' },
] as const;

interface MadeObject {
  id: string;
  object: string;
  created_at: string;
}

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

/** Reads `endpoint`'s pages, newest first, until one ends before `earliest`; `keep` takes each item. */
async function readBack<T extends { created_at: string }>(
  ctx: Context,
  endpoint: 'events.list' | (typeof MADE_LISTS)[number]['endpoint'] | 'chats.messages.list',
  earliest: number,
  keep: (item: T) => void,
  params?: Record<string, string>,
): Promise<void> {
  const api = await ctx.api();
  let cursor: string | undefined;
  for (let read = 0; read < MAX_EVENTS;) {
    const page = await api.request<ListPage<T>>({ endpoint, ...(params ? { params } : {}), query: { limit: '100', ...(cursor ? { cursor } : {}) } });
    read += page.data.length;
    page.data.forEach(keep);
    const oldest = page.data.at(-1);
    if (!page.has_more || !page.next_cursor || !oldest || Date.parse(oldest.created_at) < earliest) break;
    cursor = page.next_cursor;
  }
}

/**
 * What the service made in the windows, as events: its events of things made, and then each
 * object of its lists (calls, links, chats, the messages of those chats and of the chats the
 * acts name) that no such event names.
 */
async function madeInWindows(ctx: Context, acts: AuditEntry[], earliest: number, within: (at: number) => boolean): Promise<ServiceEvent[]> {
  const made: ServiceEvent[] = [];
  await readBack<ServiceEvent>(ctx, 'events.list', earliest, (event) => {
    if (MADE.has(event.type) && within(Date.parse(event.created_at))) made.push(event);
  });
  const named = new Set(made.map((event) => event.data.id).filter(Boolean));
  const add = (type: string, item: MadeObject) => {
    if (named.has(item.id) || !within(Date.parse(item.created_at))) return;
    named.add(item.id);
    made.push({ id: item.id, type, created_at: item.created_at, data: { id: item.id } });
  };
  const chats = new Set(acts.filter((e) => e.tool.startsWith('chats_') && typeof e.args.id === 'string').map((e) => e.args.id as string));
  for (const { endpoint, type } of MADE_LISTS)
    await readBack<MadeObject>(ctx, endpoint, earliest, (item) => {
      add(type, item);
      if (endpoint === 'chats.list' && within(Date.parse(item.created_at))) chats.add(item.id);
    });
  for (const chat of chats) await readBack<MadeObject>(ctx, 'chats.messages.list', earliest, (item) => add('chat.message.created', item), { id: chat });
  return made.sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at));
}

export async function checkAgainstService(ctx: Context, entries: AuditEntry[], sinceMs: number | undefined): Promise<AgainstService> {
  const api = await ctx.api();
  const mode = api.credential.mode;
  const windows = windowsOf(entries, mode, ctx.clock.now(), sinceMs);
  const within = (at: number) => windows.some(([from, to]) => at >= from && at <= to);
  const earliest = Math.min(...windows.map(([from]) => from));
  const acts = entries.filter((e) => e.mode === mode && e.session && actedOrMay(e) && within(Date.parse(e.time)));
  const made = windows.length ? await madeInWindows(ctx, acts, earliest, within) : [];
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
