/**
 * Chunk tasks: plain, structured-cloneable objects, and the one function that runs them. The same
 * `runChunkTask` runs inline on the main thread or inside a worker, so there is one code path.
 */
import { asAbort, MissingChunkError, ReadOnlyError } from "../../errors.js";
import type { ArrayMetadata } from "../../metadata/array-metadata.js";
import { componentsPerElement, type ElementArray, type Scalar } from "../../metadata/dtype.js";
import { allocElements } from "../../metadata/elements.js";
import type { ByteSource, ChunkView } from "../../codecs/types.js";
import { copyElements, fillComponents, fillElements, regionAt } from "../../codecs/view.js";
import { contiguousStrides, product, type StridedRegion } from "../../indexing/strided.js";
import type { DimRun, Scatter } from "../../indexing/projection.js";
import { copyElement, forEachScattered } from "../../indexing/scatter.js";
import type { Store, StoreDescriptor, WritableStore } from "../../stores/types.js";
import { isWritable, readVersioned } from "../../stores/types.js";
import { storeFromDescriptor } from "../../stores/kinds.js";
import { asCorruptChunk, chunkShapeOf, chunkSpecOf, pipelineFor } from "./chunk-codec.js";
import { codecsReady } from "../../codecs/registry.js";
// The chunk cache, operations and the fetched-chunk paths import these from here.
export { chunkShapeOf, chunkSpecOf, coversChunk, pipelineFor } from "./chunk-codec.js";
import { lazyFeatures } from "../../lazy-features-loader.js";
import { giveScratch, takeScratch } from "../../scratch.js";
import type { ChunkLockRef } from "../sync/lock-table.js";
import type { ConditionalWritePolicy } from "../sync/conditional-writes.js";

/** How write tasks run (chunk-writes.ts), loaded with the first (lazy-features.ts): a thread that only reads never loads it. */
const chunkWrites = lazyFeatures;

/** One chunk of a task: its store key and the runs within the chunk and within the output/value. @hidden */
export interface ChunkItem {
  key: string;
  /** The chunk's first element in array coordinates. */
  origin: number[];
  /** The chunk's shape on a rectilinear grid (see chunkShapeOf); absent: the regular `meta.chunks`. */
  shape?: number[];
  chunkSel: DimRun[];
  /** Start of the matching region in the full-rank output (reads) or value (writes). */
  outStart: number[];
  /** Per dimension +1 or -1 (a backward slice places its run backwards); absent: all +1. */
  outStep?: number[];
  /** Integer arrays, masks and points: where each selected element goes (projection.ts). */
  scatter?: Scatter;
  /**
   * Writes whose value was staged for workers (staged-value.ts): the item's region of the task's
   * value, in place of `outStart`/`outStep` over the value's strides.
   */
  valueRegion?: StridedRegion;
}

/** A strided n-d buffer shared with the task: the output of a read or the value of a write. */
export interface TaskBuffer {
  /** A typed array, or (variable-length types, run inline) a JS array of strings / Uint8Arrays. */
  data: ElementArray;
  /** Full-rank element strides (dropped dimensions included). */
  strides: number[];
}

/**
 * The metadata a task carries: the array's without its attributes, which no task reads and which
 * every message to a worker would clone (1 MB of them made a 2-thread read cost 4-5x the CPU).
 */
export function taskMeta(meta: ArrayMetadata): ArrayMetadata {
  return Object.keys(meta.attributes).length === 0 ? meta : { ...meta, attributes: {} };
}

/** A read of chunk items into a shared buffer, as operations plan it. @hidden */
export interface ReadTask {
  kind: "read";
  store: StoreDescriptor;
  meta: ArrayMetadata;
  items: ChunkItem[];
  out: TaskBuffer;
  /**
   * "error": a chunk that is not stored is a MissingChunkError naming its key (the array was
   * opened with `fillMissingDataReads: false`); absent: it reads as the fill value.
   */
  missing?: "error";
  /**
   * A cache fill (cached-read.ts): each item is a whole chunk, read with its version and decoded
   * into its place; runChunkTask returns the versions (null: the chunk is missing).
   */
  fillCache?: true;
}

/** The version of a chunk's bytes as read (see VersionedRead), or null when it is missing. */
export type ChunkVersion = string | null;

export type WriteValue = { kind: "array"; buffer: TaskBuffer } | { kind: "scalar"; value: Scalar };

/** A write of chunk items from a shared value, as operations plan it. @hidden */
export interface WriteTask {
  kind: "write";
  store: StoreDescriptor;
  meta: ArrayMetadata;
  items: ChunkItem[];
  value: WriteValue;
  /** Store chunks even when every value equals the fill value. */
  writeEmptyChunks: boolean;
  /** Chunk locks for partial-chunk writes (lock-table.ts); absent: this thread's process table. */
  lock?: ChunkLockRef;
  /**
   * Partial-chunk writes by compare-and-swap instead of locks (conditional-writes.ts): read with
   * the version, merge, write only if the version still holds, else again. `lock` is then unused.
   */
  conditional?: ConditionalWritePolicy;
}

