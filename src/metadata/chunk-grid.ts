/**
 * The chunk grid along each dimension: a uniform edge (the regular grid, or a rectilinear
 * dimension given by one integer), or runs of edges (the `rectilinear` grid of zarr-extensions).
 * Runs stay runs: an edge list like `[[1, 1e9]]` costs one entry, not a billion, and lookups are
 * binary searches over the runs.
 */
import { InvalidMetadataError } from "../errors.js";

/** `count` chunks of `edge` elements each. */
export type EdgeRun = [edge: number, count: number];

/** One dimension of a rectilinear grid as metadata holds it: a uniform edge, or runs of edges. */
export type AxisEdges = number | EdgeRun[];

/** One dimension of a grid, ready for lookups: a uniform edge, or runs with their offsets. */
export type GridAxis = number | RunAxis;

export interface RunAxis {
  edge: number[];
  /** Each run's first element and first chunk. */
  start: number[];
  first: number[];
  /** One past the last explicit element. */
  end: number;
  /** The shortest edge. */
  min: number;
}

/** What grid lookups need from the metadata (ArrayMetadata has both). */
export interface GridSource {
  chunks: readonly number[];
  rectilinear?: readonly AxisEdges[];
}

function compile(edges: AxisEdges): GridAxis {
  if (typeof edges === "number") return edges;
  const axis: RunAxis = { edge: [], start: [], first: [], end: 0, min: Infinity };
  let chunk = 0;
  for (const [edge, count] of edges) {
    axis.edge.push(edge);
    axis.start.push(axis.end);
    axis.first.push(chunk);
    axis.end += edge * count;
    axis.min = Math.min(axis.min, edge);
    chunk += count;
  }
  return axis;
}

const compiled = new WeakMap<readonly AxisEdges[], GridAxis[]>();

/** The grid's axes: the chunk shape of a regular grid, or a rectilinear grid's compiled runs. */
export function gridAxes(meta: GridSource): readonly GridAxis[] {
  const edges = meta.rectilinear;
  if (!edges) return meta.chunks;
  let axes = compiled.get(edges);
  if (!axes) compiled.set(edges, (axes = edges.map(compile)));
  return axes;
}

/** The last run whose `keys` value is at most `x` (runs are ascending). */
export function runAt(keys: readonly number[], x: number): number {
  let lo = 0;
  let hi = keys.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (keys[mid] <= x) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// Past the explicit edges an axis goes on with its last edge, as the one-integer form does: only
// resize reaches there (resizedEdges writes those edges out), never a valid array's elements.

/** The chunk holding element `i`. */
export function chunkAt(axis: GridAxis, i: number): number {
  if (typeof axis === "number") return Math.floor(i / axis);
  const r = runAt(axis.start, i);
  return axis.first[r] + Math.floor((i - axis.start[r]) / axis.edge[r]);
}

/** Chunk `c`'s first element. */
export function chunkStart(axis: GridAxis, c: number): number {
  if (typeof axis === "number") return c * axis;
  const r = runAt(axis.first, c);
  return axis.start[r] + (c - axis.first[r]) * axis.edge[r];
}

/** Chunk `c`'s edge length. */
export function chunkLen(axis: GridAxis, c: number): number {
  return typeof axis === "number" ? axis : axis.edge[runAt(axis.first, c)];
}

/** Number of chunks along each dimension that hold elements of an array of `shape`. */
export function gridShape(shape: readonly number[], axes: readonly GridAxis[]): number[] {
  return shape.map((s, d) => (s === 0 ? 0 : chunkAt(axes[d], s - 1) + 1));
}

/** A chunk's first element and its (whole, unclipped) shape. */
export function chunkOrigin(axes: readonly GridAxis[], coords: readonly number[]): number[] {
  return coords.map((c, d) => chunkStart(axes[d], c));
}
export function chunkShapeAt(axes: readonly GridAxis[], coords: readonly number[]): number[] {
  return coords.map((c, d) => chunkLen(axes[d], c));
}

// ---------------------------------------------------------------------------------------------
// Metadata (parsing a rectilinear grid: rectilinear.ts; writing, resizing and comparing grids: grid-edits.ts).

/** A rectilinear grid's edges as its metadata's `chunk_shapes` spells them (runs of one as plain edges). */
export type ChunkShapes = (number | (number | EdgeRun)[])[];

export function chunkShapesJson(edges: readonly AxisEdges[]): ChunkShapes {
  return edges.map((e) => (typeof e === "number" ? e : e.map(([edge, count]): number | EdgeRun => (count === 1 ? edge : [edge, count]))));
}

/**
 * Refuses (INVALID_METADATA) a rectilinear grid of shards with an edge that the inner chunk
 * shape does not divide: the sharding codec needs whole inner chunks in every shard.
 */
export function checkShardEdges(edges: readonly AxisEdges[] | undefined, inner: readonly number[], where: string): void {
  edges?.forEach((e, d) => {
    const bad = (typeof e === "number" ? [e] : e.map((r) => r[0])).find((edge) => edge % inner[d] !== 0);
    if (bad !== undefined) throw new InvalidMetadataError(`${where}: shard edge ${bad} along dimension ${d} is not a multiple of the inner chunk's ${inner[d]}`);
  });
}
