/**
 * numcodecs `lzma` (bytes->bytes) through @napi-rs/lzma: format 1 (xz, numcodecs' default, with
 * its default CRC64 check) and format 2 (legacy .lzma "alone"). Raw streams (format 3) and custom
 * filter chains have no counterpart there and are refused by name.
 *
 * The binding is pinned to 1.4, the last release that runs on Node 20; it compresses at its own
 * fixed setting and takes no preset. A preset only steers the compressor, never the decoder, so
 * the configured preset is kept in the metadata and every stream written here decodes in
 * numcodecs (tested), but the bytes differ from what liblzma writes at that preset.
 */
import { CorruptChunkError, InvalidMetadataError, UnsupportedError } from "../errors.js";
import { missingDependency } from "../optional-deps.js";
import type { JsonObject } from "../metadata/json.js";
import type { CodecFactory } from "./types.js";
import { decodeCap } from "./compressors.js";
import { onFirstUse } from "../first-use.js";

/** The xz container's code loads with the codec's first use (compressors.ts says why). */
const container = onFirstUse(() => import("./xz-container.js"));

interface Format {
  compressSync(b: Uint8Array): Uint8Array;
  decompressSync(b: Uint8Array): Uint8Array;
}
interface LzmaBinding {
  xz: Format;
  lzma: Format;
}

let binding: LzmaBinding | undefined;

/**
 * Loaded on first use: a missing package (an optional peer dependency) or native binary then
 * fails only lzma arrays, with a clear error.
 */
function lzmaBinding(): LzmaBinding {
  if (binding) return binding;
  // node:module comes from getBuiltinModule, not a static import, so browser bundles stay free of it.
  const nodeModule = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.("node:module") as
    | { createRequire(url: string): (id: string) => unknown }
    | undefined;
  if (nodeModule === undefined) throw new UnsupportedError(`codec "numcodecs.lzma" needs Node (a native binding); it is not available in a browser`);
  try {
    binding = nodeModule.createRequire(import.meta.url)("@napi-rs/lzma") as LzmaBinding;
    return binding;
  } catch (cause) {
    const missing = missingDependency(cause, ["@napi-rs/lzma"], `codec "numcodecs.lzma"`);
    if (missing) throw missing;
    const why = cause instanceof Error ? cause.message.split("\n")[0] : String(cause);
    throw new UnsupportedError(
      `codec "numcodecs.lzma" needs @napi-rs/lzma with its native binary for this platform (e.g. @napi-rs/lzma-linux-x64-gnu): ${why}`,
    );
  }
}


/**
 * The decoded size a legacy .lzma header declares, or null when it says "unknown" (all ones: the
 * stream then ends with an end marker, and nothing bounds it before decoding).
 */
function aloneDeclaredSize(b: Uint8Array): number | null {
  if (b.length < 13) throw new CorruptChunkError(`lzma: ${b.length} bytes is too short for an .lzma header`);
  let allOnes = true;
  let v = 0;
  for (let i = 12; i >= 5; i--) {
    if (b[i] !== 0xff) allOnes = false;
    v = v * 256 + b[i];
  }
  return allOnes ? null : v;
}
/** Python's lzma check ids: -1 is the format's default (CRC64 for xz), 4 CRC64 itself. */
const CHECK_DEFAULT = -1;
const CHECK_CRC64 = 4;

export const lzmaCodec: CodecFactory = (conf: JsonObject, spec) => {
  const name = "numcodecs.lzma";
  const format = conf.format ?? 1;
  const check = conf.check ?? CHECK_DEFAULT;
  const preset = conf.preset ?? null;
  const filters = conf.filters ?? null;
  if (format !== 0 && format !== 1 && format !== 2) {
    throw new UnsupportedError(`codec "${name}": format ${JSON.stringify(format)} is not supported (1 = xz, 2 = alone; 3 = raw is not)`);
  }
  if (filters !== null) throw new UnsupportedError(`codec "${name}": custom "filters" are not supported; use "preset"`);
  if (preset !== null && (typeof preset !== "number" || !Number.isInteger(preset) || preset < 0 || preset > 9)) {
    throw new InvalidMetadataError(`codec "${name}": "preset" must be null or an integer from 0 to 9, got ${JSON.stringify(preset)}`);
  }
  if (typeof check !== "number") throw new InvalidMetadataError(`codec "${name}": "check" must be an integer`);
  const cap = decodeCap(spec);
  return {
    codec: {
      kind: "bytes_to_bytes",
      name,
      encode: container((x, b: Uint8Array) => {
        if (format === 0) throw new UnsupportedError(`codec "${name}": format 0 (auto) only decodes; write format 1 (xz)`);
        if (format === 1 && check !== CHECK_DEFAULT && check !== CHECK_CRC64) {
          throw new UnsupportedError(`codec "${name}": writing xz with check ${check} is not supported (only the default CRC64)`);
        }
        const lib = lzmaBinding();
        const raw = (format === 1 ? lib.xz : lib.lzma).compressSync(b);
        const out = new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
        // The binding writes xz without a check; numcodecs' default (check -1) is CRC64.
        return format === 1 ? x.withCrc64(out, b) : out;
      }),
      decode: container((x, b: Uint8Array) => {
        const lib = lzmaBinding();
        const xz = x.isXz(b);
        // The decoded size is known (and capped) before decoding: the binding has no output limit.
        const blocks = xz ? x.xzBlocks(b, cap) : null;
        if (!xz) {
          const declared = aloneDeclaredSize(b);
          if (declared !== null && declared > cap) {
            throw new CorruptChunkError(`lzma: the stream declares ${declared} bytes, over the ${cap}-byte limit for this chunk`);
          }
        }
        let out: Uint8Array;
        try {
          const raw = xz ? lib.xz.decompressSync(b) : lib.lzma.decompressSync(b);
          out = new Uint8Array(raw.buffer, raw.byteOffset, raw.byteLength);
        } catch (cause) {
          throw new CorruptChunkError(`lzma: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
        }
        if (blocks) x.verifyXzChecks(b, blocks, out);
        return out;
      }),
    },
    configuration: { format, check, preset, filters },
  };
};
