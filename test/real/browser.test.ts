// `svc login` with a real browser: Debian's Chromium, driven by playwright-core, signs in
// on the emulator's authorize page, chooses the organization and approves (or denies)
// while `svc login` waits on its loopback server. Then: where did the tokens go?
// Skips with a visible reason without /usr/bin/chromium; SVC_REQUIRE_REAL=1 (CI) fails instead.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser as PlaywrightBrowser, Page } from 'playwright-core';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { startTestEmulator } from '../helpers/emulator.js';
import { napiKeychain, KEYCHAIN_SERVICE } from '../../src/credentials/store.js';
import { runCli, tempConfigDir } from '../helpers/cli.js';
import { CHROMIUM, launchChromium, requireReal, skipWithoutChromium } from '../helpers/chromium.js';

const skipped = skipWithoutChromium('the real-browser login suite');

/** Whether a Secret Service answers here (gnome-keyring under dbus-run-session in `npm run test:real`). */
async function secretServiceReachable(): Promise<boolean> {
  if (!process.env.DBUS_SESSION_BUS_ADDRESS) return false;
  const keychain = napiKeychain();
  const account = `svc-test-probe-${randomBytes(4).toString('hex')}`;
  const signal = AbortSignal.timeout(3000);
  try {
    await keychain.set(KEYCHAIN_SERVICE, account, 'probe', signal);
    const back = await keychain.get(KEYCHAIN_SERVICE, account, signal);
    await keychain.delete(KEYCHAIN_SERVICE, account, signal);
    return back === 'probe';
  } catch {
    return false;
  }
}

