// `npm run demo`: the main job end to end against an emulator started in this
// process, in a temporary config dir, so it needs no account and leaves nothing
// behind. Each step runs the real `svc` (bin/svc.js) and shows what a user sees.
// Login uses the real loopback flow; the admin's click is answered by the
// emulator's approvals control, so no browser is needed.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

const root = fileURLToPath(new URL('..', import.meta.url));
const svcBin = join(root, 'bin/svc.js');
const { startEmulator } = await import(join(root, 'dist/emulator.js'));

const emulator = await startEmulator({ port: 0 });
const configDir = mkdtempSync(join(tmpdir(), 'svc-demo-'));
const env = {
  ...process.env,
  SVC_CONFIG_DIR: configDir,
  SVC_BASE_URL: emulator.url,
  // A throwaway file store, so the demo never writes into your real keychain.
  SVC_CREDENTIAL_STORE: 'file',
  SVC_DEMO: '1',
};
delete env.SVC_API_KEY;
delete env.SVC_PROFILE;
delete env.SVC_MODE;

const bold = (text) => (process.stdout.isTTY && !process.env.NO_COLOR ? `\x1b[1m${text}\x1b[0m` : text);

/**
 * At a terminal, a line wider than it wraps at its spaces, continuing under its text
 * (`# `, a field's column, or two columns in); a word wider than the room (an address to
 * copy) stays whole on a line of its own. svc wraps what it prints at a terminal, but here
 * its output comes through a pipe, so the demo fits it as svc would.
 */
function fit(text) {
  const columns = process.stdout.isTTY ? process.stdout.columns : undefined;
  if (!columns) return text;
  return text
    .split('\n')
    .map((raw) => {
      // svc's tab-separated lines (piped here), shown as columns two spaces apart.
      const line = raw.replace(/\t/g, '  ');
      if (line.length <= columns || line.includes('\x1b')) return line;
      const lead = /^(# |\s*\[events tail\] |\S+ {2,}|\s*)/.exec(line)[0];
      const hang = ' '.repeat(Math.min(lead.length || 2, 16));
      const lines = [];
      let current = '';
      // A list too long for a line (scopes) breaks after its commas.
      // (A piece of a broken list is marked \0: it joins the one before it without a space.)
      const words = line
        .split(' ')
        .flatMap((word) => (word.length > columns - hang.length ? word.split(/(?<=,)/).map((piece, i) => (i ? `\0${piece}` : piece)) : [word]));
      for (const marked of words) {
        const word = marked.replace(/^\0/, '');
        const next = current ? `${current}${marked.startsWith('\0') ? '' : ' '}${word}` : word;
        if (current && next.length > columns) {
          lines.push(current);
          current = word.length + hang.length > columns ? word : hang + word;
        } else current = next;
      }
      lines.push(current);
      return lines.join('\n');
    })
    .join('\n');
}

const say = (text) => process.stdout.write(`\n${bold(fit(`# ${text}`))}\n`);

/** What a child writes, fitted line by line (a line is held until its end arrives). */
function fitted(write) {
  let partial = '';
  return {
    write(chunk) {
      const text = partial + chunk;
      const end = text.lastIndexOf('\n');
      partial = text.slice(end + 1);
      if (end >= 0) write(fit(text.slice(0, end + 1)));
    },
    end() {
      if (partial) write(fit(partial));
      partial = '';
    },
  };
}

/** Runs `svc args…`, echoing the command and its output; resolves with its stdout. */
function svc(args, { input, stdinOpen = false, onStderr, quiet = false, env: runEnv = env, expectExit = 0 } = {}) {
  process.stdout.write(fit(`${bold('$')} svc ${args.map((a) => (/[\s,]/.test(a) ? JSON.stringify(a) : a)).join(' ')}`) + '\n');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [svcBin, ...args], { env: runEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    const out = fitted((text) => process.stdout.write(text));
    const err = fitted((text) => process.stderr.write(text));
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (!quiet) out.write(chunk.toString());
    });
    child.stderr.on('data', (chunk) => {
      err.write(chunk.toString());
      onStderr?.(chunk.toString());
    });
    child.on('exit', () => {
      out.end();
      err.end();
    });
    // A sign-in waits on an open stdin (where a redirect may be pasted); ended, it fails at once.
    if (stdinOpen) child.on('exit', () => child.stdin.end());
    else child.stdin.end(input ?? '');
    child.on('exit', (code) => (code === expectExit ? resolve(stdout) : reject(new Error(`svc ${args.join(' ')} exited ${code}`))));
  });
}

/** The admin's side of the login: approve, then let the browser follow the redirect. */
async function approveInBrowser(authorizeUrl) {
  await fetch(`${emulator.url}/_emulator/approvals`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: emulator.seed.admin.email, org_id: emulator.seed.org_id, decision: 'approve' }),
  });
  const authorize = await fetch(authorizeUrl, { redirect: 'manual' });
  const callback = authorize.headers.get('location');
  if (!callback) throw new Error(`the authorize page answered ${authorize.status} without a redirect`);
  await fetch(callback);
}

