/**
 * Reads on workers without shared memory (a browser page that is not cross-origin isolated, or a
 * pool made with `sharedMemory: false`). The output cannot be shared, and sending it along would
 * copy all of it with every task; so the task goes with an empty output, the worker decodes each
 * chunk's selected region into a buffer of its own, and those buffers come back (transferred, not
 * copied, by the comlink worker) for the main thread to place: one copy per chunk there.
 */
import type { Store } from "../../stores/types.js";
import { copyElements, regionAt } from "../../codecs/view.js";
import type { TypedArray } from "../../metadata/dtype.js";
import { allocElements } from "../../metadata/elements.js";
import { contiguousStrides, product } from "../../indexing/strided.js";
import { runChunkTask, type ChunkItem, type ChunkVersion, type ReadTask, type TaskBuffer } from "../chunk-io/chunk-task.js";

/** One chunk's selected region, C-contiguous in the shape of its runs' counts (full rank). */
export interface ReturnedChunk {
  /** Index of the item in its task. */
  index: number;
  data: TypedArray;
  /** A cache fill's version of the chunk (ReadTask.fillCache). */
  version?: ChunkVersion;
}

/** The task as sent: the same, with an empty output of the right type in place of the real one. */
export function withoutOutput(task: ReadTask): ReadTask {
  return { ...task, out: { data: allocElements(task.meta.dtype, 0), strides: task.out.strides } };
}

/** Worker side: reads one item into a fresh buffer of its own. */
export async function readItemAlone(task: ReadTask, item: ChunkItem, index: number, signal?: AbortSignal, store?: Store): Promise<ReturnedChunk> {
  const counts = item.chunkSel.map((r) => r.count);
  const out: TaskBuffer = { data: allocElements(task.meta.dtype, product(counts)), strides: contiguousStrides(counts) };
  const alone: ChunkItem = { ...item, outStart: counts.map(() => 0) };
  const versions = await runChunkTask({ ...task, items: [alone], out }, store, signal);
  return versions === undefined ? { index, data: out.data as TypedArray } : { index, data: out.data as TypedArray, version: versions[0] };
}

/** Main-thread side: copies returned chunks into their places in the real output. */
export function placeReturnedChunks(task: ReadTask, out: TaskBuffer, chunks: readonly ReturnedChunk[]): void {
  for (const { index, data } of chunks) {
    const item = task.items[index];
    const counts = item.chunkSel.map((r) => r.count);
    const dest = regionAt(item.outStart, null, out.strides);
    copyElements(task.meta.dtype, out.data, dest, data, { offset: 0, strides: contiguousStrides(counts) }, counts);
  }
}
