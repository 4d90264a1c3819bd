/**
 * Zstandard, for blosc's "zstd" streams and the standalone zstd codecs (v3 `zstd`, numcodecs
 * `zstd`). Three backends with the same bytes:
 * - node:zlib's native libzstd where the runtime has it (Node >= 22.15 and 23.8:
 *   `zstdCompressSync` / `zstdDecompressSync`);
 * - elsewhere (browsers, Node 20) "wasm-kernel": our own decoder (zstd-decode.c, in the WASM
 *   kernels' module) for decoding, 1.6-2.5x faster than numcodecs.js on the benchmark's chunks, and
 *   numcodecs.js's WASM build of libzstd for encoding;
 * - numcodecs.js for both, where WebAssembly SIMD is missing (and for tests).
 *
 * None is loaded when parzarr is imported: node:zlib comes from `process.getBuiltinModule`
 * on first use, and numcodecs.js (a WASM module of some 100 KiB to compile) is imported only when
 * a zstd stream is written on a runtime without native zstd, or when a test asks for it.
 * Errors from any of them become CorruptChunkError.
 */
import { runNativeStream } from "./native-stream.js";
import { runDecoder, WASM_SCRATCH_LIMIT, wasmKernels } from "./wasm/wasm.js";
import { CorruptChunkError } from "../errors.js";
import { readU64 } from "../u64.js";
import { giveScratch, handOver, takeScratch, type ScratchLease } from "../scratch.js";

export type ZstdBackendName = "node:zlib" | "wasm-kernel" | "numcodecs-wasm";

/** One implementation; `level` is already a libzstd level (see effectiveZstdLevel). */
export interface ZstdBackend {
  readonly name: ZstdBackendName;
  compress(src: Uint8Array, level: number): Promise<Uint8Array>;
  /** Decompresses whole frames; `maxOutput` bounds the result when the frame's size is known. */
  decompress(src: Uint8Array, maxOutput: number | undefined): Promise<Uint8Array>;
}

/** The part of node:zlib used here, typed locally so no Node types leak into a browser build. */
interface NodeZstd {
  zstdCompressSync?(b: Uint8Array, o: { params: Record<number, number>; chunkSize?: number }): Uint8Array;
  zstdDecompressSync?(b: Uint8Array, o?: { maxOutputLength?: number; chunkSize?: number }): Uint8Array;
  constants: { ZSTD_c_compressionLevel?: number };
}

const plain = (b: Uint8Array): Uint8Array => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

let native: ZstdBackend | null | undefined;

/**
 * node:zlib's output chunk size for a result of about `n` bytes: the whole result fits in one
 * chunk, so it comes back as it is instead of in 16 KiB pieces concatenated by one more copy.
 * The margin keeps a result of exactly `n` bytes from asking for a second chunk.
 */
const oneChunk = (n: number): number => Math.min(Math.max(n + 1024, 64), 2 ** 30);

/** node:zlib's zstd when this runtime has it (checked once), else null. */
export function nativeZstdBackend(): ZstdBackend | null {
  if (native !== undefined) return native;
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const z = proc?.getBuiltinModule?.("node:zlib") as NodeZstd | undefined;
  const level = z?.constants.ZSTD_c_compressionLevel;
  if (z?.zstdCompressSync === undefined || z.zstdDecompressSync === undefined || level === undefined) return (native = null);
  const { zstdCompressSync, zstdDecompressSync } = z;
  native = {
    name: "node:zlib",
    // One call with the whole input: libzstd records the content size in the frame header, as
    // numcodecs' ZSTD_compress does, and writes the same bytes at the same level.
    compress: async (src, l) => plain(zstdCompressSync(src, { params: { [level]: l }, chunkSize: oneChunk(src.length + (src.length >>> 7)) })),
    decompress: async (src, maxOutput) => {
      const size = zstdFrameContentSize(src);
      const o: { maxOutputLength?: number; chunkSize?: number } = {};
      if (maxOutput !== undefined) o.maxOutputLength = Math.max(1, maxOutput);
      if (typeof size === "number" && (maxOutput === undefined || size <= maxOutput)) o.chunkSize = oneChunk(size);
      return plain(zstdDecompressSync(src, o));
    },
  };
  return native;
}

