/**
 * Chunk iteration for streaming jobs: the coordinates of the stored chunks, and the chunks'
 * values one at a time (a few read ahead, on the pool when asked), so memory stays bounded by
 * `ahead + 1` decoded chunks however large the array.
 */
import { InvalidArgumentError } from "../errors.js";
import { parseChunkKey } from "../metadata/chunk-key.js";
import type { Scalar } from "../metadata/dtype.js";
import type { NDArray } from "../indexing/ndarray.js";
import { chunkStart, gridAxes, gridShape } from "../metadata/chunk-grid.js";
import { slice, type Slice } from "../indexing/selection.js";
import type { OperationOptions } from "../parallel/execution/options.js";
import type { ZarrArray } from "./array.js";

/** Options of `arr.iterChunks()`: which chunks, how far to read ahead, and the operation's options. */
export interface ChunkIterOptions extends OperationOptions {
  /** Every chunk of the grid (missing ones read as the fill value); default: stored chunks only. */
  all?: boolean;
  /** Chunks read ahead of the one being consumed (default 2). */
  ahead?: number;
}

/** One chunk as `arr.iterChunks()` yields it. */
export interface ChunkEntry {
  /** The chunk's grid coordinates (shards, for a sharded array). */
  chunkCoords: number[];
  /** Its region of the array, clipped to the shape: `arr.get(selection)` reads the same. */
  selection: Slice[];
  /** Its decoded elements, shaped like `selection`. */
  data: NDArray;
}

/** The grid coordinates of the stored chunks, in C order. */
export async function storedChunkCoords(arr: ZarrArray): Promise<number[][]> {
  return chunkCoordsAmong(arr, await arr.store.list(arr.path === "" ? "" : `${arr.path}/`)).sort((a, b) => {
    for (let d = 0; d < a.length; d++) if (a[d] !== b[d]) return a[d] - b[d];
    return 0;
  });
}

/**
 * The chunks of the grid among `listed` keys: those that are a chunk's own key, not one beyond the
 * grid (left by a writer that resized without deleting) nor a stray spelling such as "c/05"; in
 * O(keys), where a walk of the grid would make a key for every cell of a sparse array's.
 */
export function chunkCoordsAmong(arr: ZarrArray, listed: readonly string[]): number[][] {
  const meta = arr.metadata;
  const grid = gridShape(meta.shape, gridAxes(meta));
  const prefix = arr.path === "" ? "" : `${arr.path}/`;
  const out: number[][] = [];
  for (const key of new Set(listed)) {
    const coords = parseChunkKey(meta.chunkKeyEncoding, key.slice(prefix.length), grid.length);
    if (coords && coords.every((c, d) => c < grid[d]) && arr.chunkKey(coords) === key) out.push(coords);
  }
  return out;
}

function* gridCoords(grid: readonly number[]): Generator<number[]> {
  if (grid.some((n) => n === 0)) return;
  const idx = new Array<number>(grid.length).fill(0);
  for (;;) {
    yield [...idx];
    let d = grid.length - 1;
    for (; d >= 0; d--) {
      if (++idx[d] < grid[d]) break;
      idx[d] = 0;
    }
    if (d < 0) return;
  }
}

export async function* iterChunks(arr: ZarrArray, options: ChunkIterOptions = {}): AsyncGenerator<ChunkEntry> {
  const { all = false, ahead = 2, ...readOptions } = options;
  if (!Number.isInteger(ahead) || ahead < 0) throw new InvalidArgumentError(`iterChunks: ahead must be a non-negative integer, got ${ahead}`);
  const meta = arr.metadata;
  const axes = gridAxes(meta);
  const coordsList: Iterable<number[]> = all ? gridCoords(gridShape(meta.shape, axes)) : await storedChunkCoords(arr);
  const read = (coords: number[]) => {
    const selection = coords.map((c, d) => slice(chunkStart(axes[d], c), Math.min(chunkStart(axes[d], c + 1), meta.shape[d])));
    const data = arr.get(selection, readOptions) as Promise<NDArray | Scalar>;
    // Rejections are handled when the entry is awaited; none goes unhandled meanwhile.
    data.catch(() => undefined);
    return { chunkCoords: coords, selection, data };
  };
  const queue: ReturnType<typeof read>[] = [];
  const it = coordsList[Symbol.iterator]();
  const fill = () => {
    while (queue.length <= ahead) {
      const next = it.next();
      if (next.done) return;
      queue.push(read(next.value));
    }
  };
  fill();
  while (queue.length > 0) {
    const head = queue.shift()!;
    const data = (await head.data) as NDArray;
    fill();
    yield { chunkCoords: head.chunkCoords, selection: head.selection, data };
  }
}
