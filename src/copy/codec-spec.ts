/**
 * Codec specs (`parzarr cp --codec`, the `codec` option of `copy`): strings (`zstd:3`, `blosc:lz4:5:shuffle`, `gzip:6`, `zlib:1`, `lz4`, `gdeflate:9`, `none`) and
 * their two spellings: a v3 bytes->bytes codec chain and a v2 numcodecs compressor. The same
 * string means the same bytes on disk in both formats, as zarr-python maps them; `gdeflate`
 * (zarrs.gdeflate) has no numcodecs compressor, so v3 only.
 */
import { InvalidArgumentError } from "../errors.js";
import type { CodecConfig } from "../metadata/array-metadata.js";
import { canonicalCodecName } from "../codecs/registry.js";
import type { JsonObject } from "../metadata/json.js";

/** A compression choice as parseCodecSpec reads it from `zstd:3`, `blosc:lz4:5:shuffle` and the like. */
export type CodecSpec =
  | { kind: "none" }
  | { kind: "zstd"; level: number }
  | { kind: "gzip"; level: number }
  | { kind: "zlib"; level: number }
  | { kind: "lz4"; acceleration: number }
  | { kind: "gdeflate"; level: number }
  | { kind: "blosc"; cname: BloscName; clevel: number; shuffle: Shuffle };

/** @inline */
type BloscName = "lz4" | "lz4hc" | "blosclz" | "zstd" | "zlib" | "snappy";
/** @inline */
type Shuffle = "noshuffle" | "shuffle" | "bitshuffle";
const BLOSC_NAMES: readonly BloscName[] = ["lz4", "lz4hc", "blosclz", "zstd", "zlib", "snappy"];
const SHUFFLES: readonly Shuffle[] = ["noshuffle", "shuffle", "bitshuffle"];

export const CODEC_SPEC_HELP = "none | zstd[:LEVEL] | gzip[:LEVEL] | zlib[:LEVEL] | lz4[:ACCEL] | blosc[:CNAME[:CLEVEL[:SHUFFLE]]] | gdeflate[:LEVEL] (v3)";

function level(text: string | undefined, def: number, min: number, max: number, what: string, spec: string): number {
  if (text === undefined || text === "") return def;
  if (!/^-?\d+$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new InvalidArgumentError(`codec ${spec}: ${what} must be an integer from ${min} to ${max}, got ${JSON.stringify(text)}`);
  }
  return Number(text);
}

/** Parses `none`, `zstd[:LEVEL]`, `gzip[:LEVEL]`, `zlib[:LEVEL]`, `lz4[:ACCEL]`, `blosc[:CNAME[:CLEVEL[:SHUFFLE]]]` or `gdeflate[:LEVEL]`; anything else is an InvalidArgumentError. */
export function parseCodecSpec(text: string): CodecSpec {
  const [name, ...args] = text.trim().toLowerCase().split(":");
  const extra = (n: number) => {
    if (args.length > n) throw new InvalidArgumentError(`codec ${text}: too many ":" fields (expected ${CODEC_SPEC_HELP})`);
  };
  switch (name) {
    case "none":
    case "raw":
      extra(0);
      return { kind: "none" };
    case "zstd":
      extra(1);
      return { kind: "zstd", level: level(args[0], 3, -131072, 22, "the level", text) };
    case "gzip":
      extra(1);
      return { kind: "gzip", level: level(args[0], 5, 0, 9, "the level", text) };
    case "zlib":
      extra(1);
      return { kind: "zlib", level: level(args[0], 1, 0, 9, "the level", text) };
    case "lz4":
      extra(1);
      return { kind: "lz4", acceleration: level(args[0], 1, 1, 65537, "the acceleration", text) };
    case "gdeflate":
      extra(1);
      return { kind: "gdeflate", level: level(args[0], 9, 0, 12, "the level", text) };
    case "blosc": {
      extra(3);
      const cname = (args[0] || "lz4") as BloscName;
      if (!BLOSC_NAMES.includes(cname)) throw new InvalidArgumentError(`codec ${text}: blosc compressor must be one of ${BLOSC_NAMES.join(", ")}`);
      const shuffle = (args[2] || "shuffle") as Shuffle;
      if (!SHUFFLES.includes(shuffle)) throw new InvalidArgumentError(`codec ${text}: shuffle must be one of ${SHUFFLES.join(", ")}`);
      return { kind: "blosc", cname, clevel: level(args[1], 5, 0, 9, "the level", text), shuffle };
    }
    default:
      throw new InvalidArgumentError(`codec ${JSON.stringify(text)}: unknown codec (expected ${CODEC_SPEC_HELP})`);
  }
}