/** Resolves once the emulator has an open event stream (the tail is connected). */
async function streamOpen() {
  for (let waited = 0; waited < 10_000; waited += 50) {
    const stats = await (await fetch(`${emulator.url}/_emulator/stats`)).json();
    if (stats.open_streams > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('events tail did not connect within 10 s');
}

let exitCode = 0;
try {
  say(`A local emulator of the service is running at ${emulator.url} (organization ${emulator.seed.org_name}).`);

  say('Sign in through the browser (loopback + PKCE). Here the emulator plays the admin who clicks Approve.');
  let approving;
  let stderrSoFar = '';
  await svc(['login', '--no-browser'], {
    stdinOpen: true,
    onStderr: (text) => {
      stderrSoFar += text;
      const url = stderrSoFar.match(/https?:\/\/\S+\/oauth\/authorize\?\S+/)?.[0];
      if (url && !approving) approving = approveInBrowser(url);
    },
  });
  await approving;

  say('Who am I, and what may this login do?');
  await svc(['auth', 'status']);
  await svc(['account']);

  say("Add the organization's test key, and switch to test mode: nothing is billed there.");
  await svc(['keys', 'add', '--name', 'demo-test', '--stdin'], { input: `${emulator.seed.keys.test}\n` });
  await svc(['mode', 'test']);

  say('Watch the event stream live while we work (it stops after 5 events).');
  const tail = spawn(process.execPath, [svcBin, 'events', 'tail', '--max-events', '5'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const tailDone = new Promise((resolve) => tail.on('exit', resolve));
  const prefixLines = (chunk) => chunk.toString().replace(/^(?=.)/gm, '  [events tail] ');
  const tailOut = fitted((text) => process.stdout.write(text));
  const tailErr = fitted((text) => process.stderr.write(text));
  tail.stdout.on('data', (chunk) => tailOut.write(prefixLines(chunk)));
  tail.stderr.on('data', (chunk) => tailErr.write(prefixLines(chunk)));
  await streamOpen(); // so the events below are seen live, not replayed

  say('Start an interpreted call between English and Spanish, then end it.');
  const started = await svc(['calls', 'start', '--languages', 'en,es', '--title', 'Demo call']);
  const callId = started.match(/call_\w+/)?.[0];
  await svc(['calls', 'end', callId]);

  say('Open a support chat and post a message.');
  const chat = await svc(['chats', 'start', '--language', 'en', '--subject', 'Demo chat']);
  const chatId = chat.match(/chat_\w+/)?.[0];
  await svc(['chats', 'send', chatId, 'Hello from the demo']);

  say('Translate a sentence (test mode answers with a tagged stand-in).');
  await svc(['translate', 'Good morning, everyone', '--to', 'es']);

  const tailExit = await tailDone;
  if (tailExit !== 0) throw new Error(`events tail exited ${tailExit}`);

  say('Sign out: the tokens are revoked on the service and removed here.');
  await svc(['logout']);

  // The path users take to the real service: https. The emulator serves it from a local CA it
  // makes once and keeps; Node clients trust that CA through NODE_EXTRA_CA_CERTS.
  const secure = await startEmulator({ port: 0, https: { caDir: join(configDir, 'emulator-ca') } });
  try {
    say(`The same over https: an emulator at ${secure.url}, its certificate from a local CA (${secure.ca.certFile}).`);
    const secureEnv = { ...env, SVC_BASE_URL: secure.url, SVC_API_KEY: secure.seed.keys.test, SVC_CONFIG_DIR: join(configDir, 'https') };
    say('Until Node trusts that CA, svc refuses the certificate and says how to trust it (exit 9, nothing sent).');
    await svc(['account'], { env: secureEnv, expectExit: 9 });
    say(`Trusted the Node way: export NODE_EXTRA_CA_CERTS=${secure.ca.certFile}`);
    const trusted = { ...secureEnv, NODE_EXTRA_CA_CERTS: secure.ca.certFile };
    await svc(['account'], { env: trusted });
    await svc(['calls', 'start', '--languages', 'en,fr', '--title', 'Over TLS'], { env: trusted });
    await svc(['calls', 'list'], { env: trusted });
  } finally {
    await secure.close();
  }
  say('Done. Try it yourself: `node bin/svc.js emulator` (or `emulator --https`) in one terminal, `svc --help` in another.');
} catch (error) {
  process.stderr.write(`\ndemo failed: ${error.message}\n`);
  exitCode = 1;
} finally {
  await emulator.close();
  rmSync(configDir, { recursive: true, force: true });
}
process.exitCode = exitCode;
