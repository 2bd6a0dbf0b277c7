// The dashboard's only stylesheet and script, served by the emulator itself (no CDN, nothing
// downloaded). The script is progressive: every action is a plain form POST that works without
// it; it adds the dialogs, the confirmations, Copy buttons and the live refresh over SSE.

export const STYLESHEET = `
*{box-sizing:border-box}
[hidden]{display:none!important}
body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fafafa}
header{background:#1f2937;color:#fff;padding:.5rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1.5rem;align-items:center}
header a{color:#fff}
.brand{font-weight:600;margin-right:auto}
nav ul{list-style:none;display:flex;flex-wrap:wrap;gap:.25rem .9rem;margin:0;padding:0}
nav a{text-decoration:none;padding:.2rem .1rem;border-bottom:2px solid transparent}
nav a[aria-current=page]{border-bottom-color:#fbbf24;font-weight:600}
.mode{display:flex;gap:0;border:1px solid #9ca3af;border-radius:4px}
.mode a:first-child{border-radius:3px 0 0 3px}.mode a:last-child{border-radius:0 3px 3px 0}
.mode-live header{background:#7f1d1d}
.live-banner{background:#fef2f2;border:2px solid #b91c1c;color:#7f1d1d;padding:.5rem .8rem;border-radius:4px;margin:0 0 .8rem}
.skip{position:absolute;left:.5rem;top:-3rem;background:#fff;color:#1d4ed8;padding:.4rem .8rem;z-index:10}.skip:focus{top:.5rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
a.button{display:inline-block;padding:.3rem .9rem;border:1px solid #4b5563;border-radius:4px;text-decoration:none}
a.button.primary{background:#1d4ed8;border-color:#1d4ed8;color:#fff}
dialog:target{display:block;position:static;margin:1rem 0}
.find input{width:10rem;max-width:40vw}
.tag{border:1px solid #6b7280;border-radius:3px;padding:0 .3rem;font-size:.8em}
.mode a{padding:.15rem .7rem;text-decoration:none}
.mode a[aria-current=true]{background:#fbbf24;color:#111;font-weight:600}
main{padding:1rem;max-width:80rem;margin:0 auto}
h1{font-size:1.4rem;margin:.3rem 0 1rem}h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;background:#fff}
th,td{border-bottom:1px solid #e5e7eb;padding:.35rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f4f6;font-weight:600}
code,pre{font-family:ui-monospace,monospace;font-size:.88em}
pre{background:#f3f4f6;padding:.6rem;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere;margin:.4rem 0}
pre.commands{white-space:pre;overflow-wrap:normal}
time{white-space:nowrap}
main{min-width:0}
th,td,summary code,dd,dd code{overflow-wrap:anywhere}
ol.log summary>*{min-width:0}
button,input,select,textarea{font:inherit}
button{padding:.3rem .9rem;border:1px solid #4b5563;border-radius:4px;background:#fff;color:#111;cursor:pointer}
button.primary{background:#1d4ed8;border-color:#1d4ed8;color:#fff}
button.danger{border-color:#b91c1c;color:#b91c1c}
a{color:#1d4ed8}
:focus-visible{outline:3px solid #f59e0b;outline-offset:2px}
input,select,textarea{padding:.25rem .4rem;border:1px solid #6b7280;border-radius:4px;background:#fff;color:#111}
label{display:block;margin:.5rem 0 .15rem;font-weight:500}
fieldset{border:1px solid #d1d5db;margin:.5rem 0;padding:.3rem .7rem}
fieldset label{display:inline-flex;gap:.3rem;margin-right:1rem;font-weight:400}
.row{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end}
.row label{margin-top:0}
form.inline{display:inline}
.card{background:#fff;border:1px solid #e5e7eb;border-radius:6px;padding:.8rem 1rem;margin:.8rem 0}
.counts{display:grid;grid-template-columns:repeat(auto-fill,minmax(9rem,1fr));gap:.5rem;padding:0;margin:0;list-style:none}
.counts li{background:#fff;border:1px solid #e5e7eb;border-radius:6px;padding:.5rem .7rem}
.counts strong{display:block;font-size:1.3rem}
.notice{background:#ecfdf5;border:1px solid #10b981;padding:.5rem .8rem;border-radius:4px}
.error{background:#fef2f2;border:1px solid #dc2626;padding:.5rem .8rem;border-radius:4px}
.warning{background:#fffbeb;border:1px solid #d97706;color:#78350f;padding:.5rem .8rem;border-radius:4px}
.field-error{color:#b91c1c;font-weight:500;margin:.2rem 0}
[aria-invalid=true]{border-color:#b91c1c;outline:2px solid #b91c1c}
.muted{color:#4b5563}
.status-2{color:#047857}.status-4{color:#b45309}.status-5{color:#b91c1c}
ol.log{list-style:none;padding:0;margin:0}
ol.log li{background:#fff;border-bottom:1px solid #e5e7eb}
ol.log details>h3{font-size:.85rem;margin:.4rem .5rem 0}ol.log details>pre{margin:.2rem .5rem .6rem}
ol.log summary{padding:.35rem .5rem;cursor:pointer;display:flex;flex-wrap:wrap;gap:.2rem 1rem}
ol.log summary::before{content:'▸';display:inline-block;width:1em;color:#4b5563}ol.log details[open]>summary::before{content:'▾'}
ol.log summary:hover{background:#f3f4f6}
html,body{overflow-anchor:none}
.live-bar{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem;margin:-.5rem 0 .8rem}
dialog{border:1px solid #4b5563;border-radius:8px;padding:1rem 1.2rem;max-width:min(36rem,95vw)}
dialog::backdrop{background:rgba(0,0,0,.4)}
.secret{display:flex;gap:.5rem}.secret input{flex:1;min-width:0;font-family:ui-monospace,monospace}
.actions{display:flex;gap:.5rem;margin-top:1rem;flex-wrap:wrap}
.ask{border-top:2px solid #d97706;margin-top:1rem;padding-top:.2rem}.ask p{margin:.6rem 0 0}
@media (prefers-color-scheme:dark){
:root{color-scheme:dark}
body{color:#e5e7eb;background:#111827}
table,.card,.counts li,ol.log li,dialog{background:#1f2937;color:#e5e7eb}
th{background:#374151}th,td,ol.log li,.card,.counts li{border-color:#374151}
pre{background:#0b1220;color:#e5e7eb}
a,.skip{color:#93c5fd}.skip{background:#111827}
button,input,select,textarea{background:#111827;color:#e5e7eb;border-color:#9ca3af}
button.primary,a.button.primary{background:#2563eb;border-color:#2563eb;color:#fff}
button.danger{border-color:#f87171;color:#fca5a5}
.muted,ol.log summary::before{color:#9ca3af}
.notice{background:#064e3b;border-color:#34d399;color:#ecfdf5}
.error,.live-banner{background:#450a0a;border-color:#f87171;color:#fee2e2}
.warning{background:#451a03;border-color:#f59e0b;color:#fef3c7}
.field-error{color:#fca5a5}[aria-invalid=true]{border-color:#f87171;outline-color:#f87171}
.status-2{color:#6ee7b7}.status-4{color:#fcd34d}.status-5{color:#fca5a5}
ol.log summary:hover{background:#374151}
header{background:#030712}.mode-live header{background:#7f1d1d}
fieldset{border-color:#4b5563}
}
@media (max-width:600px){header{padding:.5rem}main{padding:.6rem}table{font-size:.85rem}th,td{padding:.3rem}.hide-narrow{display:none}
.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}
.stack table,.stack tbody,.stack tr,.stack td{display:block;width:100%}
.stack tr{border-bottom:2px solid #d1d5db;padding:.3rem 0}.stack td{border:0;padding:.15rem .4rem}
.stack td[data-label]::before{content:attr(data-label);display:block;font-size:.8em;font-weight:600;color:#4b5563}}
`;

