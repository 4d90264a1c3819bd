/**
 * Selections, as numpy and zarr-python read them: per-dimension integers (negative counts from
 * the end; BigInt accepted), slices with any non-zero step (bounds clamp to the dimension, as
 * Python's `slice.indices`), `null` for a whole dimension, `"..."` for as many whole dimensions as
 * needed, integer arrays (any order, repeats allowed, negatives from the end) and boolean masks of
 * the dimension's length, and the string form `"0:10, ::-2, 5"`. They normalise into one indexer
 * per dimension; `fancy.ts` decides which kind of selection a list of them makes.
 */
import { BadSelectionError } from "../errors.js";
import { checkPointCount } from "../limits.js";

/** A Python slice along one dimension, as `slice()` makes it; null parts take Python's defaults. */
export interface Slice {
  /** Always "slice". */
  readonly kind: "slice";
  /** First index (negative counts from the end). */
  readonly start: number | null;
  /** Index before which it stops (exclusive). */
  readonly stop: number | null;
  /** Step; negative runs backwards. */
  readonly step: number | null;
}

/** `slice(start, stop, step)` as in Python; `slice(null)` or `null` means the whole dimension. */
export function slice(start: number | null = null, stop?: number | null, step: number | null = null): Slice {
  // slice(5) means [:5] in Python; slice(2, 5) means [2:5].
  if (stop === undefined) return { kind: "slice", start: null, stop: start, step };
  return { kind: "slice", start, stop, step };
}

/** Integer indices along one dimension: a list or any integer typed array (Uint8Array included). */
export type IndexArray =
  | readonly number[]
  | readonly bigint[]
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | BigInt64Array
  | BigUint64Array;

/** A boolean mask of one dimension's length: its true positions are selected, in order. */
export type DimMask = readonly boolean[];

/** One dimension's selection: an index, a slice (null: all of it), an integer array or a boolean mask. */
export type DimSelection = number | bigint | Slice | null | IndexArray | DimMask;
/** A DimSelection, or "..." for as many whole dimensions as the others leave. */
export type SelectionItem = DimSelection | "...";

/**
 * A boolean mask of the whole array's shape, C order (`Uint8Array` bytes are true when non-zero):
 * selects the points where it is true, as zarr-python's `get_mask_selection`.
 */
export interface MaskArray {
  /** The mask values, C order. */
  readonly data: readonly boolean[] | Uint8Array;
  /** The array's shape. */
  readonly shape: readonly number[];
}

/** What `get` and `set` take. A bare number, bigint or slice selects along the first dimension. */
export type Selection = null | undefined | string | number | bigint | Slice | readonly SelectionItem[] | MaskArray;

/** One dimension of a normalised selection. */
export type DimIndexer =
  | { readonly kind: "int"; readonly index: number }
  /** `start, start+step, ...` (`count` items); a negative step runs backwards. */
  | { readonly kind: "range"; readonly start: number; readonly step: number; readonly count: number }
  /** Arbitrary indices in output order (from an integer array or a mask), already in bounds. */
  | { readonly kind: "list"; readonly indices: readonly number[] };

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

export function isSlice(x: unknown): x is Slice {
  return typeof x === "object" && x !== null && (x as Slice).kind === "slice";
}

/** A whole-array mask object (not a list of per-dimension items). */
export function isMaskArray(x: unknown): x is MaskArray {
  return typeof x === "object" && x !== null && !Array.isArray(x) && !ArrayBuffer.isView(x) && "data" in x && "shape" in x;
}

/** Whether an item is an integer array or a mask (the items that make a selection "fancy"). */
export function isArrayItem(x: unknown): x is IndexArray | DimMask {
  return Array.isArray(x) || (ArrayBuffer.isView(x) && !(x instanceof DataView));
}

export function isMaskItem(x: unknown): x is DimMask {
  return Array.isArray(x) && x.length > 0 && x.every((v) => typeof v === "boolean");
}

/** An integer index as a number: BigInt is accepted where it is exact. */
export function toIndexNumber(i: unknown, axis: number): number {
  if (typeof i === "bigint") {
    if (i > BigInt(Number.MAX_SAFE_INTEGER) || i < BigInt(Number.MIN_SAFE_INTEGER)) {
      throw new BadSelectionError(`axis ${axis}: index ${i} is out of range`);
    }
    return Number(i);
  }
  if (typeof i !== "number" || !Number.isInteger(i)) {
    throw new BadSelectionError(`axis ${axis}: index ${typeof i === "number" ? i : JSON.stringify(i)} is not an integer`);
  }
  return i;
}

/** An integer index in [0, n): negatives count from the end; out of range is an error. */
export function normaliseIndex(i: unknown, n: number, axis: number): number {
  const v = toIndexNumber(i, axis);
  const j = v < 0 ? v + n : v;
  if (j < 0 || j >= n) throw new BadSelectionError(`axis ${axis}: index ${v} is out of bounds for size ${n}`);
  return j;
}

function sliceValue(v: number, axis: number, what: string): number {
  if (!Number.isInteger(v)) throw new BadSelectionError(`axis ${axis}: slice ${what} ${v} is not an integer`);
  return v;
}

