// Every field of a request body in docs/contract.md has its place on the command that sends
// that body (issue 32: `chats send` had no --language, so a chat's translation was reachable
// only through `svc api`). The contract's Resources table is parsed here; the command that
// sends an endpoint is the one whose run() calls it (`call(ctx, 'chats.messages.create', …)`).
// A field is declared as a flag of the same name (`area_code` → --area-code), as a flag naming
// the object an `_id` field points at (`call_id` → --call), or as a positional argument.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from '../../src/contract/index.js';
import { kebab, type CommandDecl } from '../../src/kit/define.js';

/** The repository's own contract document: its Resources table is what the flags are checked against. */
const CONTRACT = join(import.meta.dirname, '../../docs/contract.md');
const COMMANDS = join(import.meta.dirname, '../../src/commands');

interface BodyRow {
  method: string;
  path: string;
  fields: string[];
}

/** The Resources table's rows with a JSON body: `{"languages":[…],"title"?}` → languages, title. */
function contractBodies(markdown: string): BodyRow[] {
  const rows: BodyRow[] = [];
  for (const line of markdown.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((cell) => cell.trim());
    const route = /^(POST|PUT|PATCH) (\/v1\/\S+)$/.exec(cells[1] ?? '');
    const body = /`(\{[^`]*\})`/.exec(cells[3] ?? '');
    if (!route || !body) continue;
    // A key follows `{` or `,` (a value follows `:`, an array's items follow `[` or sit before `]`).
    const fields = [...body[1]!.matchAll(/(?<=[{,]\s*)"(\w+)"(?=\s*\??\s*[:,}])/g)].map((m) => m[1]!);
    rows.push({ method: route[1]!, path: route[2]!, fields: [...new Set(fields)] });
  }
  return rows;
}

/** Every row of the Resources table: `GET /v1/calls/{id}` and its scope. */
function contractRoutes(markdown: string): string[] {
  const routes: string[] = [];
  for (const line of markdown.split('\n')) {
    const cells = line.split(/(?<!\\)\|/).map((cell) => cell.trim());
    if (/^(GET|POST|PUT|PATCH|DELETE) \/v1\/\S*$/.test(cells[1] ?? '')) routes.push(`${cells[1]} ${cells[2]}`);
  }
  return routes;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The command files whose run() sends `endpoint` (svc api, which sends anything, aside). */
function sendersOf(endpoint: string): string[] {
  const call = new RegExp(String.raw`\bcall(?:<[^>]*>)?\(ctx, '${endpoint.replace(/\./g, '\\.')}'`);
  return sourceFiles(COMMANDS).filter((file) => !file.includes('/api/') && call.test(readFileSync(file, 'utf8')));
}

function declares(decl: CommandDecl, field: string): boolean {
  const flags = Object.keys(decl.flags ?? {}).map((key) => kebab(key));
  const args = (decl.args ?? []).map((arg) => arg.name);
  const term = field.replace(/_/g, '-');
  return flags.includes(term) || (field.endsWith('_id') && flags.includes(term.slice(0, -'-id'.length))) || args.includes(field);
}

describe('request bodies of docs/contract.md and the flags of the commands that send them', () => {
  const rows = contractBodies(readFileSync(CONTRACT, 'utf8'));

  it('reads the bodies it checks (a table that stopped parsing would pass vacuously)', () => {
    expect(rows.map((r) => `${r.method} ${r.path}`)).toEqual(expect.arrayContaining(['POST /v1/calls', 'POST /v1/chats/{id}/messages', 'POST /v1/translate']));
    expect(rows.find((r) => r.path === '/v1/chats/{id}/messages')?.fields).toEqual(['text', 'language']);
    expect(rows.find((r) => r.path === '/v1/calls/{id}/dial')?.fields).toEqual(['to', 'line_id', 'language']);
  });

  it('the Resources table and the endpoint table of src/contract/ list the same routes and scopes', () => {
    const markdown = readFileSync(CONTRACT, 'utf8');
    const table = Object.values(ENDPOINTS)
      .filter((e) => e.path.startsWith('/v1/'))
      .map((e) => `${e.method} ${e.path} ${e.scope}`);
    expect(contractRoutes(markdown).sort()).toEqual(table.sort());
  });

  it('every body field has a flag or argument on each command that sends the body', async () => {
    const missing: string[] = [];
    for (const row of rows) {
      const endpoint = Object.entries(ENDPOINTS).find(([, e]) => e.method === row.method && e.path === row.path)?.[0];
      expect(endpoint, `${row.method} ${row.path} is in the contract module`).toBeDefined();
      const senders = sendersOf(endpoint!);
      expect(senders, `a command sends ${endpoint}`).not.toEqual([]);
      for (const file of senders) {
        const { command } = (await import(file)) as { command: CommandDecl };
        for (const field of row.fields) if (!declares(command, field)) missing.push(`${relative(COMMANDS, file)}: "${field}" of ${row.method} ${row.path}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
