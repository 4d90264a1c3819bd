/**
 * The Blosc 1.x chunk format ("version 2" frames, as c-blosc 1.x and numcodecs write them).
 *
 * Layout: a 16-byte header
 *   0 version (2)   1 versionlz (1 for every compressor)   2 flags   3 typesize
 *   4 nbytes (uncompressed, int32 LE)   8 blocksize (int32 LE)   12 cbytes (whole frame, int32 LE)
 * flags: bit 0 byte shuffle, bit 1 memcpyed (data stored raw right after the header), bit 2 bit
 * shuffle, bit 3 reserved (must be 0), bit 4 "don't split", bits 5-7 compressor format code
 * (0 blosclz, 1 lz4/lz4hc, 2 snappy, 3 zlib, 4 zstd).
 * Unless memcpyed, an int32 offset per block follows (blocks may appear in any order: c-blosc's
 * threads write them as they finish), and each block is one stream, or `typesize` streams when it
 * is split, each stream being an int32 compressed size then the data; a stream whose size equals
 * its uncompressed size is stored raw. Shuffling is per block; the last block may be shorter and
 * is never split.
 *
 * The encoder reproduces c-blosc 1.21's choices (blocksize, split flag, when a stream or the whole
 * buffer is stored raw) so its frames look like c-blosc's; the compressed streams themselves come
 * from our own LZ4 and BloscLZ compressors, zlib (node:zlib or pako, ../deflate.ts), and libzstd
 * via numcodecs.js.
 */
import { CorruptChunkError, InvalidMetadataError, UnsupportedError } from "../../errors.js";
import type { ByteScatter } from "../types.js";
import { deflateReady, inflateInto, inflateUsesWasmScratch, zlibCompress } from "../deflate.js";
import { blosclzCompressInto, blosclzDecompress } from "./blosclz.js";
import { lz4CompressInto, lz4DecompressBlock, lz4DecompressBlockJs } from "./lz4.js";
import { bitShuffle, bitUnshuffle, byteShuffle, byteUnshuffle } from "./shuffle.js";
import { align16, WASM_SCRATCH_LIMIT, wasmKernels, type WasmKernels } from "../wasm/wasm.js";
import { snappyDecompress } from "./snappy.js";
import { zstdCompress, zstdDecompress, zstdDecompressInto, zstdUsesWasmKernels } from "../zstd.js";
import { giveScratch, handOver, takeScratch, type ScratchLease } from "../../scratch.js";

export type BloscCname = "lz4" | "lz4hc" | "blosclz" | "zstd" | "zlib" | "snappy";

export interface BloscEncodeOptions {
  cname: BloscCname;
  /** 0 (store raw) to 9. */
  clevel: number;
  /** 0 none, 1 byte shuffle, 2 bit shuffle. */
  shuffle: 0 | 1 | 2;
  /** Element size in bytes; values over 255 are written as 1, as c-blosc does. */
  typesize: number;
  /** Bytes per block; 0 picks it automatically as c-blosc 1.21 does. */
  blocksize: number;
}

export interface BloscHeader {
  version: number;
  versionlz: number;
  flags: number;
  typesize: number;
  nbytes: number;
  blocksize: number;
  cbytes: number;
}

const HEADER_SIZE = 16;
const VERSION_FORMAT = 2;
const VERSION_LZ = 1;
const MIN_BUFFERSIZE = 128;
const MAX_SPLITS = 16;
const MAX_TYPESIZE = 255;
const L1 = 32 * 1024;
const MAX_BUFFERSIZE = 2 ** 31 - 1 - HEADER_SIZE;
const MAX_BLOCKSIZE = Math.floor((2 ** 31 - 1 - MAX_TYPESIZE * 4) / 3);

const FLAG_SHUFFLE = 0x1;
const FLAG_MEMCPYED = 0x2;
const FLAG_BITSHUFFLE = 0x4;
const FLAG_RESERVED = 0x8;
const FLAG_DONT_SPLIT = 0x10;

/** Compressor format codes (flags bits 5-7). */
const FORMAT_BLOSCLZ = 0;
const FORMAT_LZ4 = 1;
const FORMAT_SNAPPY = 2;
const FORMAT_ZLIB = 3;
const FORMAT_ZSTD = 4;
const FORMAT_NAMES = ["blosclz", "lz4", "snappy", "zlib", "zstd"];

