// The dashboard's frame and shared parts, server-rendered with hono/jsx: every text child and
// attribute value is escaped when rendered; nothing here is raw HTML but the doctype.
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { Mode } from '../../contract/constants.js';
import { rfc3339 } from '../ids.js';
import type { State } from '../state.js';
import type { RequestLog } from './requests.js';

/** A failed action: the path it was posted to, what was sent, and what was wrong. */
export interface Failed {
  action: string;
  values: Record<string, string[]>;
  message: string;
  /** The form field the message is about, or null for the form as a whole. */
  field: string | null;
}

/** A rendered page or part of one. */
export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export interface View {
  state: State;
  requests: RequestLog;
  mode: Mode;
  csrf: string;
  /** This page's GET address (path and query), for live refresh and for returning after an action. */
  here: string;
  query: (name: string) => string | undefined;
  notice?: string | undefined;
  error?: string | undefined;
  /** A dialog shown once, open on load (a new key or client secret). */
  shown?: Html | undefined;
  /** A form that failed, drawn again as it was sent (forms.tsx). */
  failed?: Failed | undefined;
}

export const PAGES = [
  { path: '/', title: 'Overview' },
  { path: '/keys', title: 'API keys' },
  { path: '/apps', title: 'Apps' },
  { path: '/calls', title: 'Calls' },
  { path: '/chats', title: 'Chats' },
  { path: '/events', title: 'Events' },
  { path: '/requests', title: 'Requests' },
  { path: '/controls', title: 'Controls' },
] as const;

export const withMode = (path: string, mode: Mode, extra: Record<string, string> = {}) => {
  const params = new URLSearchParams({ mode, ...extra });
  return `${path}?${params.toString()}`;
};

export const time = (ms: number | undefined) => (ms === undefined ? '—' : rfc3339(ms));

/** A moment (RFC 3339 text or emulator ms) as a <time> that never wraps at its hyphens; a dash when there is none. */
export function When({ at, local }: { at: string | number | null | undefined; local?: boolean }) {
  if (at === undefined || at === null) return <>—</>;
  const text = typeof at === 'number' ? rfc3339(at) : at;
  // `local`: the script shows it in the browser's time zone with milliseconds (UTC in its title).
  if (local && typeof at === 'number') {
    return (
      <time datetime={new Date(at).toISOString()} data-local="">
        {text}
      </time>
    );
  }
  return <time datetime={text}>{text}</time>;
}

/** The fields every action's form carries: this session's CSRF token and the page's mode. */
export function CsrfFields({ v }: { v: View }) {
  return (
    <>
      <input type="hidden" name="csrf" value={v.csrf} />
      <input type="hidden" name="mode" value={v.mode} />
    </>
  );
}

/** A one-button form POSTing an action; `confirm` asks first (the browser's confirm). */
export function ActionButton(props: { v: View; action: string; label: string; id: string; confirm?: string; danger?: boolean; name?: string }) {
  return (
    <form class="inline" method="post" action={props.action} data-confirm={props.confirm}>
      <CsrfFields v={props.v} />
      <button type="submit" id={props.id} class={props.danger ? 'danger' : ''} aria-label={props.name ?? props.label}>
        {props.label}
      </button>
    </form>
  );
}

/** Filters a list page keeps when the mode switches. */
function pageQuery(v: View): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of ['type', 'object', 'status', 'path', 'method', 'credential']) {
    const value = v.query(name);
    if (value) kept[name] = value;
  }
  return kept;
}

/**
 * An object's own page (a call, chat, key or app at `/{list}/{id}`): a link back to its list,
 * and the part the live refresh follows.
 */
export function ObjectPage({
  v,
  list,
  id,
  title,
  back,
  live,
  children,
}: {
  v: View;
  list: string;
  id: string;
  title: string;
  back: string;
  live: string;
  children?: Child;
}) {
  return (
    <Layout v={v} path={`/${list}/${id}`} title={title}>
      <p>
        <a href={withMode(`/${list}`, v.mode)}>{back}</a>
      </p>
      <div id={live} data-live="">
        {children}
      </div>
    </Layout>
  );
}

