/**
 * Chunk tasks: plain, structured-cloneable objects, and the one function that runs them. The same
 * `runChunkTask` runs inline on the main thread or inside a worker, so there is one code path.
 */
import { CorruptChunkError, ReadOnlyError, ZarrError } from "../errors.js";
import type { ArrayMetadata } from "../metadata/array-metadata.js";
import {
  allocTypedArray,
  componentsPerElement,
  scalarToStored,
  zeroOf,
  type Scalar,
  type TypedArray,
} from "../metadata/dtype.js";
import { CodecPipeline } from "../codecs/pipeline.js";
import type { ChunkSpec, ChunkView } from "../codecs/types.js";
import { componentLayout } from "../codecs/view.js";
import { allEqualStrided, contiguousStrides, copyStrided, fillStrided, product, type StridedRegion } from "../indexing/strided.js";
import type { DimRun } from "../indexing/projection.js";
import type { Store, StoreDescriptor, WritableStore } from "../stores/types.js";
import { isWritable } from "../stores/types.js";
import { storeFromDescriptor } from "../stores/open.js";
import { withChunkLock, type ChunkLockRef } from "./lock-table.js";

/** One chunk of a task: its store key and the runs within the chunk and within the output/value. */
export interface ChunkItem {
  key: string;
  /** The chunk's first element in array coordinates (grid coordinates times chunk shape). */
  origin: number[];
  chunkSel: DimRun[];
  /** Start of the matching region in the full-rank output (reads) or value (writes). */
  outStart: number[];
}

/** A strided n-d buffer shared with the task: the output of a read or the value of a write. */
export interface TaskBuffer {
  data: TypedArray;
  /** Full-rank element strides (dropped dimensions included). */
  strides: number[];
}

export interface ReadTask {
  kind: "read";
  store: StoreDescriptor;
  meta: ArrayMetadata;
  items: ChunkItem[];
  out: TaskBuffer;
}

export type WriteValue = { kind: "array"; buffer: TaskBuffer } | { kind: "scalar"; value: Scalar };

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
}

export type ChunkTask = ReadTask | WriteTask;

// ---------------------------------------------------------------------------------------------
// Per-thread caches: a pipeline per array layout, a store per descriptor.

const pipelines = new Map<string, CodecPipeline>();

export function chunkSpecOf(meta: ArrayMetadata): ChunkSpec {
  return { shape: meta.chunks, dtype: meta.dtype, fillValue: meta.fillValue };
}

export function pipelineFor(meta: ArrayMetadata): CodecPipeline {
  const cacheKey = JSON.stringify([meta.codecs, meta.dtype, meta.chunks]);
  let p = pipelines.get(cacheKey);
  if (!p) {
    p = CodecPipeline.create(meta.codecs, chunkSpecOf(meta));
    if (pipelines.size > 256) pipelines.clear();
    pipelines.set(cacheKey, p);
  }
  return p;
}

const stores = new Map<string, Store>();

function storeFor(d: StoreDescriptor): Store {
  const cacheKey = JSON.stringify(d);
  const cached = stores.get(cacheKey);
  if (cached) return cached;
  const s = storeFromDescriptor(d);
  stores.set(cacheKey, s);
  return s;
}

// ---------------------------------------------------------------------------------------------

/** Decodes a chunk, turning any failure of its bytes into a CorruptChunkError naming the key. */
export async function decodeChunk(meta: ArrayMetadata, key: string, bytes: Uint8Array): Promise<ChunkView> {
  let view: ChunkView;
  try {
    view = await pipelineFor(meta).decode(bytes);
  } catch (err) {
    if (err instanceof ZarrError && err.code !== "CORRUPT_CHUNK") throw err;
    const reason = err instanceof Error ? err.message : String(err);
    throw new CorruptChunkError(`chunk "${key}" is corrupt: ${reason}`, { cause: err });
  }
  const expected = meta.chunks;
  if (view.shape.length !== expected.length || view.shape.some((n, i) => n !== expected[i])) {
    throw new CorruptChunkError(`chunk "${key}" decoded to shape [${view.shape}], expected [${expected}]`);
  }
  return view;
}

/** The fill value as the numbers a typed array stores, one per component. */
function fillComponents(meta: ArrayMetadata): (number | bigint)[] {
  const stored = scalarToStored(meta.fillValue ?? zeroOf(meta.dtype), meta.dtype);
  return Array.isArray(stored) ? stored : [stored];
}

/** Fills a region of elements with per-component values (complex fills re and im separately). */
function fillElements(data: TypedArray, region: StridedRegion, shape: number[], comps: (number | bigint)[]): void {
  if (comps.length === 1) {
    fillStrided(data, region, shape, comps[0]);
    return;
  }
  const c = comps.length;
  const strides = region.strides.map((s) => s * c);
  comps.forEach((v, k) => fillStrided(data, { offset: region.offset * c + k, strides }, shape, v));
}

function regionIn(start: readonly number[], steps: readonly number[] | null, strides: readonly number[], base = 0): StridedRegion {
  let offset = base;
  for (let d = 0; d < start.length; d++) offset += start[d] * strides[d];
  return { offset, strides: steps ? strides.map((s, d) => s * steps[d]) : [...strides] };
}