const FORMAT_OF: Record<BloscCname, number> = {
  blosclz: FORMAT_BLOSCLZ,
  lz4: FORMAT_LZ4,
  lz4hc: FORMAT_LZ4,
  snappy: FORMAT_SNAPPY,
  zlib: FORMAT_ZLIB,
  zstd: FORMAT_ZSTD,
};

/**
 * How far one compressed byte can expand, per format, bounding the nbytes a frame of cbytes can
 * honestly declare: LZ4 and BloscLZ add at most 255 output bytes per length byte, deflate at most
 * 1032x, a zstd RLE block turns 4 bytes into 128 KiB. Generous on purpose: only frames that no
 * encoder could have written are refused.
 */
const MAX_RATIO = [512, 512, 64, 2048, 33000];

function corrupt(what: string): never {
  throw new CorruptChunkError(`blosc: ${what}`);
}

const view = (b: Uint8Array): DataView => new DataView(b.buffer, b.byteOffset, b.byteLength);

/** Parses the 16-byte header; throws CorruptChunkError when there are fewer than 16 bytes. */
export function bloscHeader(src: Uint8Array): BloscHeader {
  if (src.length < HEADER_SIZE) corrupt(`${src.length} bytes is too short for the 16-byte header`);
  const v = view(src);
  return {
    version: src[0],
    versionlz: src[1],
    flags: src[2],
    typesize: src[3],
    nbytes: v.getInt32(4, true),
    blocksize: v.getInt32(8, true),
    cbytes: v.getInt32(12, true),
  };
}

/** The sizes a frame declares, like c-blosc's blosc_cbuffer_sizes. */
export function bloscSizes(src: Uint8Array): { nbytes: number; cbytes: number; blocksize: number } {
  const h = bloscHeader(src);
  return { nbytes: h.nbytes, cbytes: h.cbytes, blocksize: h.blocksize };
}

// ---------------------------------------------------------------------------------------------
// WebAssembly kernels (../wasm/wasm.ts): the typesize-4 byte shuffle with WASM SIMD and LZ4 compression.
// They work in the module's memory, blocks are copied in or out once. Same bytes as shuffle.ts and
// lz4.ts; used where the runtime has WASM SIMD.

/** The kernels when their scratch can hold `bytes`, else null. */
function kernelsFor(bytes: number): WasmKernels | null {
  return bytes > WASM_SCRATCH_LIMIT ? null : wasmKernels();
}

/** The kernels take whole 16-element steps and no trailing bytes; other blocks use shuffle.ts. */
const simdFits = (bsize: number): boolean => bsize % 64 === 0;

// ---------------------------------------------------------------------------------------------
// Decoding

/** Decodes one stream of a synchronous codec into `out`; returns the decoded length. */
function decodeStreamSync(format: number, src: Uint8Array, out: Uint8Array): number {
  switch (format) {
    case FORMAT_BLOSCLZ:
      return blosclzDecompress(src, out);
    case FORMAT_LZ4:
      return lz4DecompressBlock(src, out);
    case FORMAT_SNAPPY:
      return snappyDecompress(src, out);
    case FORMAT_ZLIB:
      return inflateInto(src, out, "blosc: zlib stream");
    default:
      corrupt(`unknown compressor format code ${format}`);
  }
}

/**
 * Decodes a blosc frame. With `dest` (exactly nbytes long) the output goes there; otherwise a new
 * buffer is returned. Throws CorruptChunkError on anything malformed or truncated, and when `dest`
 * is given but the frame declares another size.
 */
export async function bloscDecode(src: Uint8Array, dest?: Uint8Array): Promise<Uint8Array> {
  return (await decodeFrame(src, dest, null))!;
}

/**
 * Decodes a blosc frame piece by piece into `dest` (see ByteScatter): each block goes to its
 * place as soon as it is unshuffled, from cache, so a chunk whose rows are runs of the output
 * needs no chunk-sized buffer and no second pass. Same checks as bloscDecode.
 */
export async function bloscDecodeScatter(src: Uint8Array, dest: ByteScatter): Promise<void> {
  await decodeFrame(src, undefined, dest);
}