export function Layout({ v, path, title, children }: { v: View; path: string; title: string; children?: Child }) {
  const current = PAGES.find((p) => p.path === path || (p.path !== '/' && path.startsWith(`${p.path}/`)));
  return (
    <>
      {raw('<!doctype html>')}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <meta name="referrer" content="same-origin" />
          <link rel="icon" href="data:," />
          <link rel="stylesheet" href="/_dashboard/app.css" />
          <title>{`${title} · ${v.mode === 'live' ? 'Live' : 'Test'} · svc emulator`}</title>
        </head>
        <body data-page={v.here} class={v.mode === 'live' ? 'mode-live' : 'mode-test'}>
          <a class="skip" href="#main">
            Skip to the page
          </a>
          <header>
            <a class="brand" href={withMode('/', v.mode)}>
              svc emulator
            </a>
            <nav aria-label="Dashboard">
              <ul>
                {PAGES.map((p) => (
                  <li>
                    <a href={withMode(p.path, v.mode)} aria-current={current?.path === p.path ? 'page' : undefined}>
                      {p.title}
                    </a>
                  </li>
                ))}
              </ul>
            </nav>
            <form method="get" action="/_dashboard/find" role="search" class="find">
              <input type="hidden" name="mode" value={v.mode} />
              <label for="find-id" class="visually-hidden">
                Find an object by id
              </label>
              <input id="find-id" name="id" size={16} placeholder="Find by id" autocomplete="off" />
            </form>
            <div class="mode" role="group" aria-label="Mode">
              <a href={withMode(path, 'test', pageQuery(v))} aria-current={String(v.mode === 'test')}>
                Test
              </a>
              <a href={withMode(path, 'live', pageQuery(v))} aria-current={String(v.mode === 'live')}>
                Live
              </a>
            </div>
          </header>
          <main id="main" tabindex={-1}>
            {v.mode === 'live' ? (
              <p class="live-banner">
                <strong>Live mode.</strong> Actions here change live objects; live requests draw on the balance.
              </p>
            ) : null}
            <h1>
              {title} <span class="muted">({v.mode} mode)</span>
            </h1>
            {v.notice ? (
              <p class="notice" role="status">
                {v.notice}
              </p>
            ) : null}
            {v.error ? (
              <p class="error" role="alert">
                {v.error}
              </p>
            ) : null}
            {children}
          </main>
          <p class="visually-hidden" aria-live="polite" id="copy-status"></p>
          {v.shown ?? null}
          <script src="/_dashboard/app.js" defer></script>
        </body>
      </html>
    </>
  );
}

/**
 * Copies the value of the input (or the text of the element) `target`: its text is "Copy" and
 * what it copies, then "Copied …", said too by a polite status (the dialog's, else the page's).
 * `once`: what it copies is a secret shown only once (its dialog asks before closing until it is copied).
 */
export function CopyButton({ target, shown, what, once }: { target: string; shown?: string; what: string; once?: boolean }) {
  return (
    <button type="button" data-copy={target} data-once={once ? '' : undefined}>
      <span data-copy-word="">Copy</span>
      {shown ? ` ${shown}` : null}
      <span class="visually-hidden"> {what}</span>
    </button>
  );
}

/** A value a dialog shows; `once`: a secret nobody can see again once the dialog is closed. */
export interface ShownValue {
  label: string;
  id: string;
  value: string;
  once?: boolean;
}

/**
 * The dialog that shows a new secret once, with a Copy button per value. Closing it (Done,
 * Escape) while a one-time secret was not copied asks first, in the dialog (the script shows the
 * question; without a script the dialog simply stays on the page).
 */
export function shownOnce(title: string, intro: string, values: ShownValue[], returnTo?: string): Html {
  const asks = values.some((item) => item.once);
  return (
    <dialog id="shown-once" data-show="" data-return={returnTo} open aria-labelledby="shown-once-title">
      <h2 id="shown-once-title">{title}</h2>
      <p>{intro}</p>
      {values.map((item) => (
        <>
          <label for={item.id}>{item.label}</label>
          <div class="secret">
            <input id={item.id} readonly value={item.value} />
            <CopyButton target={item.id} what={item.label} once={item.once} />
          </div>
        </>
      ))}
      <p class="visually-hidden" aria-live="polite" data-copy-status=""></p>
      <div class="actions" data-done="">
        <button type="button" data-close="" class="primary">
          Done
        </button>
      </div>
      {asks ? (
        <div class="ask" role="group" aria-labelledby="shown-once-ask" data-ask="" hidden>
          <p id="shown-once-ask">
            <strong>You won't see this secret again. Did you copy it?</strong>
          </p>
          <div class="actions">
            <button type="button" data-ask-back="">
              Go back
            </button>
            <button type="button" data-ask-close="" class="primary">
              Yes, close
            </button>
          </div>
        </div>
      ) : null}
    </dialog>
  );
}
