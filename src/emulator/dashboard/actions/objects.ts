// Actions on one call or chat (its own page): End call, Close chat.
import { notFound } from '../../errors.js';
import { endCall } from '../../routes/calls.js';
import { closeChat } from '../../routes/chats.js';
import type { Action } from './action.js';

export const endCallAction: Action = {
  path: '/calls/:id/end',
  back: '/calls',
  handle: ({ state, param }) => {
    const stored = state.calls.get(param('id'));
    if (!stored) throw notFound('no such call');
    endCall(state, stored);
    return { notice: `Ended ${stored.obj.id}.`, back: `/calls/${stored.obj.id}` };
  },
};

export const closeChatAction: Action = {
  path: '/chats/:id/close',
  back: '/chats',
  handle: ({ state, param }) => {
    const stored = state.chats.get(param('id'));
    if (!stored) throw notFound('no such chat');
    closeChat(state, stored);
    return { notice: `Closed ${stored.obj.id}.`, back: `/chats/${stored.obj.id}` };
  },
};
