/**
 * numcodecs' `json2` object codec (v2 filter id `json2`; array->bytes here): a chunk of JSON
 * values is the JSON text of `[...values nested by the chunk's shape, dtype, shape]`, as numpy's
 * `tolist()` nests them (`[[1,"a"],[null,2.5],"|O",[2,2]]`), UTF-8. Written as numcodecs'
 * defaults write it: one line with "," and ":", keys sorted, non-ASCII escaped, NaN and
 * Infinity as Python's bare literals. Reading takes any layout, and the flat list of values
 * that zarrita.js writes for any shape.
 */
import { CorruptChunkError, InvalidArgumentError, UnsupportedError } from "../errors.js";
import type { JsonValue } from "../metadata/json.js";
import { parseJsonText } from "../metadata/json-lenient.js";
import { serialiseJson } from "../metadata/json-write.js";
import { product } from "../indexing/strided.js";
import { boolOption } from "./config.js";
import type { ArrayToBytesCodec, ChunkSpec, ChunkView, CodecFactory } from "./types.js";
import { contiguousData, contiguousView } from "./view.js";

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** C-ordered values as nested lists of `shape` (numpy's tolist). */
function nest(values: JsonValue[], shape: readonly number[]): JsonValue[] {
  let level = values;
  for (let d = shape.length - 1; d >= 1; d--) {
    const next: JsonValue[] = [];
    for (let i = 0; i < level.length; i += shape[d]) next.push(level.slice(i, i + shape[d]));
    level = next;
  }
  return level;
}

class Json2Codec implements ArrayToBytesCodec {
  readonly kind = "array_to_bytes";
  readonly name = "numcodecs.json2";
  constructor(private readonly options: { asciiOnly: boolean; sortKeys: boolean; allowNan: boolean; separators: [string, string] }) {}

  encode(view: ChunkView, spec: ChunkSpec): Uint8Array {
    const values = contiguousData(view, spec.dtype) as JsonValue[];
    if (!this.options.allowNan && values.some(function bad(v): boolean {
      return typeof v === "number" ? !Number.isFinite(v) : v !== null && typeof v === "object" && Object.values(v).some(bad);
    })) {
      throw new InvalidArgumentError('codec "json2": NaN and Infinity are not allowed (allow_nan is false)');
    }
    const items: JsonValue[] = [...nest(values, view.shape), "|O", view.shape];
    const { asciiOnly, sortKeys, separators } = this.options;
    return encoder.encode(serialiseJson(items, { indent: null, separators, sortKeys, asciiOnly }));
  }

  decode(bytes: Uint8Array, spec: ChunkSpec): ChunkView {
    let doc: unknown;
    try {
      doc = parseJsonText(decoder.decode(bytes), "json2 chunk");
    } catch (cause) {
      throw new CorruptChunkError("json2: the chunk is not UTF-8 JSON text", { cause });
    }
    const shape = Array.isArray(doc) && doc.length >= 2 ? doc[doc.length - 1] : undefined;
    if (!Array.isArray(shape) || shape.some((n) => !Number.isSafeInteger(n) || n < 0) || typeof (doc as unknown[])[(doc as unknown[]).length - 2] !== "string") {
      throw new CorruptChunkError("json2: the chunk does not end with its dtype and shape");
    }
    if (product(shape) !== product(spec.shape)) throw new CorruptChunkError(`json2: the chunk has shape [${shape}], expected [${spec.shape}]`);
    const values = (doc as unknown[]).slice(0, -2);
    const out: JsonValue[] = [];
    const walk = (v: unknown, d: number): boolean => {
      if (d === shape.length) return out.push(v as JsonValue) > 0;
      return Array.isArray(v) && v.length === shape[d] && v.every((x) => walk(x, d + 1));
    };
    if (!walk(values, 0)) {
      // zarrita.js writes the values flat, whatever the shape.
      if (values.length !== product(shape)) throw new CorruptChunkError(`json2: the values do not nest as shape [${shape}]`);
      return contiguousView(values as JsonValue[], spec.shape);
    }
    return contiguousView(out, spec.shape);
  }
}

export const json2Codec: CodecFactory = (conf, spec) => {
  if (spec.dtype.kind !== "json") throw new UnsupportedError(`codec "json2" encodes object arrays of JSON values, not ${spec.dtype.name}`);
  if ((conf.encoding ?? "utf-8") !== "utf-8") throw new UnsupportedError(`codec "json2": only the utf-8 encoding is supported, not ${JSON.stringify(conf.encoding)}`);
  const sep = conf.separators;
  const separators: [string, string] = Array.isArray(sep) && sep.length === 2 && sep.every((s) => typeof s === "string") ? [sep[0] as string, sep[1] as string] : [",", ":"];
  const codec = new Json2Codec({
    asciiOnly: boolOption(conf, "ensure_ascii", "json2", true),
    sortKeys: boolOption(conf, "sort_keys", "json2", true),
    allowNan: boolOption(conf, "allow_nan", "json2", true),
    separators,
  });
  return { codec, configuration: conf };
};