/** A slice as Python's `slice.indices(n)` resolves it: bounds clamp, a negative step runs backwards. */
export function normaliseSlice(s: Slice, n: number, axis: number): Extract<DimIndexer, { kind: "range" }> {
  const step = s.step ?? 1;
  if (!Number.isInteger(step) || step === 0) {
    throw new BadSelectionError(`axis ${axis}: slice step must be a non-zero integer, got ${s.step}`);
  }
  // Clamped to [lo, hi]: [0, n] for a forward slice, [-1, n-1] for a backward one (-1 = before 0).
  const [lo, hi] = step > 0 ? [0, n] : [-1, n - 1];
  const bound = (v: number | null, dflt: number, what: string): number => {
    if (v === null) return dflt;
    const x = sliceValue(v, axis, what);
    const j = x < 0 ? x + n : x;
    return Math.min(Math.max(j, lo), hi);
  };
  const start = bound(s.start, step > 0 ? 0 : n - 1, "start");
  const stop = bound(s.stop, step > 0 ? n : -1, "stop");
  const count = step > 0 ? (stop > start ? Math.ceil((stop - start) / step) : 0) : start > stop ? Math.ceil((start - stop) / -step) : 0;
  return { kind: "range", start: count === 0 ? 0 : start, step, count };
}

/** An integer array or a mask along one dimension, as the in-bounds indices it selects. */
export function normaliseArrayItem(item: IndexArray | DimMask, n: number, axis: number): number[] {
  const values = item as ArrayLike<unknown>;
  if (isMaskItem(item)) {
    if (item.length !== n) throw new BadSelectionError(`axis ${axis}: a mask of length ${item.length} for a dimension of size ${n}`);
    const out: number[] = [];
    for (let i = 0; i < n; i++) if (item[i]) out.push(i);
    checkPointCount(out.length, "indices", `axis ${axis}`);
    return out;
  }
  // Counted before the indices are copied: a plan holds them all (see MAX_SELECTION_POINTS).
  checkPointCount(values.length, "indices", `axis ${axis}`);
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    if (typeof values[i] === "boolean") throw new BadSelectionError(`axis ${axis}: a list mixes booleans and integers`);
    out[i] = normaliseIndex(values[i], n, axis);
  }
  return out;
}

/** The selection's items, one per dimension ("..." and missing trailing dimensions expanded). */
export function expandItems(selection: Selection, ndim: number): DimSelection[] {
  let items: readonly SelectionItem[];
  if (selection === null || selection === undefined) items = [];
  else if (typeof selection === "string") items = parseSelectionString(selection);
  else if (typeof selection === "number" || typeof selection === "bigint" || isSlice(selection)) items = [selection];
  else if (Array.isArray(selection)) items = selection;
  else throw new BadSelectionError(`a selection must be null, a number, a string or a list, got ${describe(selection)}`);

  const ellipses = items.filter((x) => x === "...").length;
  if (ellipses > 1) throw new BadSelectionError('a selection may hold at most one "..."');
  const explicit = items.length - ellipses;
  if (explicit > ndim) {
    throw new BadSelectionError(`selection has ${explicit} dimensions but the array has ${ndim}`);
  }
  const expanded: DimSelection[] = [];
  for (const item of items) {
    if (item === "...") for (let k = 0; k < ndim - explicit; k++) expanded.push(null);
    else expanded.push(item);
  }
  while (expanded.length < ndim) expanded.push(null);
  return expanded;
}

function describe(x: unknown): string {
  try {
    return JSON.stringify(x, (_k, v: unknown) => (typeof v === "bigint" ? `${v}n` : v)) ?? String(x);
  } catch {
    return String(x);
  }
}

/** One dimension's item as its indexer (integers, slices, integer arrays and masks alike). */
export function normaliseItem(item: DimSelection, n: number, axis: number): DimIndexer {
  if (item === null) return { kind: "range", start: 0, step: 1, count: n };
  if (typeof item === "number" || typeof item === "bigint") return { kind: "int", index: normaliseIndex(item, n, axis) };
  if (isSlice(item)) return normaliseSlice(item, n, axis);
  if (isArrayItem(item)) return { kind: "list", indices: normaliseArrayItem(item, n, axis) };
  throw new BadSelectionError(`axis ${axis}: unsupported selection item ${describe(item)}`);
}

/** A selection's items: a string's parsed, a list's as they are; null for one item, a mask or null. */
export function selectionItems(selection: Selection): readonly SelectionItem[] | null {
  if (typeof selection === "string") return parseSelectionString(selection);
  return Array.isArray(selection) ? (selection as readonly SelectionItem[]) : null;
}

/**
 * A `get`/`set` selection without integer arrays or masks (or any on a 1-d array), which
 * zarr-python reads as orthogonal, resolved at once; null for one that needs fancy.ts (points, a
 * whole-array mask, an array among slices), which loads with the first such selection.
 */
export function plainSelection(selection: Selection, shape: readonly number[]): DimIndexer[] | null {
  if (isMaskArray(selection)) return null;
  const arrays = selectionItems(selection)?.filter(isArrayItem).length ?? 0;
  return arrays === 0 || shape.length === 1 ? normaliseSelection(selection, shape) : null;
}

/**
 * Normalises a selection against a shape into one indexer per dimension: an orthogonal selection
 * (each dimension chosen independently). `fancy.ts` routes point selections elsewhere first.
 */
export function normaliseSelection(selection: Selection, shape: readonly number[]): DimIndexer[] {
  if (isMaskArray(selection)) throw new BadSelectionError("a whole-array mask is a point selection: use vindex (or get/set)");
  return expandItems(selection, shape.length).map((item, axis) => normaliseItem(item, shape[axis], axis));
}

/** Number of output items along a dimension (0 for an integer: it is dropped). */
export function indexerCount(d: DimIndexer): number {
  return d.kind === "int" ? 1 : d.kind === "range" ? d.count : d.indices.length;
}

/** The shape of the result: ranges and lists keep their dimension, integers drop it. */
export function selectionShape(indexers: readonly DimIndexer[]): number[] {
  return indexers.filter((d) => d.kind !== "int").map(indexerCount);
}

/** The same shape with dropped dimensions kept as 1: the layout chunk tasks address. */
export function fullRankShape(indexers: readonly DimIndexer[]): number[] {
  return indexers.map(indexerCount);
}