/**
 * Decodes one zstd frame straight into `dest`, for a frame that declares exactly `dest.length`
 * bytes: with this thread's reused libzstd context (native-stream.ts) on the native backend, or
 * through the kernels' scratch with zstd-decode.c (no fresh result buffer). Returns false, with
 * `dest` possibly written, when it did not decode exactly that (a damaged frame, trailing bytes,
 * the numcodecs.js backend): the caller then decodes the usual way, which gives the precise error.
 */
export function zstdDecompressInto(src: Uint8Array, dest: Uint8Array): boolean {
  // A frame that declares exactly dest's size: the decoders check what they decode against that.
  if (zstdFrameContentSize(src) !== dest.length) return false;
  const backend = zstdBackend();
  if (backend === native) return runNativeStream("zstd-decompress", src, dest, true) === dest.length;
  if (backend !== kernelZstdBackend) return false;
  try {
    const out = kernelDecode(src, dest.length);
    if (out?.length !== dest.length) return false;
    dest.set(out);
    return true;
  } catch {
    return false;
  }
}

/** Whether zstd streams decode with zstd-decode.c, which stages its input in the kernels' scratch. */
export function zstdUsesWasmKernels(): boolean {
  return zstdBackend() === kernelZstdBackend;
}

type WasmCodec = { encode(b: Uint8Array): Promise<Uint8Array>; decode(b: Uint8Array): Promise<Uint8Array> };
let wasmModule: Promise<{ fromConfig(c: { id: "zstd"; level: number }): WasmCodec }> | null = null;
const wasmCodecs = new Map<number, Promise<WasmCodec>>();

function wasmCodecFor(level: number): Promise<WasmCodec> {
  let c = wasmCodecs.get(level);
  if (c === undefined) {
    wasmModule ??= import("numcodecs/zstd").then((m) => m.default as unknown as { fromConfig(c: { id: "zstd"; level: number }): WasmCodec });
    c = wasmModule.then((m) => m.fromConfig({ id: "zstd", level }));
    wasmCodecs.set(level, c);
  }
  return c;
}

/** numcodecs.js's WASM libzstd: every runtime, loaded on first use. */
export const wasmZstdBackend: ZstdBackend = {
  name: "numcodecs-wasm",
  compress: async (src, level) => (await wasmCodecFor(level)).encode(src),
  // The level does not matter for decoding; the WASM decoder has no output cap (callers check).
  decompress: async (src) => (await wasmCodecFor(1)).decode(src),
};

/** What zstd-decode.c's negative results mean. */
const KERNEL_FAULTS: Record<number, string> = {
  1: "the input ends inside a frame",
  2: "a frame or block header is malformed",
  3: "the frame needs a dictionary, which parzarr does not support",
  4: "it decodes to more bytes than expected",
  5: "the content checksum does not match",
  6: "the literals section of a block is corrupt",
  7: "the sequences section of a block is corrupt",
  8: "a match reaches before the start of its frame",
  9: "a frame decodes to another size than its header declares",
  10: "a Huffman table description is corrupt",
  11: "an FSE table description is corrupt",
  12: "a block is larger than its frame's window, or the window is larger than zstd allows",
};

/**
 * Decodes the frames of `src` with zstd-decode.c into at most `cap` bytes: a view of them in the
 * kernels' scratch (valid until its next use), or null where there are no kernels or the scratch
 * would pass its limit. Throws a CorruptChunkError naming the fault for a damaged input.
 */
function kernelDecode(src: Uint8Array, cap: number): Uint8Array | null {
  const r = runDecoder(src, cap, (k, outAt) => k.zstdDecompress(0, src.length, outAt, cap));
  if (r === null) return null;
  if (r.n < 0) throw new CorruptChunkError(`zstd: ${KERNEL_FAULTS[-r.n] ?? `fault ${-r.n}`} (${src.length} bytes of input)`);
  return r.out;
}

/**
 * Our own decoder (zstd-decode.c) for decoding and numcodecs.js for encoding: the choice where
 * the runtime has no native zstd but has WebAssembly SIMD.
 */
