/**
 * The whole-chunk fast path of reads: a chunk that the selection covers entirely, and whose place
 * in the output is one contiguous run in the same C order, is decoded straight into the output
 * (on the pool, the shared output buffer) instead of into a fresh buffer that is then copied.
 */
import { CorruptChunkError } from "../errors.js";
import type { Store } from "../stores/types.js";
import type { ArrayMetadata } from "../metadata/array-metadata.js";
import { componentsPerElement, isObjectType } from "../metadata/dtype.js";
import { isTypedArray, memoryBytesPerComponent, typedArrayOver } from "../metadata/elements.js";
import type { ByteScatter, ChunkView } from "../codecs/types.js";
import { contiguousView, regionAt } from "../codecs/view.js";
import { takeScratch } from "../scratch.js";
import { product, type StridedRegion } from "../indexing/strided.js";
import type { ChunkItem, TaskBuffer } from "./chunk-task.js";
import { asCorruptChunk, InternalFault, pipelineFor } from "./chunk-codec.js";

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
  if (size == null) return "missing";
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

/**
 * A chunk's stored bytes, read into a scratch buffer (pushed onto `held`; the caller gives it
 * back) when the store can read into a buffer, else from `get`. Undefined when it is missing.
 */
export async function readChunkBytes(
  store: Store,
  key: string,
  expected: number,
  held: Uint8Array[],
  signal?: AbortSignal,
): Promise<Uint8Array | undefined> {
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
 * Decodes a whole chunk into a scratch buffer (pushed onto `held`) when the chain can decode into
 * a destination without a copy, and returns it as a C-order view; null when the chain cannot, or
 * the output is not a typed array. Failures of the bytes name the chunk's key.
 */
export async function decodeIntoScratch(meta: ArrayMetadata, key: string, bytes: Uint8Array, held: Uint8Array[]): Promise<ChunkView | null> {
  const pipeline = pipelineFor(meta);
  // A chain that decodes into fresh memory anyway (zstd) is read from there: no scratch copy.
  if (!pipeline.decodesIntoWithoutCopy || isObjectType(meta.dtype)) return null;
  const count = product(meta.chunks);
  const length = count * componentsPerElement(meta.dtype);
  const nbytes = length * memoryBytesPerComponent(meta.dtype);
  const buf = takeScratch(nbytes);
  held.push(buf);
  try {
    await pipeline.decodeInto(bytes, buf.subarray(0, nbytes));
  } catch (err) {
    throw asCorruptChunk(key, err);
  }
  return contiguousView(typedArrayOver(meta.dtype, buf.buffer, 0, length), meta.chunks);
}

/**
 * A whole chunk inside the array, read into an output whose innermost dimension is contiguous:
 * each of the chunk's rows is then a run of the output (every interior chunk of a C-order read).
 * Returns the scatter that puts decoded bytes into those runs, or null when that does not apply.
 */
function rowScatter(meta: ArrayMetadata, item: ChunkItem, out: TaskBuffer): ByteScatter | null {
  const data = out.data;
  const chunks = meta.chunks;
  const nd = chunks.length;
  // The chunk's place in the output: a backward slice (outStep -1) runs its dimension backwards,
  // which only outer dimensions may (a row must stay one forward run).
  const { offset: base, strides } = regionAt(item.outStart, item.outStep ?? null, out.strides);
  if (!isTypedArray(data) || nd < 2 || strides[nd - 1] !== 1) return null;
  for (let d = 0; d < nd; d++) {
    const r = item.chunkSel[d];
    if (r.start !== 0 || r.count !== chunks[d] || (r.step !== 1 && r.count !== 1)) return null;
  }
  const elementBytes = componentsPerElement(meta.dtype) * data.BYTES_PER_ELEMENT;
  const rowBytes = chunks[nd - 1] * elementBytes;
  const rows = product(chunks.slice(0, nd - 1));
  const target = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  // Byte offset in the output of each row, in the chunk's C order (an odometer over the outer dims).
  const offsets = new Float64Array(rows);
  const idx = new Array<number>(nd - 1).fill(0);
  for (let i = 0; i < rows; i++) {
    let e = base;
    for (let d = 0; d < nd - 1; d++) e += idx[d] * strides[d];
    offsets[i] = e * elementBytes;
    // Before any byte is decoded: a row outside the output is the plan's fault, not the chunk's.
    if (offsets[i] < 0 || offsets[i] + rowBytes > target.length) throw new InternalFault(`internal error: chunk "${item.key}": row ${i} lies outside the output`);
    for (let d = nd - 2; d >= 0 && ++idx[d] === chunks[d]; d--) idx[d] = 0;
  }
  const length = rows * rowBytes;
  return {
    length,
    put(at: number, src: Uint8Array): void {
      if (at < 0 || at + src.length > length) throw new CorruptChunkError(`decoded bytes [${at}, ${at + src.length}) overrun the ${length}-byte chunk`);
      let row = Math.floor(at / rowBytes);
      let within = at - row * rowBytes;
      for (let i = 0; i < src.length; row++, within = 0) {
        const n = Math.min(rowBytes - within, src.length - i);
        target.set(src.subarray(i, i + n), offsets[row] + within);
        i += n;
      }
    },
  };
}

/**
 * Decodes a whole chunk whose rows are runs of the output straight into them (blosc block by
 * block, raw bytes row by row); false, having written nothing, when the layout or the codec chain
 * does not allow it. Failures of the bytes name the chunk's key.
 */
export async function decodeIntoRows(meta: ArrayMetadata, item: ChunkItem, bytes: Uint8Array, out: TaskBuffer): Promise<boolean> {
  const pipeline = pipelineFor(meta);
  // Checked first: the row offsets cost a pass over the chunk's rows (16,384 for a 128^3 chunk).
  if (!pipeline.decodesScatter) return false;
  const scatter = rowScatter(meta, item, out);
  if (scatter === null) return false;
  try {
    return await pipeline.decodeScatter(bytes, scatter);
  } catch (err) {
    throw asCorruptChunk(item.key, err);
  }
}

/**
 * A whole chunk whose codec places its parts itself (a shard: each inner chunk straight into the
 * output, no shard-sized buffer in between); false, having written nothing, when it cannot.
 * Failures of the bytes name the chunk's key.
 */
export async function decodeIntoRegion(meta: ArrayMetadata, item: ChunkItem, bytes: Uint8Array, out: TaskBuffer, region: StridedRegion): Promise<boolean> {
  const pipeline = pipelineFor(meta);
  if (!pipeline.decodesIntoRegion || item.chunkSel.some((r, d) => r.start !== 0 || r.count !== meta.chunks[d] || (r.step !== 1 && r.count !== 1))) return false;
  try {
    return await pipeline.decodeIntoRegion(bytes, out.data, region);
  } catch (err) {
    throw asCorruptChunk(item.key, err);
  }
}
