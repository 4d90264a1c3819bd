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

/** Every chunk the selection touches, in C order of chunk coordinates. */
export function projectSelection(indexers: readonly DimIndexer[], chunks: readonly number[]): ChunkProjection[] {
  const perDim = indexers.map((ix, d) => projectDim(ix, chunks[d]));
  if (perDim.some((p) => p.length === 0)) return [];
  const out: ChunkProjection[] = [];
  const idx = new Array<number>(perDim.length).fill(0);
  for (;;) {
    const parts = perDim.map((p, d) => p[idx[d]]);
    out.push({
      coords: parts.map((p) => p.chunk),
      chunkSel: parts.map((p) => p.chunkSel),
      outStart: parts.map((p) => p.outStart),
    });
    let k = perDim.length - 1;
    for (; k >= 0; k--) {
      if (++idx[k] < perDim[k].length) break;
      idx[k] = 0;
    }
    if (k < 0) return out;
  }
}

/** Number of chunks along each dimension of the grid. */
export function chunkGridShape(shape: readonly number[], chunks: readonly number[]): number[] {
  return shape.map((s, i) => Math.ceil(s / chunks[i]));
}
