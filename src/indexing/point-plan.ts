/**
 * The chunk plan of a point selection (vindex, masks, integer arrays given to `get`/`set`): apart
 * from projection.ts, with fancy.ts, which resolves the only selections that have points, so that
 * a page that reads slices never loads it (lazy-features.ts).
 */
import { BadSelectionError } from "../errors.js";
import { chunkAt, chunkStart, gridShape, type GridAxis } from "../metadata/chunk-grid.js";
import { mapPlan, type ChunkPlan, type ChunkProjection } from "./projection.js";

/**
 * Every chunk a point selection touches, in C order of chunk coordinates: `coords[d][k]` is point
 * k's (in-bounds) index along dimension d. Each chunk's points keep their selection order.
 */
export function planPoints(coords: readonly (readonly number[])[], count: number, shape: readonly number[], chunks: readonly GridAxis[]): ChunkPlan<ChunkProjection> {
  const nd = chunks.length;
  const grid = gridShape(shape, chunks);
  // Chunks are keyed by their linear index in the grid.
  if (!Number.isSafeInteger(grid.reduce((a, b) => a * b, 1))) {
    throw new BadSelectionError(`a point selection over a grid of [${grid}] chunks is too large to plan`);
  }
  const byChunk = new Map<number, number[]>();
  for (let k = 0; k < count; k++) {
    let linear = 0;
    for (let d = 0; d < nd; d++) linear = linear * grid[d] + chunkAt(chunks[d], coords[d][k]);
    let ks = byChunk.get(linear);
    if (!ks) byChunk.set(linear, (ks = []));
    ks.push(k);
  }
  const order = [...byChunk.keys()].sort((a, b) => a - b);
  // Each chunk's projection (its bounds and positions) is made when the coordinator takes it.
  const project = (linear: number): ChunkProjection => {
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
        chunkSel: lo.map((l, d) => ({ start: l - chunkStart(chunks[d], chunkCoords[d]), step: 1, count: hi[d] - l + 1 })),
        outStart: new Array<number>(nd).fill(0),
        scatter: { kind: "points" as const, sel, out: ks },
      };
  };
  return mapPlan({ count: order.length, [Symbol.iterator]: () => order.values() }, project);
}