/** Copies between two element regions, expanding complex elements into their components. */
function copyElements(
  meta: ArrayMetadata,
  dst: TypedArray,
  dstRegion: StridedRegion,
  src: TypedArray,
  srcRegion: StridedRegion,
  shape: number[],
): void {
  const d = componentLayout(shape, dstRegion.strides, dstRegion.offset, meta.dtype);
  const s = componentLayout(shape, srcRegion.strides, srcRegion.offset, meta.dtype);
  copyStrided(dst, d, src, s, d.shape);
}

async function readItem(task: ReadTask, store: Store, item: ChunkItem): Promise<void> {
  const { meta, out } = task;
  const counts = item.chunkSel.map((r) => r.count);
  const outRegion = regionIn(item.outStart, null, out.strides);
  const bytes = await store.get(item.key);
  if (bytes === undefined) {
    fillElements(out.data, outRegion, counts, fillComponents(meta));
    return;
  }
  const view = await decodeChunk(meta, item.key, bytes);
  const srcRegion = regionIn(
    item.chunkSel.map((r) => r.start),
    item.chunkSel.map((r) => r.step),
    view.strides,
    view.offset,
  );
  copyElements(meta, out.data, outRegion, view.data, srcRegion, counts);
}

/** Whether a write covers every element of the chunk that lies inside the array. */
function coversChunk(meta: ArrayMetadata, item: ChunkItem): boolean {
  return item.chunkSel.every((r, d) => {
    const inBounds = Math.min(meta.chunks[d], meta.shape[d] - item.origin[d]);
    return r.start === 0 && (r.step === 1 || r.count === 1) && r.count === inBounds;
  });
}

async function writeItem(task: WriteTask, store: WritableStore, item: ChunkItem): Promise<void> {
  // Whole-chunk writes are last-writer-wins; a partial one reads, merges and writes under a lock.
  if (coversChunk(task.meta, item)) return mergeAndStore(task, store, item, true);
  return withChunkLock(task.lock, item.key, () => mergeAndStore(task, store, item, false));
}

async function mergeAndStore(task: WriteTask, store: WritableStore, item: ChunkItem, whole: boolean): Promise<void> {
  const { meta, value } = task;
  const chunkShape = meta.chunks;
  const chunkStrides = contiguousStrides(chunkShape);
  const comps = fillComponents(meta);
  const chunk = allocTypedArray(meta.dtype, product(chunkShape));
  const full: StridedRegion = { offset: 0, strides: chunkStrides };
  if (whole) {
    // The value overwrites every in-bounds element, so only an edge chunk needs filling first:
    // its part beyond the array holds the fill value, as zarr-python writes it.
    if (item.origin.some((o, d) => o + chunkShape[d] > meta.shape[d])) fillElements(chunk, full, chunkShape, comps);
  } else {
    const bytes = await store.get(item.key);
    if (bytes === undefined) fillElements(chunk, full, chunkShape, comps);
    else {
      const view = await decodeChunk(meta, item.key, bytes);
      copyElements(meta, chunk, full, view.data, { offset: view.offset, strides: view.strides }, chunkShape);
    }
  }
  const counts = item.chunkSel.map((r) => r.count);
  const target = regionIn(
    item.chunkSel.map((r) => r.start),
    item.chunkSel.map((r) => r.step),
    chunkStrides,
  );
  if (value.kind === "scalar") {
    const stored = scalarToStored(value.value, meta.dtype);
    fillElements(chunk, target, counts, Array.isArray(stored) ? stored : [stored]);
  } else {
    const src = regionIn(item.outStart, null, value.buffer.strides);
    copyElements(meta, chunk, target, value.buffer.data, src, counts);
  }
  if (!task.writeEmptyChunks && meta.fillValue !== null && isAllFill(meta, chunk, chunkShape, comps)) {
    await store.delete(item.key);
    return;
  }
  const encoded = await pipelineFor(meta).encode({ data: chunk, shape: chunkShape, strides: chunkStrides, offset: 0 });
  await store.set(item.key, encoded);
}

function isAllFill(meta: ArrayMetadata, chunk: TypedArray, shape: number[], comps: (number | bigint)[]): boolean {
  const c = componentsPerElement(meta.dtype);
  if (c === 1) return allEqualStrided(chunk, { offset: 0, strides: contiguousStrides(shape) }, shape, comps[0]);
  const strides = contiguousStrides(shape).map((s) => s * c);
  return comps.every((v, k) => allEqualStrided(chunk, { offset: k, strides }, shape, v));
}

/**
 * Runs one task: every chunk item in it, one after another. Store I/O inside is async, so an
 * executor overlaps several tasks to hide latency. A worker opens the store from the task's
 * descriptor; the inline executor passes the caller's store object, so custom stores work too.
 */
export async function runChunkTask(task: ChunkTask, store: Store = storeFor(task.store)): Promise<void> {
  if (task.kind === "read") {
    for (const item of task.items) await readItem(task, store, item);
    return;
  }
  if (!isWritable(store)) throw new ReadOnlyError("the store is read-only");
  for (const item of task.items) await writeItem(task, store, item);
}
