/**
 * The codec factories that are neither the core ones (bytes, the common compressors) nor sharding
 * with crc32c, nor transpose (each its own module), in one module that the registry imports when a thread first meets an array naming one of them
 * (registry.ts, codecsReady). One module rather than one per codec: esbuild's splitting cuts the
 * code a page shares with each module it imports on first use into more chunk files, and fifteen
 * made a page's main thread 2 KB gzip larger than one.
 */
export { vlenArrayCodec, vlenBytesCodec, vlenUtf8Codec, vlenV2Codec } from "./vlen.js";
export { zarrsVlenCodec } from "./zarrs-vlen.js";
export { astypeCodec, bitroundCodec, deltaCodec, fixedScaleOffsetCodec, quantizeCodec } from "./filters/numeric.js";
export { categorizeCodec } from "./filters/categorize.js";
export { packbitsCodec } from "./filters/packbits.js";
export { packbitsV3Codec } from "./packbits.js";
export { shuffleCodec } from "./filters/shuffle.js";
export { adler32Codec, crc32Codec, fletcher32Codec } from "./checksums.js";
export { bz2Codec } from "./bz2.js";
export { lzmaCodec } from "./lzma.js";
export { reshapeCodec } from "./reshape.js";
export { squeezeCodec } from "./squeeze.js";
export { json2Codec } from "./json2.js";
export { castValueCodec } from "./filters/cast-value.js";
export { scaleOffsetCodec } from "./filters/scale-offset.js";
export { optionalCodec } from "./optional.js";
export { gdeflateCodec, lz4Codec } from "./rare-compressors.js";
