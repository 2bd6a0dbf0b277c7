// A --jq filter that is a plain path (`.id`, `.data[0].name`, `.data[].id`), read into its
// steps: src/io/jq-filter.ts answers such a filter without jq where the answer allows it, and
// bin/svc.js starts no jq for one (src/io/jq-compile.ts). No imports: the launcher loads it.
export type Step = { key: string } | { index: number } | 'each';

const STEP = /\.([A-Za-z_][A-Za-z0-9_]*)|\[(0|[1-9][0-9]{0,8})\]|\[\]/y;

/** The steps of a filter that is a plain path (`.a.b`, `.a[0]`, `.a[]`, `.[].b`); undefined for any other filter. */
export function plainPath(filter: string): Step[] | undefined {
  if (!filter.startsWith('.')) return undefined;
  const steps: Step[] = [];
  // A leading `.` before `[` is the path's start (`.[0]`), not a key.
  let at = filter.startsWith('.[') ? 1 : 0;
  while (at < filter.length) {
    STEP.lastIndex = at;
    const match = STEP.exec(filter);
    if (!match) return undefined;
    steps.push(match[1] !== undefined ? { key: match[1] } : match[2] !== undefined ? { index: Number(match[2]) } : 'each');
    at = STEP.lastIndex;
  }
  return steps.length > 0 ? steps : undefined;
}
