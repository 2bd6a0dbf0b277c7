// Money as svc shows it: the rule lives in the contract (src/contract/money.ts), so the
// emulator's dashboard shows amounts exactly as the CLI does.
export { money } from '../contract/money.js';
