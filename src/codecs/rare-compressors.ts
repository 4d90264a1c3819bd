/**
 * The bytes->bytes compressors few arrays name, loaded with the first that does (lazy-codecs.ts):
 * lz4 (numcodecs.lz4, the numcodecs framing: a 4-byte little-endian size, then one LZ4 block) and
 * zarrs.gdeflate. Their implementations load on the first encode or decode, as compressors.ts's do.
 */
import { CorruptChunkError } from "../errors.js";
import { onFirstUse } from "../first-use.js";
import { giveScratch, handOver, takeScratch, type ScratchLease } from "../scratch.js";
import { intOption } from "./config.js";
import { bytesToBytes, decodeCap } from "./compressors.js";
import type { CodecFactory } from "./types.js";

const lz4 = onFirstUse(() => import("./blosc/lz4.js"));
const gdeflateEncoder = onFirstUse(() => import("./gdeflate-encode.js"));
const gdeflateDecoder = onFirstUse(() => import("./gdeflate-decode.js"));

export const lz4Codec: CodecFactory = (conf, spec) => {
  const cap = decodeCap(spec);
  const acceleration = intOption(conf, "acceleration", "numcodecs.lz4", 1, 1, 65537);
  const encode = lz4((m, b: Uint8Array, scratch?: ScratchLease): Uint8Array => {
    // The size header and the block go into one scratch buffer: no second copy of the block, no
    // fresh pages; the caller gets a view under its lease, or a copy of the frame's length.
    const bound = 4 + m.lz4CompressBound(b.length);
    const out = takeScratch(bound);
    let n: number;
    try {
      new DataView(out.buffer, out.byteOffset).setUint32(0, b.length, true);
      n = 4 + m.lz4CompressInto(b, out, 4, bound - 4, acceleration);
    } catch (err) {
      giveScratch(out);
      throw err;
    }
    return handOver(out, n, scratch);
  });
  const declaredSize = (b: Uint8Array): number => {
    if (b.length < 4) throw new CorruptChunkError(`lz4: ${b.length} bytes is too short for the size header`);
    const size = new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true);
    // An LZ4 block expands at most 255x; a larger declared size is corruption, not a big chunk.
    if (size > (b.length - 4) * 255 + 16) throw new CorruptChunkError(`lz4: declared size ${size} is impossible for ${b.length} bytes`);
    return size;
  };
  const decodeInto = lz4((m, b: Uint8Array, dest: Uint8Array): void => {
    const size = declaredSize(b);
    if (size !== dest.length) throw new CorruptChunkError(`lz4: header says ${size} bytes, ${dest.length} expected`);
    const n = m.lz4DecompressBlock(b.subarray(4), dest);
    if (n !== size) throw new CorruptChunkError(`lz4: decoded ${n} bytes, header says ${size}`);
  });
  const decode = async (b: Uint8Array): Promise<Uint8Array> => {
    const size = declaredSize(b);
    // Checked before allocating: a 4 KB chunk may declare 1 MB, far more than its spec can hold.
    if (size > cap) throw new CorruptChunkError(`lz4: the header declares ${size} decoded bytes, over this chunk's limit of ${cap}`);
    const out = new Uint8Array(size);
    await decodeInto(b, out);
    return out;
  };
  return { codec: bytesToBytes("numcodecs.lz4", encode, decode, decodeInto), configuration: { acceleration } };
};

/**
 * zarrs' `zarrs.gdeflate` (also named by its URL): 64 KiB pages of NVIDIA's GDeflate under a header
 * of sizes (gdeflate-decode.ts), our own decoder and encoder, checked against NVIDIA's reference
 * (test/fixtures/gdeflate). `level` is zarrs' 0-12, which our simpler encoder takes as its effort.
 */
export const gdeflateCodec: CodecFactory = (conf, spec) => {
  const level = intOption(conf, "level", "zarrs.gdeflate", 9, 0, 12);
  const cap = decodeCap(spec);
  const encode = gdeflateEncoder((m, b: Uint8Array) => m.gdeflateEncode(b, level));
  const decode = gdeflateDecoder((m, b: Uint8Array) => m.gdeflateDecode(b, cap));
  const decodeInto = gdeflateDecoder((m, b: Uint8Array, dest: Uint8Array) => void m.gdeflateDecodeInto(b, dest));
  return { codec: bytesToBytes("zarrs.gdeflate", encode, decode, decodeInto), configuration: { level } };
};
