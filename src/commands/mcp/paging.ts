// A tool's result as an assistant receives it. The structured content is the whole result (a
// list tool's is one page: at most 100 rows, never every page at once, with `next_cursor` for
// the next, which the tool's `cursor` input takes); the text content,
// which some clients forward alone, is that same JSON whole when it is short, else a short
// summary of it, never JSON cut in the middle.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { nextCursorNoted } from '../shared/resources.js';
import type { ToolSpec } from './tool-spec.js';

/** Text content up to this many characters is the whole JSON. */
export const MAX_TEXT = 8_000;

/** `{ items }` for a list (or NDJSON), the object itself otherwise. */
export function structuredOf(stdout: string): Record<string, unknown> {
  const text = stdout.trim();
  let value: unknown;
  try {
    value = text === '' ? {} : JSON.parse(text);
  } catch {
    value = text.split('\n').map((line) => JSON.parse(line) as unknown);
  }
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : { items: value };
}

/** A list tool's page with the cursor of the next one (null: the last page), which its `cursor` input takes. */
export function pageOf(tool: ToolSpec, structured: Record<string, unknown>, stderr: string): Record<string, unknown> {
  if (!tool.params.some((p) => p.property === 'cursor') || !Array.isArray(structured.items)) return structured;
  return { ...structured, next_cursor: nextCursorNoted(stderr) ?? null };
}

/** A few words about a result too long to send whole as text. */
export function summary(structured: Record<string, unknown>, length: number): string {
  const items = structured.items ?? structured.events;
  const ids = Array.isArray(items) ? items.map((item) => (item as { id?: unknown })?.id).filter((id): id is string => typeof id === 'string') : [];
  const what = Array.isArray(items)
    ? `${items.length} ${structured.items ? 'items' : 'events'}${ids.length ? ` (${ids[0]} … ${ids.at(-1)})` : ''}`
    : `an object with ${Object.keys(structured).join(', ')}`;
  return `${what}: ${length} characters of JSON, in the structured content (too long to repeat here).`;
}

/** The tool result of a structured value. */
export function resultOf(structured: Record<string, unknown>): CallToolResult {
  const json = JSON.stringify(structured);
  return { content: [{ type: 'text', text: json.length <= MAX_TEXT ? json : summary(structured, json.length) }], structuredContent: structured };
}
