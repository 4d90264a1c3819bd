/**
 * Chunk projections: which chunks a selection touches and, for each, the part of the chunk and
 * the part of the output (or value) that correspond. Slices project to strided runs on both
 * sides; integer arrays, masks and points also carry a `scatter` that says where each selected
 * element of the chunk's run goes, so a chunk is read (and written) once however many of the
 * selected elements fall in it.
 */
import type { DimIndexer } from "./selection.js";
import { chunkAt, chunkLen, chunkStart, type GridAxis } from "../metadata/chunk-grid.js";

/** A strided run along one dimension: `start, start+step, ...` (`count` items). */
export interface DimRun {
  start: number;
  step: number;
  count: number;
}

/**
 * Where the items of one dimension's run go, when not in run order: item `sel[k]` of the run
 * (0-based within the run) goes to output position `out[k]` (a full-rank output index).
 */
export interface DimMap {
  sel: number[];
  out: number[];
}

/**
 * The element-wise part of a projection.
 * - orthogonal: per dimension a map, or null where the run goes to `outStart + k * outStep`;
 * - points: point `k` lies at run positions `sel[k*ndim .. k*ndim+ndim)` and is element `out[k]`
 *   of the C-contiguous output (or value). Points are kept in selection order, so a write of
 *   repeated points keeps the last.
 */
export type Scatter = { kind: "orthogonal"; maps: (DimMap | null)[] } | { kind: "points"; sel: number[]; out: number[] };

export interface ChunkProjection {
  /** The chunk's grid coordinates. */
  coords: number[];
  /** Within the chunk: for scattered projections, the runs that bound the selected elements. */
  chunkSel: DimRun[];
  /** Within the full-rank output (dropped dimensions have length 1). */
  outStart: number[];
  /** Per dimension +1 or -1 (a backward slice); absent: all +1. */
  outStep?: number[];
  /** Present when the elements do not map run to run (integer arrays, masks, points). */
  scatter?: Scatter;
}

interface DimPart {
  chunk: number;
  chunkSel: DimRun;
  outStart: number;
  outStep: number;
  map?: DimMap;
}

/** One dimension's parts, made on demand: a run over 2^25 chunks costs no 2^25 objects up front. */
interface DimParts {
  readonly length: number;
  at(i: number): DimPart;
}

const listed = (parts: DimPart[]): DimParts => ({ length: parts.length, at: (i) => parts[i] });

/**
 * A forward run of the dimension: the parts of each chunk it crosses. A step no longer than
 * the chunk touches every chunk from the first element's to the last's; a longer one puts each
 * element in a chunk of its own (and skips the chunks between). On uneven (rectilinear) edges a
 * step longer than the shortest edge may skip some chunks and not others: those it touches are
 * found by jumping from each to the next selected element past its end (at most `count` of them).
 */
function projectRun(start: number, step: number, count: number, axis: GridAxis): DimParts {
  const last = start + (count - 1) * step;
  const part = (c: number): DimPart => {
    const cs = chunkStart(axis, c);
    const first = start >= cs ? start : start + Math.ceil((cs - start) / step) * step;
    const n = Math.floor((Math.min(cs + chunkLen(axis, c) - 1, last) - first) / step) + 1;
    return { chunk: c, chunkSel: { start: first - cs, step, count: n }, outStart: (first - start) / step, outStep: 1 };
  };
  const c0 = chunkAt(axis, start);
  if (step <= (typeof axis === "number" ? axis : axis.min)) return { length: chunkAt(axis, last) - c0 + 1, at: (i) => part(c0 + i) };
  if (typeof axis === "number") return { length: count, at: (i) => part(Math.floor((start + i * step) / axis)) };
  const touched: number[] = [];
  for (let c = c0; ; ) {
    touched.push(c);
    const end = chunkStart(axis, c) + chunkLen(axis, c);
    const next = start + Math.ceil((end - start) / step) * step;
    if (next > last) break;
    c = chunkAt(axis, next);
  }
  return { length: touched.length, at: (i) => part(touched[i]) };
}

/** Arbitrary indices grouped by chunk (chunks ascending, each keeping the indices' order). */
function projectList(indices: readonly number[], axis: GridAxis): DimPart[] {
  const byChunk = new Map<number, number[]>();
  indices.forEach((ix, k) => {
    const c = chunkAt(axis, ix);
    let ks = byChunk.get(c);
    if (!ks) byChunk.set(c, (ks = []));
    ks.push(k);
  });
  return [...byChunk.keys()]
    .sort((a, b) => a - b)
    .map((c) => {
      const ks = byChunk.get(c)!;
      let lo = Infinity;
      let hi = -Infinity;
      for (const k of ks) {
        lo = Math.min(lo, indices[k]);
        hi = Math.max(hi, indices[k]);
      }
      const map = { sel: ks.map((k) => indices[k] - lo), out: ks };
      return { chunk: c, chunkSel: { start: lo - chunkStart(axis, c), step: 1, count: hi - lo + 1 }, outStart: 0, outStep: 1, map };
    });
}

