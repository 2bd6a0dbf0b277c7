// The types of scripts/chromium.mjs, for the TypeScript suites that load it.
import type { Browser } from 'playwright-core';

export declare const CHROMIUM: string;
export declare const requireReal: boolean;
export declare function chromiumMissing(): string | null;
export declare function skipWithoutChromium(suite: string): boolean;
export declare function launchChromium(): Promise<Browser>;