/** bloscDecode with a destination buffer, or (`scatter`) a piecewise one, then returning null. */
async function decodeFrame(src: Uint8Array, dest: Uint8Array | undefined, scatter: ByteScatter | null): Promise<Uint8Array | null> {
  const h = bloscHeader(src);
  const { flags, typesize, nbytes, blocksize, cbytes } = h;
  if (h.version !== VERSION_FORMAT) {
    corrupt(`unsupported format version ${h.version} (bad header? c-blosc 1.x frames are version ${VERSION_FORMAT})`);
  }
  if (nbytes < 0) corrupt(`bad header: negative nbytes ${nbytes}`);
  if (cbytes < HEADER_SIZE) corrupt(`bad header: cbytes ${cbytes} is smaller than the header`);
  if (cbytes > src.length) corrupt(`cbytes ${cbytes} is larger than the ${src.length}-byte buffer (truncated chunk?)`);
  // The caller sized dest from metadata, so a frame of another size is a wrong or damaged chunk.
  const expected = scatter?.length ?? dest?.length;
  if (expected !== undefined && expected !== nbytes) {
    corrupt(`decoded size mismatch: the frame holds ${nbytes} bytes, ${expected} expected`);
  }
  if (nbytes === 0) return scatter ? null : (dest ?? new Uint8Array(0));
  if (flags & FLAG_RESERVED) corrupt(`bad header: reserved flag bit 3 is set (flags 0x${flags.toString(16)})`);
  if (typesize === 0) corrupt("bad header: typesize 0");
  if (blocksize <= 0 || blocksize > nbytes || blocksize > MAX_BLOCKSIZE) {
    corrupt(`bad header: blocksize ${blocksize} for nbytes ${nbytes}`);
  }

  if (flags & FLAG_MEMCPYED) {
    if (cbytes !== nbytes + HEADER_SIZE) {
      corrupt(`raw (memcpyed) frame of ${nbytes} bytes must have cbytes ${nbytes + HEADER_SIZE}, header says ${cbytes}`);
    }
    if (scatter) {
      scatter.put(0, src.subarray(HEADER_SIZE, cbytes));
      return null;
    }
    const out = dest ?? new Uint8Array(nbytes);
    out.set(src.subarray(HEADER_SIZE, cbytes));
    return out;
  }

  const format = flags >>> 5;
  if (format > FORMAT_ZSTD) corrupt(`bad header: unknown compressor format code ${format}`);
  if (h.versionlz !== VERSION_LZ) corrupt(`bad header: ${FORMAT_NAMES[format]} format version ${h.versionlz} (expected ${VERSION_LZ})`);
  if (nbytes > cbytes * MAX_RATIO[format]) {
    corrupt(`bad header: nbytes ${nbytes} is impossible for ${cbytes} bytes of ${FORMAT_NAMES[format]} data`);
  }
  if (format === FORMAT_ZLIB) await deflateReady();
  const nblocks = Math.ceil(nbytes / blocksize);
  const leftover = nbytes % blocksize;
  const streamsStart = HEADER_SIZE + 4 * nblocks;
  if (streamsStart > cbytes) corrupt(`cbytes ${cbytes} cannot hold the offsets of ${nblocks} blocks`);

  const out = scatter ? null : (dest ?? new Uint8Array(nbytes));
  // Scattered, each block is finished in this scratch block (cache-sized) and then placed.
  const blockBuf = scatter ? takeScratch(blocksize) : null;
  const v = view(src);
  const dontSplit = (flags & FLAG_DONT_SPLIT) !== 0;
  const doShuffle = (flags & FLAG_SHUFFLE) !== 0 && typesize > 1;
  // Only the first of the two filters applies, as in c-blosc 1.x.
  const doBitshuffle = (flags & FLAG_BITSHUFFLE) !== 0;
  const tmp = doShuffle || doBitshuffle ? takeScratch(blocksize) : null;
  // Scratch of the WASM kernels: the decoded (shuffled) block with the 32 bytes of slack the zstd
  // decoder writes into, the unshuffled block, and one compressed stream for the decoders in the
  // kernels, with 16 bytes of slack (their vector moves). No honest LZ4, zstd or deflate stream is
  // longer than its block by more than STREAM_ROOM allows (their worst cases for incompressible data).
  const UNSHUFFLED = align16(blocksize + 32);
  const STREAM = UNSHUFFLED + align16(blocksize + 16);
  const STREAM_ROOM = blocksize + (blocksize >>> 7) + 64;
  const SCRATCH = STREAM + STREAM_ROOM + 16;
  const simd = doShuffle && typesize === 4 ? kernelsFor(SCRATCH) : null;
  // The decoders that run in the kernels, from a stream staged at STREAM: LZ4, and zstd and zlib
  // where our WASM decoders are the backends (native ones write into the scratch as the others do).
  const inKernels =
    format === FORMAT_LZ4 || (format === FORMAT_ZSTD && zstdUsesWasmKernels()) || (format === FORMAT_ZLIB && inflateUsesWasmScratch());

  /** The size word of stream k of block j at `offset`, checked against the frame. */
  const streamSize = (j: number, k: number, offset: number): number => {
    if (offset > cbytes - 4) corrupt(`block ${j}: stream ${k} starts past the end of the frame`);
    const csize = v.getInt32(offset, true);
    if (csize < 0 || csize > cbytes - offset - 4) corrupt(`block ${j}: stream ${k} claims ${csize} bytes, only ${cbytes - offset - 4} remain`);
    return csize;
  };
  const empty = (j: number, k: number, neblock: number): never => corrupt(`block ${j}: stream ${k} is empty but should decode to ${neblock} bytes`);

  /**
   * Decodes block j's streams into the kernels' scratch at 0, synchronously (nothing else uses
   * the scratch meanwhile). Returns false where a zstd or zlib stream needs the path through tmp:
   * a damaged stream (which that path names), or a decoder that awaits or would stage the stream
   * in the scratch over this block.
   */
  const decodeInScratch = (j: number, offset: number, nsplits: number, neblock: number): boolean => {
    const scratch = simd!.reserve(SCRATCH);
    for (let k = 0; k < nsplits; k++) {
      const csize = streamSize(j, k, offset);
      const stream = src.subarray(offset + 4, offset + 4 + csize);
      offset += 4 + csize;
      const piece = scratch.subarray(k * neblock, (k + 1) * neblock);
      if (csize === neblock) {
        piece.set(stream);
        continue;
      }
      if (csize === 0) empty(j, k, neblock);
      if (inKernels && csize <= STREAM_ROOM) {
        scratch.set(stream, STREAM);
        const at = k * neblock;
        const n =
          format === FORMAT_LZ4
            ? simd!.lz4Decompress(STREAM, csize, at, neblock)
            : format === FORMAT_ZSTD
              ? simd!.zstdDecompress(STREAM, csize, at, neblock)
              : simd!.inflate(STREAM, csize, at, neblock, 1);
        if (n === neblock) continue;
        if (format !== FORMAT_LZ4) return false;
      } else if (inKernels && format !== FORMAT_LZ4) {
        return false;
      } else if (format === FORMAT_ZSTD) {
        if (!zstdDecompressInto(stream, piece)) return false;
        continue;
      }
      // A malformed or overlong LZ4 stream: the JavaScript decoder (which stays out of the
      // scratch) says what is wrong with it; other codecs decode in JavaScript or natively.
      const m = format === FORMAT_LZ4 ? lz4DecompressBlockJs(stream, piece) : decodeStreamSync(format, stream, piece);
      if (m !== neblock) corrupt(`a ${FORMAT_NAMES[format]} stream decoded to ${m} bytes, ${neblock} expected`);
    }
    return true;
  };

  try {
    for (let j = 0; j < nblocks; j++) {
      const isLeftover = j === nblocks - 1 && leftover > 0;
      const bsize = isLeftover ? leftover : blocksize;
      const destBlock = out ? out.subarray(j * blocksize, j * blocksize + bsize) : blockBuf!.subarray(0, bsize);
      const bitshuffleBlock = !doShuffle && doBitshuffle && bsize >= typesize;
      const useSimd = simd !== null && simdFits(bsize);
      // c-blosc only splits full blocks, and (for frames from before the flag existed) only when
      // the split streams would be long enough.
      const nsplits = !dontSplit && !isLeftover && typesize <= MAX_SPLITS && Math.floor(bsize / typesize) >= MIN_BUFFERSIZE ? typesize : 1;
      const neblock = Math.floor(bsize / nsplits);
      if (neblock * nsplits !== bsize) corrupt(`block ${j}: blocksize ${bsize} is not a multiple of typesize ${typesize}`);
      let offset = v.getInt32(HEADER_SIZE + 4 * j, true);
      if (offset < streamsStart || offset > cbytes - 4) corrupt(`block ${j}: offset ${offset} is out of range [${streamsStart}, ${cbytes - 4}]`);
      const inScratch = useSimd && decodeInScratch(j, offset, nsplits, neblock);
      const target = useSimd || doShuffle || bitshuffleBlock ? tmp!.subarray(0, bsize) : destBlock;
      if (!inScratch) {
        for (let k = 0; k < nsplits; k++) {
          const csize = streamSize(j, k, offset);
          offset += 4;
          const piece = target.subarray(k * neblock, (k + 1) * neblock);
          const stream = src.subarray(offset, offset + csize);
          if (csize === neblock) piece.set(stream);
          else if (csize === 0) empty(j, k, neblock);
          // Only zstd may await; the others stay off the microtask queue.
          else if (format === FORMAT_ZSTD) {
            if (!zstdDecompressInto(stream, piece)) piece.set(await zstdDecompress(stream, neblock));
          } else {
            const n = decodeStreamSync(format, stream, piece);
            if (n !== neblock) corrupt(`a ${FORMAT_NAMES[format]} stream decoded to ${n} bytes, ${neblock} expected`);
          }
          offset += csize;
        }
      }
      if (useSimd) {
        // A zstd stream may have awaited above: another call may have grown (and so detached) the
        // memory since, and used the scratch.
        const scratch = simd.reserve(SCRATCH);
        if (!inScratch) scratch.set(target, 0);
        simd.unshuffle4(0, UNSHUFFLED, bsize >>> 2);
        const unshuffled = scratch.subarray(UNSHUFFLED, UNSHUFFLED + bsize);
        if (scatter) scatter.put(j * blocksize, unshuffled);
        else destBlock.set(unshuffled);
        continue;
      } else if (doShuffle) byteUnshuffle(target, destBlock, typesize);
      else if (bitshuffleBlock) bitUnshuffle(target, destBlock, typesize);
      scatter?.put(j * blocksize, destBlock);
    }
  } finally {
    if (tmp !== null) giveScratch(tmp);
    if (blockBuf !== null) giveScratch(blockBuf);
  }
  return out;
}