function projectDim(ix: DimIndexer, axis: GridAxis): DimParts {
  if (ix.kind === "int") {
    const chunk = chunkAt(axis, ix.index);
    return listed([{ chunk, chunkSel: { start: ix.index - chunkStart(axis, chunk), step: 1, count: 1 }, outStart: 0, outStep: 1 }]);
  }
  if (ix.kind === "list") return listed(ix.indices.length === 0 ? [] : projectList(ix.indices, axis));
  if (ix.count === 0) return listed([]);
  if (ix.step > 0) return projectRun(ix.start, ix.step, ix.count, axis);
  // A backward slice reads the same elements forwards and places them backwards: forward item j
  // is output item count-1-j. (Chunks still come in ascending order.)
  const { start, step, count } = ix;
  const forward = projectRun(start + (count - 1) * step, -step, count, axis);
  const back = (p: DimPart): DimPart => ({ ...p, outStart: count - 1 - p.outStart, outStep: p.chunkSel.count > 1 ? -1 : 1 });
  return { length: forward.length, at: (i) => back(forward.at(i)) };
}

/**
 * A selection's chunk plan: how many chunks it touches, and the projections themselves, made one
 * at a time as they are consumed. A read of a million tiny chunks never holds a million plan
 * objects: the coordinator takes them in bounded batches (see parallel/execution/coordinator.ts). Every
 * selection kind plans through this shape: per-dimension parts, combined in C order (points
 * group theirs by chunk first: that list is as long as the user's own point list).
 */
export interface ChunkPlan<T> {
  /** Number of chunks the iterator yields. */
  readonly count: number;
  /** Yields the chunks in C order of chunk coordinates; each call starts a fresh pass. */
  [Symbol.iterator](): Iterator<T>;
}

/** The plan of an orthogonal selection: one projection per touched chunk, made lazily. */
export function planSelection(indexers: readonly DimIndexer[], chunks: readonly GridAxis[]): ChunkPlan<ChunkProjection> {
  // Parts are made as they are combined; only index lists are held (as long as the user's own).
  const perDim = indexers.map((ix, d) => projectDim(ix, chunks[d]));
  const count = perDim.reduce((n, p) => n * p.length, 1);
  return { count, [Symbol.iterator]: () => combineParts(perDim, count) };
}

/** The C-order product of per-dimension parts, one projection at a time. */
function* combineParts(perDim: readonly DimParts[], count: number): Generator<ChunkProjection> {
  if (count === 0) return;
  const rank = perDim.length;
  const idx = new Array<number>(rank).fill(0);
  for (;;) {
    const coords = new Array<number>(rank);
    const chunkSel = new Array<DimRun>(rank);
    const outStart = new Array<number>(rank);
    let backward = false;
    let mapped = false;
    const parts = perDim.map((p, d) => p.at(idx[d]));
    for (let d = 0; d < rank; d++) {
      const part = parts[d];
      coords[d] = part.chunk;
      chunkSel[d] = part.chunkSel;
      outStart[d] = part.outStart;
      if (part.outStep !== 1) backward = true;
      if (part.map) mapped = true;
    }
    const projection: ChunkProjection = { coords, chunkSel, outStart };
    if (backward) projection.outStep = parts.map((p) => p.outStep);
    if (mapped) projection.scatter = { kind: "orthogonal", maps: parts.map((p) => p.map ?? null) };
    yield projection;
    let k = rank - 1;
    for (; k >= 0; k--) {
      if (++idx[k] < perDim[k].length) break;
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

/** A plan whose items are `map` of another plan's, made lazily too. */
export function mapPlan<A, B>(plan: ChunkPlan<A>, map: (a: A) => B): ChunkPlan<B> {
  return {
    count: plan.count,
    *[Symbol.iterator]() {
      for (const a of plan) yield map(a);
    },
  };
}

/**
 * Every chunk the selection touches, in C order of chunk coordinates, as one array: for small
 * grids (a shard's inner chunks); operations on whole arrays use `planSelection`.
 */
export function projectSelection(indexers: readonly DimIndexer[], chunks: readonly GridAxis[]): ChunkProjection[] {
  return Array.from(planSelection(indexers, chunks));
}
