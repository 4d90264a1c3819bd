/**
 * One write of an array, run (operation.ts runs reads): placed inline or on a pool, its value
 * staged for workers, its chunks dropped from the handle's cache, and run by the coordinator.
 * Loaded with the first write (lazy-features.ts), so the handle hands it the coordinator and the
 * chunk runner: importing them would close a circle through lazy-features-loader.ts.
 */
import type { ChunkItem, WriteTask, WriteValue, taskMeta } from "../chunk-io/chunk-task.js";
import { chunkBytesOf, pipelineFor } from "../chunk-io/chunk-codec.js";
import { cacheId } from "../chunk-io/chunk-cache.js";
import { isTypedArray } from "../../metadata/elements.js";
import { CallerStore } from "../../stores/caller.js";
import type { placeOperation, runOperation } from "./coordinator.js";
import type { WriteOperation } from "./operation.js";
import { isShared } from "./shared.js";
import { chunkLockRef, lockScopeOf } from "../sync/lock-table.js";
import { ValueStager } from "./staged-value.js";

/** What the write takes from the coordinator and the chunk runner. */
export interface WriteRunner {
  placeOperation: typeof placeOperation;
  runOperation: typeof runOperation;
  taskMeta: typeof taskMeta;
}

/** Runs a write of a value already converted and checked against the selection. */
export async function runWrite(op: WriteOperation, run: WriteRunner): Promise<void> {
  const { store, meta, items, value, options, array } = op;
  const chunkBytes = chunkBytesOf(meta);
  const data = value.kind === "array" ? value.buffer.data : null;
  const { decodeCost } = pipelineFor(meta);
  const placement = run.placeOperation({ store, chunkCount: items.count, chunkBytes, decodeCost, op: "write", data }, options);
  // Workers read the value from shared memory: a shared value as it is, any other gathered task
  // by task into reused shared buffers (staged-value.ts) rather than copied whole into fresh ones.
  const stager =
    placement.where === "pool" && value.kind === "array" && isTypedArray(value.buffer.data) && !isShared(value.buffer.data)
      ? new ValueStager(meta.dtype, { ...value.buffer, data: value.buffer.data })
      : null;
  const descriptor = store.descriptor();
  // A user's store without delete keeps chunks that become all fill value: stored, not stale.
  const writeEmptyChunks = array.writeEmptyChunks ?? (store instanceof CallerStore && !store.canDelete);
  // The process-wide lock table travels in every task (a SharedArrayBuffer, shared with workers).
  const lock = chunkLockRef(lockScopeOf(descriptor), array.synchronizer?.descriptor());
  // Compare-and-swap instead of locks, when the array was opened with conditionalWrites.
  const conditional = array.conditionalWrites;
  const { cache } = array;
  const forget = (keys: readonly string[]) => {
    if (cache) for (const key of keys) cache.drop(cacheId(store, meta, key));
  };
  const written: string[] = [];
  const sent = run.taskMeta(meta);
  const taskOf = (batch: ChunkItem[], value: WriteValue): WriteTask => ({
    kind: "write",
    store: descriptor,
    meta: sent,
    items: batch,
    value,
    writeEmptyChunks,
    lock,
    ...(conditional ? { conditional } : {}),
  });
  const makeTask = (batch: ChunkItem[]): WriteTask => {
    // Dropped before the chunks change and again after: a read racing this write may have
    // cached a chunk's old value in between. The cache never serves what this process overwrote.
    if (cache) for (const item of batch) written.push(item.key);
    forget(batch.map((item) => item.key));
    return stager ? stager.stage(batch, (items, buffer) => taskOf(items, { kind: "array", buffer })) : taskOf(batch, value);
  };
  try {
    await run.runOperation(placement, items, chunkBytes, makeTask, store, options, undefined, stager ? (task) => stager.release(task as WriteTask) : undefined);
  } finally {
    forget(written);
  }
}
