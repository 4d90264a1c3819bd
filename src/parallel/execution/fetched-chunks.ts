/**
 * Chunk bytes fetched by the caller and decoded by workers (WorkerPoolOptions.fetchOnCaller): the
 * calling thread fetches each task's chunks and hands the bytes to the worker with the task. A Web
 * Worker that fetches its own chunks reads a response body only between decodes; the page's thread
 * is idle during a read and can keep the network busy instead (bench/browser.ts profiles both).
 * The task itself runs as ever, through a store that answers the fetched keys from memory and
 * every other read (a shard's ranges, metadata) from the real store: that store is the worker's
 * (returning-store.ts), apart so that the page's thread never loads it.
 */
import type { Store, WritableStore } from "../../stores/types.js";
import { coversChunk, prefetchedStore, type ChunkItem, type ChunkTask, type ReadTask, type WriteTask } from "../chunk-io/chunk-task.js";
import type { ChunkLockRef } from "../sync/lock-table.js";
import { lazyFeatures } from "../../lazy-features-loader.js";
import type { TaskOutcome } from "./task-outcome.js";

/** Per item of the task: its chunk's stored bytes, null when the chunk is not stored, undefined: not sent. */
export type FetchedChunks = (Uint8Array | null | undefined)[];

/**
 * Whether the caller fetches an item's chunk: when the item covers the whole chunk (not for a
 * cache fill, which needs versions); else the worker reads what the chain's partial decoder needs
 * (a shard: its index and inner chunks). Always for a user's store (stores/caller.ts), which only
 * the caller can reach: whole shards then.
 */
function fetchedHere(task: ReadTask, item: ChunkItem): boolean {
  return task.store.kind === "caller" || (task.fillCache !== true && coversChunk(task.meta, item, true));
}

/** Whether the caller fetches any of this read task's chunks. */
export function fetchesChunks(task: ReadTask): boolean {
  return task.items.some((item) => fetchedHere(task, item));
}

/** The caller's side: the chunks it fetches for a task (fetchedHere), at once (together, where the store can). */
export async function fetchChunks(store: Store, task: ReadTask, signal: AbortSignal | undefined): Promise<FetchedChunks> {
  const from = await prefetchedStore({ ...task, items: task.items.filter((item) => fetchedHere(task, item)) }, store, signal);
  return Promise.all(task.items.map(async (item) => (fetchedHere(task, item) ? ((await from.get(item.key, { signal })) ?? null) : undefined)));
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

/** A write's chunks for the caller to apply, in order: encoded bytes to store, or null to delete. */
export type StoredChunks = [key: string, bytes: Uint8Array | null][];

/**
 * The caller's side of a write to a user's store (stores/caller.ts), which only this thread can
 * reach: the task's whole chunks go to a worker together, each partial one alone, under its
 * chunk lock held here while its old bytes are fetched, the worker merges and encodes, and the
 * result is stored here. Workers take no lock of their own (the sent tasks have none).
 */
/** The chunk locks (lock-table.ts), loaded by the write's plan (array-writes.ts) before its tasks come here. */
const withChunkLock = lazyFeatures((m, ref: ChunkLockRef | undefined, key: string, fn: () => Promise<TaskOutcome>) => m.withChunkLock(ref, key, fn));

export async function writeOnCaller(
  store: WritableStore,
  task: WriteTask,
  run: (task: WriteTask, fetched?: FetchedChunks) => Promise<TaskOutcome>,
  signal: AbortSignal,
): Promise<TaskOutcome> {
  const whole = task.items.filter((item) => coversChunk(task.meta, item, false));
  const partial = task.items.filter((item) => !coversChunk(task.meta, item, false));
  const parts = [whole, ...partial.map((item) => [item])].filter((p) => p.length > 0);
  const noLock = { table: null, scope: "" };
  let chunks = 0;
  for (const items of parts) {
    const alone = items !== whole;
    const once = async (): Promise<TaskOutcome> => {
      const fetched = alone ? [(await store.get(items[0].key, { signal })) ?? null] : undefined;
      const outcome = await run({ ...task, items, lock: noLock }, fetched);
      // Stored whatever the status: what an inline write stored before a failing chunk stays too.
      for (const [key, bytes] of outcome.stored ?? []) await (bytes ? store.set(key, bytes) : store.delete(key));
      return outcome;
    };
    const outcome = alone ? await withChunkLock(task.lock, items[0].key, once) : await once();
    chunks += outcome.chunks;
    if (outcome.status !== "done") return { ...outcome, chunks };
  }
  return { status: "done", chunks };
}