export const kernelZstdBackend: ZstdBackend = {
  name: "wasm-kernel",
  compress: (src, level) => wasmZstdBackend.compress(src, level),
  decompress: async (src, maxOutput) => kernelDecode(src, maxOutput ?? zstdMaxDecodedSize(src))?.slice() ?? wasmZstdBackend.decompress(src, maxOutput),
};

/**
 * The frame `frame` (one frame, as zstdCompress writes, without a checksum) of `content`, with
 * zstd's content checksum added: the header's Content_Checksum_flag set and the low 32 bits of
 * XXH64(content) appended. The checksum does not change how libzstd compresses, so this is the
 * frame libzstd writes with ZSTD_c_checksumFlag (a test compares them). Returns null where there
 * are no WASM kernels (which compute the hash).
 */
export function zstdWithChecksum(frame: Uint8Array, content: Uint8Array): Uint8Array | null {
  const k = wasmKernels();
  if (k === null || content.length + 16 > WASM_SCRATCH_LIMIT) return null;
  if (frame.length < 6 || asView(frame).getUint32(0, true) !== 0xfd2fb528 || frame[4] & 0x04) {
    throw new Error("zstdWithChecksum: expected one zstd frame without a checksum");
  }
  k.reserve(content.length + 16).set(content, 0);
  const hash = k.xxh64Low32(0, content.length);
  const out = new Uint8Array(frame.length + 4);
  out.set(frame);
  out[4] |= 0x04;
  new DataView(out.buffer).setUint32(frame.length, hash, true);
  return out;
}

/** Whether numcodecs.js has been loaded in this thread (tests check that importing parzarr does not). */
export function wasmZstdLoaded(): boolean {
  return wasmModule !== null;
}

let forced: ZstdBackend | null = null;

/** The backend in use: native where the runtime has it, else our WASM decoder, else numcodecs.js. */
export function zstdBackend(): ZstdBackend {
  return forced ?? nativeZstdBackend() ?? (wasmKernels() !== null ? kernelZstdBackend : wasmZstdBackend);
}

/** Makes every zstd operation use `backend` (null: the automatic choice); returns the previous override. */
export function setZstdBackend(backend: ZstdBackend | null): ZstdBackend | null {
  const previous = forced;
  forced = backend;
  return previous;
}

/** libzstd's level for "0" (ZSTD_CLEVEL_DEFAULT). */
const DEFAULT_LEVEL = 3;
const MAX_LEVEL = 22;

/**
 * The libzstd level both backends run for a requested level: 0 means libzstd's default (3),
 * as in zarr; negative ("fast") levels become 1 because numcodecs.js cannot pass them through
 * (the native backend could, but then the two would write different bytes).
 */
export function effectiveZstdLevel(level: number): number {
  if (!Number.isFinite(level)) return DEFAULT_LEVEL;
  const l = Math.trunc(level);
  if (l === 0) return DEFAULT_LEVEL;
  if (l < 0) return 1;
  return Math.min(l, MAX_LEVEL);
}

/**
 * Compresses `src` into one zstd frame (with its content size recorded) at `level`. On the native
 * backend the frame is written by a fresh libzstd context into scratch memory (native-stream.ts)
 * instead of `zstdCompressSync`'s fresh output buffer of the input's size; the bytes are the same.
 * Under `lease` the result may be a view of a leased buffer (see ScratchLease).
 */
export async function zstdCompress(src: Uint8Array, level: number, lease?: ScratchLease): Promise<Uint8Array> {
  // Small frames come from the one-shot function: its output then lies in malloc's heap (below
  // glibc's mmap threshold), not in fresh pages, and a free list of small encoder buffers kept
  // per thread would only hold memory that a copy's budget also counts for other buffers.
  if (src.length < SCRATCH_FRAMES_FROM) return zstdBackend().compress(src, effectiveZstdLevel(level));
  // At least ZSTD_compressBound (n + n/256, + up to 64 bytes below 128 KiB): with less room
  // libzstd takes its buffered path, whose frames differ from the one-shot function's.
  const bound = encodedBound(src.length);
  const out = takeScratch(bound);
  const n = zstdCompressInto(src, out.subarray(0, bound), level);
  if (n !== null) return handOver(out, n, lease);
  giveScratch(out);
  return zstdBackend().compress(src, effectiveZstdLevel(level));
}

