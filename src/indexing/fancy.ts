/**
 * The kinds of selection and how each is planned, with zarr-python's names:
 * - orthogonal (`oindex`, and plain `get`/`set`): each dimension chosen on its own;
 * - points (`vindex`): integer arrays broadcast together into points, or one boolean mask of the
 *   array's shape (`get_coordinate_selection` / `get_mask_selection`);
 * - blocks (`blocks`): whole chunks by chunk index (`get_block_selection`).
 * `resolveSelection` decides as zarr-python's `__getitem__` does which kind a `get`/`set` selection is.
 * A selection without integer arrays or masks, and `oindex`, resolve without this module
 * (selection.ts): it loads with the first selection that needs it (lazy-features.ts).
 */
import { BadSelectionError } from "../errors.js";
import { checkPointCount } from "../limits.js";
import { chunkStart, gridShape, type GridAxis } from "../metadata/chunk-grid.js";
import type { ChunkPlan, ChunkProjection } from "./projection.js";
import { planPoints } from "./point-plan.js";
import {
  expandItems,
  isArrayItem,
  isMaskArray,
  isMaskItem,
  isSlice,
  normaliseArrayItem,
  normaliseIndex,
  normaliseSelection,
  normaliseSlice,
  plainSelection,
  selectionItems,
  type DimIndexer,
  type Selection,
} from "./selection.js";

export type ResolvedSelection =
  | { kind: "orthogonal"; indexers: DimIndexer[] }
  /**
   * `coords[d][k]`: point k's index along dimension d; `shape`: the result's shape; `plan`: its
   * chunk plan over the array's grid (point-plan.ts, which loads with this module, not with the page).
   */
  | { kind: "points"; coords: number[][]; count: number; shape: number[]; plan: (arrayShape: readonly number[], chunks: readonly GridAxis[]) => ChunkPlan<ChunkProjection> };

/**
 * A `get`/`set` selection as zarr-python's `__getitem__` reads it: a whole-array mask, or one
 * integer array or mask per dimension mixed only with integers, is a point selection; at most one
 * array among slices and integers is orthogonal; more than one array among slices is refused
 * (numpy and zarr-python disagree on it) with a hint at oindex/vindex.
 */
export function resolveSelection(selection: Selection, shape: readonly number[]): ResolvedSelection {
  const plain = plainSelection(selection, shape);
  if (plain) return { kind: "orthogonal", indexers: plain };
  if (isMaskArray(selection)) return maskPoints(selection, shape);
  // Integer arrays or masks in a selection of 2 or more dimensions.
  const items = selectionItems(selection)!;
  const arrays = items.filter(isArrayItem).length;
  const onlyIntsAndArrays = items.every((x) => typeof x === "number" || typeof x === "bigint" || isArrayItem(x));
  if (onlyIntsAndArrays && items.length === shape.length) return coordinatePoints(selection, shape);
  if (arrays === 1) return { kind: "orthogonal", indexers: normaliseSelection(selection, shape) };
  throw new BadSelectionError(
    "a selection with more than one integer array or mask among slices is ambiguous: use oindex (each dimension on its own) or vindex (points)",
  );
}


/** `vindex`: points from integer arrays broadcast together, or from a mask of the array's shape. */
export function resolvePoints(selection: Selection, shape: readonly number[]): ResolvedSelection {
  return isMaskArray(selection) ? maskPoints(selection, shape) : coordinatePoints(selection, shape);
}

