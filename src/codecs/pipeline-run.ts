/**
 * What a codec chain does with chunks (decoding whole or in part, into place or row by row;
 * encoding, merging a partial write), apart from the chain itself (pipeline.ts), which only
 * builds and checks it: a page whose chunks decode on workers opens arrays and plans reads with
 * the chain alone and imports this with its first chunk decoded or encoded on its own thread.
 */
import { CorruptChunkError } from "../errors.js";
import { componentsPerElement, isObjectType } from "../metadata/dtype.js";
import { memoryBytesPerComponent, typedArrayOver } from "../metadata/elements.js";
import { contiguousStrides, product } from "../indexing/strided.js";
import type { CodecPipeline } from "./pipeline.js";
import type { ByteScatter, ByteSource, ChunkRun, ChunkView, ChunkWrite, DecodeTarget, EncodedChunk, EncodeOptions } from "./types.js";
import { allFill, asCorrupt, chunkElements, contiguousView, copyElements, coversAll, fillComponents, fillElements, regionAt, rowScatter, targetBytes } from "./view.js";
import { giveScratch, ScratchLease, takeScratch } from "../scratch.js";

export async function decode(p: CodecPipeline, bytes: Uint8Array): Promise<ChunkView> {
  let b = bytes;
  for (let i = p.bytesToBytes.length - 1; i >= 0; i--) b = await p.bytesToBytes[i].decode(b);
  let view = await p.arrayToBytes.codec.decode(b, p.arrayToBytes.spec);
  for (let i = p.arrayToArray.length - 1; i >= 0; i--) {
    const { codec, spec } = p.arrayToArray[i];
    view = codec.decode(view, spec);
  }
  return view;
}

/** The default partial decoder: the whole chunk read and decoded, the selection copied out. */
export async function decodeFrom(p: CodecPipeline, source: ByteSource, selection: readonly ChunkRun[], target: DecodeTarget): Promise<boolean> {
  const { shape, dtype } = p.spec;
  const raw = coversAll(selection, shape) && source.readInto && p.storesRawBytes;
  // Raw bytes from a store that reads into buffers: straight into their place, or its rows.
  const place = raw ? (targetBytes(target, shape, dtype) ?? rowScatter(target, shape, dtype)?.runs()) : null;
  if (place) {
    const length = place instanceof Uint8Array ? place.length : place.reduce((n, run) => n + run.length, 0);
    const size = await source.readInto!(place);
    if (size === undefined) return false;
    if (size !== length) throw new CorruptChunkError(`expected ${length} bytes, got ${size}`);
    return true;
  }
  const bytes = await source.get();
  if (bytes === undefined) return false;
  await decodePart(p, bytes, selection, target);
  return true;
}

/** CodecPipeline.decodePart. */
export async function decodePart(p: CodecPipeline, bytes: Uint8Array, selection: readonly ChunkRun[], target: DecodeTarget): Promise<void> {
  const { shape, dtype } = p.spec;
  if (coversAll(selection, shape)) return decodeInto(p, bytes, target);
  const held: Uint8Array[] = [];
  try {
    const view = await decodeWhole(p, bytes, held);
    const src = regionAt(selection.map((r) => r.start), selection.map((r) => r.step), view.strides, view.offset);
    copyElements(dtype, target.data, target, view.data, src, selection.map((r) => r.count));
  } finally {
    for (const b of held) giveScratch(b);
  }
}

/** CodecPipeline.decodeInto: into place, row by row, inner chunk by inner chunk, else through a buffer. */
export async function decodeInto(p: CodecPipeline, bytes: Uint8Array, target: DecodeTarget): Promise<void> {
  const { shape, dtype } = p.spec;
  const ab = p.arrayToBytes;
  if (ab.codec.decodeInto && p.arrayToArray.length === 0 && p.bytesToBytes.length === 0) return ab.codec.decodeInto(bytes, ab.spec, target);
  if (p.decodesIntoPlace) {
    const place = targetBytes(target, shape, dtype);
    if (place) return decodeBytesInto(p, bytes, place);
    // Checked first: the row offsets cost a pass over the chunk's rows (16,384 for a 128^3 chunk).
    const rows = p.bytesToBytes.length === 0 || p.bytesToBytes[0].decodeScatter ? rowScatter(target, shape, dtype) : null;
    if (rows) return decodeScatter(p, bytes, rows);
  }
  const held: Uint8Array[] = [];
  try {
    const view = await decodeWhole(p, bytes, held);
    copyElements(dtype, target.data, target, view.data, { offset: view.offset, strides: view.strides }, shape);
  } finally {
    for (const b of held) giveScratch(b);
  }
}