/**
 * Inputs from this size up are compressed into scratch (zstdCompress): there the one-shot
 * function's output is fresh mmapped pages, and the free list's 64 KiB rounding adds at most 7%
 * over the chunk (copy budgets count one chunk of encoded bytes per write in flight, slabs.ts).
 */
const SCRATCH_FRAMES_FROM = 1 << 20;

/** The output room zstdCompress takes for `n` bytes of input: more than any frame of them. */
function encodedBound(n: number): number {
  return n + (n >>> 7) + 1024;
}

/**
 * Compresses `src` into one frame at the start of `dest` (at least encodedBound long) with a
 * fresh native libzstd context; returns its length, or null when the native backend is not the
 * one in use or the stream failed (the caller then compresses the usual way).
 */
function zstdCompressInto(src: Uint8Array, dest: Uint8Array, level: number): number | null {
  if ((forced !== null && forced !== native) || nativeZstdBackend() === null) return null;
  return runNativeStream(`zstd-${effectiveZstdLevel(level)}`, src, dest, false);
}

const asView = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);

/**
 * The content size a zstd frame header declares: a number, null when the frame does not record it
 * (or starts with a skippable frame), undefined when `src` does not start with a zstd frame.
 */
export function zstdFrameContentSize(src: Uint8Array): number | null | undefined {
  if (src.length < 5) return undefined;
  const v = asView(src);
  const magic = v.getUint32(0, true);
  if ((magic & 0xfffffff0) >>> 0 === 0x184d2a50) return null;
  if (magic !== 0xfd2fb528) return undefined;
  const fhd = src[4];
  const fcsFlag = fhd >>> 6;
  const singleSegment = (fhd >>> 5) & 1;
  const didSize = [0, 1, 2, 4][fhd & 3];
  const fcsSize = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
  const at = 5 + (singleSegment ? 0 : 1) + didSize;
  if (fcsSize === 0) return null;
  if (src.length < at + fcsSize) return undefined;
  switch (fcsSize) {
    case 1:
      return src[at];
    case 2:
      return v.getUint16(at, true) + 256;
    case 4:
      return v.getUint32(at, true);
    default:
      return readU64(src, at);
  }
}

/**
 * The most the frames of `src` can decode to. A frame that declares its content size decodes to
 * exactly that (decoders refuse a frame whose blocks disagree with it, at most one block late).
 * For a frame that declares none, its block headers bound it: a raw or RLE block gives exactly its
 * size, a compressed block at most 128 KiB (zstd's block maximum). That bound is loose: encoders
 * emit compressed blocks of a few KiB (libzstd wrote 483 blocks for a 4 MiB chunk of uint16
 * data), so it must not be applied to frames whose size is declared. A bomb of many tiny
 * compressed blocks in a frame without a size shows here before any output exists. Assumes the
 * frames passed `zstdFramesProblem`.
 */
export function zstdMaxDecodedSize(src: Uint8Array): number {
  const v = asView(src);
  let at = 0;
  let total = 0;
  while (at + 8 <= src.length) {
    const magic = v.getUint32(at, true);
    if ((magic & 0xfffffff0) >>> 0 === 0x184d2a50) {
      at += 8 + v.getUint32(at + 4, true);
      continue;
    }
    const fhd = src[at + 4];
    const singleSegment = (fhd >>> 5) & 1;
    const fcsFlag = fhd >>> 6;
    const fcsSize = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
    const declared = fcsSize === 0 ? null : zstdFrameContentSize(src.subarray(at));
    if (typeof declared === "number") total += declared;
    at += 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][fhd & 3] + fcsSize;
    for (;;) {
      if (at + 3 > src.length) return total;
      const h = src[at] | (src[at + 1] << 8) | (src[at + 2] << 16);
      const type = (h >>> 1) & 3;
      const size = h >>> 3;
      if (typeof declared !== "number") total += type === 2 ? 131072 : size;
      at += 3 + (type === 1 ? 1 : size);
      if (h & 1) break;
    }
    if (fhd & 0x04) at += 4;
  }
  return total;
}

/**
 * Walks the frames of `src` by their block headers and returns a reason when they do not tile it
 * exactly (truncated, trailing bytes, reserved block types). numcodecs.js's WASM decoder spins
 * forever on some such inputs (a valid frame followed by one stray byte, found by fuzzing), and a
 * spinning WASM call cannot be interrupted: such bytes must never reach it.
 */
