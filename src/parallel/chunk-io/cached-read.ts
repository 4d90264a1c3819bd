/**
 * A read through a ChunkCache, on the calling thread: each touched chunk is served from the cache
 * when fresh under `recheckCachedData`, revalidated by a conditional read when not (unchanged:
 * no bytes, no decode), and otherwise read whole as a cache fill: one task path with every other
 * read (runChunkTask), inline or on the pool, each task returning its chunks' versions. Then the
 * selected values are copied out of the cached chunks into the output here.
 */
import { AbortError, MissingChunkError } from "../../errors.js";
import type { ArrayMetadata } from "../../metadata/array-metadata.js";
import { componentsPerElement, type TypedArray } from "../../metadata/dtype.js";
import { allocElements } from "../../metadata/elements.js";
import { copyElements, fillComponents, fillElements, regionAt } from "../../codecs/view.js";
import { contiguousStrides, product } from "../../indexing/strided.js";
import type { ChunkPlan } from "../../indexing/projection.js";
import { readVersioned, type Store } from "../../stores/types.js";
import { asCorruptChunk, chunkShapeOf, pipelineFor } from "./chunk-codec.js";
import type { ChunkItem, ChunkTask, ReadTask, TaskBuffer, placeFromChunk, taskMeta } from "./chunk-task.js";
import { cacheId, isFresh, type CachedChunk, type ChunkCache, type Recheck } from "./chunk-cache.js";
import { CONCURRENCY } from "../execution/concurrency.js";
import type { placeOperation, runOperation } from "../execution/coordinator.js";
import type { OperationOptions } from "../execution/options.js";

/**
 * What this read takes from the chunk runner and the coordinator, handed over by operation.ts:
 * importing them would close a circle through lazy-features.ts, which loads this module with the
 * first read through a cache (a page that sets no cache never loads it).
 */
export interface CacheReadRunner {
  placeOperation: typeof placeOperation;
  runOperation: typeof runOperation;
  placeFromChunk: typeof placeFromChunk;
  taskMeta: typeof taskMeta;
}

export interface CachedReadContext {
  cache: ChunkCache;
  recheck: Recheck;
  /** When the handle was opened (for recheck "open"). */
  openedAt: number;
  store: Store;
  meta: ArrayMetadata;
  missing: "error" | undefined;
  run: CacheReadRunner;
}

/**
 * A whole decoded chunk in C order, copied out of its slot (at element `offset`, `strides` those
 * of the fill task's output) into a buffer of its own. A rectilinear grid's chunk may be smaller
 * than its slot, which has the grid's largest edges.
 */
function wholeChunk(meta: ArrayMetadata, shape: readonly number[], data: TypedArray, offset: number, strides: readonly number[]): TypedArray {
  const per = componentsPerElement(meta.dtype);
  if (shape === meta.chunks) return data.slice(offset * per, (offset + product(shape)) * per);
  const chunk = allocElements(meta.dtype, product(shape)) as TypedArray;
  copyElements(meta.dtype, chunk, { offset: 0, strides: contiguousStrides([...shape]) }, data, { offset, strides: [...strides] }, [...shape]);
  return chunk;
}

export async function readThroughCache(ctx: CachedReadContext, plan: ChunkPlan<ChunkItem>, out: TaskBuffer, options: OperationOptions): Promise<void> {
  const { cache, store, meta } = ctx;
  const { signal } = options;
  const byKey = new Map<string, ChunkItem[]>();
  for (const item of plan) {
    const list = byKey.get(item.key);
    if (list) list.push(item);
    else byKey.set(item.key, [item]);
  }
  const ready = new Map<string, CachedChunk>();
  const stale: [string, CachedChunk, readonly number[]][] = [];
  const misses: ChunkItem[] = [];
  for (const [key, items] of byKey) {
    const entry = cache.lookup(cacheId(store, meta, key));
    if (entry === undefined) misses.push(wholeItem(meta, items[0]));
    else if (isFresh(ctx.recheck, entry.checkedAt, ctx.openedAt)) ready.set(key, entry);
    else stale.push([key, entry, chunkShapeOf(meta, items[0])]);
  }
  const changed = await revalidate(ctx, stale, ready, signal);
  if (signal?.aborted) throw new AbortError();
  await fill(ctx, misses, ready, options);
  // Hits: chunks served without reading their bytes (fresh, or found unchanged).
  cache.count("hits", byKey.size - misses.length - changed);
  const fill_ = fillComponents(meta.fillValue, meta.dtype);
  for (const [key, items] of byKey) {
    const entry = ready.get(key)!;
    const shape = chunkShapeOf(meta, items[0]);
    const whole = (data: TypedArray) => ({ data, shape, strides: contiguousStrides(shape), offset: 0 });
    for (const item of items) {
      if (entry.state === "missing") {
        if (ctx.missing === "error") throw new MissingChunkError(`chunk "${key}" is not stored (the array was opened with fillMissingDataReads: false)`, key);
        if (item.scatter) ctx.run.placeFromChunk(meta, item, whole(filledChunk(meta, shape)), out);
        else fillElements(out.data, regionAt(item.outStart, item.outStep ?? null, out.strides), item.chunkSel.map((r) => r.count), fill_);
      } else {
        ctx.run.placeFromChunk(meta, item, whole(entry.data), out);
      }
    }
  }
}

