/**
 * The bytes->bytes compressors most arrays name: gzip, zlib (numcodecs.zlib), zstd and blosc
 * (numcodecs.lz4 and zarrs.gdeflate, which few do, are rare-compressors.ts, loaded with the first
 * array naming one). zlib and gzip run on node:zlib in Node and pako elsewhere (./deflate.ts).
 *
 * The factories here check configurations; the implementations (blosc, zstd, deflate, LZ4, GDeflate and the
 * WebAssembly kernels they share, some 110 KB minified) are imported on a codec's first encode or
 * decode, so a page's main thread that opens arrays and leaves the chunks to workers never loads them.
 */
import { CorruptChunkError, UnsupportedError } from "../errors.js";
import type { JsonObject } from "../metadata/json.js";
import { boolOption, enumOption, intOption } from "./config.js";
import { onFirstUse } from "../first-use.js";
import type { ByteScatter, BytesToBytesCodec, ChunkSpec, CodecFactory } from "./types.js";
import { product } from "../indexing/strided.js";
import type { ScratchLease } from "../scratch.js";

const blosc = onFirstUse(() => import("./blosc/blosc.js"));
const zstd = onFirstUse(() => import("./zstd.js"));
/** deflate.ts, and pako behind it where there is no node:zlib (afterDeflateReady). */
const deflate = onFirstUse(() => import("./deflate.js"));

export function bytesToBytes(
  name: string,
  encode: (b: Uint8Array, scratch?: ScratchLease) => Uint8Array | Promise<Uint8Array>,
  decode: (b: Uint8Array) => Uint8Array | Promise<Uint8Array>,
  decodeInto?: (b: Uint8Array, dest: Uint8Array) => void | Promise<void>,
  decodeScatter?: (b: Uint8Array, dest: ByteScatter) => void | Promise<void>,
): BytesToBytesCodec {
  const codec: BytesToBytesCodec = { kind: "bytes_to_bytes", name, encode, decode };
  return { ...codec, ...(decodeInto && { decodeInto }), ...(decodeScatter && { decodeScatter }) };
}

/** Node's own buffer limit, written out so that this module needs no static node: import. */
const MAX_DECODED_BYTES = 2 ** 32 - 1;

/**
 * The most a bytes->bytes decoder may produce for a chunk of this spec: twice its decoded size plus
 * 1 MiB leaves room for any sane chain (a checksum, a second compressor), while a deflate bomb
 * (1000:1) in a damaged or hostile chunk stops there instead of filling memory.
 */
export function decodeCap(spec: ChunkSpec): number {
  return Math.min(2 * product(spec.shape) * spec.dtype.itemSize + 2 ** 20, MAX_DECODED_BYTES);
}

/** gzip or zlib streams (`what`); a chunk decoded into its place (or a reused scratch) must fill it exactly. */
function deflateCodec(name: string, what: "gzip" | "zlib", level: number, cap: number): BytesToBytesCodec {
  const exactly = (m: typeof import("./deflate.js"), b: Uint8Array, dest: Uint8Array): void => {
    const n = m.inflateInto(b, dest, what);
    if (n !== dest.length) throw new CorruptChunkError(`${what}: the stream decoded to ${n} bytes, ${dest.length} expected`);
  };
  return bytesToBytes(
    name,
    deflate((m, b: Uint8Array, lease?: ScratchLease) => m.afterDeflateReady(what === "gzip" ? m.gzipCompress : m.zlibCompress)(b, level, lease)),
    deflate((m, b: Uint8Array) => m.afterDeflateReady(m.inflateAny)(b, what, cap)),
    deflate((m, b: Uint8Array, dest: Uint8Array) => m.afterDeflateReady(exactly)(m, b, dest)),
  );
}

export const gzipCodec: CodecFactory = (conf, spec) => {
  const level = intOption(conf, "level", "gzip", 5, 0, 9);
  return { codec: deflateCodec("gzip", "gzip", level, decodeCap(spec)), configuration: { level } };
};

export const zlibCodec: CodecFactory = (conf, spec) => {
  const level = intOption(conf, "level", "numcodecs.zlib", 1, 0, 9);
  return { codec: deflateCodec("numcodecs.zlib", "zlib", level, decodeCap(spec)), configuration: { level } };
};

export const zstdCodec: CodecFactory = (conf, spec) => {
  const level = intOption(conf, "level", "zstd", 0, -131072, 22);
  const checksum = boolOption(conf, "checksum", "zstd", false);
  const cap = decodeCap(spec);
  const encode = zstd(async (m, b: Uint8Array, lease?: ScratchLease): Promise<Uint8Array> => {
    if (!checksum) return m.zstdCompress(b, level, lease);
    // The frame, then its content checksum added (zstdWithChecksum: the bytes libzstd writes).
    const withSum = m.zstdWithChecksum(await m.zstdCompress(b, level), b);
    if (withSum === null) throw new UnsupportedError('codec "zstd": writing with "checksum": true needs WebAssembly SIMD, which this runtime lacks');
    return withSum;
  });
  return {
    codec: bytesToBytes("zstd", encode, zstd((m, b: Uint8Array) => m.zstdDecompress(b, undefined, cap)), zstd(async (m, b: Uint8Array, dest: Uint8Array) => {
      // A chunk decoded into its place: straight there with the reused context when the frame
      // declares exactly that size, else the checked path and one copy.
      if (!m.zstdDecompressInto(b, dest)) dest.set(await m.zstdDecompress(b, dest.length, cap));
    })),
    configuration: { level, checksum },
  };
};

const CNAMES = ["lz4", "lz4hc", "blosclz", "zstd", "zlib", "snappy"] as const;
const SHUFFLES = ["noshuffle", "shuffle", "bitshuffle"] as const;

export const bloscCodec: CodecFactory = (conf, spec) => {
  const cname = enumOption(conf, "cname", "blosc", CNAMES, "zstd");
  const clevel = intOption(conf, "clevel", "blosc", 5, 0, 9);
  // v3 spells shuffle as a name; v2-derived configs and some writers use the numbers.
  const rawShuffle = conf.shuffle;
  const shuffleName: (typeof SHUFFLES)[number] =
    typeof rawShuffle === "number"
      ? (SHUFFLES[rawShuffle] ?? enumOption({ shuffle: rawShuffle } as JsonObject, "shuffle", "blosc", SHUFFLES, "shuffle"))
      : enumOption(conf, "shuffle", "blosc", SHUFFLES, spec.dtype.itemSize === 1 ? "bitshuffle" : "shuffle");
  const typesize = intOption(conf, "typesize", "blosc", spec.dtype.itemSize, 1, 2 ** 31 - 1);
  const blocksize = intOption(conf, "blocksize", "blosc", 0, 0, 2 ** 31 - 1);
  const shuffle = SHUFFLES.indexOf(shuffleName) as 0 | 1 | 2;
  return {
    codec: bytesToBytes(
      "blosc",
      blosc((m, b: Uint8Array, scratch?: ScratchLease) => m.bloscEncode(b, { cname, clevel, shuffle, typesize, blocksize }, scratch)),
      blosc((m, b: Uint8Array) => m.bloscDecode(b)),
      blosc((m, b: Uint8Array, dest: Uint8Array) => m.bloscDecodeInto(b, dest)),
      blosc((m, b: Uint8Array, dest: ByteScatter) => m.bloscDecodeScatter(b, dest)),
    ),
    configuration: { cname, clevel, shuffle: shuffleName, typesize, blocksize },
  };
};