export function zstdFramesProblem(src: Uint8Array): string | null {
  const v = asView(src);
  let at = 0;
  while (at < src.length) {
    if (src.length - at < 8) return `${src.length - at} stray bytes after the last frame`;
    const magic = v.getUint32(at, true);
    if ((magic & 0xfffffff0) >>> 0 === 0x184d2a50) {
      // A skippable frame: magic, 4-byte size, then that many bytes of user data.
      at += 8 + v.getUint32(at + 4, true);
      if (at > src.length) return "a skippable frame runs past the end";
      continue;
    }
    if (magic !== 0xfd2fb528) return `bytes at offset ${at} are not a zstd frame`;
    const fhd = src[at + 4];
    if (fhd & 0x08) return "reserved bit set in a frame header";
    const singleSegment = (fhd >>> 5) & 1;
    const fcsFlag = fhd >>> 6;
    const fcsSize = fcsFlag === 0 ? singleSegment : 1 << fcsFlag;
    at += 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][fhd & 3] + fcsSize;
    for (;;) {
      if (at + 3 > src.length) return "the frame is truncated (a block header is missing)";
      const h = src[at] | (src[at + 1] << 8) | (src[at + 2] << 16);
      const last = h & 1;
      const type = (h >>> 1) & 3;
      const size = h >>> 3;
      if (type === 3) return "a block of the reserved type";
      if (size > 131072) return `a block of ${size} bytes, over zstd's 128 KiB maximum`;
      at += 3 + (type === 1 ? 1 : size);
      if (at > src.length) return "the frame is truncated (a block runs past the end)";
      if (last) break;
    }
    if (fhd & 0x04) at += 4;
    if (at > src.length) return "the frame is truncated (its checksum is missing)";
  }
  return null;
}

/**
 * Decompresses a zstd frame. With `expectedSize`, a frame declaring another size is refused before
 * any output is allocated, and the decoded length is checked. With `maxOutput`, frames that could
 * decode past it (by their declared size, or by their blocks when they declare none) are refused
 * before decoding: the WASM decoder has no output limit of its own.
 */
export async function zstdDecompress(src: Uint8Array, expectedSize?: number, maxOutput?: number): Promise<Uint8Array> {
  const declared = zstdFrameContentSize(src);
  if (declared === undefined) {
    throw new CorruptChunkError(`zstd: input of ${src.length} bytes is not a zstd frame`);
  }
  if (expectedSize !== undefined && declared !== null && declared !== expectedSize) {
    throw new CorruptChunkError(`zstd: frame declares ${declared} bytes, ${expectedSize} expected`);
  }
  // Each zstd block yields at most 128 KiB and takes at least 4 bytes (an RLE block), so a larger
  // declared size is a damaged or hostile header; refuse it before the WASM side allocates it.
  if (declared !== null && declared > (Math.floor(src.length / 4) + 1) * 131072) {
    throw new CorruptChunkError(`zstd: frame declares ${declared} bytes, impossible for ${src.length} bytes of input`);
  }
  const problem = zstdFramesProblem(src);
  if (problem !== null) throw new CorruptChunkError(`zstd: ${problem}`);
  if (maxOutput !== undefined) {
    if (declared !== null && declared > maxOutput) {
      throw new CorruptChunkError(`zstd: frame declares ${declared} bytes, over the ${maxOutput}-byte limit for this chunk`);
    }
    const bound = zstdMaxDecodedSize(src);
    if (bound > maxOutput + 131072) {
      throw new CorruptChunkError(`zstd: ${src.length} bytes could decode to ${bound} bytes, over the ${maxOutput}-byte limit for this chunk`);
    }
  }
  let out: Uint8Array;
  try {
    out = await zstdBackend().decompress(src, expectedSize ?? declared ?? undefined);
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    throw new CorruptChunkError(`zstd: cannot decompress ${src.length} bytes: ${msg}`, { cause: err });
  }
  if (expectedSize !== undefined && out.length !== expectedSize) {
    throw new CorruptChunkError(`zstd: decoded ${out.length} bytes, ${expectedSize} expected`);
  }
  return out;
}