/** What runChunkTask runs: built by the planner, cloned to workers; not built by callers. @hidden */
export type ChunkTask = ReadTask | WriteTask;

// ---------------------------------------------------------------------------------------------
// Per-thread cache: a store per descriptor (chunk-codec.ts keeps the pipelines).

const stores = new Map<string, Store>();

/** This thread's store for a descriptor (opened once, then reused). */
export function storeFor(d: StoreDescriptor): Store {
  const cacheKey = JSON.stringify(d);
  const cached = stores.get(cacheKey);
  if (cached) return cached;
  const s = storeFromDescriptor(d);
  stores.set(cacheKey, s);
  return s;
}

/**
 * The chunk's bytes as its codec chain reads them: whole (into this thread's scratch, pushed onto
 * `held`, where the store reads into a buffer), by range (a shard's index and inner chunks), or
 * straight into a buffer. Store failures are remembered in `fromStore`: they are not the bytes' fault.
 */
function chunkSource(task: ReadTask, store: Store, key: string, held: Uint8Array[], fromStore: Set<unknown>, signal: AbortSignal | undefined): ByteSource {
  const io = async <T>(read: () => Promise<T>): Promise<T> => {
    try {
      return await read();
    } catch (err) {
      fromStore.add(err);
      throw err;
    }
  };
  // Most stored chunks are at most their decoded size plus a header; a longer one is read again.
  const expected = product(task.meta.chunks) * Math.max(1, task.meta.dtype.itemSize) + 1024;
  const readInto = store.readInto?.bind(store);
  return {
    get cacheKey() {
      return `${JSON.stringify(task.store)}\u0001${key}`;
    },
    get: () => io(() => readChunkBytes(store, key, expected, held, signal)),
    getRange: (range) =>
      io(async () => {
        if (store.getRangeVersioned) return (await store.getRangeVersioned(key, range, { signal })) ?? undefined;
        const bytes = await store.getRange(key, range, { signal });
        return bytes ? { bytes } : undefined;
      }),
    ...(readInto && { readInto: (dest: Uint8Array | readonly Uint8Array[]) => io(async () => (await readInto(key, dest, { signal })) ?? undefined) }),
  };
}

/**
 * A chunk's stored bytes, read into a scratch buffer (pushed onto `held`; the caller gives it
 * back) when the store can read into a buffer, else from `get`. Undefined when it is missing.
 */
async function readChunkBytes(store: Store, key: string, expected: number, held: Uint8Array[], signal?: AbortSignal): Promise<Uint8Array | undefined> {
  if (!store.readInto) return (await store.get(key, { signal })) ?? undefined;
  let want = expected;
  // A value longer than the buffer is read again into one of its size; twice is the most a value
  // that keeps growing under a concurrent writer gets before it is read as a whole.
  for (let attempt = 0; attempt < 2; attempt++) {
    const buf = takeScratch(want);
    held.push(buf);
    const size = await store.readInto(key, buf, { signal });
    if (size == null) return undefined;
    if (size <= buf.length) return buf.subarray(0, size);
    want = size;
  }
  return (await store.get(key, { signal })) ?? undefined;
}

/**
 * A scattered read: the item's run box is read as a plain item into a buffer of its own (so the
 * chunk is fetched and decoded once, by whichever path fits), then each selected element is
 * copied to its place in the output.
 */
async function readScattered(task: ReadTask, store: Store, item: ChunkItem, signal: AbortSignal | undefined): Promise<void> {
  const { meta, out } = task;
  const counts = item.chunkSel.map((r) => r.count);
  const boxStrides = contiguousStrides(counts);
  const box = allocElements(meta.dtype, product(counts));
  const plain: ChunkItem = { key: item.key, origin: item.origin, shape: item.shape, chunkSel: item.chunkSel, outStart: counts.map(() => 0) };
  await readItem({ ...task, out: { data: box, strides: boxStrides } }, store, plain, signal);
  const c = componentsPerElement(meta.dtype);
  forEachScattered(item, { offset: 0, strides: boxStrides }, out.strides, (b, o) => copyElement(out.data, o, box, b, c));
}

/** A chunk that is not stored: the fill value, or with `missing: "error"` a MissingChunkError. */
function fillMissing(task: ReadTask, item: ChunkItem, outRegion: StridedRegion, counts: number[]): void {
  if (task.missing === "error") {
    throw new MissingChunkError(`chunk "${item.key}" is not stored (the array was opened with fillMissingDataReads: false)`, item.key);
  }
  fillElements(task.out.data, outRegion, counts, fillComponents(task.meta.fillValue, task.meta.dtype));
}

