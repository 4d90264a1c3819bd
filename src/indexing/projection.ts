/**
 * Chunk projections: which chunks a selection touches and, for each, the part of the chunk and
 * the part of the output (or value) that correspond. Slices project to strided runs on both
 * sides; integer arrays, masks and points also carry a `scatter` that says where each selected
 * element of the chunk's run goes, so a chunk is read (and written) once however many of the
 * selected elements fall in it.
 */
import { BadSelectionError } from "../errors.js";
import type { DimIndexer } from "./selection.js";

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

/** A forward run of the dimension: the parts of each chunk it crosses. */
function projectRun(start: number, step: number, count: number, chunkLen: number): DimPart[] {
  const last = start + (count - 1) * step;
  const parts: DimPart[] = [];
  for (let c = Math.floor(start / chunkLen); c <= Math.floor(last / chunkLen); c++) {
    const cs = c * chunkLen;
    const ce = Math.min(cs + chunkLen - 1, last);
    const first = start >= cs ? start : start + Math.ceil((cs - start) / step) * step;
    if (first > ce) continue; // a step larger than the chunk skips it
    const n = Math.floor((ce - first) / step) + 1;
    parts.push({ chunk: c, chunkSel: { start: first - cs, step, count: n }, outStart: (first - start) / step, outStep: 1 });
  }
  return parts;
}

/** Arbitrary indices grouped by chunk (chunks ascending, each keeping the indices' order). */
function projectList(indices: readonly number[], chunkLen: number): DimPart[] {
  const byChunk = new Map<number, number[]>();
  indices.forEach((ix, k) => {
    const c = Math.floor(ix / chunkLen);
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
      return { chunk: c, chunkSel: { start: lo - c * chunkLen, step: 1, count: hi - lo + 1 }, outStart: 0, outStep: 1, map };
    });
}

function projectDim(ix: DimIndexer, chunkLen: number): DimPart[] {
  if (ix.kind === "int") {
    const chunk = Math.floor(ix.index / chunkLen);
    return [{ chunk, chunkSel: { start: ix.index - chunk * chunkLen, step: 1, count: 1 }, outStart: 0, outStep: 1 }];
  }
  if (ix.kind === "list") return ix.indices.length === 0 ? [] : projectList(ix.indices, chunkLen);
  if (ix.count === 0) return [];
  if (ix.step > 0) return projectRun(ix.start, ix.step, ix.count, chunkLen);
  // A backward slice reads the same elements forwards and places them backwards: forward item j
  // is output item count-1-j. (Chunks still come in ascending order.)
  const { start, step, count } = ix;
  return projectRun(start + (count - 1) * step, -step, count, chunkLen).map((p) => ({
    ...p,
    outStart: count - 1 - p.outStart,
    outStep: p.chunkSel.count > 1 ? -1 : 1,
  }));
}

/** Every chunk an orthogonal selection touches, in C order of chunk coordinates. */
export function projectSelection(indexers: readonly DimIndexer[], chunks: readonly number[]): ChunkProjection[] {
  const perDim = indexers.map((ix, d) => projectDim(ix, chunks[d]));
  if (perDim.some((p) => p.length === 0)) return [];
  const out: ChunkProjection[] = [];
  const idx = new Array<number>(perDim.length).fill(0);
  for (;;) {
    const parts = perDim.map((p, d) => p[idx[d]]);
    const projection: ChunkProjection = {
      coords: parts.map((p) => p.chunk),
      chunkSel: parts.map((p) => p.chunkSel),
      outStart: parts.map((p) => p.outStart),
    };
    if (parts.some((p) => p.outStep !== 1)) projection.outStep = parts.map((p) => p.outStep);
    if (parts.some((p) => p.map)) projection.scatter = { kind: "orthogonal", maps: parts.map((p) => p.map ?? null) };
    out.push(projection);
    let k = perDim.length - 1;
    for (; k >= 0; k--) {
      if (++idx[k] < perDim[k].length) break;
      idx[k] = 0;
    }
    if (k < 0) return out;
  }
}

/**
 * Every chunk a point selection touches, in C order of chunk coordinates: `coords[d][k]` is point
 * k's (in-bounds) index along dimension d. Each chunk's points keep their selection order.
 */
export function projectPoints(coords: readonly (readonly number[])[], count: number, shape: readonly number[], chunks: readonly number[]): ChunkProjection[] {
  const nd = chunks.length;
  const grid = chunkGridShape(shape, chunks);
  // Chunks are keyed by their linear index in the grid.
  if (!Number.isSafeInteger(grid.reduce((a, b) => a * b, 1))) {
    throw new BadSelectionError(`a point selection over a grid of [${grid}] chunks is too large to plan`);
  }
  const byChunk = new Map<number, number[]>();
  for (let k = 0; k < count; k++) {
    let linear = 0;
    for (let d = 0; d < nd; d++) linear = linear * grid[d] + Math.floor(coords[d][k] / chunks[d]);
    let ks = byChunk.get(linear);
    if (!ks) byChunk.set(linear, (ks = []));
    ks.push(k);
  }
  return [...byChunk.keys()]
    .sort((a, b) => a - b)
    .map((linear) => {
      const ks = byChunk.get(linear)!;
      const chunkCoords = new Array<number>(nd);
      for (let d = nd - 1, rest = linear; d >= 0; d--) {
        chunkCoords[d] = rest % grid[d];
        rest = Math.floor(rest / grid[d]);
      }
      const lo = new Array<number>(nd).fill(Infinity);
      const hi = new Array<number>(nd).fill(-Infinity);
      for (const k of ks) {
        for (let d = 0; d < nd; d++) {
          lo[d] = Math.min(lo[d], coords[d][k]);
          hi[d] = Math.max(hi[d], coords[d][k]);
        }
      }
      const sel = new Array<number>(ks.length * nd);
      ks.forEach((k, i) => {
        for (let d = 0; d < nd; d++) sel[i * nd + d] = coords[d][k] - lo[d];
      });
      return {
        coords: chunkCoords,
        chunkSel: lo.map((l, d) => ({ start: l - chunkCoords[d] * chunks[d], step: 1, count: hi[d] - l + 1 })),
        outStart: new Array<number>(nd).fill(0),
        scatter: { kind: "points" as const, sel, out: ks },
      };
    });
}

/** Number of chunks along each dimension of the grid. */
export function chunkGridShape(shape: readonly number[], chunks: readonly number[]): number[] {
  return shape.map((s, i) => Math.ceil(s / chunks[i]));
}
