/**
 * Selections: per-dimension integers (negative counts from the end), slices with positive steps,
 * `null` for a whole dimension, `"..."` for as many whole dimensions as needed, and the string
 * form `"0:10, ::2, 5"`. They normalise into one indexer per dimension.
 */
import { BadSelectionError } from "../errors.js";

export interface Slice {
  readonly kind: "slice";
  readonly start: number | null;
  readonly stop: number | null;
  readonly step: number | null;
}

/** `slice(start, stop, step)` as in Python; `slice(null)` or `null` means the whole dimension. */
export function slice(start: number | null = null, stop?: number | null, step: number | null = null): Slice {
  // slice(5) means [:5] in Python; slice(2, 5) means [2:5].
  if (stop === undefined) return { kind: "slice", start: null, stop: start, step };
  return { kind: "slice", start, stop, step };
}

export type DimSelection = number | Slice | null;
export type SelectionItem = DimSelection | "...";
export type Selection = null | undefined | string | readonly SelectionItem[];

/** One dimension of a normalised selection. `range` covers start, start+step, ... (count items). */
export type DimIndexer =
  | { readonly kind: "int"; readonly index: number }
  | { readonly kind: "range"; readonly start: number; readonly step: number; readonly count: number };

function parseIntStrict(text: string, whole: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new BadSelectionError(`selection "${whole}": "${text}" is not an integer`);
  return Number(text);
}

/** Parses `"0:10, ::2, 5, ..."` into selection items. */
export function parseSelectionString(text: string): SelectionItem[] {
  const body = text.trim().replace(/^\[(.*)\]$/s, "$1").trim();
  if (body === "") return [];
  return body.split(",").map((raw) => {
    const part = raw.trim();
    if (part === "...") return "...";
    if (part === "") throw new BadSelectionError(`selection "${text}": empty item`);
    if (!part.includes(":")) return parseIntStrict(part, text);
    const pieces = part.split(":").map((p) => p.trim());
    if (pieces.length > 3) throw new BadSelectionError(`selection "${text}": "${part}" has too many colons`);
    const [a, b, c] = pieces.map((p) => (p === "" || p === undefined ? null : parseIntStrict(p, text)));
    return { kind: "slice", start: a ?? null, stop: b ?? null, step: c ?? null };
  });
}

function isSlice(x: unknown): x is Slice {
  return typeof x === "object" && x !== null && (x as Slice).kind === "slice";
}

function normaliseIndex(i: number, n: number, axis: number): number {
  if (!Number.isInteger(i)) throw new BadSelectionError(`axis ${axis}: index ${i} is not an integer`);
  const j = i < 0 ? i + n : i;
  if (j < 0 || j >= n) throw new BadSelectionError(`axis ${axis}: index ${i} is out of bounds for size ${n}`);
  return j;
}

/**
 * Slice bounds may be negative (from the end) but must lie within the dimension: an
 * out-of-range bound is an error rather than silently clamped, so a typo never reads less data
 * than the caller asked for.
 */
function sliceBound(v: number, n: number, axis: number, what: string): number {
  if (!Number.isInteger(v)) throw new BadSelectionError(`axis ${axis}: slice ${what} ${v} is not an integer`);
  const j = v < 0 ? v + n : v;
  if (j < 0 || j > n) throw new BadSelectionError(`axis ${axis}: slice ${what} ${v} is out of bounds for size ${n}`);
  return j;
}

function normaliseSlice(s: Slice, n: number, axis: number): DimIndexer {
  const step = s.step ?? 1;
  if (!Number.isInteger(step) || step <= 0) {
    throw new BadSelectionError(`axis ${axis}: slice step must be a positive integer, got ${s.step}`);
  }
  const start = s.start === null ? 0 : sliceBound(s.start, n, axis, "start");
  const stop = s.stop === null ? n : sliceBound(s.stop, n, axis, "stop");
  const count = stop > start ? Math.ceil((stop - start) / step) : 0;
  return { kind: "range", start, step, count };
}

/** Normalises any selection against a shape: one indexer per dimension. */
export function normaliseSelection(selection: Selection, shape: readonly number[]): DimIndexer[] {
  let items: readonly SelectionItem[];
  if (selection === null || selection === undefined) items = [];
  else if (typeof selection === "string") items = parseSelectionString(selection);
  else if (Array.isArray(selection)) items = selection;
  else throw new BadSelectionError(`a selection must be null, a string or a list, got ${JSON.stringify(selection)}`);

  const ellipses = items.filter((x) => x === "...").length;
  if (ellipses > 1) throw new BadSelectionError("a selection may hold at most one \"...\"");
  const explicit = items.length - ellipses;
  if (explicit > shape.length) {
    throw new BadSelectionError(`selection has ${explicit} dimensions but the array has ${shape.length}`);
  }
  const expanded: DimSelection[] = [];
  for (const item of items) {
    if (item === "...") for (let k = 0; k < shape.length - explicit; k++) expanded.push(null);
    else expanded.push(item);
  }
  while (expanded.length < shape.length) expanded.push(null);

  return expanded.map((item, axis): DimIndexer => {
    const n = shape[axis];
    if (item === null) return { kind: "range", start: 0, step: 1, count: n };
    if (typeof item === "number") return { kind: "int", index: normaliseIndex(item, n, axis) };
    if (isSlice(item)) return normaliseSlice(item, n, axis);
    throw new BadSelectionError(`axis ${axis}: unsupported selection item ${JSON.stringify(item)}`);
  });
}

/** The shape of the result: ranges keep their dimension, integers drop it. */
export function selectionShape(indexers: readonly DimIndexer[]): number[] {
  return indexers.filter((d) => d.kind === "range").map((d) => (d.kind === "range" ? d.count : 1));
}

/** The same shape with dropped dimensions kept as 1: the layout chunk tasks address. */
export function fullRankShape(indexers: readonly DimIndexer[]): number[] {
  return indexers.map((d) => (d.kind === "range" ? d.count : 1));
}
