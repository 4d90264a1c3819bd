/**
 * One read or write of an array, run: the handle (hierarchy/array.ts) resolves the selection,
 * plans the chunk items and checks the caller's output or value; here the operation is placed
 * (inline or on a pool), its output or value staged for workers, read through the chunk cache
 * when the handle has one, and run by the coordinator.
 */
import { InvalidArgumentError } from "../../errors.js";
import type { ArrayMetadata } from "../../metadata/array-metadata.js";
import { componentsPerElement, isObjectType, type ElementArray, type TypedArray } from "../../metadata/dtype.js";
import { allocElements, isTypedArray, memoryBytesPerComponent } from "../../metadata/elements.js";
import type { ChunkPlan } from "../../indexing/projection.js";
import { contiguousStrides, product } from "../../indexing/strided.js";
import { allocateOrTooLarge } from "../../limits.js";
import { CallerStore } from "../../stores/caller.js";
import type { Store } from "../../stores/types.js";
import { pipelineFor, placeFromChunk, taskMeta, type ChunkItem, type ChunkTask, type ReadTask, type TaskBuffer, type WriteTask, type WriteValue } from "../chunk-io/chunk-task.js";
import { cacheId, type ChunkCache, type Recheck } from "../chunk-io/chunk-cache.js";
import { lazyFeatures } from "../../lazy-features-loader.js";
import type { ChunkLockRef } from "../sync/lock-table.js";
import type { Synchronizer } from "../sync/synchronizer.js";
import type { ConditionalWritePolicy } from "../sync/conditional-writes.js";
import { placeOperation, runOperation } from "./coordinator.js";
import type { OperationOptions } from "./options.js";
import { isShared } from "./shared.js";
import { OutputStager } from "./staged-output.js";
import { ValueStager } from "./staged-value.js";

/** What an array's handle was opened with that its reads and writes run by. */
export interface ArrayRunOptions {
  /** Store chunks whose values all equal the fill value (by default they are deleted). */
  writeEmptyChunks?: boolean;
  /** Lock files for partial-chunk writes shared with other processes. */
  synchronizer?: Synchronizer;
  /** Partial-chunk writes by compare-and-swap (conditional-writes.ts), without locks. */
  conditionalWrites?: ConditionalWritePolicy;
  /** false: reading a chunk that is not stored is a MissingChunkError (default true: the fill value). */
  fillMissingDataReads?: boolean;
  /** Decoded chunks shared with other handles (chunk-cache.ts); reads go through it. */
  cache?: ChunkCache;
  /** When a cached chunk is revalidated before use (default true: on every read). */
  recheckCachedData?: Recheck;
}

interface Operation {
  store: Store;
  meta: ArrayMetadata;
  /** The chunk items, made as the coordinator takes them. */
  items: ChunkPlan<ChunkItem>;
  array: ArrayRunOptions;
  options: OperationOptions;
}

export interface ReadOperation extends Operation {
  /** The layout of the output buffer the tasks address. */
  full: number[];
  /** The caller's `out`, checked against the selection; null: the output is allocated here. */
  into: { data: TypedArray; strides: number[] } | null;
  /** Whether the selection's output can be filled through staged buffers (`canStage`). */
  stageable: boolean;
  /** When the handle was opened (for `recheckCachedData: "open"`). */
  openedAt: number;
  /** Names the read in errors ("reading array /a"). */
  what: string;
}

export interface WriteOperation extends Operation {
  value: WriteValue;
  /**
   * The array's chunk locks (lock-table.ts): the process-wide table travels in every task (a
   * SharedArrayBuffer, shared with workers). Made by the write's plan (array-writes.ts), which
   * loads the lock code, so that a page that only reads holds none of it.
   */
  lock: ChunkLockRef;
}

/** Bytes of one decoded chunk in memory. */
function chunkBytesOf(meta: ArrayMetadata): number {
  const dt = meta.dtype;
  // Strings and byte strings are JS values of no fixed size (and always run inline): the
  // coordinator only needs an estimate, so count a reference each.
  if (isObjectType(dt)) return product(meta.chunks) * 8;
  return product(meta.chunks) * componentsPerElement(dt) * memoryBytesPerComponent(dt);
}

