/** The codecs parzarr knows, by v3 name (v2 numcodecs ids arrive as `numcodecs.<id>`). */
import { InternalFault, UnknownCodecError } from "../errors.js";
import { onFirstUse } from "../first-use.js";
import type { CodecConfig } from "../metadata/array-metadata.js";
import { bytesCodec } from "./bytes.js";
import { bloscCodec, gzipCodec, zlibCodec, zstdCodec } from "./compressors.js";
import type { CodecFactory } from "./types.js";

/** The codecs every thread holds: the bytes layout, the common compressors (their kernels load on first use). */
const registry = new Map<string, CodecFactory>([
  ["bytes", bytesCodec],
  ["blosc", bloscCodec],
  ["gzip", gzipCodec],
  ["zstd", zstdCodec],
  ["numcodecs.zlib", zlibCodec],
  // zarr-python 3 writes numcodecs' own names for codecs that v3 also defines.
  ["numcodecs.gzip", gzipCodec],
  ["numcodecs.zstd", zstdCodec],
  ["numcodecs.blosc", bloscCodec],
]);

// Sharding, the codec other than the core that most v3 arrays name, is its own module, with
// crc32c, which its index names by default (a config may leave the index chain out): loading it
// registers crc32c too. The rest come together (lazy-codecs.ts).
const sharding = onFirstUse(() =>
  import("./sharding/codec.js").then((m) => {
    // A codec registered meanwhile (registerCodec) is kept.
    for (const [name, f] of [["crc32c", m.crc32cCodec], ["numcodecs.crc32c", m.numcodecsCrc32cCodec]] as const) if (!registry.has(name)) registry.set(name, f);
    return m;
  }),
);
const others = onFirstUse(() => import("./lazy-codecs.js"));
// Transpose alone: v2 arrays in F order name it (v2Codecs), and its factory is all its module holds.
const transpose = onFirstUse(() => import("./transpose.js"));

/**
 * The other codecs, whose module a thread imports when it first opens, creates or runs an array
 * that names one (codecsReady): a page reading zstd or blosc arrays never loads sharding, the
 * filters or the variable-length codecs, nor does a worker that decodes them.
 */
const ON_FIRST_USE = new Map<string, () => CodecFactory | Promise<CodecFactory>>([
  ["transpose", transpose((m) => m.transposeCodec)],
  ["sharding_indexed", sharding((m) => m.shardingCodec)],
  ["crc32c", sharding((m) => m.crc32cCodec)],
  ["numcodecs.crc32c", sharding((m) => m.numcodecsCrc32cCodec)],
  ["numcodecs.lz4", others((m) => m.lz4Codec)],
  ["zarrs.gdeflate", others((m) => m.gdeflateCodec)],
  ["vlen-utf8", others((m) => m.vlenUtf8Codec)],
  ["vlen-bytes", others((m) => m.vlenBytesCodec)],
  ["numcodecs.vlen-utf8", others((m) => m.vlenUtf8Codec)],
  ["numcodecs.vlen-bytes", others((m) => m.vlenBytesCodec)],
  ["numcodecs.delta", others((m) => m.deltaCodec)],
  ["numcodecs.fixedscaleoffset", others((m) => m.fixedScaleOffsetCodec)],
  ["numcodecs.quantize", others((m) => m.quantizeCodec)],
  ["numcodecs.astype", others((m) => m.astypeCodec)],
  ["numcodecs.categorize", others((m) => m.categorizeCodec)],
  ["numcodecs.packbits", others((m) => m.packbitsCodec)],
  // zarr-extensions' packbits (bit ranges, low bit first) is not numcodecs' (bool, high bit first).
  ["packbits", others((m) => m.packbitsV3Codec)],
  ["numcodecs.bitround", others((m) => m.bitroundCodec)],
  ["bitround", others((m) => m.bitroundCodec)],
  ["numcodecs.shuffle", others((m) => m.shuffleCodec)],
  ["numcodecs.adler32", others((m) => m.adler32Codec)],
  ["numcodecs.crc32", others((m) => m.crc32Codec)],
  ["numcodecs.fletcher32", others((m) => m.fletcher32Codec)],
  ["numcodecs.bz2", others((m) => m.bz2Codec)],
  ["bz2", others((m) => m.bz2Codec)],
  ["numcodecs.lzma", others((m) => m.lzmaCodec)],
  ["reshape", others((m) => m.reshapeCodec)],
  ["zarrs.squeeze", others((m) => m.squeezeCodec)],
  ["cast_value", others((m) => m.castValueCodec)],
  ["scale_offset", others((m) => m.scaleOffsetCodec)],
  ["numcodecs.json2", others((m) => m.json2Codec)],
  // zarrs writes "optional"; "zarrs.optional" is its registered name.
  ["optional", others((m) => m.optionalCodec)],
  ["zarrs.optional", others((m) => m.optionalCodec)],
  ["zarrs.vlen", others((m) => m.zarrsVlenCodec)],
  ["zarrs.vlen_v2", others((m) => m.vlenV2Codec)],
  // zarrs' name for numcodecs' vlen-array, over string and bytes arrays (see vlen.ts).
  ["vlen-array", others((m) => m.vlenArrayCodec)],
  ["numcodecs.vlen-array", others((m) => m.vlenArrayCodec)],
]);

/** Chains whose codecs were all loaded when last asked (a codec once loaded stays loaded). */
const loadedChains = new WeakSet<readonly CodecConfig[]>();

/**
 * Loads the modules of the codecs `configs` name, the chains nested in their configurations
 * included (sharding's, optional's): undefined when there is nothing to load (the caller need not
 * wait), else the loading. Names parzarr does not know are left for getCodecFactory to refuse.
 */
export function codecsReady(configs: readonly CodecConfig[]): Promise<void> | undefined {
  // A worker asks once per chunk of a task, with the one metadata object the task carries.
  if (loadedChains.has(configs)) return undefined;
  const loading: Promise<void>[] = [];
  const visit = (config: unknown): void => {
    if (typeof config !== "object" || config === null) return;
    const { name: written, configuration } = config as { name?: unknown; configuration?: unknown };
    const name = typeof written === "string" ? canonicalCodecName(written) : written;
    const factory = typeof name === "string" && !registry.has(name) ? ON_FIRST_USE.get(name)?.() : undefined;
    // A codec registered meanwhile (registerCodec) is kept.
    const keep = (f: CodecFactory): void => void (registry.has(name as string) || registry.set(name as string, f));
    if (factory instanceof Promise) loading.push(factory.then(keep));
    else if (factory !== undefined) keep(factory);
    if (typeof configuration === "object" && configuration !== null) {
      for (const value of Object.values(configuration)) if (Array.isArray(value)) value.forEach(visit);
    }
  };
  configs.forEach(visit);
  if (loading.length === 0) loadedChains.add(configs);
  return loading.length === 0 ? undefined : Promise.all(loading).then(() => undefined);
}

/** Other names a codec is written under, by the one the registry (and placement's cost table) knows. */
const ALIASES = new Map<string, string>([["https://codec.zarrs.dev/bytes_to_bytes/gdeflate", "zarrs.gdeflate"]]);

/** The registry's name of a codec written under another of its names (zarrs' URL names); else the name itself. */
export function canonicalCodecName(name: string): string {
  return ALIASES.get(name) ?? name;
}

export function getCodecFactory(written: string): CodecFactory {
  const name = canonicalCodecName(written);
  const f = registry.get(name);
  if (!f && ON_FIRST_USE.has(name)) throw new InternalFault(`codec "${name}" was used before codecsReady loaded its module`);
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
