/**
 * The chunk grid as creation, writes and open-time checks change or compare it: edges from a
 * caller's option, the grid resized, its JSON form, whether two grids agree. Apart from
 * chunk-grid.ts's parsing and lookups, as only modules loaded on first use (lazy-features.ts) and
 * the copy engine need it: a page that only reads holds none of it.
 */
import type { JsonValue } from "./json.js";
import type { Serialisable } from "./json-write.js";
import { type AxisEdges, type ChunkShapes, type EdgeRun, type GridAxis, type GridSource, chunkAt, chunkLen, chunkShapesJson, chunkStart, gridAxes, runAt } from "./chunk-grid.js";
import { parseRectilinear, pushRun } from "./rectilinear.js";

/** The element after the run that holds element `i` (a uniform axis, and the last run, go on). */
function runEnd(axis: GridAxis, i: number): number {
  if (typeof axis === "number") return Infinity;
  const r = runAt(axis.start, i);
  return r + 1 < axis.start.length ? axis.start[r + 1] : Infinity;
}

/**
 * Whether two grids put the same chunks over the first `upTo[d]` elements of each dimension
 * (beyond, a resize may have added edges to either): one run at a time, never chunk by chunk.
 */
export function gridsAgree(a: GridSource, b: GridSource, upTo: readonly number[]): boolean {
  const ax = gridAxes(a);
  const bx = gridAxes(b);
  return upTo.every((n, d) => {
    for (let i = 0; i < n; i = Math.min(runEnd(ax[d], i), runEnd(bx[d], i))) {
      const [ca, cb] = [chunkAt(ax[d], i), chunkAt(bx[d], i)];
      if (chunkStart(ax[d], ca) !== i || chunkStart(bx[d], cb) !== i || chunkLen(ax[d], ca) !== chunkLen(bx[d], cb)) return false;
    }
    return true;
  });
}

function configurationOf(edges: readonly AxisEdges[]): { kind: "inline"; chunk_shapes: ChunkShapes } {
  return { kind: "inline", chunk_shapes: chunkShapesJson(edges) };
}

/** The `chunk_grid` object of a rectilinear grid. */
export function rectilinearJson(edges: readonly AxisEdges[]): Serialisable {
  return { name: "rectilinear", configuration: configurationOf(edges) };
}

/**
 * The grid fields of an array resized to `shape`. A rectilinear grid keeps its edges where they
 * reach the new length (overflow is allowed, and chunks already stored keep their shape) and
 * else grows by its last edge repeated, as the spec's one-integer form extends.
 */
export function resizedGrid(meta: GridSource, shape: readonly number[]): { chunks: number[]; rectilinear?: AxisEdges[] } {
  if (!meta.rectilinear) return { chunks: [...meta.chunks] };
  const edges = meta.rectilinear.map((e, d): AxisEdges => {
    if (typeof e === "number") return e;
    const runs = e.map((r): EdgeRun => [r[0], r[1]]);
    const end = runs.reduce((s, [edge, count]) => s + edge * count, 0);
    const lastEdge = runs[runs.length - 1][0];
    if (end < shape[d]) pushRun(runs, lastEdge, Math.ceil((shape[d] - end) / lastEdge));
    return runs;
  });
  const { edges: rectilinear, chunks } = parseRectilinear(configurationOf(edges), shape, "resize");
  return { chunks, rectilinear };
}

/**
 * Edges as a caller gives them, the spec's `chunk_shapes` (`[10, [5, 5, [20, 3]]]`: uniform 10;
 * edges 5, 5 and three of 20) into runs,
 * or null when every dimension is uniform (a regular grid). Throws INVALID_METADATA naming `what`.
 */
export function edgesFromOption(option: readonly (number | readonly unknown[])[], shape: readonly number[], what: string): { edges: AxisEdges[]; chunks: number[] } | null {
  if (option.every((e) => typeof e === "number")) return null;
  const conf = { kind: "inline", chunk_shapes: option.map((e) => (typeof e === "number" ? e : [...e])) } as JsonValue;
  return parseRectilinear(conf, shape, what);
}