/** Runs a read; returns the elements read (those of `into`, or of an output allocated here). */
export async function runRead(op: ReadOperation): Promise<ElementArray> {
  const { store, meta, items, full, into, options, array } = op;
  const chunkBytes = chunkBytesOf(meta);
  // An empty output of the type tells the coordinator whether workers could share it at all.
  const probe = allocElements(meta.dtype, 0);
  const { decodeCost } = pipelineFor(meta);
  const { cache } = array;
  const place = (o: OperationOptions) => placeOperation({ store, chunkCount: items.count, chunkBytes, decodeCost, op: "read", data: probe }, o);
  const placement = place(options);
  // Workers write only into shared memory. A result they fill is still ordinary memory (a
  // dropped SharedArrayBuffer is not collected in time: see staged-output.ts), as is a caller's
  // `out` that is not shared: tasks then read into reused shared buffers, copied into it here.
  // A shared `out` is written in place; a scattering selection or a cache fill gets shared memory.
  const onPool = placement.where === "pool" && placement.shared;
  const staged = onPool && op.stageable && !(cache && !isObjectType(meta.dtype)) && (into === null || !isShared(into.data));
  const data = into?.data ?? allocateOrTooLarge(() => allocElements(meta.dtype, product(full), onPool && !staged), product(full) * meta.dtype.itemSize, op.what);
  let placeOptions: OperationOptions = options;
  if (onPool && !staged && !(isTypedArray(data) && isShared(data))) {
    // A private `out` that workers would have to write in place (a selection that scatters, or
    // a chunk-cache fill): filled on this thread.
    if (options.threads !== undefined && options.threads !== 0) {
      const why = cache ? "a read through a chunk cache" : "a point or integer-array selection";
      throw new InvalidArgumentError(`get: threads ${options.threads} with ${why} needs an out on a SharedArrayBuffer (workers cannot write into this one); pass threads: 0 or a shared out`);
    }
    placeOptions = { ...options, threads: 0 };
  }
  const out: TaskBuffer = { data, strides: into?.strides ?? contiguousStrides(full) };
  const descriptor = store.descriptor();
  const missing = array.fillMissingDataReads === false ? ({ missing: "error" } as const) : {};
  if (cache && !isObjectType(meta.dtype)) {
    const run = { placeOperation, runOperation, placeFromChunk, taskMeta };
    const context = { cache, recheck: array.recheckCachedData ?? true, openedAt: op.openedAt, store, meta, missing: missing.missing, run };
    // Loaded with the first read through a cache (cached-read.ts, in lazy-features.ts).
    await lazyFeatures((m) => m.readThroughCache(context, items, out, placeOptions))();
    return data;
  }
  const sent = taskMeta(meta);
  const taskOf = (batch: ChunkItem[], buffer: TaskBuffer): ReadTask => ({ kind: "read", store: descriptor, meta: sent, items: batch, out: buffer, ...missing });
  const stager = staged ? new OutputStager(meta.dtype, meta.chunks, { ...out, data: data as TypedArray }) : null;
  const makeTask = (batch: ChunkItem[]): ReadTask => (stager ? stager.stage(batch, taskOf) : taskOf(batch, out));
  const after = stager ? (task: ChunkTask, ok: boolean) => stager.finish(task as ReadTask, ok) : undefined;
  const placed = placeOptions === options ? placement : place(placeOptions);
  await runOperation(placed, items, chunkBytes, makeTask, store, placeOptions, undefined, after);
  return data;
}

/** Runs a write of a value already converted and checked against the selection. */
export async function runWrite(op: WriteOperation): Promise<void> {
  const { store, meta, items, value, options, array, lock } = op;
  const chunkBytes = chunkBytesOf(meta);
  const data = value.kind === "array" ? value.buffer.data : null;
  const { decodeCost } = pipelineFor(meta);
  const placement = placeOperation({ store, chunkCount: items.count, chunkBytes, decodeCost, op: "write", data }, options);
  // Workers read the value from shared memory: a shared value as it is, any other gathered task
  // by task into reused shared buffers (staged-value.ts) rather than copied whole into fresh ones.
  const stager =
    placement.where === "pool" && value.kind === "array" && isTypedArray(value.buffer.data) && !isShared(value.buffer.data)
      ? new ValueStager(meta.dtype, { ...value.buffer, data: value.buffer.data })
      : null;
  const descriptor = store.descriptor();
  // A user's store without delete keeps chunks that become all fill value: stored, not stale.
  const writeEmptyChunks = array.writeEmptyChunks ?? (store instanceof CallerStore && !store.canDelete);
  // Compare-and-swap instead of locks, when the array was opened with conditionalWrites.
  const conditional = array.conditionalWrites;
  const { cache } = array;
  const forget = (keys: readonly string[]) => {
    if (cache) for (const key of keys) cache.drop(cacheId(store, meta, key));
  };
  const written: string[] = [];
  const sent = taskMeta(meta);
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
    await runOperation(placement, items, chunkBytes, makeTask, store, options, undefined, stager ? (task) => stager.release(task as WriteTask) : undefined);
  } finally {
    forget(written);
  }
}
