// Parts the dashboard's pages share: the object lists of one mode, and the table, dialog and
// row components every page draws with.
import type { Child } from 'hono/jsx';
import type { Mode } from '../../contract/constants.js';
import { eventLog, retained } from '../events.js';
import type { EmulatorEvent, State, Stored, Subscriber } from '../state.js';
import { withMode } from './layout.js';
import type { Html, View } from './layout.js';

/** Rows a list page shows at most; older ones are a link away ("Older"). */
export const PAGE_ROWS = 100;

/** One page of a newest-first list: the rows before `?before=<seq>`, and the link to the older ones (null at the end). */
export function pageOf<T extends { seq: number }>(v: View, rows: T[], list: string): { shown: T[]; older: string | null } {
  const before = Number(v.query('before') ?? NaN);
  const from = Number.isSafeInteger(before) ? rows.filter((row) => row.seq < before) : rows;
  const shown = from.slice(0, PAGE_ROWS);
  return { shown, older: from.length > PAGE_ROWS ? withMode(list, v.mode, { before: String(shown.at(-1)!.seq) }) : null };
}

export const orgName = (state: State, id: string) => state.orgs.get(id)?.name ?? id;

export function storedIn<T extends { id: string; livemode: boolean }>(collection: Map<string, Stored<T>>, mode: Mode): Stored<T>[] {
  const rows: Stored<T>[] = [];
  for (const item of collection.values()) if (item.obj.livemode === (mode === 'live')) rows.push(item);
  return rows.sort((a, b) => b.seq - a.seq);
}

export function keysIn(state: State, mode: Mode) {
  return [...state.keys.values()].filter((k) => k.mode === mode);
}

/** The retained events of every organization in `mode`, newest first, at most `limit` (before `beforeSeq`). */
export function newestEvents(state: State, mode: Mode, matches: (event: EmulatorEvent) => boolean, beforeSeq: number, limit: number): EmulatorEvent[] {
  const picked: EmulatorEvent[] = [];
  for (const org of state.orgs.values()) {
    const events = retained(eventLog(state, org.id, mode));
    let taken = 0;
    for (let i = events.length - 1; i >= 0 && taken <= limit; i--) {
      const event = events[i]!;
      if (event.seq >= beforeSeq || !matches(event)) continue;
      picked.push(event);
      taken++;
    }
  }
  return picked.sort((a, b) => b.seq - a.seq).slice(0, limit + 1);
}

/**
 * A table in a scrolling box, with a header row of column names; `caption` is a muted line above
 * it, and `live` makes the box itself the page's live part (fetched again on a change).
 */
export function Table({ columns, caption, live, children }: { columns: (string | Html)[]; caption?: Child; live?: string; children?: Child }) {
  return (
    <div id={live} data-live={live === undefined ? undefined : ''} class="scroll stack" tabindex={0}>
      {caption === undefined ? null : <p class="muted">{caption}</p>}
      <table>
        <thead>
          <tr>
            {columns.map((name) => (
              <th scope="col">{name}</th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

export const ACTION_COLUMN = <span class="hide-narrow">Action</span>;

/** A dialog form's buttons: `submit` sends it, Cancel closes the dialog (assets.ts's script). */
export function DialogActions({ submit }: { submit: string }) {
  return (
    <div class="actions">
      <button type="submit" class="primary">
        {submit}
      </button>
      <button type="button" data-close="">
        Cancel
      </button>
    </div>
  );
}

/** A list row's first cell: the object's id, linking to its own page (`/calls/<id>`). */
export function DetailCell({ v, list, id }: { v: View; list: '/calls' | '/chats'; id: string }) {
  return (
    <td>
      <a href={withMode(`${list}/${id}`, v.mode)}>
        <code>{id}</code>
      </a>
    </td>
  );
}

/** A number for each open stream, the same on every render, so that Controls can drop one. */
const streamNumbers = new WeakMap<Subscriber, number>();
let lastStreamNumber = 0;

export function streamNumber(subscriber: Subscriber): number {
  let n = streamNumbers.get(subscriber);
  if (n === undefined) streamNumbers.set(subscriber, (n = ++lastStreamNumber));
  return n;
}