/**
 * Reads one chunk's part into the output: the chain's partial decoder reads what the part needs
 * (a shard: only its inner chunks) and decodes it into its place, by whatever way the chain and the
 * place allow. The stored bytes live in this thread's reused scratch until then: no memory per chunk.
 */
async function readItem(task: ReadTask, store: Store, item: ChunkItem, signal: AbortSignal | undefined): Promise<void> {
  if (item.scatter) return readScattered(task, store, item, signal);
  const { meta, out } = task;
  const target = { data: out.data, ...regionAt(item.outStart, item.outStep ?? null, out.strides) };
  const held: Uint8Array[] = [];
  const fromStore = new Set<unknown>();
  let found: boolean;
  try {
    found = await pipelineFor(meta, chunkShapeOf(meta, item)).partialDecoder(chunkSource(task, store, item.key, held, fromStore, signal)).decodeInto(item.chunkSel, target);
  } catch (err) {
    throw fromStore.has(err) ? asAbort(err) : asCorruptChunk(item.key, err);
  } finally {
    for (const b of held) giveScratch(b);
  }
  if (!found) fillMissing(task, item, target, item.chunkSel.map((r) => r.count));
}

/**
 * Copies an item's values out of a whole decoded chunk (C order or strided, `view`) into the
 * output: a scattered item through a box of its runs, as readScattered does.
 */
export function placeFromChunk(meta: ArrayMetadata, item: ChunkItem, view: ChunkView, out: TaskBuffer): void {
  const counts = item.chunkSel.map((r) => r.count);
  const src = regionAt(
    item.chunkSel.map((r) => r.start),
    item.chunkSel.map((r) => r.step),
    view.strides,
    view.offset,
  );
  if (!item.scatter) {
    copyElements(meta.dtype, out.data, regionAt(item.outStart, item.outStep ?? null, out.strides), view.data, src, counts);
    return;
  }
  const boxStrides = contiguousStrides(counts);
  const box = allocElements(meta.dtype, product(counts));
  copyElements(meta.dtype, box, { offset: 0, strides: boxStrides }, view.data, src, counts);
  const c = componentsPerElement(meta.dtype);
  forEachScattered(item, { offset: 0, strides: boxStrides }, out.strides, (b, o) => copyElement(out.data, o, box, b, c));
}

/** A cache fill's item: the whole chunk, with the version of the bytes it was decoded from. */
async function readWholeVersioned(task: ReadTask, store: Store, item: ChunkItem, signal: AbortSignal | undefined): Promise<ChunkVersion> {
  const { meta, out } = task;
  const outRegion = regionAt(item.outStart, null, out.strides);
  const read = await readVersioned(store, item.key, { signal });
  if (read.kind !== "value") {
    fillMissing(task, item, outRegion, chunkShapeOf(meta, item));
    return null;
  }
  try {
    await pipelineFor(meta, chunkShapeOf(meta, item)).decodeInto(read.bytes, { data: out.data, ...outRegion });
  } catch (err) {
    throw asCorruptChunk(item.key, err);
  }
  return read.version;
}

/**
 * The store a read task's items read from: for a store that can fetch several chunks in fewer
 * requests (`prefetch`: a ReferenceStore merges nearby byte ranges of a file), a view holding all
 * the task's chunks, fetched together; else the store itself.
 */
export async function prefetchedStore(task: ChunkTask, store: Store, signal?: AbortSignal): Promise<Store> {
  if (task.kind !== "read" || task.items.length < 2 || !store.prefetch) return store;
  return store.prefetch(task.items.map((i) => i.key), { signal });
}

/**
 * Runs one task: every chunk item in it, one after another. Store I/O inside is async, so an
 * executor overlaps several tasks to hide latency. A worker opens the store from the task's
 * descriptor; the inline executor passes the caller's store object, so custom stores work too.
 * `signal` reaches every store read, so a slow fetch stops when the operation is cancelled.
 * @hidden
 */
export async function runChunkTask(task: ChunkTask, store: Store = storeFor(task.store), signal?: AbortSignal): Promise<ChunkVersion[] | undefined> {
  // A worker's first task of an array loads the modules of its codecs (codecs/registry.ts).
  const loading = codecsReady(task.meta.codecs);
  if (loading !== undefined) await loading;
  if (task.kind === "read") {
    store = await prefetchedStore(task, store, signal);
    if (task.fillCache) {
      const versions: ChunkVersion[] = [];
      for (const item of task.items) versions.push(await readWholeVersioned(task, store, item, signal));
      return versions;
    }
    for (const item of task.items) await readItem(task, store, item, signal);
    return undefined;
  }
  if (!isWritable(store)) throw new ReadOnlyError("the store is read-only");
  await chunkWrites((m) => m.writeItems(task, store as WritableStore, signal))();
  return undefined;
}
