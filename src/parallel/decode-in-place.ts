/**
 * The whole-chunk fast path of reads: a chunk that the selection covers entirely, and whose place
 * in the output is one contiguous run in the same C order, is decoded straight into the output
 * (on the pool, the shared output buffer) instead of into a fresh buffer that is then copied.
 */
import { CorruptChunkError } from "../errors.js";
import type { Store } from "../stores/types.js";
import type { ArrayMetadata } from "../metadata/array-metadata.js";
import { componentsPerElement, isTypedArray } from "../metadata/dtype.js";
import { product } from "../indexing/strided.js";
import type { ChunkItem, TaskBuffer } from "./chunk-task.js";
import { asCorruptChunk, pipelineFor } from "./chunk-task.js";

/** The element offset of the chunk's run in the output, or -1 when it is not one C-order run. */
function contiguousRunStart(meta: ArrayMetadata, item: ChunkItem, out: TaskBuffer): number {
  const chunks = meta.chunks;
  // A backward slice places its run backwards: never one forward run.
  if (item.outStep?.some((s, d) => s !== 1 && item.chunkSel[d].count > 1)) return -1;
  let expected = 1;
  for (let d = chunks.length - 1; d >= 0; d--) {
    const r = item.chunkSel[d];
    if (r.start !== 0 || r.count !== chunks[d] || (r.step !== 1 && r.count !== 1)) return -1;
    if (chunks[d] !== 1 && out.strides[d] !== expected) return -1;
    expected *= chunks[d];
  }
  let offset = 0;
  for (let d = 0; d < chunks.length; d++) offset += item.outStart[d] * out.strides[d];
  return offset;
}

/** The bytes of the chunk's place in `out`, or null when it is not one C-order run. */
function placeOf(meta: ArrayMetadata, item: ChunkItem, out: TaskBuffer): Uint8Array | null {
  const data = out.data;
  if (!isTypedArray(data)) return null;
  const start = contiguousRunStart(meta, item, out);
  if (start < 0) return null;
  const c = componentsPerElement(meta.dtype);
  const width = data.BYTES_PER_ELEMENT;
  return new Uint8Array(data.buffer, data.byteOffset + start * c * width, product(meta.chunks) * c * width);
}

/**
 * Raw chunks (no codec changes their bytes) from a store that can read into a buffer go from the
 * store straight into their place. Returns "read" when done, "missing" when the store has no such
 * key (the caller fills it, without asking the store again), "n/a" when this path does not apply.
 */
export async function readRawIntoPlace(
  meta: ArrayMetadata,
  store: Store,
  item: ChunkItem,
  out: TaskBuffer,
  signal?: AbortSignal,
): Promise<"read" | "missing" | "n/a"> {
  if (!store.readInto || !pipelineFor(meta).storesRawBytes) return "n/a";
  const dest = placeOf(meta, item, out);
  if (dest === null) return "n/a";
  const size = await store.readInto(item.key, dest, { signal });
  if (size === undefined) return "missing";
  if (size !== dest.length) {
    throw new CorruptChunkError(`chunk "${item.key}" is corrupt: expected ${dest.length} bytes, got ${size}`);
  }
  return "read";
}

/**
 * Decodes `bytes` into the chunk's place in `out` when the layout and codec chain allow it;
 * returns false (having written nothing) otherwise. Failures of the bytes name the chunk's key.
 */
export async function decodeIntoPlace(meta: ArrayMetadata, item: ChunkItem, bytes: Uint8Array, out: TaskBuffer): Promise<boolean> {
  const pipeline = pipelineFor(meta);
  if (!pipeline.decodesIntoPlace) return false;
  const dest = placeOf(meta, item, out);
  if (dest === null) return false;
  try {
    return await pipeline.decodeInto(bytes, dest);
  } catch (err) {
    throw asCorruptChunk(item.key, err);
  }
}