/**
 * Decodes a blosc frame straight into `dest`, which must be exactly the frame's nbytes long (the
 * caller sizes it from metadata: a whole chunk decoding into its place in the output). Nothing is
 * allocated but the shuffle scratch, which is reused across calls.
 */
export async function bloscDecodeInto(src: Uint8Array, dest: Uint8Array): Promise<void> {
  await bloscDecode(src, dest);
}

// ---------------------------------------------------------------------------------------------
// Encoding

/** c-blosc's compressor codes, which its blocksize and split heuristics are keyed on. */
const Comp = { BloscLZ: 0, LZ4: 1, LZ4HC: 2, Snappy: 3, Zlib: 4, Zstd: 5 } as const;
type Comp = (typeof Comp)[keyof typeof Comp];

const COMP_OF: Record<BloscCname, Comp> = {
  blosclz: Comp.BloscLZ,
  lz4: Comp.LZ4,
  lz4hc: Comp.LZ4HC,
  snappy: Comp.Snappy,
  zlib: Comp.Zlib,
  zstd: Comp.Zstd,
};

/** Codecs meant for high compression ratios get larger blocks. */
const isHCR = (c: Comp): boolean => c === Comp.LZ4HC || c === Comp.Zlib || c === Comp.Zstd;

/**
 * c-blosc 1.21's split decision in its default BLOSC_FORWARD_COMPAT_SPLIT mode (numcodecs never
 * changes the mode): split every codec but zstd when the streams stay at least 128 elements long.
 */
