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
import { decodeChunk, pipelineFor } from "./chunk-codec.js";
import { placeFromChunk, taskMeta, type ChunkItem, type ChunkTask, type ReadTask, type TaskBuffer } from "./chunk-task.js";
import { isFresh, type CachedChunk, type ChunkCache, type Recheck } from "./chunk-cache.js";
import { CONCURRENCY } from "../execution/concurrency.js";
import { placeOperation, runOperation } from "../execution/coordinator.js";
import type { OperationOptions } from "../execution/options.js";

export interface CachedReadContext {
  cache: ChunkCache;
  recheck: Recheck;
  /** When the handle was opened (for recheck "open"). */
  openedAt: number;
  store: Store;
  meta: ArrayMetadata;
  missing: "error" | undefined;
}

/**
 * The cache's name for a chunk: the store, the layout its decoded values depend on, and the key.
 * Two handles on one array share entries; a handle that sees another layout never does.
 */
export function cacheId(store: Store, meta: ArrayMetadata, key: string): string {
  return JSON.stringify([store.descriptor(), meta.dtype, meta.chunks, meta.codecs, meta.fillValue, key]);
}

/** A whole decoded chunk in C order, copied out of a view into a buffer of its own. */
function wholeChunk(meta: ArrayMetadata, data: TypedArray, offset: number): TypedArray {
  const per = componentsPerElement(meta.dtype);
  const n = product(meta.chunks) * per;
  return data.slice(offset * per, offset * per + n);
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
  const stale: [string, CachedChunk][] = [];
  const misses: ChunkItem[] = [];
  for (const [key, items] of byKey) {
    const entry = cache.lookup(cacheId(store, meta, key));
    if (entry === undefined) misses.push(wholeItem(meta, items[0]));
    else if (isFresh(ctx.recheck, entry.checkedAt, ctx.openedAt)) ready.set(key, entry);
    else stale.push([key, entry]);
  }
  const changed = await revalidate(ctx, stale, ready, signal);
  if (signal?.aborted) throw new AbortError();
  await fill(ctx, misses, ready, options);
  // Hits: chunks served without reading their bytes (fresh, or found unchanged).
  cache.count("hits", byKey.size - misses.length - changed);
  const fill_ = fillComponents(meta.fillValue, meta.dtype);
  const chunkStrides = contiguousStrides(meta.chunks);
  for (const [key, items] of byKey) {
    const entry = ready.get(key)!;
    for (const item of items) {
      if (entry.state === "missing") {
        if (ctx.missing === "error") throw new MissingChunkError(`chunk "${key}" is not stored (the array was opened with fillMissingDataReads: false)`, key);
        if (item.scatter) placeFromChunk(meta, item, { data: filledChunk(meta), shape: meta.chunks, strides: chunkStrides, offset: 0 }, out);
        else fillElements(out.data, regionAt(item.outStart, item.outStep ?? null, out.strides), item.chunkSel.map((r) => r.count), fill_);
      } else {
        placeFromChunk(meta, item, { data: entry.data, shape: meta.chunks, strides: chunkStrides, offset: 0 }, out);
      }
    }
  }
}

function filledChunk(meta: ArrayMetadata): TypedArray {
  const data = allocElements(meta.dtype, product(meta.chunks)) as TypedArray;
  fillElements(data, { offset: 0, strides: contiguousStrides(meta.chunks) }, meta.chunks, fillComponents(meta.fillValue, meta.dtype));
  return data;
}

/** The item that reads a chunk whole (its place in a fill task's output is set per batch). */
function wholeItem(meta: ArrayMetadata, item: ChunkItem): ChunkItem {
  return {
    key: item.key,
    origin: item.origin,
    chunkSel: meta.chunks.map((n) => ({ start: 0, step: 1, count: n })),
    outStart: meta.chunks.map(() => 0),
  };
}

/**
 * Conditional reads of stale entries: unchanged ones are fresh again, changed ones decoded here.
 * Returns how many had changed.
 */
async function revalidate(ctx: CachedReadContext, stale: [string, CachedChunk][], ready: Map<string, CachedChunk>, signal?: AbortSignal): Promise<number> {
  const { cache, store, meta } = ctx;
  let next = 0;
  let changed = 0;
  const runner = async (): Promise<void> => {
    while (next < stale.length) {
      const [key, entry] = stale[next++];
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
        const view = await decodeChunk(meta, key, read.bytes);
        const data = allocElements(meta.dtype, product(meta.chunks)) as TypedArray;
        copyElements(meta.dtype, data, { offset: 0, strides: contiguousStrides(meta.chunks) }, view.data, { offset: view.offset, strides: view.strides }, meta.chunks);
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
  const chunkElems = product(meta.chunks);
  const chunkBytes = chunkElems * meta.dtype.itemSize;
  const probe = allocElements(meta.dtype, 0);
  const { decodeCost } = pipelineFor(meta);
  const placement = placeOperation({ store, chunkCount: misses.length, chunkBytes, decodeCost, op: "read", data: probe }, options);
  const shared = placement.where === "pool" && placement.shared;
  const descriptor = store.descriptor();
  const first = meta.chunks[0] ?? 1;
  const sent = taskMeta(meta);
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
          : { state: "stored", data: wholeChunk(meta, task.out.data as TypedArray, index * chunkElems), version, checkedAt: now };
      cache.store(cacheId(store, meta, key), entry);
      ready.set(key, entry);
    }
  };
  const plan: ChunkPlan<ChunkItem> = { count: misses.length, [Symbol.iterator]: () => misses[Symbol.iterator]() };
  await runOperation(placement, plan, chunkBytes, makeTask, store, options, onVersions);
}
