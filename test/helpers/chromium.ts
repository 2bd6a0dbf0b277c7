// Debian's Chromium for the real-browser suites (test/real), driven by playwright-core: a suite
// skips with a visible reason where it is not installed, unless SVC_REQUIRE_REAL=1 (CI), where
// launching fails instead.
import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';
/** CI: every real part must be there; nothing is skipped. */
export const requireReal = process.env.SVC_REQUIRE_REAL === '1';

/** Whether `suite` skips here (no Chromium and not required); says so on stderr when it does. */
export function skipWithoutChromium(suite: string): boolean {
  const skip = !existsSync(CHROMIUM) && !requireReal;
  if (skip) console.warn(`skipping ${suite}: ${CHROMIUM} is not installed (apt-get install -y chromium)`);
  return skip;
}

/** Chromium headless, without the background traffic of a desktop browser (updates, sync, QUIC). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`SVC_REQUIRE_REAL=1 but ${CHROMIUM} is not installed`);
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
