// The contract module: every fact of docs/contract.md that both the CLI and the emulator use.
// Pure data and functions, no dependencies, cheap to load on the CLI's start path.
export * from './constants.js';
export * from './endpoints.js';
export * from './rules.js';
export * from './bodies.js';
export * from './answers.js';
