// The emulator's dashboard in a real browser (issue 27): Debian's Chromium driven by
// playwright-core against an emulator on port 0, with svc itself (in-process, as a user runs
// it) on the other side of each action. Every page loads without a console error or a failed
// request and passes axe-core (no serious or critical violation); the README's screenshots are
// taken here in every run, and written to docs/dashboard-*.png only with SVC_WRITE_SCREENSHOTS=1
// (so a run leaves a clean clone's tree clean).
// Skips with a visible reason without /usr/bin/chromium; SVC_REQUIRE_REAL=1 (CI) fails instead.
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { request as httpRequest } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { sha256 } from '../../src/emulator/ids.js';
import { CLI_CLIENT_ID, CLI_REDIRECT_PATH } from '../../src/contract/constants.js';
import { controlPlane, startTestEmulator } from '../helpers/emulator.js';
import { MemorySecretStore } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { CHROMIUM, launchChromium, skipWithoutChromium } from '../helpers/chromium.js';

const skipped = skipWithoutChromium('the dashboard browser suite');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const WRITE_SCREENSHOTS = process.env.SVC_WRITE_SCREENSHOTS === '1';
const PAGES = ['/', '/keys', '/apps', '/calls', '/chats', '/events', '/requests', '/controls'];

describe.skipIf(skipped)(`the emulator's dashboard in a real browser (${CHROMIUM})`, () => {
  let emulator: RunningEmulator;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchChromium();
    emulator = await startTestEmulator();
  });

  afterAll(async () => {
    await browser?.close();
    await emulator?.close();
  });

  /** A page that records console errors, page errors, failed requests and error answers. */
  async function watchedPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
    const page = await within(context.newPage(), 15_000, 'opening a page');
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => {
      // Leaving a page cancels its event stream and any live refresh under way: not a failure.
      const left = request.failure()?.errorText === 'net::ERR_ABORTED' && ['eventsource', 'fetch'].includes(request.resourceType());
      if (!left) problems.push(`failed: ${request.url()} ${request.failure()?.errorText}`);
    });
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
    });
    return { page, problems };
  }

  /** A locator's text (its first match), for expect.poll: playwright-core has no locator assertions. */
  const textOf = async (locator: Locator) => (await locator.first().textContent({ timeout: 5000 })) ?? '';

  /** Opens a dashboard page and waits until its live stream is connected. */
  async function open(page: Page, path: string): Promise<void> {
    await page.goto(`${emulator.url}${path}`);
    await page.waitForSelector('body[data-live="on"]', { timeout: 10_000 }).catch(async () => {
      // Pages without a live part never connect; every dashboard page has one.
      throw new Error(`${path}: the live stream never connected`);
    });
  }

  async function axeViolations(page: Page): Promise<string[]> {
    await page.addScriptTag({ path: AXE });
    const results = await page.evaluate(async () => {
      const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe;
      return (await axe.run()).violations;
    });
    return results
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  }

  it('every page, in both modes, loads without a console error or a failed request, passes axe, and fits 1280×800 and 390×844', async () => {
    // axe is injected into the page, which the dashboard's CSP (script-src 'self') would refuse.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 800 } });
    try {
      const { page, problems } = await watchedPage(context);
      for (const mode of ['test', 'live']) {
        for (const path of PAGES) {
          await open(page, `${path}?mode=${mode}`);
          await expect.poll(() => textOf(page.locator('h1'))).toContain(`(${mode} mode)`);
          expect(await axeViolations(page), `${path} ${mode}`).toEqual([]);
        }
      }
      // Dark mode (the system's colour scheme): every page, both modes, axe-clean too.
      await page.emulateMedia({ colorScheme: 'dark' });
      for (const mode of ['test', 'live']) {
        for (const path of PAGES) {
          await open(page, `${path}?mode=${mode}`);
          expect(await page.evaluate('getComputedStyle(document.body).backgroundColor'), `${path} ${mode} dark`).toBe('rgb(17, 24, 39)');
          expect(await axeViolations(page), `${path} ${mode} dark`).toEqual([]);
        }
      }
      await page.emulateMedia({ colorScheme: 'light' });
      // The dialogs, open.
      await open(page, '/keys');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('dialog', { name: 'Create an API key' }).waitFor({ state: 'visible' });
      expect(await axeViolations(page), 'create key dialog').toEqual([]);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'hidden' });

      await page.setViewportSize({ width: 390, height: 844 });
      for (const path of PAGES) {
        await open(page, path);
        const overflow = Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
        expect(overflow, `${path} scrolls sideways at 390 px`).toBeLessThanOrEqual(0);
        expect(await axeViolations(page), `${path} at 390 px`).toEqual([]);
      }
      expect(problems).toEqual([]);
    } finally {
      await closeContext(context);
    }
  });

  it('axe finds no serious or critical violation in any state: every page and object page, every dialog, each refused form, the copied? question; test and live, light and dark, 1280 and 390 px', async () => {
    // An emulator of its own: the sweep resets it and publishes into it.
    const served = await startTestEmulator();
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000);
    const found: string[] = [];
    try {
      const page = await context.newPage();
      /** Waits for the page's script (the live bar, a dialog shown on load) and for what the state shows, then runs axe. */
      const check = async (state: string, shown: Locator = page.locator('h1')) => {
        await page.waitForLoadState('load');
        await shown
          .first()
          .waitFor({ state: 'visible' })
          .catch(async () => {
            throw new Error(`${state}: not shown; the page says ${await page.locator('main').innerText()}`);
          });
        if ((await page.locator('[data-live]').count()) > 0) await page.waitForSelector('body[data-live="on"]');
        for (const violation of await axeViolations(page)) found.push(`${state}: ${violation}`);
      };
      const visit = (path: string) => page.goto(`${served.url}${path}`);
      /** Sends a form the way a user would, with the browser's own checks off (the server's are the ones under test). */
      const send = async (button: Locator) => {
        await page.evaluate('for (const form of document.forms) form.noValidate = true');
        await button.click();
        await page.waitForLoadState('load');
      };
      for (const [mode, colorScheme, width] of [
        // Every pair of mode, colour scheme and width, in four sweeps.
        ['test', 'light', 1280],
        ['live', 'dark', 1280],
        ['test', 'dark', 390],
        ['live', 'light', 390],
      ] as const) {
        await page.emulateMedia({ colorScheme });
        await page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
        const at = (state: string) => `${state} (${mode}, ${colorScheme}, ${width} px)`;
        // Objects of this mode, and requests that touched them.
        const headers = { authorization: `Bearer ${served.seed.keys[mode]}`, 'content-type': 'application/json' };
        const api = async (path: string, body: unknown) =>
          (await (await fetch(`${served.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })).json()) as { id: string };
        const call = await api('/v1/calls', { languages: ['en', 'es'] });
        const chat = await api('/v1/chats', { language: 'en' });
        const link = await api('/v1/links', { language: 'es' });
        const key = [...served.state.keys.values()].find((k) => k.mode === mode)!;
        const app = await controlPlane(served).createApp({ name: 'Swept app', redirect_uris: ['https://swept.test/cb'] });

        for (const path of [...PAGES, `/calls/${call.id}`, `/chats/${chat.id}`, `/keys/${key.id}`, `/apps/${app.client_id}`, `/apps/${CLI_CLIENT_ID}`]) {
          await visit(`${path}?mode=${mode}`);
          await check(at(path));
        }
        await visit(`/join/${link.id}`);
        await check(at('a call link'), page.getByText(link.id));
        await visit('/join/link_nothing');
        await check(at('a call link that does not exist'), page.getByText('link_nothing'));
        await visit(`/calls/call_nothing?mode=${mode}`);
        await check(at('an object not found'), page.getByText('There is no'));

        // Every dialog, open.
        await visit(`/keys?mode=${mode}`);
        await page.getByRole('button', { name: 'Create key' }).click();
        const createKey = page.getByRole('dialog', { name: 'Create an API key' });
        await check(at('Create key'), createKey);
        for (const scope of await createKey.getByRole('checkbox').all()) await scope.uncheck();
        await send(createKey.getByRole('button', { name: 'Create' }));
        await check(at('Create key refused (no scope)'), createKey.getByText('Scopes: choose at least one'));
        await createKey.getByRole('checkbox').first().check();
        await createKey.locator('input[name=csrf]').evaluate((field) => field.setAttribute('value', 'stale'));
        await send(createKey.getByRole('button', { name: 'Create' }));
        await check(at('Create key refused (a stale page)'), createKey.getByRole('alert'));
        await send(createKey.getByRole('button', { name: 'Create' }));
        const newKey = page.getByRole('dialog', { name: 'Your new API key' });
        await check(at('the new key'), newKey);
        await newKey.getByRole('button', { name: 'Done' }).click();
        await check(at('the copied? question'), newKey.getByRole('button', { name: 'Go back' }));
        if (mode === 'test') {
          await visit('/keys?mode=test');
          await send(page.getByRole('button', { name: 'Show the seeded test key' }));
          await check(at('the seeded test key'), page.getByRole('dialog', { name: 'The seeded test key' }));
        }

        await visit(`/apps?mode=${mode}`);
        await page.getByRole('button', { name: 'Register app' }).click();
        const register = page.getByRole('dialog', { name: 'Register an OAuth app' });
        await check(at('Register app'), register);
        await register.getByLabel(/Redirect URIs/).fill('http://example.test/cb');
        await send(register.getByRole('button', { name: 'Register' }));
        await check(at('Register app refused (no name, an http URI)'), register.locator('.field-error'));
        await register.getByLabel('Name').fill('Swept too');
        await send(register.getByRole('button', { name: 'Register' }));
        await check(at('Register app refused (an http URI)'), register.getByText('Redirect URI 1: https only'));
        await register.getByLabel(/Redirect URIs/).fill('https://swept.test/cb');
        await send(register.getByRole('button', { name: 'Register' }));
        await check(at('the new app'), page.getByRole('dialog', { name: 'Swept too is registered' }));

        // Each refused form of Overview and Controls.
        await visit(`/?mode=${mode}`);
        await page
          .getByLabel(/^New balance of/)
          .first()
          .fill('twelve');
        await send(page.getByRole('button', { name: 'Save balance' }).first());
        await check(at('Save balance refused'), page.locator('.field-error'));
        for (const [field, value, button] of [
          ['Advance by (seconds)', '999999999999', 'Advance clock'],
          ['Path prefix', 'v1', 'Inject fault'],
          ['#fault-count', '0', 'Inject fault'],
          ['Type', 'Not A Type', `Publish ${mode} events`],
          ['#publish-count', '0', `Publish ${mode} events`],
        ] as const) {
          await visit(`/controls?mode=${mode}`);
          await (field.startsWith('#') ? page.locator(field) : page.getByLabel(field, { exact: true })).fill(value);
          await send(page.getByRole('button', { name: button }));
          await check(at(`${button} refused (${field} ${value})`), page.locator('.field-error'));
        }
        await visit(`/controls?mode=${mode}`);
        await page
          .getByLabel('Import a document')
          .setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"not": "a world"}') });
        page.once('dialog', (confirm) => void confirm.accept());
        await send(page.getByRole('button', { name: 'Import', exact: true }));
        await check(at('Import refused'), page.getByRole('alert'));
        await visit(`/controls?mode=${mode}`);
        page.once('dialog', (confirm) => void confirm.accept());
        await send(page.getByRole('button', { name: 'Reset the emulator' }));
        await check(at('the new seed'), page.getByRole('dialog', { name: 'The new seed' }));
      }
      expect(found).toEqual([]);
    } finally {
      await closeContext(context);
      await served.close();
    }
  }, 300_000);

  it('Create key makes a key svc account works with; Revoke ends it (exit 3)', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const { page, problems } = await watchedPage(context);
      await open(page, '/keys?mode=test');
      await page.getByRole('button', { name: 'Create key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create an API key' });
      await dialog.getByLabel('Name (optional)').fill('ci key');
      await dialog.getByRole('checkbox', { name: 'calls:write' }).uncheck();
      await dialog.getByRole('button', { name: 'Create' }).click();
      const shown = page.getByRole('dialog', { name: 'Your new API key' });
      await shown.waitFor({ state: 'visible' });
      const key = await shown.getByLabel('API key', { exact: true }).inputValue();
      expect(key).toMatch(/^svc_test_/);
      // Reloading does not post again: the page took the GET address of the keys page.
      expect(new URL(page.url()).pathname).toBe('/keys');
      // Not copied: Done asks first.
      await shown.getByRole('button', { name: 'Done' }).click();
      await shown.getByRole('button', { name: 'Yes, close' }).click();
      await shown.waitFor({ state: 'hidden' });

      const env = { SVC_BASE_URL: emulator.url, SVC_API_KEY: key };
      const before = await runCli(['account', '--json'], { env });
      expect(before.stderr).toBe('');
      expect(before.exitCode).toBe(0);
      const keyId = JSON.parse(before.stdout).credential.key_id as string;
      const row = page.locator(`tr[data-key-id="${keyId}"]`);
      await expect.poll(() => textOf(row)).toContain('ci key');
      await expect.poll(() => textOf(row)).toContain(key.slice(-4));
      expect(await textOf(row)).not.toContain('calls:write');
      // The key itself is on no page after the dialog: only its last four.
      await page.reload();
      expect(await page.content()).not.toContain(key);

      page.once('dialog', (confirm) => void confirm.accept());
      await row.getByRole('button', { name: 'Revoke ci key' }).click();
      await expect.poll(() => textOf(page.getByRole('status'))).toContain('Revoked ci key');
      await expect.poll(() => textOf(row)).toContain('revoked');
      const after = await runCli(['account'], { env });
      expect(after.exitCode).toBe(3);
      expect(after.stderr).toMatch(/revoked/);
      expect(problems).toEqual([]);
    } finally {
      await closeContext(context);
    }
  });

  /** The secret store `svc login` writes and `svc account` reads (one per test file, as one machine's keychain). */
  const secrets = new MemorySecretStore();

  /** A step that must end within `ms`: a failure naming it, rather than the test's own timeout. */
  function within<T>(promise: Promise<T>, ms: number, step: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${step} took over ${ms / 1000} s`)), ms)));
    return Promise.race([promise, late]).finally(() => clearTimeout(timer));
  }

  /**
   * Closes a test's browser context within 10 s: a close that hangs in `finally` (a page caught
   * mid-navigation, see loginInBrowser) would otherwise run into the test's timeout and hide the
   * error of the step that failed before it. A stalled close is said on stderr.
   */
  async function closeContext(context: BrowserContext): Promise<void> {
    await within(context.close(), 10_000, 'closing the browser context').catch((error: unknown) =>
      console.error(`dashboard suite: ${(error as Error).message}`),
    );
  }

  /** `svc login` whose browser is a Chromium page: signs in as the seeded admin and approves. */
  async function loginInBrowser(context: BrowserContext, configDir: string, env: Record<string, string> = {}) {
    const page = await within(context.newPage(), 15_000, 'opening a page');
    let opened!: () => void;
    let failed!: (error: unknown) => void;
    const ready = new Promise<void>((resolve, reject) => ((opened = resolve), (failed = reject)));
    const done = runCli(['login'], {
      configDir,
      secrets,
      env: { SVC_BASE_URL: emulator.url, DISPLAY: ':0', ...env },
      browser: {
        async open(url) {
          // A page that does not load is this test's failure, said as such (not a wait until the test's timeout).
          await page.goto(url).then(opened, (error: unknown) => {
            failed(new Error(`the authorize page did not load: ${(error as Error).message}`));
            throw error;
          });
        },
      },
    });
    await within(ready, 20_000, 'svc login opening the authorize page');
    await page.getByLabel('Email').fill(emulator.seed.admin.email);
    await page.getByLabel('Password').fill(emulator.seed.admin.password);
    await Promise.all([page.waitForURL(/./, { waitUntil: 'load' }), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.getByLabel('Organization').selectOption(emulator.seed.org_id);
    await page.getByRole('button', { name: 'Approve' }).click();
    const result = await within(done, 20_000, 'svc login receiving the approval');
    expect(result.stderr).not.toMatch(/^error/m);
    expect(result.exitCode).toBe(0);
    // What the browser shows once svc has the code: the loopback's page, closed only once it is
    // shown. svc can finish before the browser has drawn it, and Chromium can lose a close that
    // arrives while a navigation commits: the page then never closed (the stall CI saw).
    await page.getByRole('heading', { name: 'Signed in' }).waitFor();
    await within(page.close(), 15_000, 'closing the sign-in page');
  }

  const account = (configDir: string) =>
    within(runCli(['account'], { configDir, secrets, env: { SVC_BASE_URL: emulator.url } }), 20_000, 'svc account after the sign-in');
  /** What the user sees once the dashboard ended their connection: svc account exits 3 and says why. */
  async function expectConnectionEnded(configDir: string): Promise<void> {
    const after = await account(configDir);
    expect(after.exitCode).toBe(3);
    expect(after.stderr).toContain('the connection to Acme has ended');
  }

  it('svc login, then Disconnect on the connection: the next svc account exits 3, the connection has ended', async () => {
    const context = await browser.newContext();
    // A step that stalls fails within the test's time, naming itself.
    context.setDefaultTimeout(15_000);
    try {
      const configDir = tempConfigDir();
      await loginInBrowser(context, configDir);
      const before = await account(configDir);
      expect(before.exitCode, before.stderr).toBe(0);

      const { page, problems } = await watchedPage(context);
      await open(page, '/apps?mode=live');
      await expect.poll(() => textOf(page.locator('#apps'))).toContain('Connected apps of Acme');
      page.once('dialog', (confirm) => void confirm.accept());
      await page.getByRole('button', { name: 'Disconnect svc CLI from Acme' }).click();
      await expect.poll(() => textOf(page.getByRole('status'))).toContain('Disconnected svc CLI from Acme');
      await page.getByText('No app is connected to Acme.').waitFor({ state: 'visible' });

      await expectConnectionEnded(configDir);
      expect(problems).toEqual([]);
    } finally {
      await closeContext(context);
    }
  });

  it('Register app: its client id and secret sign in with svc login; Delete app ends that connection', async () => {
    const context = await browser.newContext();
    // A step that stalls fails within the test's time, naming itself.
    context.setDefaultTimeout(15_000);
    try {
      const { page, problems } = await watchedPage(context);
      const appName = 'Acme Reports';
      await open(page, '/apps');
      await page.getByRole('button', { name: 'Register app' }).click();
      const dialog = page.getByRole('dialog', { name: 'Register an OAuth app' });
      await dialog.getByLabel('Name').fill(appName);
      await dialog.getByLabel(/Redirect URIs/).fill('http://127.0.0.1/callback');
      await dialog.getByRole('button', { name: 'Register' }).click();
      const shown = page.getByRole('dialog', { name: `${appName} is registered` });
      const clientId = await shown.getByLabel('Client id', { exact: true }).inputValue();
      const clientSecret = await shown.getByLabel('Client secret', { exact: true }).inputValue();
      expect(clientId).toMatch(/^svc_app_/);
      expect(clientSecret).toMatch(/^svc_cs_/);
      await shown.getByRole('button', { name: 'Done' }).click();
      await shown.getByRole('button', { name: 'Yes, close' }).click();
      await shown.waitFor({ state: 'hidden' });
      await page.reload();
      expect(await page.content()).not.toContain(clientSecret);

      const configDir = tempConfigDir();
      await loginInBrowser(context, configDir, { SVC_CLIENT_ID: clientId, SVC_CLIENT_SECRET: clientSecret });
      const before = await account(configDir);
      expect(before.exitCode, before.stderr).toBe(0);
      // The connection shows live, without a reload.
      await expect.poll(() => textOf(page.locator('#apps'))).toContain(appName);
      await page.getByRole('button', { name: `Disconnect ${appName} from Acme` }).waitFor({ state: 'visible', timeout: 2000 });

      page.once('dialog', (confirm) => void confirm.accept());
      await page.getByRole('button', { name: `Delete app ${appName}` }).click();
      await expect.poll(() => textOf(page.getByRole('status'))).toContain(`Deleted ${appName}; 1 connection(s) ended`);
      await expectConnectionEnded(configDir);
      expect(problems).toEqual([]);
    } finally {
      await closeContext(context);
    }
  });

  it('svc --test events trigger call.ended shows on Events, Calls and Requests within a second, without a reload', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    try {
      const watched = await Promise.all([watchedPage(context), watchedPage(context), watchedPage(context)]);
      const [events, calls, requests] = watched.map((w) => w.page) as [Page, Page, Page];
      await Promise.all([open(events, '/events?mode=test'), open(calls, '/calls?mode=test'), open(requests, '/requests?mode=test')]);
      // A reload would drop this mark.
      for (const page of [events, calls, requests]) await page.evaluate('window.notReloaded = true');

      const trigger = await runCli(['--test', 'events', 'trigger', 'call.ended', '--json'], {
        env: { SVC_BASE_URL: emulator.url, SVC_API_KEY: emulator.seed.keys.test },
      });
      expect(trigger.exitCode).toBe(0);
      const ended = events.locator('details', { hasText: 'call.ended' }).first();
      await ended.waitFor({ state: 'visible', timeout: 1000 });
      await calls.locator('#calls tbody tr', { hasText: 'ended' }).first().waitFor({ state: 'visible', timeout: 1000 });
      const served = requests.locator('details', { hasText: /POST \/v1\/calls\/call_\w+\/end/ }).first();
      await served.waitFor({ state: 'visible', timeout: 1000 });
      await expect.poll(() => textOf(served.locator('summary'))).toContain('200');
      const keyId = emulator.state.keysByHash.get(sha256(emulator.seed.keys.test))!.id;
      await expect.poll(() => textOf(served.locator('summary'))).toContain(`${keyId} (test)`);
      for (const page of [events, calls, requests]) expect(await page.evaluate('window.notReloaded')).toBe(true);

      // Expanding shows the event's JSON and the request's bodies, never a secret.
      await ended.locator('summary').click();
      await expect.poll(() => textOf(ended.locator('pre'))).toContain('"type": "call.ended"');
      await served.locator('summary').click();
      await expect.poll(() => textOf(served)).toContain('"status": "ended"');
      expect(await requests.content()).not.toContain(emulator.seed.keys.test);

      // Screenshots for the README: the console pages with what just happened, taken in every
      // run (a PNG of the whole viewport), written to docs/ only when asked for.
      for (const [page, name, colorScheme] of [
        [events, 'dashboard-events.png', 'light'],
        [requests, 'dashboard-requests.png', 'light'],
        [requests, 'dashboard-requests-dark.png', 'dark'],
      ] as const) {
        await page.emulateMedia({ colorScheme });
        const png = await page.screenshot();
        expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
        expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 800]);
        if (WRITE_SCREENSHOTS) {
          mkdirSync(DOCS, { recursive: true });
          writeFileSync(join(DOCS, name), png);
        }
      }
      expect(watched.flatMap((w) => w.problems)).toEqual([]);
    } finally {
      await closeContext(context);
    }
  });

  it('Calls and Chats: a detail view that follows the API live; End call and Close chat', async () => {
    const context = await browser.newContext();
    try {
      const env = { SVC_BASE_URL: emulator.url, SVC_API_KEY: emulator.seed.keys.test };
      const { page, problems } = await watchedPage(context);
      await open(page, '/calls?mode=test');
      expect((await runCli(['--test', 'events', 'trigger', 'call.started'], { env })).exitCode).toBe(0);
      const active = page.locator('#calls tbody tr', { hasText: 'active' }).first();
      await active.waitFor({ state: 'visible', timeout: 1000 });
      await active.getByRole('link').click();
      await page.waitForSelector('body[data-live="on"]');
      await expect.poll(() => textOf(page.locator('#call'))).toContain('active');
      page.once('dialog', (confirm) => void confirm.accept());
      await page.getByRole('button', { name: 'End call' }).click();
      await expect.poll(() => textOf(page.getByRole('status'))).toContain('Ended call_');
      await expect.poll(() => textOf(page.locator('#call dl'))).toContain('ended');
      const callId = new URL(page.url()).pathname.split('/').pop()!;
      expect(emulator.state.calls.get(callId)!.obj.status).toBe('ended');

      await open(page, '/chats?mode=test');
      expect((await runCli(['--test', 'events', 'trigger', 'chat.message.created'], { env })).exitCode).toBe(0);
      const chat = page.locator('#chats tbody tr', { hasText: 'open' }).first();
      await chat.waitFor({ state: 'visible', timeout: 1000 });
      await chat.getByRole('link').click();
      await page.waitForSelector('body[data-live="on"]');
      await page.locator('#chat ol.log li').first().waitFor({ state: 'visible' });
      page.once('dialog', (confirm) => void confirm.accept());
      await page.getByRole('button', { name: 'Close chat' }).click();
      await expect.poll(() => textOf(page.locator('#chat dl'))).toContain('closed');
      expect(problems).toEqual([]);
    } finally {
      await closeContext(context);
    }
  });

  it("an app's page (from Apps and from Find by id) shows it and the requests made with its credential; svc's own app warns", async () => {
    const context = await browser.newContext({ bypassCSP: true });
    context.setDefaultTimeout(10_000);
    try {
      const plane = controlPlane(emulator);
      const made = await plane.createApp({ name: 'Page app', redirect_uris: ['https://page.test/callback'] });
      const other = await plane.createApp({ name: 'Other app', redirect_uris: ['https://other.test/callback'] });
      /** A token request with HTTP Basic for `clientId` (refused: the code is made up), as an app's server sends it. */
      const tokenRequest = (clientId: string, secret: string | null, marker: string) =>
        fetch(`${emulator.url}/oauth2/token`, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ grant_type: 'authorization_code', code: marker, redirect_uri: 'https://x.test/cb' }),
        });
      await tokenRequest(made.client_id, made.client_secret, 'mine');
      await tokenRequest(other.client_id, other.client_secret, 'theirs');
      const { page, problems } = await watchedPage(context);
      await open(page, '/apps?mode=test');
      await page.getByRole('link', { name: 'Details and requests of Page app' }).click();
      await page.waitForSelector('body[data-live="on"]');
      expect(new URL(page.url()).pathname).toBe(`/apps/${made.client_id}`);
      await expect.poll(() => textOf(page.locator('h1'))).toContain('App Page app');
      const details = await textOf(page.locator('#app dl'));
      expect(details).toContain(made.client_id);
      expect(details).toContain('https://page.test/callback');
      expect(details).toContain('confidential');
      const requests = page.getByRole('list', { name: 'Requests' });
      const token = requests.locator('li', { hasText: '/oauth2/token' });
      expect(await token.count()).toBe(1);
      expect(await textOf(token.locator('summary'))).toContain(`app ${made.client_id} (Page app)`);
      expect(await textOf(requests)).not.toContain(other.client_id);
      expect(await page.locator('.warning').count()).toBe(0);
      expect(await axeViolations(page), 'an app page').toEqual([]);

      // Find by id takes an app's id to its page; svc's own app says that deleting it stops svc login.
      await page.getByLabel('Find an object by id').fill(CLI_CLIENT_ID);
      await page.keyboard.press('Enter');
      await page.waitForURL(new RegExp(`/apps/${CLI_CLIENT_ID}\\?`));
      await page.waitForSelector('body[data-live="on"]');
      expect(await textOf(page.locator('.warning'))).toContain('svc login stops working');
      expect(await textOf(page.locator('#app dl'))).toContain('public (PKCE');
      expect(await axeViolations(page), "svc's own app page").toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await closeContext(context);
    }
  });

  it('Controls: advance the clock, inject a fault, publish events, export, import and reset', async () => {
    const context = await browser.newContext({ acceptDownloads: true });
    try {
      const { page, problems } = await watchedPage(context);
      await open(page, '/controls?mode=test');
      const before = emulator.state.clock.now();
      await page.getByLabel('Advance by (seconds)').fill('7200');
      await page.getByRole('button', { name: 'Advance clock' }).click();
      await expect.poll(() => textOf(page.getByRole('status'))).toContain('The clock moved 7200 s');
      expect(emulator.state.clock.now() - before).toBeGreaterThanOrEqual(7_200_000);

      await page.getByLabel('Status').selectOption('429');
      await page.getByLabel('Path prefix').fill('/v1/account');
      await page.locator('#fault-count').fill('1');
      await page.getByRole('button', { name: 'Inject fault' }).click();
      await expect.poll(() => textOf(page.getByRole('status'))).toContain('fail with 429');
      const faulted = await fetch(`${emulator.url}/v1/account`, { headers: { authorization: `Bearer ${emulator.seed.keys.test}` } });
      expect(faulted.status).toBe(429);

      await page.getByLabel('Type').fill('chat.started');
      await page.locator('#publish-count').fill('3');
      await page.getByRole('button', { name: 'Publish test events' }).click();
      await expect.poll(() => textOf(page.getByRole('status'))).toContain('Published 3 test chat.started event(s)');

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /Export the state/ }).click()]);
      const exported = await download.path();
      const { readFileSync } = await import('node:fs');
      expect(JSON.parse(readFileSync(exported, 'utf8'))).toMatchObject({ format: 'svc-emulator-state' });

      // The exported world imported back, then a reset: a new seed, its keys shown once.
      page.once('dialog', (confirm) => void confirm.accept());
      await page.getByLabel('Import a document').setInputFiles(exported);
      await page.getByRole('button', { name: 'Import', exact: true }).click();
      await expect.poll(() => textOf(page.getByRole('status'))).toMatch(/^Imported .*: 1 organization\(s\), \d+ key\(s\)/);

      page.once('dialog', (confirm) => void confirm.accept());
      await page.getByRole('button', { name: 'Reset the emulator' }).click();
      const shown = page.getByRole('dialog', { name: 'The new seed' });
      const testKey = await shown.getByLabel('Test key', { exact: true }).inputValue();
      expect(testKey).toBe(emulator.seed.keys.test);
      const account = await runCli(['account'], { env: { SVC_BASE_URL: emulator.url, SVC_API_KEY: testKey } });
      expect(account.exitCode).toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await closeContext(context);
    }
  });

  it('after the emulator restarts with --state, a form typed into an open tab is taken on its first submit (no raw JSON, nothing lost)', async () => {
    const statePath = join(mkdtempSync(join(tmpdir(), 'svc-dash-state-')), 'world.json');
    let served = await startTestEmulator({ statePath });
    const context = await browser.newContext();
    context.setDefaultTimeout(10_000);
    try {
      const { page, problems } = await watchedPage(context);
      await page.goto(`${served.url}/keys?mode=test`);
      await page.waitForSelector('body[data-live="on"]');
      await page.getByRole('button', { name: 'Create key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create an API key' });
      await dialog.getByLabel('Name (optional)').fill('typed before the restart');
      const token = await dialog.locator('input[name=csrf]').inputValue();
      const port = served.port;
      await served.close();
      served = await startTestEmulator({ statePath, port });
      // The --state file keeps the dashboard's session secret: the token the tab holds is still
      // this emulator's, and the form typed before the restart is taken on its first submit.
      expect(await dialog.locator('input[name=csrf]').inputValue()).toBe(token);
      await dialog.getByRole('button', { name: 'Create' }).click();
      const shown = page.getByRole('dialog', { name: 'Your new API key' });
      expect(await shown.getByLabel('API key', { exact: true }).inputValue()).toMatch(/^svc_test_/);
      // The stream the restart cut, and its reconnection attempts while the emulator was down, are the only failures.
      expect(problems.filter((p) => !/\/_dashboard\/stream|ERR_INCOMPLETE_CHUNKED_ENCODING|ERR_CONNECTION_REFUSED/.test(p))).toEqual([]);
    } finally {
      await closeContext(context);
      await served.close();
    }
  });

  it('a refused form keeps its dialog open with every value, the error next to its field', async () => {
    const context = await browser.newContext({ bypassCSP: true });
    context.setDefaultTimeout(10_000);
    try {
      const page = await context.newPage();
      await open(page, '/apps?mode=test');
      await page.getByRole('button', { name: 'Register app' }).click();
      const dialog = page.getByRole('dialog', { name: 'Register an OAuth app' });
      await dialog.getByLabel('Name').fill('Half right');
      await dialog.getByLabel(/Redirect URIs/).fill('https://ok.test/cb\nhttp://example.test/cb');
      await dialog.getByRole('button', { name: 'Register' }).click();
      await page.waitForURL(/\/apps\?mode=test$/);
      await dialog.waitFor({ state: 'visible' });
      expect(await dialog.getByLabel('Name').inputValue()).toBe('Half right');
      const uris = dialog.getByLabel(/Redirect URIs/);
      expect(await uris.inputValue()).toBe('https://ok.test/cb\nhttp://example.test/cb');
      expect(await uris.getAttribute('aria-invalid')).toBe('true');
      // The error is the field's description, so a screen reader says it with the field.
      const described = await uris.evaluate((el) => el.ownerDocument.getElementById(el.getAttribute('aria-describedby')!)?.textContent);
      expect(described).toBe('Redirect URI 2: https only; http only for localhost');
      expect(await axeViolations(page), 'a refused form').toEqual([]);

      await open(page, '/controls?mode=test');
      await page.getByLabel('Advance by (seconds)').fill('999999999999');
      await page.getByRole('button', { name: 'Advance clock' }).click();
      await expect.poll(() => textOf(page.locator('.field-error'))).toContain('Advance by (seconds): the clock would pass the year 9999');
      expect(await page.getByLabel('Advance by (seconds)').inputValue()).toBe('999999999999');
    } finally {
      await closeContext(context);
    }
  });

  it('Requests holds still: an open row keeps its place, its selection and focus through new rows; Pause counts what arrives; a burst renders about once a second', async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000);
    const ask = (marker: string) => fetch(`${emulator.url}/v1/account?mark=${marker}`, { headers: { authorization: `Bearer ${emulator.seed.keys.test}` } });
    const asked = async (marker: string, n: number) => {
      for (let i = 0; i < n; i++) await ask(`${marker}-${i}`);
    };
    try {
      const { page, problems } = await watchedPage(context);
      await asked('before', 30);
      await open(page, '/requests?mode=test');
      const row = page.locator('#requests li', { hasText: 'mark=before-20' });
      await row.scrollIntoViewIfNeeded();
      await page.mouse.wheel(0, 200);
      await row.locator('summary').click();
      await expect.poll(() => row.locator('details').evaluate((d) => d.hasAttribute('open'))).toBe(true);
      // Rows that expand say so: a marker before each summary, turned when open.
      expect(await row.locator('summary').evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el, '::before').content)).toBe('"▾"');
      const selected = await row
        .locator('pre')
        .first()
        .evaluate((pre) => {
          const range = pre.ownerDocument.createRange();
          range.selectNodeContents(pre);
          const selection = pre.ownerDocument.getSelection()!;
          selection.removeAllRanges();
          selection.addRange(range);
          return selection.toString();
        });
      expect(selected.length).toBeGreaterThan(0);
      const top = async () => (await row.boundingBox())!.y;
      const before = await top();
      const renders = async () => Number(await page.evaluate('document.body.dataset.renders || 0'));

      await asked('after', 5);
      await page.locator('#requests li', { hasText: 'mark=after-4' }).waitFor({ state: 'attached' });
      expect(Math.abs((await top()) - before), 'the row being read moved').toBeLessThanOrEqual(1);
      expect(await page.evaluate('document.getSelection().toString()')).toBe(selected);
      expect(await row.locator('summary').evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);

      // More than a page of newer requests: the open row stays.
      await asked('flood', 105);
      await page.locator('#requests li', { hasText: 'mark=flood-104' }).waitFor({ state: 'attached' });
      expect(await row.count()).toBe(1);
      expect(await row.locator('details').evaluate((d) => d.hasAttribute('open'))).toBe(true);

      // Pause: nothing comes in, the count of what arrived does.
      await page.getByRole('button', { name: 'Pause live updates' }).click();
      await asked('paused', 3);
      await expect.poll(() => textOf(page.locator('.live-bar [aria-live]'))).toBe('Paused: 3 new request(s) since.');
      expect(await page.locator('#requests li', { hasText: 'mark=paused' }).count()).toBe(0);
      await page.getByRole('button', { name: 'Resume live updates' }).click();
      await page.locator('#requests li', { hasText: 'mark=paused-2' }).waitFor({ state: 'attached' });

      // A burst of three seconds (a request every 20 ms) is drawn about once a second, not on every change.
      const rendersBefore = await renders();
      const started = Date.now();
      for (let i = 0; Date.now() - started < 3000; i++) {
        await ask(`burst-${i}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await page
        .locator('#requests li', { hasText: /mark=burst-/ })
        .first()
        .waitFor({ state: 'attached' });
      expect((await renders()) - rendersBefore).toBeLessThanOrEqual(5);
      expect(problems).toEqual([]);
    } finally {
      await closeContext(context);
    }
  });

  it('long values and a 390 px screen: no page is wider than the window, actions stay in view, dates and commands do not break inside', async () => {
    const served = await startTestEmulator();
    const plane = controlPlane(served);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    context.setDefaultTimeout(10_000);
    try {
      const longUri = `https://example.test/${'callback'.repeat(45)}`;
      await plane.createApp({ name: 'Long redirect', redirect_uris: [longUri] });
      for (let i = 0; i < 27; i++) await plane.createKey(served.seed.org_id, 'test');
      await fetch(`${served.url}/v1/calls/${'call_'.repeat(120)}`, { headers: { authorization: `Bearer ${served.seed.keys.test}` } });
      const page = await context.newPage();
      const overflow = async () => Number(await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth'));
      /** Whether an element is inside the window and not scrolled out of sight in its table's box. */
      const inView = (locator: Locator) =>
        locator.evaluate((el) => {
          const view = el.ownerDocument.defaultView!;
          const box = el.getBoundingClientRect();
          const scroller = el.closest('.scroll')?.getBoundingClientRect() ?? { left: 0, right: view.innerWidth };
          return box.left >= Math.max(0, scroller.left) - 1 && box.right <= Math.min(view.innerWidth, scroller.right) + 1;
        });
      const visit = async (path: string) => {
        await page.goto(`${served.url}${path}`);
        await page.waitForSelector('body[data-live="on"]');
      };

      await visit('/apps?mode=test');
      expect(await overflow(), '/apps at 1280 px').toBeLessThanOrEqual(0);
      expect(await inView(page.getByRole('button', { name: 'Delete app Long redirect' })), 'Delete app at 1280 px').toBe(true);
      await visit('/requests?mode=test');
      expect(await overflow(), '/requests at 1280 px').toBeLessThanOrEqual(0);

      await page.setViewportSize({ width: 390, height: 844 });
      for (const path of PAGES) {
        await visit(`${path}?mode=test`);
        expect(await overflow(), `${path} at 390 px`).toBeLessThanOrEqual(0);
        // A date is one line: never broken at its hyphens.
        const broken = await page.evaluate("[...document.querySelectorAll('time')].filter((t) => t.getClientRects().length > 1).map((t) => t.textContent)");
        expect(broken, `${path}: dates broken over lines`).toEqual([]);
      }
      await visit('/keys?mode=test');
      const revokes = page.getByRole('button', { name: /^Revoke / });
      expect(await revokes.count()).toBeGreaterThanOrEqual(27);
      for (const button of await revokes.all()) expect(await inView(button)).toBe(true);
      await visit('/apps?mode=test');
      expect(await inView(page.getByRole('button', { name: 'Delete app Long redirect' })), 'Delete app at 390 px').toBe(true);
      // The commands to copy are never broken inside a word.
      await visit('/?mode=test');
      const split = await page.evaluate(`(() => {
        const found = [];
        for (const pre of document.querySelectorAll('pre')) {
          const text = pre.firstChild;
          for (const word of text.textContent.matchAll(/\\S+/g)) {
            const range = document.createRange();
            range.setStart(text, word.index);
            range.setEnd(text, word.index + word[0].length);
            if (new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size > 1) found.push(word[0]);
          }
        }
        return found;
      })()`);
      expect(split).toEqual([]);
    } finally {
      await closeContext(context);
      await served.close();
    }
  });

  it('Copy says what it copies and that it did; focus returns after Done; a skip link; live mode is unmistakable; the mode switch shows its focus ring', async () => {
    const context = await browser.newContext({ bypassCSP: true, permissions: ['clipboard-read', 'clipboard-write'] });
    context.setDefaultTimeout(10_000);
    try {
      const { page, problems } = await watchedPage(context);
      await open(page, '/keys?mode=test');
      await page.keyboard.press('Tab');
      expect(await page.evaluate('document.activeElement.textContent.trim()')).toBe('Skip to the page');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('dialog', { name: 'Create an API key' }).getByRole('button', { name: 'Create' }).click();
      const shown = page.getByRole('dialog', { name: 'Your new API key' });
      await shown.getByRole('button', { name: 'Copy API key' }).click();
      await shown.getByRole('button', { name: 'Copied API key' }).waitFor();
      await expect.poll(() => textOf(shown.locator('[aria-live]'))).toBe('Copied API key.');
      expect(await axeViolations(page), 'the secret dialog after Copy').toEqual([]);
      await shown.getByRole('button', { name: 'Done' }).click();
      expect(await page.evaluate('document.activeElement.id')).toBe('open-create-key');

      const headerOf = async () => String(await page.evaluate("getComputedStyle(document.querySelector('header')).backgroundColor"));
      const testHeader = await headerOf();
      await open(page, '/keys?mode=live');
      expect(await textOf(page.locator('.live-banner'))).toContain('Live mode.');
      expect(await headerOf()).not.toBe(testHeader);
      // The focus ring of the switch is drawn outside its box: nothing may clip it.
      await page.getByRole('link', { name: 'Test', exact: true }).focus();
      expect(await page.evaluate("getComputedStyle(document.querySelector('.mode')).overflow")).toBe('visible');
      expect(await page.evaluate('getComputedStyle(document.activeElement).outlineStyle')).not.toBe('none');
      expect(await axeViolations(page), 'live mode').toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await closeContext(context);
    }
  });

  it('a one-time secret not copied asks "copied?" before its dialog closes (Go back keeps it); after a Copy, Done closes at once', async () => {
    const context = await browser.newContext({ bypassCSP: true, permissions: ['clipboard-read', 'clipboard-write'] });
    context.setDefaultTimeout(10_000);
    try {
      const { page, problems } = await watchedPage(context);
      const question = "You won't see this secret again. Did you copy it?";
      const createKey = async () => {
        await page.getByRole('button', { name: 'Create key' }).click();
        await page.getByRole('dialog', { name: 'Create an API key' }).getByRole('button', { name: 'Create' }).click();
        const shown = page.getByRole('dialog', { name: 'Your new API key' });
        await shown.waitFor({ state: 'visible' });
        return shown;
      };
      await open(page, '/keys?mode=test');
      const shown = await createKey();
      const key = await shown.getByLabel('API key', { exact: true }).inputValue();
      // Escape, the page's first key press: the question, in the dialog, with focus on Go back.
      await page.keyboard.press('Escape');
      const asking = shown.getByRole('group', { name: question });
      await asking.waitFor({ state: 'visible' });
      expect(await page.evaluate('document.activeElement.textContent.trim()')).toBe('Go back');
      expect(await axeViolations(page), 'the copied? question').toEqual([]);
      await asking.getByRole('button', { name: 'Go back' }).click();
      await asking.waitFor({ state: 'hidden' });
      expect(await shown.isVisible()).toBe(true);
      expect(await shown.getByLabel('API key', { exact: true }).inputValue()).toBe(key);
      // Done asks too; Yes closes, and focus returns to Create key.
      await shown.getByRole('button', { name: 'Done' }).click();
      await asking.getByRole('button', { name: 'Yes, close' }).click();
      await shown.waitFor({ state: 'hidden' });
      await expect.poll(() => page.evaluate('document.activeElement.id')).toBe('open-create-key');

      // Copied: Done closes at once, without the question.
      const again = await createKey();
      await again.getByRole('button', { name: 'Copy API key' }).click();
      await again.getByRole('button', { name: 'Copied API key' }).waitFor();
      await again.getByRole('button', { name: 'Done' }).click();
      await again.waitFor({ state: 'hidden' });
      expect(await again.getByRole('group', { name: question }).isVisible()).toBe(false);
      await expect.poll(() => page.evaluate('document.activeElement.id')).toBe('open-create-key');
      expect(problems).toEqual([]);
    } finally {
      await closeContext(context);
    }
  });

  it('Events copies an event as JSON; Requests copies a request as curl with the secret left out', async () => {
    const context = await browser.newContext({ bypassCSP: true, permissions: ['clipboard-read', 'clipboard-write'] });
    context.setDefaultTimeout(10_000);
    try {
      const { page, problems } = await watchedPage(context);
      const headers = { authorization: `Bearer ${emulator.seed.keys.test}`, 'content-type': 'application/json' };
      const chat = (await (
        await fetch(`${emulator.url}/v1/chats`, { method: 'POST', headers, body: JSON.stringify({ language: 'en', subject: "it's copied" }) })
      ).json()) as {
        id: string;
      };
      await open(page, `/events?mode=test&object=${chat.id}`);
      const event = page.locator('#events li').first();
      await event.locator('summary').click();
      const eventId = String(await event.getAttribute('data-key'));
      await event.getByRole('button', { name: `Copy JSON of ${eventId}` }).click();
      await event.getByRole('button', { name: `Copied JSON of ${eventId}` }).waitFor();
      await expect.poll(() => textOf(page.locator('#copy-status'))).toBe(`Copied JSON of ${eventId}.`);
      const copied = JSON.parse(String(await page.evaluate('navigator.clipboard.readText()')));
      expect(copied).toMatchObject({ id: eventId, type: 'chat.started', data: { id: chat.id } });
      expect(await axeViolations(page), 'Events after Copy').toEqual([]);

      await open(page, `/requests?mode=test&object=${chat.id}&method=POST`);
      const request = page.locator('#requests li').first();
      await request.locator('summary').click();
      await request.getByRole('button', { name: 'Copy as curl POST /v1/chats' }).click();
      await request.getByRole('button', { name: 'Copied as curl POST /v1/chats' }).waitFor();
      const curl = String(await page.evaluate('navigator.clipboard.readText()'));
      expect(curl).toContain(`curl -X POST '${emulator.url}/v1/chats'`);
      expect(curl).toContain('-H "Authorization: Bearer $SVC_API_KEY"');
      expect(curl).toContain(`--data '{"language":"en","subject":"it'\\''s copied"}'`);
      expect(curl).not.toContain(emulator.seed.keys.test);
      expect(await axeViolations(page), 'Requests after Copy').toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await closeContext(context);
    }
  });

  it("Requests shows times in the browser's time zone, to the millisecond", async () => {
    const context = await browser.newContext({ timezoneId: 'Asia/Tokyo' });
    context.setDefaultTimeout(10_000);
    try {
      const page = await context.newPage();
      await fetch(`${emulator.url}/v1/account?when=tokyo`, { headers: { authorization: `Bearer ${emulator.seed.keys.test}` } });
      await open(page, '/requests?mode=test');
      const time = page.locator('#requests li', { hasText: 'when=tokyo' }).locator('time');
      const utc = new Date((await time.getAttribute('datetime'))!);
      const tokyo = new Date(utc.getTime() + 9 * 3600_000).toISOString().replace('T', ' ').replace('Z', '');
      expect(await time.textContent()).toBe(tokyo);
    } finally {
      await closeContext(context);
    }
  });

  it('Create key and Register app work without JavaScript', async () => {
    const context = await browser.newContext({ javaScriptEnabled: false });
    context.setDefaultTimeout(10_000);
    try {
      const page = await context.newPage();
      await page.goto(`${emulator.url}/keys?mode=test`);
      await page.getByRole('button', { name: 'Create key' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create an API key' });
      await dialog.getByLabel('Name (optional)').fill('no script');
      await dialog.getByRole('button', { name: 'Create' }).click();
      const key = await page.getByRole('dialog', { name: 'Your new API key' }).getByLabel('API key', { exact: true }).inputValue();
      expect(key).toMatch(/^svc_test_/);
      // The copied? question is the script's: without it, the dialog stays on the page with its secret.
      expect(await page.getByRole('button', { name: 'Yes, close' }).isVisible()).toBe(false);

      await page.goto(`${emulator.url}/apps?mode=test`);
      await page.getByRole('button', { name: 'Register app' }).click();
      const register = page.getByRole('dialog', { name: 'Register an OAuth app' });
      await register.getByLabel('Name').fill('No script app');
      await register.getByRole('button', { name: 'Register' }).click();
      const clientId = await page.getByRole('dialog', { name: 'No script app is registered' }).getByLabel('Client id', { exact: true }).inputValue();
      expect(clientId).toMatch(/^svc_app_/);
    } finally {
      await closeContext(context);
    }
  });

  /** The authorize page `svc login` opens (its own client and loopback redirect), loaded in `page`: its sign-in form shows. */
  async function signInPageLoads(page: Page, baseUrl: string): Promise<void> {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: CLI_CLIENT_ID,
      redirect_uri: `http://127.0.0.1:9${CLI_REDIRECT_PATH}`,
      state: 'tabs',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    await within(page.goto(`${baseUrl}/oauth/authorize?${query.toString()}`), 5000, 'the sign-in page loading');
    await page.getByLabel('Password').waitFor({ state: 'visible', timeout: 5000 });
  }

  for (const scheme of ['http', 'https'] as const) {
    it(`ten open tabs all stay live over ${scheme}, and an eleventh tab and the sign-in page still load`, async () => {
      const served = scheme === 'http' ? emulator : await startTestEmulator({ https: { caDir: join(mkdtempSync(join(tmpdir(), 'svc-dash-ca-')), 'ca') } });
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      context.setDefaultTimeout(10_000);
      try {
        const tabs: Page[] = [];
        for (let i = 0; i < 10; i++) {
          const tab = await context.newPage();
          await within(tab.goto(`${served.url}/requests?mode=test`), 5000, `tab ${i + 1} loading`);
          await tab.waitForSelector('body[data-live="on"]', { timeout: 5000 });
          tabs.push(tab);
        }
        const extra = await context.newPage();
        await within(extra.goto(`${served.url}/keys?mode=test`), 5000, 'an eleventh tab loading');
        await signInPageLoads(await context.newPage(), served.url);
        // Every tab still follows the emulator: a request shows on each without a reload.
        const path = `/v1/account?tabs=${scheme}`;
        // Asked from the eleventh tab (it trusts this emulator's certificate as the others do).
        await extra.evaluate(([url, key]) => fetch(url!, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status), [path, served.seed.keys.test]);
        for (const tab of tabs) await tab.locator('#requests summary', { hasText: path }).first().waitFor({ state: 'visible', timeout: 3000 });
      } finally {
        await closeContext(context);
        if (served !== emulator) await served.close();
      }
    });
  }

  it('refuses a POST from another origin (403, nothing changes) and a foreign Host (421)', async () => {
    // Another site on this machine (another port is another origin) posts the dashboard's own form, token and all.
    const context = await browser.newContext();
    let attacker: Server | undefined;
    try {
      const { page } = await watchedPage(context);
      await open(page, '/keys?mode=test');
      const target = [...emulator.state.keys.values()].find((k) => k.mode === 'test' && !k.revoked)!;
      const form = page.locator(`form[action="/_dashboard/keys/${target.id}/revoke"]`);
      const csrf = await form.locator('input[name=csrf]').inputValue();
      attacker = createServer((_req, res) => {
        res.setHeader('content-type', 'text/html');
        res.end(`<!doctype html><form id="f" method="post" action="${emulator.url}/_dashboard/keys/${target.id}/revoke">
          <input name="csrf" value="${csrf}"><input name="mode" value="test"></form>
          <script>fetch(${JSON.stringify(`${emulator.url}/_dashboard/reset`)}, { method: 'POST', mode: 'no-cors', credentials: 'include', body: new URLSearchParams({ csrf: ${JSON.stringify(csrf)} }) }).finally(() => document.getElementById('f').submit());</script>`);
      });
      await new Promise<void>((resolve) => attacker!.listen(0, '127.0.0.1', resolve));
      const other = await context.newPage();
      const answered = other.waitForResponse((r) => r.url().endsWith('/revoke'));
      await other.goto(`http://127.0.0.1:${(attacker.address() as { port: number }).port}/`);
      expect((await answered).status()).toBe(403);
      expect(target.revoked).toBe(false);
      expect(emulator.state.keys.has(target.id)).toBe(true); // no reset either

      const misdirected = await new Promise<number>((resolve, reject) => {
        const req = httpRequest(`${emulator.url}/`, { headers: { host: 'evil.test' } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        });
        req.on('error', reject);
        req.end();
      });
      expect(misdirected).toBe(421);
    } finally {
      attacker?.close();
      await closeContext(context);
    }
  });
});