describe.skipIf(skipped)(`svc login in a real browser (${CHROMIUM})`, () => {
  let emulator: RunningEmulator;
  let browser: PlaywrightBrowser;
  let keychainReachable = false;

  beforeAll(async () => {
    browser = await launchChromium();
    emulator = await startTestEmulator();
    keychainReachable = await secretServiceReachable();
    // CI (SVC_REQUIRE_REAL=1) must exercise the keychain: no quiet fallback to the file store.
    if (!keychainReachable && requireReal) throw new Error('SVC_REQUIRE_REAL=1 but no Secret Service is reachable (run under scripts/test-real.sh)');
    if (!keychainReachable) console.warn('no Secret Service reachable: the approve test checks the file store instead of the keychain');
  });

  afterAll(async () => {
    await browser?.close();
    await emulator?.close();
  });

  /** `svc login` with a ctx.browser that navigates a fresh Chromium page; resolves once the page has it. */
  function loginInBrowser(argv: string[], env: Record<string, string>) {
    let opened!: (page: Page) => void;
    const pageReady = new Promise<Page>((resolve) => (opened = resolve));
    const done = (async () => {
      const context = await browser.newContext();
      const page = await context.newPage();
      const result = await runCli(argv, {
        env: { SVC_BASE_URL: emulator.url, DISPLAY: ':0', ...env },
        keychain: napiKeychain(),
        browser: {
          async open(url) {
            await page.goto(url);
            opened(page);
          },
        },
        ...(env.SVC_CONFIG_DIR ? { configDir: env.SVC_CONFIG_DIR } : {}),
      });
      return { result, page, context };
    })();
    return { pageReady, done };
  }

  async function signInAndChoose(page: Page, decision: 'Approve' | 'Deny'): Promise<void> {
    await page.getByLabel('Email').fill(emulator.seed.admin.email);
    await page.getByLabel('Password').fill(emulator.seed.admin.password);
    await Promise.all([page.waitForURL(/./, { waitUntil: 'load' }), page.getByRole('button', { name: 'Sign in' }).click()]);
    await page.getByLabel('Organization').selectOption(emulator.seed.org_id);
    await page.getByRole('button', { name: decision }).click();
  }

  it('signs in, approves, and stores the tokens in the keychain (or the file store without one)', async () => {
    const configDir = tempConfigDir();
    const profile = `browser-${randomBytes(4).toString('hex')}`;
    const store = keychainReachable ? 'keychain' : 'file';
    const { pageReady, done } = loginInBrowser(['login', '--profile', profile, '--json'], { SVC_CONFIG_DIR: configDir, SVC_CREDENTIAL_STORE: store });
    const page = await pageReady;
    expect(new URL(page.url()).pathname).toBe('/oauth/authorize');
    await signInAndChoose(page, 'Approve');
    const { result, context } = await done;
    try {
      expect(result.stderr).not.toMatch(/^error/m);
      expect(result.exitCode).toBe(0);
      // The browser landed on the loopback server's success page.
      expect(page.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?/);
      await expect(page.locator('h1').textContent()).resolves.toBe('Signed in');

      const json = JSON.parse(result.stdout);
      expect(json).toMatchObject({ profile, org_id: emulator.seed.org_id, org_name: 'Acme', storage: store });
      expect(result.stdout).not.toMatch(/svc_o(at|rt)_/);

      const config = JSON.parse(readFileSync(join(configDir, 'config.json'), 'utf8'));
      expect(config.profiles[profile].oauth.storage).toBe(store);
      expect(JSON.stringify(config)).not.toMatch(/svc_o(at|rt)_/);

      let secret: string | null;
      if (store === 'keychain') {
        // What the Secret Service holds, asked the way a user would (not through our own code).
        const found = spawnSync('secret-tool', ['lookup', 'service', KEYCHAIN_SERVICE, 'username', `${profile}:oauth`], { encoding: 'utf8' });
        expect(found.status, found.stderr).toBe(0);
        secret = found.stdout.trim() || null;
        expect(existsSync(join(configDir, 'credentials.json'))).toBe(false);
      } else {
        const path = join(configDir, 'credentials.json');
        expect(statSync(path).mode & 0o777).toBe(0o600);
        secret = (JSON.parse(readFileSync(path, 'utf8')) as { secrets: Record<string, string> }).secrets[`${profile}:oauth`] ?? null;
      }
      expect(secret).not.toBeNull();
      const tokens = JSON.parse(secret!) as Record<string, unknown>;
      expect(tokens).toMatchObject({ org_id: emulator.seed.org_id, client_id: 'svc_app_cli' });
      expect(String(tokens.access_token)).toMatch(/^svc_oat_/);
      expect(String(tokens.refresh_token)).toMatch(/^svc_ort_/);
      if (store === 'keychain') {
        // No file in the config dir may hold either token.
        for (const entry of readdirSync(configDir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())) {
          const text = readFileSync(join(entry.parentPath, entry.name), 'utf8');
          expect(text, entry.name).not.toContain(String(tokens.access_token));
          expect(text, entry.name).not.toContain(String(tokens.refresh_token));
        }
      }

      // The stored connection works: logout revokes it and removes it from the store.
      const logout = await runCli(['logout', '--profile', profile], {
        env: { SVC_BASE_URL: emulator.url, SVC_CREDENTIAL_STORE: store },
        keychain: napiKeychain(),
        configDir,
      });
      expect(logout.exitCode).toBe(0);
      if (store === 'keychain') await expect(napiKeychain().get(KEYCHAIN_SERVICE, `${profile}:oauth`, AbortSignal.timeout(3000))).resolves.toBeNull();
    } finally {
      await context.close();
    }
  });

  it('signs in and denies: svc login exits 3 and the page says so', async () => {
    const configDir = tempConfigDir();
    const { pageReady, done } = loginInBrowser(['login'], { SVC_CONFIG_DIR: configDir, SVC_CREDENTIAL_STORE: 'file' });
    const page = await pageReady;
    await signInAndChoose(page, 'Deny');
    const { result, context } = await done;
    try {
      expect(result.exitCode).toBe(3);
      expect(result.stderr).toMatch(/the admin refused/);
      await expect(page.locator('h1').textContent()).resolves.toBe('Sign-in refused');
      expect(existsSync(join(configDir, 'credentials.json'))).toBe(false);
    } finally {
      await context.close();
    }
  });
});
