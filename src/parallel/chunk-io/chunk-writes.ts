/**
 * How write tasks write their chunks (runChunkTask's writes): a whole chunk encoded from the
 * value, a partial one merged into the stored chunk under a chunk lock or by compare-and-swap. It
 * loads with a thread's first write task (through lazy-features.ts), so a page or worker that only
 * reads never loads it, nor the compare-and-swap loop.
 */
import { AbortError, CorruptChunkError, UnsupportedError, WriteConflictError } from "../../errors.js";
import { componentsPerElement } from "../../metadata/dtype.js";
import { scalarToComponents } from "../../metadata/scalars.js";
import type { ChunkWrite, EncodedChunk } from "../../codecs/types.js";
import { allFill, copyElements, fillElements, regionAt } from "../../codecs/view.js";
import type { StridedRegion } from "../../indexing/strided.js";
import { copyElement, forEachScattered, setElement } from "../../indexing/scatter.js";
import { readVersioned, type WritableStore, type WriteCondition } from "../../stores/types.js";
import { ScratchLease } from "../../scratch.js";
import { withChunkLock } from "../sync/lock-table.js";
import type { ConditionalWritePolicy } from "../sync/conditional-writes.js";
import { asCorruptChunk, chunkShapeOf, chunkSpecOf, coversChunk, pipelineFor } from "./chunk-codec.js";
import type { ChunkItem, TaskBuffer, WriteTask } from "./chunk-task.js";

/** Writes a task's items, one after another. */
export async function writeItems(task: WriteTask, store: WritableStore, signal: AbortSignal | undefined): Promise<void> {
  for (const item of task.items) await writeItem(task, store, item, signal);
}

/**
 * Writes one chunk, the mirror of readItem: a whole chunk of the value by `chain.encode` straight
 * from the value, any other write by the chain's partial encoder. Whole-chunk writes are
 * last-writer-wins; a partial one (an edge chunk's in-bounds part too, as in zarr-python) reads
 * and writes under a lock, or (conditional writes) without one, by compare-and-swap.
 */
async function writeItem(task: WriteTask, store: WritableStore, item: ChunkItem, signal: AbortSignal | undefined): Promise<void> {
  const whole = coversChunk(task.meta, item, false);
  if (whole && task.value.kind === "array") return writeWhole(task, store, item, task.value.buffer);
  // A scalar over a whole chunk needs no stored bytes either: it is written into the fill value.
  if (whole) return writePart(task, store, item, signal, false);
  if (task.conditional) return compareAndSwap(task, task.conditional, store, item, signal);
  return withChunkLock(task.lock, item.key, () => writePart(task, store, item, signal, true));
}

/** Scratch for a write's encoding to live in until `set` settles, for a store that then lets go of it: no fresh memory per chunk. */
async function withLease<T>(store: WritableStore, use: (lease: ScratchLease | undefined) => Promise<T>): Promise<T> {
  const lease = store.setReleasesValue === true ? new ScratchLease() : undefined;
  try {
    return await use(lease);
  } finally {
    lease?.release();
  }
}

async function writeWhole(task: WriteTask, store: WritableStore, item: ChunkItem, value: TaskBuffer): Promise<void> {
  const { meta } = task;
  const shape = chunkShapeOf(meta, item);
  const view = { data: value.data, shape, ...valueRegionOf(item, value) };
  if (!task.writeEmptyChunks && allFill(chunkSpecOf(meta, shape), view.data, view)) return storeEncoded(store, item, EMPTY);
  await withLease(store, async (lease) => storeEncoded(store, item, { kind: "bytes", bytes: await pipelineFor(meta, shape).encode(view, lease) }));
}

const EMPTY: EncodedChunk = { kind: "empty" };

/**
 * Stores a chunk's new encoding: deletes the chunk when it is all fill value. A compare-and-swap
 * attempt (`swap`) writes conditionally and never deletes: a chunk that was stored and is now all
 * fill value is written as such (its encoder was asked for bytes), since a delete cannot be made
 * conditional on every S3-compatible server; one that was missing and stays all fill value is left missing.
 */
async function storeEncoded(store: WritableStore, item: ChunkItem, encoded: EncodedChunk, swap?: SwapAttempt): Promise<void> {
  if (swap) swap.done = encoded.kind === "empty" || (await store.setIf!(item.key, encoded.bytes, swap.condition!)).ok;
  else if (encoded.kind === "empty") await store.delete(item.key);
  else await store.set(item.key, encoded.bytes);
}

/** One compare-and-swap attempt: the condition its read set (the version, or "missing"), and whether its write went through. */
interface SwapAttempt {
  condition?: WriteCondition;
  done: boolean;
}