function splitBlock(comp: Comp, typesize: number, blocksize: number): boolean {
  return comp !== Comp.Zstd && typesize <= MAX_SPLITS && Math.floor(blocksize / typesize) >= MIN_BUFFERSIZE;
}

/**
 * c-blosc 1.21's compute_blocksize, step for step: 32 KiB (L1) scaled by clevel (and doubled for
 * HCR codecs) when there is that much data, a forced blocksize clamped to [128, max]; then, for
 * codecs that will split, the per-stream size is capped at 256 KiB and multiplied by typesize
 * into [64 KiB, 1 MiB]; finally clamped to nbytes and rounded down to a multiple of typesize.
 */
export function computeBlocksize(cname: BloscCname, clevel: number, typesize: number, nbytes: number, forced: number): number {
  const comp = COMP_OF[cname];
  if (nbytes < typesize) return 1;
  let blocksize = nbytes;
  if (forced) {
    blocksize = Math.min(Math.max(forced, MIN_BUFFERSIZE), MAX_BLOCKSIZE);
  } else if (nbytes >= L1) {
    blocksize = L1;
    if (isHCR(comp)) blocksize *= 2;
    switch (clevel) {
      case 0:
        blocksize = Math.floor(blocksize / 4);
        break;
      case 1:
        blocksize = Math.floor(blocksize / 2);
        break;
      case 2:
        break;
      case 3:
        blocksize *= 2;
        break;
      case 4:
      case 5:
        blocksize *= 4;
        break;
      case 6:
      case 7:
      case 8:
        blocksize *= 8;
        break;
      default:
        blocksize *= 8;
        if (isHCR(comp)) blocksize *= 2;
        break;
    }
  }
  if (clevel > 0 && splitBlock(comp, typesize, blocksize)) {
    if (blocksize > 1 << 18) blocksize = 1 << 18;
    blocksize *= typesize;
    if (blocksize < 1 << 16) blocksize = 1 << 16;
    if (blocksize > 1 << 20) blocksize = 1 << 20;
  }
  if (blocksize > nbytes) blocksize = nbytes;
  if (blocksize > typesize) blocksize = Math.floor(blocksize / typesize) * typesize;
  return blocksize;
}

