/**
 * One read or write of an array, run: the handle (hierarchy/array.ts) resolves the selection,
 * plans the chunk items and checks the caller's output or value; here a read is placed (inline
 * or on a pool), its output staged for workers, read through the chunk cache when the handle has
 * one, and run by the coordinator. Writes run in write-operation.ts, loaded with the first.
 */
import { InvalidArgumentError } from "../../errors.js";
import type { ArrayMetadata } from "../../metadata/array-metadata.js";
import { isObjectType, type ElementArray, type TypedArray } from "../../metadata/dtype.js";
import { allocElements, isTypedArray } from "../../metadata/elements.js";
import type { ChunkPlan } from "../../indexing/projection.js";
import { contiguousStrides, product } from "../../indexing/strided.js";
import { allocateOrTooLarge } from "../../limits.js";
import type { Store } from "../../stores/types.js";
import { pipelineFor, placeFromChunk, taskMeta, type ChunkItem, type ChunkTask, type ReadTask, type TaskBuffer, type WriteValue } from "../chunk-io/chunk-task.js";
import { chunkBytesOf } from "../chunk-io/chunk-codec.js";
import type { ChunkCache, Recheck } from "../chunk-io/chunk-cache.js";
import { lazyFeatures } from "../../lazy-features-loader.js";
import type { Synchronizer } from "../sync/synchronizer.js";
import type { ConditionalWritePolicy } from "../sync/conditional-writes.js";
import { placeOperation, runOperation } from "./coordinator.js";
import type { OperationOptions } from "./options.js";
import { isShared } from "./shared.js";
import { OutputStager } from "./staged-output.js";

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
}

/** Runs a read; returns the elements read (those of `into`, or of an output allocated here). */
export async function runRead(op: ReadOperation): Promise<ElementArray> {
  const { store, meta, items, full, into, options, array } = op;
  const chunkBytes = chunkBytesOf(meta);
  // An empty output of the type tells the coordinator whether workers could share it at all.
  const probe = allocElements(meta.dtype, 0);
  const { decodeCost } = pipelineFor(meta);
  const { cache } = array;
  const place = (o: OperationOptions, holdsChunkBuffers = false) =>
    placeOperation({ store, chunkCount: items.count, chunkBytes, decodeCost, op: "read", data: probe, holdsChunkBuffers }, o);
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
  // A staged task holds a chunk-sized slot of shared memory per chunk until it is copied out.
  const placed = placeOptions === options && !stager ? placement : place(placeOptions, stager !== null);
  await runOperation(placed, items, chunkBytes, makeTask, store, placeOptions, undefined, after);
  return data;
}
