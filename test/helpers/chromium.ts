// Debian's Chromium for the real-browser suites (test/real), driven by playwright-core: kept in
// scripts/chromium.mjs, plain JavaScript, so that the dashboard bench (bench/dashboard.mjs)
// launches the same browser the same way.
export { CHROMIUM, chromiumMissing, launchChromium, requireReal, skipWithoutChromium } from '../../scripts/chromium.mjs';