/** The libzstd level c-blosc 1.21 uses for a blosc clevel (zstd_wrap_compress). */
const zstdLevelFor = (clevel: number): number => (clevel < 9 ? clevel * 2 - 1 : 22);

/**
 * Compresses one stream into `out` at `pos`, writing at most `maxOut` bytes; returns its length, or
 * 0 when it does not fit (then the caller stores it raw, as c-blosc does).
 */
function compressStream(
  comp: Comp,
  clevel: number,
  src: Uint8Array,
  out: Uint8Array,
  pos: number,
  maxOut: number,
): number | Promise<number> {
  switch (comp) {
    case Comp.LZ4:
      // c-blosc drives LZ4_compress_fast with acceleration 10 - clevel.
      return lz4CompressInto(src, out, pos, maxOut, 10 - clevel);
    case Comp.LZ4HC:
      // c-blosc uses LZ4_compress_HC here; we use our own LZ4 compressor with a hash-chain match
      // finder whose depth grows with clevel. The output is plain LZ4 (format code 1, like lz4hc's)
      // and decodes anywhere, though its ratio is below real LZ4HC's. The depth is LZ4HC's own
      // search budget for its levels 1-9 (1 << (level - 1)): deeper chains cost far more time on
      // float data than the few bytes they save.
      return lz4CompressInto(src, out, pos, maxOut, 1, 1 << Math.max(0, clevel - 1));
    case Comp.BloscLZ:
      return blosclzCompressInto(src, out, pos, maxOut, clevel);
    case Comp.Zlib: {
      const z = zlibCompress(src, clevel);
      if (z.length > maxOut) return 0;
      out.set(z, pos);
      return z.length;
    }
    case Comp.Zstd:
      // Blocks are far below zstdCompress's scratch threshold: one-shot frames, as c-blosc's
      // ZSTD_compressCCtx writes them whatever room it is given (a stream with less room than
      // ZSTD_compressBound takes libzstd's buffered path, whose bytes may differ).
      return zstdCompress(src, zstdLevelFor(clevel)).then((z) => {
        if (z.length > maxOut) return 0;
        out.set(z, pos);
        return z.length;
      });
    default:
      throw new UnsupportedError('blosc: encoding with cname "snappy" is not supported (zarr-python deprecates it); use "lz4", "zstd", "blosclz" or "zlib"');
  }
}

