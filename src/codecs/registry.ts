/** The codecs parzarr knows, by v3 name (v2 numcodecs ids arrive as `numcodecs.<id>`). */
import { UnknownCodecError } from "../errors.js";
import { bytesCodec } from "./bytes.js";
import { bloscCodec, gdeflateCodec, gzipCodec, lz4Codec, zlibCodec, zstdCodec } from "./compressors.js";
import { crc32cCodec, numcodecsCrc32cCodec } from "./crc32c.js";
import { shardingCodec } from "./sharding/codec.js";
import { transposeCodec } from "./transpose.js";
import type { CodecFactory } from "./types.js";
import { vlenArrayCodec, vlenBytesCodec, vlenUtf8Codec, vlenV2Codec } from "./vlen.js";
import { zarrsVlenCodec } from "./zarrs-vlen.js";
import { astypeCodec, bitroundCodec, deltaCodec, fixedScaleOffsetCodec, quantizeCodec } from "./filters/numeric.js";
import { categorizeCodec } from "./filters/categorize.js";
import { packbitsCodec } from "./filters/packbits.js";
import { packbitsV3Codec } from "./packbits.js";
import { shuffleCodec } from "./filters/shuffle.js";
import { adler32Codec, crc32Codec, fletcher32Codec } from "./checksums.js";
import { bz2Codec } from "./bz2.js";
import { lzmaCodec } from "./lzma.js";
import { reshapeCodec } from "./reshape.js";
import { squeezeCodec } from "./squeeze.js";
import { json2Codec } from "./json2.js";
import { castValueCodec } from "./filters/cast-value.js";
import { scaleOffsetCodec } from "./filters/scale-offset.js";
import { optionalCodec } from "./optional.js";

const registry = new Map<string, CodecFactory>([
  ["bytes", bytesCodec],
  ["transpose", transposeCodec],
  ["blosc", bloscCodec],
  ["gzip", gzipCodec],
  ["zstd", zstdCodec],
  ["crc32c", crc32cCodec],
  ["numcodecs.zlib", zlibCodec],
  ["numcodecs.lz4", lz4Codec],
  // zarr-python 3 writes numcodecs' own names for codecs that v3 also defines.
  ["numcodecs.gzip", gzipCodec],
  ["numcodecs.zstd", zstdCodec],
  ["numcodecs.blosc", bloscCodec],
  ["numcodecs.crc32c", numcodecsCrc32cCodec],
  ["sharding_indexed", shardingCodec],
  ["vlen-utf8", vlenUtf8Codec],
  ["vlen-bytes", vlenBytesCodec],
  ["numcodecs.vlen-utf8", vlenUtf8Codec],
  ["numcodecs.vlen-bytes", vlenBytesCodec],
  ["numcodecs.delta", deltaCodec],
  ["numcodecs.fixedscaleoffset", fixedScaleOffsetCodec],
  ["numcodecs.quantize", quantizeCodec],
  ["numcodecs.astype", astypeCodec],
  ["numcodecs.categorize", categorizeCodec],
  ["numcodecs.packbits", packbitsCodec],
  // zarr-extensions' packbits (bit ranges, low bit first) is not numcodecs' (bool, high bit first).
  ["packbits", packbitsV3Codec],
  ["numcodecs.bitround", bitroundCodec],
  ["bitround", bitroundCodec],
  ["numcodecs.shuffle", shuffleCodec],
  ["numcodecs.adler32", adler32Codec],
  ["numcodecs.crc32", crc32Codec],
  ["numcodecs.fletcher32", fletcher32Codec],
  ["numcodecs.bz2", bz2Codec],
  ["bz2", bz2Codec],
  ["numcodecs.lzma", lzmaCodec],
  ["reshape", reshapeCodec],
  ["zarrs.squeeze", squeezeCodec],
  ["cast_value", castValueCodec],
  ["scale_offset", scaleOffsetCodec],
  ["numcodecs.json2", json2Codec],
  // zarrs writes "optional"; "zarrs.optional" is its registered name.
  ["optional", optionalCodec],
  ["zarrs.optional", optionalCodec],
  ["zarrs.vlen", zarrsVlenCodec],
  ["zarrs.vlen_v2", vlenV2Codec],
  // zarrs' name for numcodecs' vlen-array, over string and bytes arrays (see vlen.ts).
  ["vlen-array", vlenArrayCodec],
  ["numcodecs.vlen-array", vlenArrayCodec],
  ["zarrs.gdeflate", gdeflateCodec],
  ["https://codec.zarrs.dev/bytes_to_bytes/gdeflate", gdeflateCodec],
]);

export function getCodecFactory(name: string): CodecFactory {
  const f = registry.get(name);
  if (!f) {
    const shown = name.startsWith("numcodecs.") ? `${name} (numcodecs id "${name.slice(10)}")` : name;
    throw new UnknownCodecError(`unknown or unsupported codec "${shown}"`);
  }
  return f;
}

/** Lets later modules (and users) add codecs without touching this file. */
export function registerCodec(name: string, factory: CodecFactory): void {
  registry.set(name, factory);
}
