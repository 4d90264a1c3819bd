/**
 * Parsing a rectilinear grid's configuration (zarr-extensions' `rectilinear` chunk grid) into runs
 * of edges (chunk-grid.ts's model). Loaded with the rare data types (rare-types.ts), as
 * metadataJson loads them for a document whose chunk grid is rectilinear, and by the grid's edits
 * (grid-edits.ts): a page reading regular grids never loads it.
 */
import { InvalidMetadataError, UnsupportedError } from "../errors.js";
import type { JsonValue } from "./json.js";
import type { AxisEdges, EdgeRun } from "./chunk-grid.js";

function positive(v: unknown): v is number {
  return typeof v === "number" && Number.isSafeInteger(v) && v >= 1;
}

/** Appends runs, merging equal neighbours. */
export function pushRun(runs: EdgeRun[], edge: number, count: number): void {
  const last = runs[runs.length - 1];
  if (last && last[0] === edge) last[1] += count;
  else runs.push([edge, count]);
}

/**
 * A rectilinear grid's `configuration` for an array of `shape`: its edges (runs merged) and the
 * largest edge along each dimension among the chunks that hold elements (the bound that chunk
 * buffers and size limits use). Every edge list must reach the array's length (spec: sum >= L).
 */
export function parseRectilinear(conf: JsonValue | undefined, shape: readonly number[], where: string): { edges: AxisEdges[]; chunks: number[] } {
  const bad = (field: string, message: string): never => {
    throw new InvalidMetadataError(`${where}: field "chunk_grid.configuration${field}" ${message}`);
  };
  if (typeof conf !== "object" || conf === null || Array.isArray(conf)) return bad("", "must be an object");
  if (conf.kind !== "inline") {
    throw new UnsupportedError(`${where}: rectilinear chunk_grid kind ${JSON.stringify(conf.kind)} is not supported (only "inline")`);
  }
  const shapes = conf.chunk_shapes;
  if (!Array.isArray(shapes) || shapes.length !== shape.length) return bad(".chunk_shapes", `must be a list of ${shape.length} edge lists`);
  const edges: AxisEdges[] = [];
  const chunks: number[] = [];
  shapes.forEach((dim, d) => {
    if (positive(dim)) {
      edges.push(dim);
      chunks.push(dim);
      return;
    }
    if (!Array.isArray(dim) || dim.length === 0) return bad(`.chunk_shapes[${d}]`, "must be a positive integer or a non-empty list");
    const runs: EdgeRun[] = [];
    let sum = 0;
    let largest = 0;
    dim.forEach((e, i) => {
      const [edge, count] = positive(e) ? [e, 1] : Array.isArray(e) && e.length === 2 && positive(e[0]) && positive(e[1]) ? [e[0], e[1]] : [0, 0];
      if (edge === 0) bad(`.chunk_shapes[${d}][${i}]`, `must be a positive integer or a pair [edge, count], got ${JSON.stringify(e)}`);
      // Only chunks that start inside the array bound the chunk size; overflowing ones hold nothing.
      if (sum < Math.max(1, shape[d])) largest = Math.max(largest, edge);
      sum += edge * count;
      if (!Number.isSafeInteger(sum)) bad(`.chunk_shapes[${d}]`, "sums to more than 2^53");
      pushRun(runs, edge, count);
    });
    if (sum < shape[d]) bad(`.chunk_shapes[${d}]`, `sums to ${sum}, less than the array's length ${shape[d]}`);
    edges.push(runs);
    chunks.push(largest);
  });
  return { edges, chunks };
}