function maskPoints(mask: { data: ArrayLike<unknown>; shape: readonly number[] }, shape: readonly number[]): ResolvedSelection {
  if (mask.shape.length !== shape.length || mask.shape.some((n, d) => n !== shape[d])) {
    throw new BadSelectionError(`a mask of shape [${mask.shape}] for an array of shape [${shape}]`);
  }
  const total = shape.reduce((a, b) => a * b, 1);
  if (mask.data.length !== total) throw new BadSelectionError(`a mask of shape [${mask.shape}] needs ${total} values, got ${mask.data.length}`);
  let count = 0; // counted before any coordinate is kept
  for (let i = 0; i < total; i++) if (mask.data[i]) count++;
  checkPointCount(count, "points", "a mask selection");
  const nd = shape.length;
  const coords: number[][] = shape.map(() => []);
  const idx = new Array<number>(nd).fill(0);
  for (let i = 0; i < total; i++) {
    if (mask.data[i]) for (let d = 0; d < nd; d++) coords[d].push(idx[d]);
    for (let d = nd - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return pointsOf(coords, count, [count]);
}

function coordinatePoints(selection: Selection, shape: readonly number[]): ResolvedSelection {
  const items = selectionItems(selection) ?? (typeof selection === "number" || typeof selection === "bigint" ? [selection] : null);
  if (!items || items.length !== shape.length) {
    throw new BadSelectionError(`a point selection needs one integer array (or integer) per dimension: ${shape.length} for shape [${shape}]`);
  }
  // The point count is the longest array's (broadcasting takes no more): checked before any copy.
  for (const item of items) if (isArrayItem(item) && !isMaskItem(item)) checkPointCount(item.length, "points", "a point selection");
  const perDim = items.map((item, axis): number[] | number => {
    if (typeof item === "number" || typeof item === "bigint") return normaliseIndex(item, shape[axis], axis);
    if (isArrayItem(item)) return normaliseArrayItem(item, shape[axis], axis);
    const what = item === null || isSlice(item) || item === "..." ? "a slice" : JSON.stringify(item);
    throw new BadSelectionError(`axis ${axis}: a point selection takes integer arrays or integers, not ${what} (use oindex)`);
  });
  const lengths = perDim.filter((x): x is number[] => Array.isArray(x)).map((x) => x.length);
  // numpy's broadcasting of 1-d arrays: every length is the same or 1.
  const other = [...new Set(lengths.filter((n) => n !== 1))];
  if (other.length > 1) throw new BadSelectionError(`integer arrays of lengths ${lengths.join(", ")} do not broadcast together`);
  const count = other.length ? other[0] : 1;
  const coords = perDim.map((x) => {
    if (!Array.isArray(x)) return new Array<number>(count).fill(x);
    return x.length === count ? x : new Array<number>(count).fill(x[0]);
  });
  return pointsOf(coords, count, lengths.length ? [count] : []);
}

function pointsOf(coords: number[][], count: number, shape: number[]): ResolvedSelection {
  return { kind: "points", coords, count, shape, plan: (arrayShape, chunks) => planPoints(coords, count, arrayShape, chunks) };
}

/**
 * `blocks`: integers and step-1 slices of chunk indices, each selecting whole chunks (an integer
 * keeps its dimension, as zarr-python's `get_block_selection`); `chunks` is the chunk grid's shape.
 */
export function resolveBlocks(selection: Selection, shape: readonly number[], chunks: readonly GridAxis[]): ResolvedSelection {
  if (isMaskArray(selection)) throw new BadSelectionError("a block selection takes chunk indices and slices, not a mask");
  const indexers = expandItems(selection, shape.length).map((item, axis): DimIndexer => {
    const n = shape[axis];
    const c = chunks[axis];
    const blocks = gridShape([n], [c])[0];
    let first: number;
    let end: number;
    if (typeof item === "number" || typeof item === "bigint") {
      first = normaliseIndex(item, blocks, axis);
      end = first + 1;
    } else if (item === null || isSlice(item)) {
      if (item !== null && item.step !== null && item.step !== 1) {
        throw new BadSelectionError(`axis ${axis}: block slices take a step of 1, got ${item.step}`);
      }
      const r = item === null ? { start: 0, count: blocks } : normaliseSlice(item, blocks, axis);
      first = r.start;
      end = r.start + r.count;
    } else {
      throw new BadSelectionError(`axis ${axis}: a block selection takes chunk indices and slices`);
    }
    const start = Math.min(chunkStart(c, first), n);
    return { kind: "range", start, step: 1, count: Math.max(0, Math.min(chunkStart(c, end), n) - start) };
  });
  return { kind: "orthogonal", indexers };
}