function checkOptions(opts: BloscEncodeOptions): void {
  const bad = (field: string, why: string): never => {
    throw new InvalidMetadataError(`blosc: invalid ${field} ${JSON.stringify((opts as unknown as Record<string, unknown>)[field])}: ${why}`);
  };
  if (!Object.prototype.hasOwnProperty.call(FORMAT_OF, opts.cname)) bad("cname", "expected one of lz4, lz4hc, blosclz, zstd, zlib, snappy");
  if (!Number.isInteger(opts.clevel) || opts.clevel < 0 || opts.clevel > 9) bad("clevel", "expected an integer from 0 to 9");
  if (opts.shuffle !== 0 && opts.shuffle !== 1 && opts.shuffle !== 2) bad("shuffle", "expected 0, 1 or 2");
  if (!Number.isInteger(opts.typesize) || opts.typesize < 1) bad("typesize", "expected a positive integer");
  if (!Number.isInteger(opts.blocksize) || opts.blocksize < 0) bad("blocksize", "expected 0 (automatic) or a positive integer");
}

/**
 * Encodes `src` as a blosc 1.x frame that c-blosc (numcodecs, zarr-python) decodes. Snappy is
 * refused with UnsupportedError; invalid options throw InvalidMetadataError.
 */
export async function bloscEncode(src: Uint8Array, opts: BloscEncodeOptions, scratch?: ScratchLease): Promise<Uint8Array> {
  checkOptions(opts);
  if (opts.cname === "snappy") {
    throw new UnsupportedError('blosc: encoding with cname "snappy" is not supported (zarr-python deprecates it); use "lz4", "zstd", "blosclz" or "zlib"');
  }
  const nbytes = src.length;
  if (nbytes > MAX_BUFFERSIZE) throw new UnsupportedError(`blosc: cannot encode ${nbytes} bytes (the format's limit is ${MAX_BUFFERSIZE})`);
  if (opts.cname === "zlib") await deflateReady();
  const comp = COMP_OF[opts.cname];
  const clevel = opts.clevel;
  const typesize = opts.typesize > MAX_TYPESIZE ? 1 : opts.typesize;
  const blocksize = computeBlocksize(opts.cname, clevel, typesize, nbytes, opts.blocksize);
  const nblocks = Math.ceil(nbytes / blocksize);
  const leftover = nbytes % blocksize;

  let flags = FORMAT_OF[opts.cname] << 5;
  if (opts.shuffle === 1) flags |= FLAG_SHUFFLE;
  if (opts.shuffle === 2) flags |= FLAG_BITSHUFFLE;
  const dontSplit = !splitBlock(comp, typesize, blocksize);
  if (dontSplit) flags |= FLAG_DONT_SPLIT;

  // numcodecs gives c-blosc an output buffer of nbytes + 16: a frame that would not fit there is
  // stored raw instead.
  const maxbytes = nbytes + HEADER_SIZE;
  const writeHeader = (out: Uint8Array, f: number, cbytes: number): void => {
    const v = view(out);
    out[0] = VERSION_FORMAT;
    out[1] = VERSION_LZ;
    out[2] = f;
    out[3] = typesize;
    v.setInt32(4, nbytes, true);
    v.setInt32(8, blocksize, true);
    v.setInt32(12, cbytes, true);
  };
  const memcpyed = (): Uint8Array => {
    const out = scratch ? scratch.take(maxbytes).subarray(0, maxbytes) : new Uint8Array(maxbytes);
    writeHeader(out, flags | FLAG_MEMCPYED, maxbytes);
    out.set(src, HEADER_SIZE);
    return out;
  };
  if (clevel === 0 || nbytes < MIN_BUFFERSIZE) return memcpyed();

  // The frame is written into a scratch buffer of the largest size it may take (a fresh one per
  // chunk would cost its page faults, about as much as compressing it); the caller gets a view
  // of it under its lease, or else a copy of the frame's own length.
  const out = takeScratch(maxbytes);
  const v = view(out);
  const doShuffle = opts.shuffle === 1 && typesize > 1;
  const doBitshuffle = opts.shuffle === 2;
  const tmp = doShuffle || doBitshuffle ? takeScratch(blocksize) : null;
  // Scratch areas of the WASM kernels: the block as given, the block shuffled, one compressed
  // stream; each with the 16 bytes of slack the kernels' vector moves need.
  const SHUFFLED = align16(blocksize + 16);
  const COMPRESSED = 2 * SHUFFLED;
  // zstd awaits between streams, so its shuffled block must live in a buffer of its own.
  const wasm = comp !== Comp.Zstd ? kernelsFor(COMPRESSED + blocksize + 16) : null;
  // LZ4 streams are compressed by the kernel, from the block staged in its memory.
  const lz4Wasm = wasm !== null && comp === Comp.LZ4;
  const acceleration = 10 - clevel;
  let ntbytes = HEADER_SIZE + 4 * nblocks;
  let fits = ntbytes <= maxbytes;
  try {
    for (let j = 0; j < nblocks && fits; j++) {
      v.setInt32(HEADER_SIZE + 4 * j, ntbytes, true);
      const isLeftover = j === nblocks - 1 && leftover > 0;
      const bsize = isLeftover ? leftover : blocksize;
      const block = src.subarray(j * blocksize, j * blocksize + bsize);
      const simdShuffle = doShuffle && typesize === 4 && simdFits(bsize);
      let data = block;
      let scratch: Uint8Array | null = null;
      if (wasm !== null && (lz4Wasm || simdShuffle)) {
        scratch = wasm.reserve(COMPRESSED + blocksize + 16);
        data = scratch.subarray(SHUFFLED, SHUFFLED + bsize);
        if (simdShuffle) {
          scratch.set(block, 0);
          wasm.shuffle4(0, SHUFFLED, bsize >>> 2);
        } else if (doShuffle) byteShuffle(block, data, typesize);
        else if (doBitshuffle && bsize >= typesize) bitShuffle(block, data, typesize);
        else data.set(block);
      } else if (doShuffle) {
        data = tmp!.subarray(0, bsize);
        byteShuffle(block, data, typesize);
      } else if (doBitshuffle && bsize >= typesize) {
        data = tmp!.subarray(0, bsize);
        bitShuffle(block, data, typesize);
      }
      const nsplits = !dontSplit && !isLeftover ? typesize : 1;
      const neblock = Math.floor(bsize / nsplits);
      for (let k = 0; k < nsplits; k++) {
        // Mirrors blosc_c: room for the size word, then at most neblock (or what is left) bytes.
        ntbytes += 4;
        let maxOut = neblock;
        if (ntbytes + maxOut > maxbytes) {
          maxOut = maxbytes - ntbytes;
          if (maxOut <= 0) {
            fits = false;
            break;
          }
        }
        const piece = data.subarray(k * neblock, (k + 1) * neblock);
        let csize: number;
        if (lz4Wasm) {
          csize = wasm.lz4Compress(SHUFFLED + k * neblock, neblock, COMPRESSED, maxOut, acceleration);
          if (csize !== 0 && csize !== neblock) out.set(scratch!.subarray(COMPRESSED, COMPRESSED + csize), ntbytes);
        } else {
          // Only zstd is asynchronous: the other codecs run without yielding, which the WASM
          // scratch (shared by every call) relies on.
          const pending = compressStream(comp, clevel, piece, out, ntbytes, maxOut);
          csize = typeof pending === "number" ? pending : await pending;
        }
        if (csize === 0 || csize === neblock) {
          if (ntbytes + neblock > maxbytes) {
            fits = false;
            break;
          }
          out.set(piece, ntbytes);
          csize = neblock;
        }
        v.setInt32(ntbytes - 4, csize, true);
        ntbytes += csize;
      }
    }
  } catch (err) {
    giveScratch(out);
    throw err;
  } finally {
    if (tmp !== null) giveScratch(tmp);
  }
  if (!fits) {
    giveScratch(out);
    return memcpyed();
  }
  writeHeader(out, flags, ntbytes);
  return handOver(out, ntbytes, scratch);
}