export const SCRIPT = `
(() => {
  'use strict';
  const page = document.body.dataset.page;
  // A page answered to a POST (a key or secret shown once) takes its GET address, so a reload does not post again.
  if (page && location.pathname + location.search !== page) history.replaceState(null, '', page);

  document.addEventListener('click', (event) => {
    const opener = event.target.closest('[data-open]');
    if (opener) { event.preventDefault(); document.getElementById(opener.dataset.open).showModal(); }
    const closer = event.target.closest('[data-close]');
    if (closer) {
      const dialog = closer.closest('dialog');
      if (uncopied(dialog)) ask(dialog); else closed(dialog);
    }
    const answer = event.target.closest('[data-ask-back], [data-ask-close]');
    if (answer) {
      const dialog = answer.closest('dialog');
      if (answer.matches('[data-ask-close]')) { dialog.dataset.confirmed = ''; closed(dialog); } else goBack(dialog);
    }
    const copy = event.target.closest('[data-copy]');
    if (copy) {
      // The value of an input, or the text of an element (an event's JSON, a request as curl).
      const field = document.getElementById(copy.dataset.copy);
      const text = 'value' in field ? field.value : field.textContent;
      if (field.select) field.select(); else getSelection().selectAllChildren(field);
      const done = () => {
        copy.querySelector('[data-copy-word]').textContent = 'Copied';
        copy.dataset.copied = '';
        const status = copy.closest('dialog')?.querySelector('[data-copy-status]') ?? document.getElementById('copy-status');
        if (status) status.textContent = 'Copied ' + copy.textContent.replace(/^\\s*Copied\\s*/, '') + '.';
      };
      if (navigator.clipboard) navigator.clipboard.writeText(text).then(done, () => { document.execCommand('copy'); done(); });
      else { document.execCommand('copy'); done(); }
    }
  });
  document.addEventListener('submit', (event) => {
    const question = event.target.dataset.confirm;
    if (question && !confirm(question)) event.preventDefault();
  });
  for (const dialog of document.querySelectorAll('dialog[data-show]')) {
    if (dialog.open) dialog.close();
    dialog.showModal();
  }
  // A one-time secret's dialog: closing it (Done, Escape) before its secret was copied asks
  // first, in the dialog; after a Copy (or "Yes, close") it closes at once, and gives focus back
  // to the button that led to it.
  function uncopied(dialog) {
    return !!dialog.querySelector('[data-ask]') && !('confirmed' in dialog.dataset) && !!dialog.querySelector('[data-copy][data-once]:not([data-copied])');
  }
  // Closes a dialog; one shown on load gives focus back to the button that led to it (at once, not on the close event's task).
  function closed(dialog) {
    dialog.close();
    if (dialog.dataset.return) document.getElementById(dialog.dataset.return)?.focus();
  }
  function ask(dialog) {
    dialog.querySelector('[data-done]').hidden = true;
    dialog.querySelector('[data-ask]').hidden = false;
    dialog.querySelector('[data-ask-back]').focus();
  }
  function goBack(dialog) {
    dialog.querySelector('[data-ask]').hidden = true;
    dialog.querySelector('[data-done]').hidden = false;
    dialog.querySelector('[data-copy][data-once]:not([data-copied])')?.focus();
  }
  for (const dialog of document.querySelectorAll('dialog[data-return]')) {
    dialog.addEventListener('cancel', (event) => {
      if (!uncopied(dialog)) return;
      event.preventDefault();
      if (dialog.querySelector('[data-ask]').hidden) ask(dialog); else goBack(dialog);
    });
    dialog.addEventListener('close', () => {
      // Open again already: the close of the page's first showModal above.
      if (dialog.open) return;
      // The browser may close on Escape without asking the page (no user action since it loaded): shown again, asking.
      if (uncopied(dialog)) { dialog.showModal(); ask(dialog); return; }
      document.getElementById(dialog.dataset.return)?.focus();
    });
  }

  // At 600 px and less, table rows stack (the stylesheet's .stack): each cell is labelled with its column's name.
  const label = (root) => {
    for (const table of root.querySelectorAll('.stack table')) {
      const names = [...table.querySelectorAll('thead th')].map((th) => th.textContent.trim());
      for (const row of table.querySelectorAll('tbody tr')) [...row.children].forEach((cell, i) => { if (names[i]) cell.dataset.label = names[i]; });
    }
  };
  label(document);
  // Times marked data-local: the browser's own time zone, to the millisecond.
  const pad = (n, width = 2) => String(n).padStart(width, '0');
  const localize = (root) => {
    for (const node of root.querySelectorAll('time[data-local]')) {
      const at = new Date(node.getAttribute('datetime'));
      if (Number.isNaN(at.getTime())) continue;
      node.title = node.getAttribute('datetime');
      node.textContent = at.getFullYear() + '-' + pad(at.getMonth() + 1) + '-' + pad(at.getDate()) + ' ' + pad(at.getHours()) + ':' +
        pad(at.getMinutes()) + ':' + pad(at.getSeconds()) + '.' + pad(at.getMilliseconds(), 3);
    }
  };
  localize(document);

  // Live: the emulator says "change" after requests; the live parts of this page are fetched
  // again and merged into what is shown (morph), so that focus, a selection, open rows and
  // what is being read stay where they are. In a burst, at most one merge a second.
  const live = document.querySelectorAll('[data-live]');
  if (live.length === 0 || !window.EventSource) return;
  const THROTTLE_MS = 1000;
  let fetching = false;
  let again = false;
  let lastRender = 0;
  let lastStart = 0;
  let timer = 0;
  let renders = 0;
  const editing = (region) => {
    const active = document.activeElement;
    return region.contains(active) && /^(INPUT|SELECT|TEXTAREA)$/.test(active.tagName);
  };
  const keyOf = (node) => (node.nodeType === 1 ? node.dataset.key || node.id || '' : '');
  // A row the reader holds (open, selected in, focused in) stays even when it left the newest page.
  const held = (node) => {
    if (node.nodeType !== 1) return false;
    const selection = document.getSelection();
    return !!node.querySelector('details[open]') || node.matches('details[open]') || node.contains(document.activeElement) ||
      (selection && selection.rangeCount > 0 && !selection.isCollapsed && node.contains(selection.anchorNode));
  };
  const morph = (from, to) => {
    if (from.nodeType !== 1) { if (from.nodeValue !== to.nodeValue) from.nodeValue = to.nodeValue; return; }
    for (const { name } of [...from.attributes]) if (!to.hasAttribute(name) && name !== 'open') from.removeAttribute(name);
    for (const { name, value } of to.attributes) if (from.getAttribute(name) !== value) from.setAttribute(name, value);
    const old = [...from.childNodes];
    const byKey = new Map(old.filter(keyOf).map((node) => [keyOf(node), node]));
    let cursor = from.firstChild;
    for (const next of [...to.childNodes]) {
      const key = keyOf(next);
      let match = key ? byKey.get(key) : null;
      if (!key && cursor && !keyOf(cursor) && cursor.nodeName === next.nodeName) match = cursor;
      if (match) {
        if (key) byKey.delete(key);
        if (match !== cursor) from.insertBefore(match, cursor);
        else cursor = cursor.nextSibling;
        // A row the same as before (most of them) is left alone: isEqualNode is the browser's own walk, far cheaper than morph's.
        if (!match.isEqualNode(next)) morph(match, next);
      } else {
        from.insertBefore(next, cursor);
      }
    }
    while (cursor) {
      const after = cursor.nextSibling;
      if (!(keyOf(cursor) && held(cursor))) cursor.remove();
      cursor = after;
    }
  };
  // What the reader looks at: the open or focused row, else the first row in view; kept at its place on screen.
  const anchor = () => {
    const rows = [...document.querySelectorAll('[data-live] [data-key]')];
    // At the top of the page, with nothing held, new rows push the list down as a live tail does.
    const chosen = rows.find((row) => held(row)) || (window.scrollY > 0 ? rows.find((row) => row.getBoundingClientRect().top >= 0) : null);
    return chosen ? { node: chosen, top: chosen.getBoundingClientRect().top } : null;
  };
  const paused = { on: false, since: 0, latest: 0 };
  const render = async () => {
    if (fetching) { again = true; return; }
    fetching = true;
    lastStart = Date.now();
    try {
      const answer = await fetch(page, { cache: 'no-store', headers: { 'X-Dashboard-Refresh': '1' } });
      if (!answer.ok) return;
      const fresh = new DOMParser().parseFromString(await answer.text(), 'text/html');
      // A restarted emulator gives this session a new form token: every form of this page takes it,
      // so what is being typed is sent with a token that holds.
      const token = fresh.querySelector('input[name=csrf]')?.value;
      if (token) for (const field of document.querySelectorAll('input[name=csrf]')) field.value = token;
      if (paused.on) return;
      label(fresh);
      localize(fresh);
      const kept = anchor();
      for (const region of document.querySelectorAll('[data-live]')) {
        const next = fresh.getElementById(region.id);
        if (!next || editing(region) || region.innerHTML === next.innerHTML) continue;
        morph(region, next);
      }
      if (kept && kept.node.isConnected) window.scrollBy(0, kept.node.getBoundingClientRect().top - kept.top);
      lastRender = Date.now();
      document.body.dataset.renders = String(++renders);
      document.body.dataset.refreshed = String(lastRender);
    } catch {
      // The emulator stopped or restarted: the stream reconnects and asks again.
    } finally {
      fetching = false;
      if (again) { again = false; refresh(); }
    }
  };
  // A change after a quiet second is drawn at once; changes that follow each other closely (a
  // burst) wait so that the page is drawn at most once a second, counted from when a redraw
  // began: a change that comes while one is under way waits out the rest of that second, not a
  // second after it ended (bench/dashboard.mjs: every tab shows the last change within 1.25 s).
  let lastChange = 0;
  const refresh = () => {
    const now = Date.now();
    const quiet = now - lastChange > THROTTLE_MS;
    lastChange = now;
    if (timer) return;
    const wait = quiet ? 0 : lastStart + THROTTLE_MS - now;
    if (wait <= 0) { render(); return; }
    timer = setTimeout(() => { timer = 0; render(); }, wait);
  };

  // Pause: nothing on the page moves; the button says how many requests arrived meanwhile.
  const pause = document.createElement('button');
  pause.type = 'button';
  pause.className = 'pause';
  pause.setAttribute('aria-pressed', 'false');
  const pauseStatus = document.createElement('span');
  pauseStatus.className = 'muted';
  pauseStatus.setAttribute('aria-live', 'polite');
  const showPause = () => {
    pause.textContent = paused.on ? 'Resume live updates' : 'Pause live updates';
    pause.setAttribute('aria-pressed', String(paused.on));
    const arrived = paused.latest - paused.since;
    pauseStatus.textContent = paused.on ? (arrived === 0 ? 'Paused.' : 'Paused: ' + arrived + ' new request(s) since.') : '';
  };
  pause.addEventListener('click', () => {
    paused.on = !paused.on;
    paused.since = paused.latest;
    showPause();
    if (!paused.on) render();
  });
  const bar = document.createElement('p');
  bar.className = 'live-bar';
  bar.append(pause, ' ', pauseStatus);
  document.querySelector('main h1')?.after(bar);
  showPause();
  const counted = (total) => { const n = Number(total); if (Number.isFinite(n)) { paused.latest = n; if (paused.on) showPause(); } };

  // One stream per browser, however many tabs (a browser opens at most six connections to a
  // host over HTTP/1.1, and a stream holds one for good): the tab holding the Web Lock keeps the
  // EventSource and passes its messages to the others over a BroadcastChannel; when it closes,
  // another tab takes the lock and the stream. "ready": the stream (re)connected, every tab
  // refreshes; "live": an answer to a new tab's "hello".
  const connected = () => { document.body.dataset.live = 'on'; render(); };
  let leading = false;
  let streaming = false;
  const lead = (channel) => {
    leading = true;
    const stream = new EventSource('/_dashboard/stream');
    stream.addEventListener('change', ({ data }) => { channel?.postMessage({ change: data }); counted(data); refresh(); });
    // Each (re)connection fetches once: whatever changed before the stream was open is shown too.
    stream.addEventListener('ready', ({ data }) => { streaming = true; channel?.postMessage({ ready: data }); counted(data); connected(); });
    stream.addEventListener('error', () => { streaming = false; });
  };
  if (!window.BroadcastChannel || !navigator.locks) { lead(null); return; }
  const channel = new BroadcastChannel('svc-dashboard-live');
  channel.addEventListener('message', ({ data }) => {
    if (data.change !== undefined) { counted(data.change); refresh(); }
    else if (data.ready !== undefined) { counted(data.ready); connected(); }
    else if (data.live !== undefined && document.body.dataset.live !== 'on') { counted(data.live); connected(); }
    else if (data.hello && leading && streaming) channel.postMessage({ live: paused.latest });
  });
  // Held until this tab closes (the promise never settles): the browser then gives the lock to the next tab.
  navigator.locks.request('svc-dashboard-live', () => new Promise(() => lead(channel)));
  channel.postMessage({ hello: true });
})();
`;
