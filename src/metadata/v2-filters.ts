/**
 * A v2 array's `filters`: the element type of a `|O` array (what its object codec makes) and the
 * codecs the filters become in the chain v2Codecs builds (array-metadata.ts). Loaded with the rare
 * data types (rare-types.ts), as metadataJson and rareTypesReady load them for a document or
 * options with filters: a page reading v2 arrays without filters (a compressor only) never
 * loads it.
 */
import { UnsupportedError } from "../errors.js";
import type { DataType } from "./dtype.js";
import { jsonType, parseDataType, vlenBytesType, vlenStringType } from "./dtype-names.js";
import { type JsonObject, isJsonObject } from "./json.js";
// Types only: array-metadata.ts hands over its codec mapping (V2Codecs), so that this module, loaded
// on first use, shares no module with the page that esbuild would then split into a chunk of its own.
import type { CodecConfig } from "./array-metadata.js";
import { vlenArrayType } from "./vlen-array.js";

/**
 * A v2 `|O` array's elements are whatever its object codec makes: strings for vlen-utf8 (and
 * categorize, whose labels are strings), byte strings for vlen-bytes, arrays of numbers for
 * vlen-array, JSON values for json2. Others are refused by name; undefined without an object codec.
 */
export function v2ObjectType(filters: readonly unknown[], file: string): DataType | undefined {
  const ids = filters.map((f) => (isJsonObject(f) ? f.id : undefined));
  if (ids.includes("vlen-bytes")) return vlenBytesType();
  const array = filters.find((f) => isJsonObject(f) && f.id === "vlen-array") as JsonObject | undefined;
  if (array) return vlenArrayType(parseDataType(array.dtype, `${file}: vlen-array "dtype"`), file);
  if (ids.includes("vlen-utf8") || ids.includes("categorize")) return vlenStringType();
  if (ids.includes("json2")) return jsonType();
  const other = ids.find((id) => typeof id === "string" && ["json", "msgpack", "msgpack2", "pickle"].includes(id));
  if (other) throw new UnsupportedError(`${file}: object arrays with the "${other}" object codec are not supported (only vlen-utf8, vlen-bytes, vlen-array, json2, categorize)`);
  return undefined;
}

/** numcodecs filters that work on arrays and may change the element type (`astype`). */
const V2_ARRAY_FILTERS = new Set(["delta", "fixedscaleoffset", "quantize", "astype", "categorize", "bitround"]);
/** numcodecs filters that turn an array into bytes: they take the place of `bytes`. */
const V2_ARRAY_TO_BYTES = new Set(["vlen-utf8", "vlen-bytes", "vlen-array", "packbits", "json2"]);

/** The type a v2 array filter hands on: its `astype` / `encode_dtype`, or the input type. */
function filterOutputType(f: JsonObject, dtype: DataType, file: string, field: string): DataType {
  const out = f.id === "astype" ? f.encode_dtype : f.astype;
  if (typeof out !== "string" || (f.id !== "astype" && f.id !== "delta" && f.id !== "fixedscaleoffset" && f.id !== "quantize" && f.id !== "categorize")) {
    return dtype;
  }
  return parseDataType(out, `${file}: field "${field}"`);
}

/** How array-metadata.ts maps one numcodecs config to a v3 codec, and the plain `bytes` codec of a type. */
export interface V2Codecs {
  codec(config: JsonObject, dtype: DataType, field: string): CodecConfig;
  bytes(dtype: DataType): CodecConfig;
}

/**
 * Appends to `chain` the codecs of a v2 array's filters, which numcodecs runs in order on the
 * chunk: array filters first, then the one that makes bytes (vlen, packbits, or the plain `bytes`
 * in the byte order of the last array type, put before the first byte filter), then byte filters
 * (shuffle, checksums). Returns the type the rest of the chain sees and whether bytes were made.
 */
export function v2FilterCodecs(filters: readonly JsonObject[], dtype: DataType, chain: CodecConfig[], file: string, to: V2Codecs): { current: DataType; bytesDone: boolean } {
  let current = dtype;
  let bytesDone = false;
  filters.forEach((f, i) => {
    const field = `filters[${i}]`;
    const id = f.id as string;
    if (!bytesDone && V2_ARRAY_FILTERS.has(id)) {
      chain.push(to.codec(f, current, field));
      current = filterOutputType(f, current, file, field);
      return;
    }
    if (!bytesDone && V2_ARRAY_TO_BYTES.has(id)) {
      chain.push(to.codec(f, current, field));
      bytesDone = true;
      // What follows sees plain bytes (blosc's typesize is then 1, as numcodecs makes it).
      current = parseDataType("|u1");
      return;
    }
    if (!bytesDone) {
      chain.push(to.bytes(current));
      bytesDone = true;
    }
    chain.push(to.codec(f, current, field));
  });
  return { current, bytesDone };
}
