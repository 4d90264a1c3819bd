/**
 * Chunk projections: which chunks a selection touches and, for each, the part of the chunk and
 * the part of the output (or value) that correspond.
 */
import type { DimIndexer } from "./selection.js";

/** A strided run along one dimension: `start, start+step, ...` (`count` items). */
export interface DimRun {
  start: number;
  step: number;
  count: number;
}

export interface ChunkProjection {
  /** The chunk's grid coordinates. */
  coords: number[];
  /** Within the chunk. */
  chunkSel: DimRun[];
  /** Within the full-rank output (dropped dimensions have length 1). Always step 1. */
  outStart: number[];
}

interface DimPart {
  chunk: number;
  chunkSel: DimRun;
  outStart: number;
}

function projectDim(ix: DimIndexer, chunkLen: number): DimPart[] {
  if (ix.kind === "int") {
    const chunk = Math.floor(ix.index / chunkLen);
    return [{ chunk, chunkSel: { start: ix.index - chunk * chunkLen, step: 1, count: 1 }, outStart: 0 }];
  }
  if (ix.count === 0) return [];
  const { start, step, count } = ix;
  const last = start + (count - 1) * step;
  const parts: DimPart[] = [];
  for (let c = Math.floor(start / chunkLen); c <= Math.floor(last / chunkLen); c++) {
    const cs = c * chunkLen;
    const ce = Math.min(cs + chunkLen - 1, last);
    const first = start >= cs ? start : start + Math.ceil((cs - start) / step) * step;
    if (first > ce) continue; // a step larger than the chunk skips it
    const n = Math.floor((ce - first) / step) + 1;
    parts.push({ chunk: c, chunkSel: { start: first - cs, step, count: n }, outStart: (first - start) / step });
  }
  return parts;
}

/**
 * A selection's chunk plan: how many chunks it touches, and the projections themselves, made one
 * at a time as they are consumed. A read of a million tiny chunks never holds a million plan
 * objects: the coordinator takes them in bounded batches (see parallel/coordinator.ts). Every
 * selection kind plans through this shape: per-dimension parts, combined in C order.
 */
export interface ChunkPlan<T> {
  /** Number of chunks the iterator yields. */
  readonly count: number;
  /** Yields the chunks in C order of chunk coordinates; each call starts a fresh pass. */
  [Symbol.iterator](): Iterator<T>;
}

/** The plan of a selection: one projection per touched chunk, made lazily. */
export function planSelection(indexers: readonly DimIndexer[], chunks: readonly number[]): ChunkPlan<ChunkProjection> {
  // The per-dimension parts are small (their sum over dimensions, not their product).
  const perDim = indexers.map((ix, d) => projectDim(ix, chunks[d]));
  const count = perDim.reduce((n, p) => n * p.length, 1);
  return { count, [Symbol.iterator]: () => combineParts(perDim, count) };
}

/** The C-order product of per-dimension parts, one projection at a time. */
function* combineParts(perDim: readonly DimPart[][], count: number): Generator<ChunkProjection> {
  if (count === 0) return;
  const rank = perDim.length;
  const idx = new Array<number>(rank).fill(0);
  for (;;) {
    const coords = new Array<number>(rank);
    const chunkSel = new Array<DimRun>(rank);
    const outStart = new Array<number>(rank);
    for (let d = 0; d < rank; d++) {
      const part = perDim[d][idx[d]];
      coords[d] = part.chunk;
      chunkSel[d] = part.chunkSel;
      outStart[d] = part.outStart;
    }
    yield { coords, chunkSel, outStart };
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
export function projectSelection(indexers: readonly DimIndexer[], chunks: readonly number[]): ChunkProjection[] {
  return Array.from(planSelection(indexers, chunks));
}

/** Number of chunks along each dimension of the grid. */
export function chunkGridShape(shape: readonly number[], chunks: readonly number[]): number[] {
  return shape.map((s, i) => Math.ceil(s / chunks[i]));
}
