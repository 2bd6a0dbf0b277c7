// Every dashboard action, one route each (index.ts registers them in this order).
import type { Action } from './action.js';
import { deleteAppAction, disconnectAction, registerAppAction } from './apps.js';
import { balanceAction } from './balance.js';
import { clearTestDataAction, clockAction, dropStreamAction, dropStreamsAction, faultAction, importAction, publishAction, resetAction } from './controls.js';
import { createKeyAction, revokeKeyAction, showSeedKeyAction } from './keys.js';
import { closeChatAction, endCallAction } from './objects.js';

export const ACTIONS: readonly Action[] = [
  createKeyAction,
  showSeedKeyAction,
  revokeKeyAction,
  balanceAction,
  registerAppAction,
  deleteAppAction,
  disconnectAction,
  endCallAction,
  closeChatAction,
  clockAction,
  faultAction,
  publishAction,
  dropStreamsAction,
  dropStreamAction,
  clearTestDataAction,
  resetAction,
  importAction,
];
