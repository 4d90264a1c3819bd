/**
 * A chunk's codec chain on this thread (one pipeline per array layout, built once), and what a
 * failure to decode a chunk's bytes becomes (chunk tasks and the chunk cache decode through here).
 */
import { asAbort } from "../../errors.js";
import type { ArrayMetadata } from "../../metadata/array-metadata.js";
import { componentsPerElement, isObjectType } from "../../metadata/dtype.js";
import { memoryBytesPerComponent } from "../../metadata/elements.js";
import { product } from "../../indexing/strided.js";
import { CodecPipeline } from "../../codecs/pipeline.js";
import { codecsReady } from "../../codecs/registry.js";
import type { ChunkSpec } from "../../codecs/types.js";
import type { ChunkItem } from "./chunk-task.js";
import { asCorrupt } from "../../codecs/view.js";

const pipelines = new Map<string, CodecPipeline>();

/** The spec of a chunk of `shape` (a rectilinear grid's chunks differ; the regular grid's is `meta.chunks`). */
export function chunkSpecOf(meta: ArrayMetadata, shape: readonly number[] = meta.chunks): ChunkSpec {
  return { shape: [...shape], dtype: meta.dtype, fillValue: meta.fillValue };
}

/**
 * A task asks for the pipeline once per chunk, so the metadata object itself is the first key: the one a task carries, shared by all its items.
 * The JSON key behind it serves equal metadata arriving as new objects (each worker message).
 */
const pipelinesByMeta = new WeakMap<ArrayMetadata, CodecPipeline>();

/** JSON for any fill value: bigints, NaN, ±Infinity and -0 kept apart from the numbers JSON would make of them. */
const fillJson = (_: string, v: unknown): unknown =>
  typeof v === "bigint" ? `${v}n` : typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0)) ? `${Object.is(v, -0) ? "-0" : v}` : v;

/** The chain for chunks of `shape` (default: the regular grid's); one per distinct shape. */
export function pipelineFor(meta: ArrayMetadata, shape: readonly number[] = meta.chunks): CodecPipeline {
  const regular = shape === meta.chunks;
  let p = regular ? pipelinesByMeta.get(meta) : undefined;
  if (p) return p;
  // The fill value is part of the chain (a partial write into a missing chunk starts from it).
  const cacheKey = JSON.stringify([meta.codecs, meta.dtype, shape, meta.fillValue], fillJson);
  p = pipelines.get(cacheKey);
  if (!p) {
    p = CodecPipeline.create(meta.codecs, chunkSpecOf(meta, shape));
    if (pipelines.size > 256) pipelines.clear();
    pipelines.set(cacheKey, p);
  }
  if (regular) pipelinesByMeta.set(meta, p);
  return p;
}

/**
 * Builds the pipeline of `meta` (an unknown codec is reported here) once the modules of the codecs
 * it names have loaded (codecs/registry.ts): undefined when it is built at once, so that an
 * operation whose codecs are loaded starts in its caller's turn (no await), else the loading.
 */
export function pipelineReady(meta: ArrayMetadata): Promise<void> | undefined {
  const loading = pipelinesByMeta.has(meta) ? undefined : codecsReady(meta.codecs);
  if (loading === undefined) return void pipelineFor(meta);
  return loading.then(() => void pipelineFor(meta));
}

/**
 * What a failure while decoding a chunk's bytes becomes: a CorruptChunkError naming the key. Other
 * typed errors (an unknown codec, a store failure) and internal faults pass through as they are.
 */
export function asCorruptChunk(key: string, err: unknown): unknown {
  // A store read (a shard's ranges) that stopped because the operation was cancelled.
  if (asAbort(err) !== err) return asAbort(err);
  return asCorrupt(err, `chunk "${key}" is corrupt`);
}

/** An item's chunk shape: its own on a rectilinear grid, else the regular grid's. */
export function chunkShapeOf(meta: ArrayMetadata, item: ChunkItem): number[] {
  return item.shape ?? meta.chunks;
}

/**
 * Whether an item covers every element of its chunk: of the part inside the array (`inBounds`,
 * enough for a read), or of the whole chunk the grid defines. A write must ask the latter: the
 * shape it knows may be stale, and another writer may have grown the array and stored values in
 * the rest of an edge chunk, which a write of the in-bounds part alone must merge with.
 */
export function coversChunk(meta: ArrayMetadata, item: ChunkItem, inBounds: boolean): boolean {
  // A scattered item may leave holes in its run box (and may repeat elements): always a merge.
  if (item.scatter) return false;
  const shape = chunkShapeOf(meta, item);
  return item.chunkSel.every((r, d) => {
    const extent = inBounds ? Math.min(shape[d], meta.shape[d] - item.origin[d]) : shape[d];
    return r.start === 0 && (r.step === 1 || r.count === 1) && r.count === extent;
  });
}

/** Bytes of one decoded chunk in memory. */
export function chunkBytesOf(meta: ArrayMetadata): number {
  const dt = meta.dtype;
  // Strings and byte strings are JS values of no fixed size (and always run inline): the
  // coordinator only needs an estimate, so count a reference each.
  if (isObjectType(dt)) return product(meta.chunks) * 8;
  return product(meta.chunks) * componentsPerElement(dt) * memoryBytesPerComponent(dt);
}