/**
 * A whole chunk decoded, checked for its shape: into this thread's scratch (pushed onto `held`)
 * when the last stage decodes into a buffer (blosc, lz4, zstd's reused context), no fresh memory.
 */
async function decodeWhole(p: CodecPipeline, bytes: Uint8Array, held: Uint8Array[]): Promise<ChunkView> {
  const { shape, dtype } = p.spec;
  const bb = p.bytesToBytes;
  // Raw bytes are read where they lie; a stage that decodes into fresh memory anyway, from there.
  if (p.decodesIntoPlace && bb.length > 0 && bb[0].decodeInto && !isObjectType(dtype)) {
    const length = product(shape) * componentsPerElement(dtype);
    const buf = takeScratch(length * memoryBytesPerComponent(dtype));
    held.push(buf);
    await decodeBytesInto(p, bytes, buf.subarray(0, length * memoryBytesPerComponent(dtype)));
    return contiguousView(typedArrayOver(dtype, buf.buffer, 0, length), shape);
  }
  const view = await decode(p, bytes);
  if (view.shape.length !== shape.length || view.shape.some((n, i) => n !== shape[i])) {
    throw new CorruptChunkError(`decoded to shape [${view.shape}], expected [${shape}]`);
  }
  return view;
}

/** The default partial encoder: the whole chunk decoded (or the fill value), the write put in, encoded. */
export async function encodeMerged(p: CodecPipeline, previous: Uint8Array | undefined, write: ChunkWrite, { lease, writeEmpty }: EncodeOptions): Promise<EncodedChunk> {
  const { shape, dtype, fillValue } = p.spec;
  // Leased only where the caller's lease outlives the encoding, which may be a view of it (a raw chain).
  const data = chunkElements(dtype, product(shape), lease);
  const chunk: ChunkView = { data, shape, strides: contiguousStrides(shape), offset: 0 };
  // A write of every element needs neither the fill value nor the old values under it.
  if (!write.covers && previous === undefined) fillElements(data, chunk, shape, fillComponents(fillValue, dtype));
  else if (!write.covers) await decodeInto(p, previous!, chunk).catch((err) => Promise.reject(asCorrupt(err)));
  write.put(chunk);
  if (!writeEmpty && allFill(p.spec, data, chunk)) return { kind: "empty" };
  return { kind: "bytes", bytes: await encode(p, chunk, lease) };
}

/**
 * Decodes a chunk straight into `dest` (its bytes in memory, C order), when `decodesIntoPlace`:
 * the last bytes->bytes stage writes into `dest` when it can, else its result is copied there once.
 */
async function decodeBytesInto(p: CodecPipeline, bytes: Uint8Array, dest: Uint8Array): Promise<void> {
  const bb = p.bytesToBytes;
  let b = bytes;
  for (let i = bb.length - 1; i >= 1; i--) b = await bb[i].decode(b);
  const last = bb[0];
  if (last?.decodeInto) return last.decodeInto(b, dest);
  if (last) b = await last.decode(b);
  if (b.length !== dest.length) throw new CorruptChunkError(`expected ${dest.length} decoded bytes, got ${b.length}`);
  dest.set(b);
}

/** Decodes a chunk into `dest`'s runs piece by piece: the last stage's (blosc), or raw bytes as they are. */
async function decodeScatter(p: CodecPipeline, bytes: Uint8Array, dest: ByteScatter): Promise<void> {
  const bb = p.bytesToBytes;
  if (bb.length === 0) {
    if (bytes.length !== dest.length) throw new CorruptChunkError(`expected ${dest.length} decoded bytes, got ${bytes.length}`);
    return dest.put(0, bytes);
  }
  let b = bytes;
  for (let i = bb.length - 1; i >= 1; i--) b = await bb[i].decode(b);
  await bb[0].decodeScatter!(b, dest);
}

/** CodecPipeline.encode: every stage but the last into this thread's scratch buffers, the last too with `lease`. */
export async function encode(p: CodecPipeline, view: ChunkView, lease?: ScratchLease): Promise<Uint8Array> {
  const inner = lease ?? new ScratchLease();
  const last = p.bytesToBytes.length;
  try {
    let v = view;
    for (const { codec, spec } of p.arrayToArray) v = codec.encode(v, spec);
    let b = await p.arrayToBytes.codec.encode(v, p.arrayToBytes.spec, last === 0 && !lease ? undefined : inner);
    for (let i = 0; i < last; i++) b = await p.bytesToBytes[i].encode(b, i === last - 1 && !lease ? undefined : inner);
    // A last stage that passed its (leased) input through: the caller gets a copy of its own.
    return !lease && inner.owns(b) ? b.slice() : b;
  } finally {
    if (!lease) inner.release();
  }
}
