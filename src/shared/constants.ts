// Moved to src/contract/ (the one contract module); this re-export keeps old import paths
// working while they are updated.
export * from '../contract/constants.js';
