/** The codecs parzarr knows, by v3 name (v2 numcodecs ids arrive as `numcodecs.<id>`). */
import { UnknownCodecError } from "../errors.js";
import { bytesCodec } from "./bytes.js";
import { bloscCodec, gzipCodec, lz4Codec, zlibCodec, zstdCodec } from "./compressors.js";
import { crc32cCodec } from "./crc32c.js";
import { shardingCodec } from "./sharding/codec.js";
import { transposeCodec } from "./transpose.js";
import type { CodecFactory } from "./types.js";

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
  ["numcodecs.crc32c", crc32cCodec],
  // Deferred: the sharding module imports the pipeline, which imports this registry.
  ["sharding_indexed", (conf, spec) => shardingCodec(conf, spec)],
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