/**
 * A partial write without locks: read the chunk and its version, merge, write if the version
 * still holds; when another writer changed the chunk meanwhile, all of it again (after a backoff),
 * at most `policy.maxAttempts` times, then a WriteConflictError naming the key.
 */
async function compareAndSwap(task: WriteTask, policy: ConditionalWritePolicy, store: WritableStore, item: ChunkItem, signal: AbortSignal | undefined): Promise<void> {
  if (typeof store.setIf !== "function") {
    throw new UnsupportedError(`chunk "${item.key}": conditional writes were asked for, but the store offers none`);
  }
  const attempt = async (): Promise<boolean> => {
    const swap: SwapAttempt = { done: false };
    await writePart(task, store, item, signal, true, swap);
    return swap.done;
  };
  await withConflictRetries(policy, item.key, attempt, signal);
}

/**
 * Writes an item into its chunk's stored bytes (`merge`; else into the fill value) through the
 * chain's partial encoder; under compare-and-swap (`swap`), conditional on the version read.
 */
async function writePart(task: WriteTask, store: WritableStore, item: ChunkItem, signal: AbortSignal | undefined, merge: boolean, swap?: SwapAttempt): Promise<void> {
  let previous: Uint8Array | undefined;
  if (swap) {
    const read = await readVersioned(store, item.key, { signal });
    previous = read.kind === "value" ? read.bytes : undefined;
    swap.condition = read.kind === "value" ? { ifMatch: read.version } : { ifNoneMatch: "*" };
  } else if (merge) previous = (await store.get(item.key, { signal })) ?? undefined;
  const writeEmpty = task.writeEmptyChunks || (swap !== undefined && previous !== undefined);
  await withLease(store, async (lease) => {
    let encoded: EncodedChunk;
    try {
      encoded = await pipelineFor(task.meta, chunkShapeOf(task.meta, item)).partialEncoder(previous, { lease, writeEmpty }).encode(chunkWrite(task, item));
    } catch (err) {
      throw err instanceof CorruptChunkError ? asCorruptChunk(item.key, err) : err;
    }
    await storeEncoded(store, item, encoded, swap);
  });
}

/** An item's write into its decoded chunk: the value's elements (or the scalar) put at the item's runs. */
function chunkWrite(task: WriteTask, item: ChunkItem): ChunkWrite {
  const { meta, value } = task;
  return {
    selection: item.chunkSel,
    covers: coversChunk(meta, item, false),
    put(chunk) {
      const target = regionAt(item.chunkSel.map((r) => r.start), item.chunkSel.map((r) => r.step), chunk.strides, chunk.offset);
      const counts = item.chunkSel.map((r) => r.count);
      if (value.kind === "scalar") {
        const comps = scalarToComponents(value.value, meta.dtype);
        if (item.scatter) forEachScattered(item, target, [], (b) => setElement(chunk.data, b, comps));
        else fillElements(chunk.data, target, counts, comps);
      } else if (item.scatter) {
        const c = componentsPerElement(meta.dtype);
        forEachScattered(item, target, value.buffer.strides, (b, o) => copyElement(chunk.data, b, value.buffer.data, o, c));
      } else copyElements(meta.dtype, chunk.data, target, value.buffer.data, valueRegionOf(item, value.buffer), counts);
    },
  };
}

/** Where a write item's elements lie in the task's value. */
function valueRegionOf(item: ChunkItem, value: TaskBuffer): StridedRegion {
  return item.valueRegion ?? regionAt(item.outStart, item.outStep ?? null, value.strides);
}

/** The wait before attempt `n + 1` (n >= 1): "full jitter", a random share of the capped exponential. */
export function conflictBackoff(policy: ConditionalWritePolicy, n: number, random = Math.random): number {
  return random() * Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** (n - 1));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortError());
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs `attempt` (one read, merge and conditional write of `key`; true when the write went
 * through) until it succeeds, backing off between attempts; after `maxAttempts` failures, a
 * WriteConflictError. Returns the number of attempts made.
 */
export async function withConflictRetries(
  policy: ConditionalWritePolicy,
  key: string,
  attempt: () => Promise<boolean>,
  signal?: AbortSignal,
): Promise<number> {
  for (let n = 1; n <= policy.maxAttempts; n++) {
    if (n > 1) await sleep(conflictBackoff(policy, n - 1), signal);
    if (signal?.aborted) throw new AbortError();
    if (await attempt()) return n;
  }
  throw new WriteConflictError(
    `chunk "${key}" changed under each of ${policy.maxAttempts} conditional writes: other writers kept winning (raise conditionalWrites.maxAttempts, or write less contended regions)`,
    key,
    policy.maxAttempts,
  );
}
