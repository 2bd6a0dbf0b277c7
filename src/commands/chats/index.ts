// `svc chats …`: one line per leaf (its declaration and the module that runs it).
import { defineGroup, leaf } from '../../kit/define.js';
import * as list from './list.js';
import * as get from './get.js';
import * as start from './start.js';
import * as close from './close.js';
import * as messages from './messages.js';
import * as send from './send.js';
import * as voice from './voice.js';
import * as stream from './stream.js';

export default defineGroup({
  name: 'chats',
  summary: 'support chats with translation',
  examples: ['svc chats start --language en', 'svc chats send chat_123 "hello"', 'svc chats stream chat_123'],
  commands: [
    leaf(list.command, () => import('./list.js')),
    leaf(get.command, () => import('./get.js')),
    leaf(start.command, () => import('./start.js')),
    leaf(close.command, () => import('./close.js')),
    leaf(messages.command, () => import('./messages.js')),
    leaf(send.command, () => import('./send.js')),
    leaf(voice.command, () => import('./voice.js')),
    leaf(stream.command, () => import('./stream.js')),
  ],
});
