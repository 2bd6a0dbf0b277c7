#!/usr/bin/env node
// Thin launcher: the real program is the esbuild bundle in dist/.
import { main } from '../dist/main.js';
main();
