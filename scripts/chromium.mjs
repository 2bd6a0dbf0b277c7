// Debian's Chromium driven by playwright-core, for the real-browser suites (test/real, through
// test/helpers/chromium.ts) and the dashboard bench (bench/dashboard.mjs): plain JavaScript so
// that both load it. A suite skips with a visible reason where Chromium is not installed,
// unless SVC_REQUIRE_REAL=1 (CI), where launching fails instead.
import { existsSync } from 'node:fs';
import { answerHelp } from './help.mjs';

answerHelp(import.meta.url);

export const CHROMIUM = '/usr/bin/chromium';
/** CI: every real part must be there; nothing is skipped. */
export const requireReal = process.env.SVC_REQUIRE_REAL === '1';

/** Why Chromium cannot be launched here, or null when it can. */
export function chromiumMissing() {
  return existsSync(CHROMIUM) ? null : `${CHROMIUM} is not installed (apt-get install -y chromium)`;
}

/** Whether `suite` skips here (no Chromium and not required); says so on stderr when it does. */
export function skipWithoutChromium(suite) {
  const missing = chromiumMissing();
  const skip = missing !== null && !requireReal;
  if (skip) console.warn(`skipping ${suite}: ${missing}`);
  return skip;
}

/** Chromium headless, without the background traffic of a desktop browser (updates, sync, QUIC). */
export async function launchChromium() {
  if (chromiumMissing()) throw new Error(`SVC_REQUIRE_REAL=1 but ${chromiumMissing()}`);
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
