// Fitting a table to the terminal's width, as gh does: a table never wraps mid-word. Each
// table says how its columns give way (output.ts Column.fit); the rest keep their full
// text (ids, which people copy). Piped output is never fitted: scripts get every cell whole.

/** How one column may give way, after every narrow text (Column.narrow) is in use: cut with …, then left out. */
export interface ColumnFit {
  /** The cells may be cut with … down to this many characters (the header is never cut). */
  shrink?: number;
  /** The column may be left out when the others cannot fit; lower numbers go first. */
  drop?: number;
  /** Where a cut cell loses its text: at the end (…), or in the middle, for values whose end matters (a link's id). */
  shorten?: 'end' | 'middle';
  /** The value people copy (a link's URL): every droppable column is left out before it is cut. */
  cutLast?: boolean;
}

export interface FitInput {
  header: number;
  /** The widest cell (header included) in full and, when the column has one, in its narrow text. */
  full: number;
  narrow?: number;
  fit?: ColumnFit;
}

export interface FitResult {
  /** The columns kept, in order, each with the width its cells get and whether they use the narrow text. */
  columns: Array<{ index: number; width: number; narrow: boolean }>;
}

/**
 * Widths for columns separated by `gap` characters within `total`. When even the most a
 * table can give way does not fit, the result is that most (the terminal wraps what is left).
 */
export function fitColumns(inputs: readonly FitInput[], total: number, gap: number): FitResult {
  const kept = inputs.map((_, index) => index);
  const natural = (i: number, narrow: boolean) => (narrow && inputs[i]!.narrow !== undefined ? inputs[i]!.narrow! : inputs[i]!.full);
  const lineWidth = (widths: number[]) => widths.reduce((sum, w) => sum + w, 0) + gap * Math.max(0, widths.length - 1);
  const result = (narrow: boolean, widths: (i: number) => number): FitResult => ({
    columns: kept.map((index) => ({ index, width: widths(index), narrow: narrow && inputs[index]!.narrow !== undefined })),
  });

  // 1. Everything in full, then 2. the narrow texts.
  for (const narrow of [false, true]) {
    if (lineWidth(kept.map((i) => natural(i, narrow))) <= total) return result(narrow, (i) => natural(i, narrow));
  }
  // 3. Cut the shrinkable columns, 4. leaving out droppable ones while even the cut ones do not fit.
  const least = (i: number) => {
    const shrink = inputs[i]!.fit?.shrink;
    const full = natural(i, true);
    return shrink === undefined ? full : Math.min(full, Math.max(shrink, inputs[i]!.header));
  };
  const droppable = inputs
    .map((input, index) => ({ index, drop: input.fit?.drop }))
    .filter((c): c is { index: number; drop: number } => c.drop !== undefined)
    .sort((a, b) => a.drop - b.drop);
  // A column cut last keeps its full text while leaving a droppable column out can make room.
  const beforeDrops = (i: number) => (inputs[i]!.fit?.cutLast ? natural(i, true) : least(i));
  while (lineWidth(kept.map(beforeDrops)) > total && droppable.length > 0) kept.splice(kept.indexOf(droppable.shift()!.index), 1);

  // The room left goes to the shrinkable columns, the narrowest wants served first (water-filling).
  const widths = new Map(kept.map((i) => [i, least(i)]));
  let room = total - lineWidth([...widths.values()]);
  const growing = kept.filter((i) => least(i) < natural(i, true)).sort((a, b) => natural(a, true) - natural(b, true));
  growing.forEach((i, n) => {
    if (room <= 0) return;
    const share = Math.floor(room / (growing.length - n));
    const extra = Math.min(share, natural(i, true) - least(i));
    widths.set(i, least(i) + extra);
    room -= extra;
  });
  return result(true, (i) => widths.get(i)!);
}
