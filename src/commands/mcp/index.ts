// `svc mcp log` (`svc mcp` itself, the server, is mcp.ts): the group's help; its commands are this folder's files.
import { defineGroup } from '../../kit/define.js';

export const group = defineGroup({
  summary: 'svc for AI assistants: an MCP server on stdio, and its audit log',
  examples: ['svc mcp', 'svc mcp --live --max-spend 5', 'svc mcp log'],
});
