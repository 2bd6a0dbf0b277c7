// `svc chats …`: the group's help, and its commands (this folder's files) in help order.
import { defineGroup } from '../../kit/define.js';

export const group = defineGroup({
  summary: 'support chats with translation',
  examples: ['svc chats start --language en', 'svc chats send chat_123 "hello"', 'svc chats stream chat_123'],
  order: ['list', 'get', 'start', 'close', 'messages', 'send', 'voice', 'stream'],
});
