/**
 * Chunk bytes fetched by the caller and decoded by workers (WorkerPoolOptions.fetchOnCaller): the
 * calling thread fetches each task's chunks and hands the bytes to the worker with the task. A Web
 * Worker that fetches its own chunks reads a response body only between decodes; the page's thread
 * is idle during a read and can keep the network busy instead (bench/browser.ts profiles both).
 * The task itself runs as ever, through a store that answers the fetched keys from memory and
 * every other read (a shard's ranges, metadata) from the real store.
 */
import type { Store } from "../stores/types.js";
import { OverlayStore } from "../stores/overlay.js";
import { pipelineFor } from "./chunk-codec.js";
import { prefetchedStore, type ReadTask } from "./chunk-task.js";

/** Per item of the task: its chunk's stored bytes, or null when the chunk is not stored. */
export type FetchedChunks = (Uint8Array | null)[];

/**
 * Whether the caller should fetch this read task's chunks: a read of whole stored chunks (not a
 * cache fill, which needs versions, nor a chain that reads parts of a chunk, as a shard does).
 */
export function fetchesWholeChunks(task: ReadTask): boolean {
  return task.fillCache !== true && !pipelineFor(task.meta).canDecodePartial;
}

/** The caller's side: every item's chunk, fetched at once (together, where the store can). */
export async function fetchChunks(store: Store, task: ReadTask, signal: AbortSignal | undefined): Promise<FetchedChunks> {
  const from = await prefetchedStore(task, store, signal);
  const got = await Promise.all(task.items.map((item) => from.get(item.key, { signal })));
  return got.map((b) => b ?? null);
}

/**
 * The buffers to transfer with the task rather than copy: those the bytes fill exactly (a
 * store's fresh response body); a view into a larger buffer is copied, leaving that buffer alone.
 */
export function fetchedTransferables(fetched: FetchedChunks | undefined): ArrayBuffer[] {
  const out = new Set<ArrayBuffer>();
  for (const b of fetched ?? []) {
    if (b && b.buffer instanceof ArrayBuffer && b.byteOffset === 0 && b.byteLength === b.buffer.byteLength) out.add(b.buffer);
  }
  return [...out];
}

/** The worker's side: the task's store, answering the fetched keys from the bytes that came. */
export function withFetched(inner: Store, task: ReadTask, fetched: FetchedChunks): Store {
  const bytes = new Map<string, Uint8Array | null>();
  task.items.forEach((item, i) => bytes.set(item.key, fetched[i] ?? null));
  return new OverlayStore(inner, bytes);
}
