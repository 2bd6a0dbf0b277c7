// `svc mcp` (itself the server) and `svc mcp log`.
import { defineGroup, leaf } from '../../kit/define.js';
import * as serve from '../mcp.js';
import * as log from './log.js';

export default defineGroup({
  name: 'mcp',
  summary: 'svc for AI assistants: an MCP server on stdio, and its audit log',
  examples: ['svc mcp', 'svc mcp --live --max-spend 5', 'svc mcp log'],
  self: leaf(serve.command, () => import('../mcp.js')),
  commands: [leaf(log.command, () => import('./log.js'))],
});