function filledChunk(meta: ArrayMetadata, shape: number[]): TypedArray {
  const data = allocElements(meta.dtype, product(shape)) as TypedArray;
  fillElements(data, { offset: 0, strides: contiguousStrides(shape) }, shape, fillComponents(meta.fillValue, meta.dtype));
  return data;
}

/** The item that reads a chunk whole (its place in a fill task's output is set per batch). */
function wholeItem(meta: ArrayMetadata, item: ChunkItem): ChunkItem {
  const shape = chunkShapeOf(meta, item);
  return {
    key: item.key,
    origin: item.origin,
    ...(item.shape && { shape: item.shape }),
    chunkSel: shape.map((n) => ({ start: 0, step: 1, count: n })),
    outStart: shape.map(() => 0),
  };
}

/**
 * Conditional reads of stale entries: unchanged ones are fresh again, changed ones decoded here.
 * Returns how many had changed.
 */
async function revalidate(ctx: CachedReadContext, stale: [string, CachedChunk, readonly number[]][], ready: Map<string, CachedChunk>, signal?: AbortSignal): Promise<number> {
  const { cache, store, meta } = ctx;
  let next = 0;
  let changed = 0;
  const runner = async (): Promise<void> => {
    while (next < stale.length) {
      const [key, entry, shape] = stale[next++];
      const now = Date.now();
      const read = await readVersioned(store, key, { signal, ifChanged: entry.state === "stored" && entry.version !== "" ? entry.version : undefined });
      let fresh: CachedChunk;
      if (read.kind === "unchanged") {
        cache.count("revalidated");
        fresh = { ...entry, checkedAt: now };
      } else if (read.kind === "missing") {
        if (entry.state === "missing") cache.count("revalidated");
        else {
          cache.count("misses");
          changed++;
        }
        fresh = { state: "missing", checkedAt: now };
      } else {
        cache.count("misses");
        changed++;
        const data = allocElements(meta.dtype, product(shape)) as TypedArray;
        await pipelineFor(meta, shape).decodeInto(read.bytes, { data, offset: 0, strides: contiguousStrides([...shape]) }).catch((err) => Promise.reject(asCorruptChunk(key, err)));
        fresh = { state: "stored", data, version: read.version, checkedAt: now };
      }
      cache.store(cacheId(store, meta, key), fresh);
      ready.set(key, fresh);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY.revalidateInFlight, stale.length) }, runner));
  return changed;
}

/**
 * Reads the missing chunks whole, inline or on the pool as any read: a task's chunks are stacked
 * along the first dimension of its own output (shared memory on the pool, so workers decode in
 * place), and each comes back with its version to be cached.
 */
async function fill(ctx: CachedReadContext, misses: ChunkItem[], ready: Map<string, CachedChunk>, options: OperationOptions): Promise<void> {
  if (misses.length === 0) return;
  const { cache, store, meta } = ctx;
  ctx.cache.count("misses", misses.length);
  // One slot per chunk, of the regular grid's chunk shape (a rectilinear grid's largest edges).
  const chunkElems = product(meta.chunks);
  const chunkBytes = chunkElems * meta.dtype.itemSize;
  const probe = allocElements(meta.dtype, 0);
  const { decodeCost } = pipelineFor(meta);
  // A fill task holds a fresh chunk-sized slot per chunk until it ends.
  const placement = ctx.run.placeOperation({ store, chunkCount: misses.length, chunkBytes, decodeCost, op: "read", data: probe, holdsChunkBuffers: true }, options);
  const shared = placement.where === "pool" && placement.shared;
  const descriptor = store.descriptor();
  const first = meta.chunks[0] ?? 1;
  const sent = ctx.run.taskMeta(meta);
  const makeTask = (batch: ChunkItem[]): ReadTask => {
    const stackedShape = meta.chunks.length === 0 ? [] : [first * batch.length, ...meta.chunks.slice(1)];
    const out: TaskBuffer = { data: allocElements(meta.dtype, chunkElems * batch.length, shared), strides: contiguousStrides(stackedShape) };
    const items = batch.map((item, i) => ({ ...item, outStart: item.outStart.map((_, d) => (d === 0 ? i * first : 0)) }));
    return { kind: "read", store: descriptor, meta: sent, items, out, fillCache: true, ...(ctx.missing ? { missing: ctx.missing } : {}) };
  };
  const now = Date.now();
  const onVersions = (task: ChunkTask, versions: [number, string | null][]): void => {
    if (task.kind !== "read") return;
    for (const [index, version] of versions) {
      const key = task.items[index].key;
      const entry: CachedChunk =
        version === null
          ? { state: "missing", checkedAt: now }
          : { state: "stored", data: wholeChunk(meta, chunkShapeOf(meta, task.items[index]), task.out.data as TypedArray, index * chunkElems, task.out.strides), version, checkedAt: now };
      cache.store(cacheId(store, meta, key), entry);
      ready.set(key, entry);
    }
  };
  const plan: ChunkPlan<ChunkItem> = { count: misses.length, [Symbol.iterator]: () => misses[Symbol.iterator]() };
  await ctx.run.runOperation(placement, plan, chunkBytes, makeTask, store, options, onVersions);
}
