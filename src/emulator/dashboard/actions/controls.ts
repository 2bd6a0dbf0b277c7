// Controls page actions: clock, faults, synthetic events, reset and import (the control plane's operations).
import { HttpError } from '../../errors.js';
import { addFault } from '../../faults.js';
import { retained } from '../../events.js';
import { importDocument } from '../../persistence/document.js';
import { advanceClock, statusFault as faultSchema, publishSynthetic, synthetic } from '../../routes/control.js';
import { createState, empty, reset } from '../../state.js';
import { shownOnce, withMode } from '../layout.js';
import { streamNumber } from '../parts.js';
import { controlsPage } from '../pages/controls.js';
import { InvalidField, checked, integer, text } from './action.js';
import type { Action } from './action.js';

/** The largest document Import takes. */
const IMPORT_LIMIT = 64 * 1024 * 1024;

export const clockAction: Action = {
  path: '/clock',
  back: '/controls',
  handle: ({ state, form }) => {
    const seconds = integer(form, 'advance_seconds', 'Advance by (seconds)');
    let now: string;
    try {
      ({ now } = advanceClock(state, seconds));
    } catch (error) {
      if (error instanceof HttpError && typeof error.detail !== 'string')
        throw new InvalidField('advance_seconds', `Advance by (seconds): ${error.detail[0]!.msg}`);
      throw error;
    }
    return { notice: `The clock moved ${seconds} s: it is now ${now}.` };
  },
};

export const faultAction: Action = {
  path: '/faults',
  back: '/controls',
  handle: ({ state, form }) => {
    const body = checked(
      faultSchema,
      { status: integer(form, 'status', 'Status'), path_prefix: text(form, 'path_prefix'), count: integer(form, 'count', 'Count') },
      { path_prefix: () => 'Path prefix', status: () => 'Status', count: () => 'Count' },
    );
    addFault(state, body);
    return { notice: `The next ${body.count} request(s) under ${body.path_prefix} fail with ${body.status}.` };
  },
};

export const publishAction: Action = {
  path: '/events',
  back: '/controls',
  handle: async ({ state, form, mode }) => {
    const body = checked(
      synthetic,
      { org_id: text(form, 'org_id'), mode, type: text(form, 'type'), count: integer(form, 'count', 'Count') },
      { org_id: () => 'Organization', type: () => 'Type', count: () => 'Count' },
    );
    const result = await publishSynthetic(state, body);
    return { notice: `Published ${result.published} ${mode} ${body.type} event(s).` };
  },
};

export const dropStreamsAction: Action = {
  path: '/streams/drop',
  back: '/controls',
  handle: ({ state }) => {
    const open = [...state.subscribers];
    for (const subscriber of open) subscriber.end();
    return { notice: `Dropped ${open.length} stream(s).` };
  },
};

/** What "Clear test data" empties: an organization's test objects (keys, apps and the organization stay). */
const TEST_OBJECTS = ['calls', 'participants', 'links', 'lines', 'chats', 'messages'] as const;

export const clearTestDataAction: Action = {
  path: '/test-data/clear',
  back: '/controls',
  handle: ({ state, requests, form }) => {
    const orgId = text(form, 'org_id');
    const org = state.orgs.get(orgId);
    if (!org) throw new InvalidField('org_id', 'Organization: there is no such organization.');
    // A state file replays its events on a restart, so cleared events would come back.
    if (state.journal) throw new HttpError(409, 'this emulator keeps its world in a --state file: start it on a new file instead');
    let objects = 0;
    for (const field of TEST_OBJECTS) {
      const collection = state[field] as Map<string, { org_id: string; obj: { livemode: boolean } }>;
      for (const [id, row] of [...collection]) {
        if (row.org_id === orgId && !row.obj.livemode) objects += Number(collection.delete(id));
      }
    }
    const log = state.eventLogs.get(`${orgId}:test`);
    const events = log ? retained(log).length : 0;
    if (log?.events.length) {
      log.trimmedThrough = log.events.at(-1)!.seq;
      log.events = [];
    }
    const testKeys = [...state.keys.values()].filter((key) => key.org_id === orgId && key.mode === 'test').map((key) => key.id);
    requests.forget((entry) => testKeys.some((id) => entry.credential?.includes(id) ?? false));
    return { notice: `Cleared the test data of ${org.name}: ${objects} object(s) and ${events} event(s); its keys and apps are kept.` };
  },
};

export const dropStreamAction: Action = {
  path: '/streams/:n/drop',
  back: '/controls',
  handle: ({ state, param }) => {
    const n = Number(param('n'));
    const subscriber = [...state.subscribers].find((s) => streamNumber(s) === n);
    // Already gone (its client left, or another tab dropped it): nothing to do, and said so.
    if (!subscriber) return { notice: `Stream ${n} had already ended.` };
    subscriber.end();
    return { notice: `Dropped stream ${n}.` };
  },
};

export const resetAction: Action = {
  path: '/reset',
  back: '/controls',
  handle: ({ state, requests }) => {
    const seed = reset(state);
    requests.clear();
    return {
      page: (v) =>
        controlsPage({
          ...v,
          here: withMode('/controls', v.mode),
          notice: 'The emulator was reset and the seed planted again.',
          shown: shownOnce(
            'The new seed',
            `Organization ${seed.org_name} (${seed.org_id}); its admin signs in as ${seed.admin.email} / ${seed.admin.password}.`,
            // The test key can be shown again (API keys); the live key cannot.
            [
              { label: 'Test key', id: 'seed-test-key', value: seed.keys.test },
              { label: 'Live key', id: 'seed-live-key', value: seed.keys.live, once: true },
            ],
            'reset-emulator',
          ),
        }),
    };
  },
};

export const importAction: Action = {
  path: '/import',
  back: '/controls',
  limit: IMPORT_LIMIT,
  handle: async ({ state, requests, form }) => {
    if (state.journal) throw new HttpError(409, 'this emulator keeps its world in a --state file: restart it with --import FILE instead');
    const file = form.document;
    if (!(file instanceof File)) throw new HttpError(422, 'choose a document file to import');
    let document: unknown;
    try {
      document = JSON.parse(await file.text());
    } catch (error) {
      throw new HttpError(422, `${file.name} is not JSON: ${(error as Error).message}`);
    }
    // Checked on a scratch world first, so that a bad document changes nothing.
    importDocument(createState(state.clock, state.keepaliveMs, { seed: false }), document);
    empty(state);
    const counts = importDocument(state, document);
    requests.clear();
    return { notice: `Imported ${file.name}: ${counts.orgs} organization(s), ${counts.keys} key(s), ${counts.apps} app(s), ${counts.events} event(s).` };
  },
};
