// The OS keychain in a process of its own (src/credentials/keychain-process.ts starts it as
// `svc __keychain-child`). @napi-rs/keyring can block the thread that calls it with no end: its
// Secret Service connection is made synchronously, and a D-Bus socket that accepts and never
// answers (a stale address in an SSH or tmux session, a stopped gnome-keyring) holds it there.
// A worker thread so blocked cannot be terminated, and Node waits for it at exit; a process
// can be killed. So svc asks the keychain here and, past its bound, kills this process.
// Protocol: one JSON request a line on stdin ({ id, op, service, account, value?, store,
// target? }; op `ready` only loads the addon), one JSON answer a line on stdout ({ id, value } or { id, error }), in order.
// It ends when stdin ends: svc ends it so when nothing is asked, and a stdin that ends with a
// call still under way means svc itself has gone, so the call is dropped with it. (A call that
// blocks this thread keeps even that from running: svc kills this process on its way out.)
'use strict';

let keyring = null;

function entryFor(request) {
  keyring ??= require('@napi-rs/keyring');
  const options = { linux: { store: request.store } };
  if (request.target) return keyring.AsyncEntry.withTarget(request.target, request.service, request.account, options);
  return new keyring.AsyncEntry(request.service, request.account, options);
}

async function answer(request) {
  // Ready (svc asks this before it spends a refresh token): the addon loaded and its first call
  // to the Secret Service made (a read of an entry that never exists), so the write asked next
  // finds its runtime started. A failure here is the write's to report.
  if (request.op === 'ready') {
    keyring ??= require('@napi-rs/keyring');
    await entryFor({ ...request, service: 'svc', account: '_ready' })
      .getPassword()
      .catch(() => {});
    return;
  }
  const entry = entryFor(request);
  if (request.op === 'get') return (await entry.getPassword()) ?? null;
  if (request.op === 'set') return void (await entry.setPassword(request.value));
  if (request.op === 'delete') return await entry.deletePassword();
  throw new Error(`unknown keychain operation ${JSON.stringify(request.op)}`);
}

function reply(message) {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

let queue = Promise.resolve();
let buffered = '';
let asked = 0;
process.stdin.on('end', () => {
  // (SIGKILL, not exit: a call blocked in the addon's thread would hold an ordinary exit.)
  if (asked > 0) process.kill(process.pid, 'SIGKILL');
});
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buffered += chunk;
  let newline;
  while ((newline = buffered.indexOf('\n')) >= 0) {
    const line = buffered.slice(0, newline);
    buffered = buffered.slice(newline + 1);
    let request;
    try {
      request = JSON.parse(line);
    } catch {
      continue;
    }
    // One call at a time, in order: the addon's connection is made in the call's own thread.
    asked++;
    queue = queue.then(async () => {
      try {
        const value = await answer(request);
        reply({ id: request.id, value: value === undefined ? null : value });
      } catch (error) {
        reply({ id: request.id, error: String((error && error.message) || error) });
      }
      asked--;
    });
  }
});