/** The v3 bytes->bytes codecs (after `bytes`). `typesize` is blosc's shuffle width. */
export function v3CodecsOf(spec: CodecSpec, typesize: number): CodecConfig[] {
  switch (spec.kind) {
    case "none":
      return [];
    case "zstd":
      return [{ name: "zstd", configuration: { level: spec.level, checksum: false } }];
    case "gzip":
      return [{ name: "gzip", configuration: { level: spec.level } }];
    case "zlib":
      return [{ name: "numcodecs.zlib", configuration: { level: spec.level } }];
    case "lz4":
      return [{ name: "numcodecs.lz4", configuration: { acceleration: spec.acceleration } }];
    case "gdeflate":
      return [{ name: "zarrs.gdeflate", configuration: { level: spec.level } }];
    case "blosc":
      return [
        {
          name: "blosc",
          configuration: { cname: spec.cname, clevel: spec.clevel, shuffle: spec.shuffle, typesize, blocksize: 0 },
        },
      ];
  }
}

/** The v2 compressor (numcodecs form), or null for none. */
export function v2CompressorOf(spec: CodecSpec): JsonObject | null {
  switch (spec.kind) {
    case "none":
      return null;
    case "zstd":
      return { id: "zstd", level: spec.level };
    case "gzip":
      return { id: "gzip", level: spec.level };
    case "zlib":
      return { id: "zlib", level: spec.level };
    case "lz4":
      return { id: "lz4", acceleration: spec.acceleration };
    case "blosc":
      return { id: "blosc", cname: spec.cname, clevel: spec.clevel, shuffle: SHUFFLES.indexOf(spec.shuffle), blocksize: 0 };
    case "gdeflate":
      throw new InvalidArgumentError("codec gdeflate (zarrs.gdeflate) has no v2 (numcodecs) compressor: copy to v3, or pass another codec");
  }
}

/**
 * The codec an existing array compresses with, as a spec, so a format conversion without
 * `--codec` keeps the compression. Undefined when its chain has no single-codec equivalent.
 */
export function specOfChain(codecs: readonly CodecConfig[]): CodecSpec | undefined {
  const b2b = codecs.filter((c) => !["bytes", "vlen-utf8", "vlen-bytes", "numcodecs.vlen-utf8", "numcodecs.vlen-bytes", "transpose", "crc32c", "numcodecs.crc32c"].includes(c.name));
  if (b2b.length === 0) return { kind: "none" };
  if (b2b.length > 1) return undefined;
  const c = b2b[0];
  const conf = c.configuration ?? {};
  const num = (v: unknown, def: number) => (typeof v === "number" ? v : def);
  switch (canonicalCodecName(c.name).replace(/^numcodecs\./, "")) {
    case "zstd":
      return { kind: "zstd", level: num(conf.level, 0) };
    case "gzip":
      return { kind: "gzip", level: num(conf.level, 5) };
    case "zlib":
      return { kind: "zlib", level: num(conf.level, 1) };
    case "lz4":
      return { kind: "lz4", acceleration: num(conf.acceleration, 1) };
    case "zarrs.gdeflate":
      return { kind: "gdeflate", level: num(conf.level, 9) };
    case "blosc": {
      const cname = conf.cname as BloscName;
      const shuffle = conf.shuffle as Shuffle;
      if (!BLOSC_NAMES.includes(cname) || !SHUFFLES.includes(shuffle)) return undefined;
      return { kind: "blosc", cname, clevel: num(conf.clevel, 5), shuffle };
    }
    default:
      return undefined;
  }
}

export function describeSpec(spec: CodecSpec): string {
  switch (spec.kind) {
    case "none":
      return "none";
    case "lz4":
      return `lz4:${spec.acceleration}`;
    case "blosc":
      return `blosc:${spec.cname}:${spec.clevel}:${spec.shuffle}`;
    default:
      return `${spec.kind}:${spec.level}`;
  }
}
