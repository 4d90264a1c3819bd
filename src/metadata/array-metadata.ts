/**
 * Array and group metadata of both Zarr versions, parsed into one model. A v2 array's `order`,
 * `filters`, byte order and `compressor` become the same codec chain a v3 array spells out, so
 * everything below this layer sees one pipeline. Writing the documents back (documents.ts) and
 * the codecs a new array gets (default-codecs.ts) are apart, so a page that only reads holds none.
 */
import { InvalidMetadataError, UnsupportedError } from "../errors.js";
import { isObjectType, type DataType, type Scalar } from "./dtype.js";
import { parseDataType, rareTypes } from "./dtype-names.js";
import { parseFillValue } from "./fill-value.js";
import type { AxisEdges } from "./chunk-grid.js";
import { type JsonObject, type JsonValue, fillValueOf, isJsonObject } from "./json.js";

/** A codec as v3 metadata spells it. v2 compressors and filters are translated into this form. */
export interface CodecConfig {
  /** The v3 codec name (`"zstd"`, `"bytes"`, `"numcodecs.delta"`...). */
  name: string;
  /** Its parameters, as the codec's spec defines them. */
  configuration?: JsonObject;
}

/**
 * The most codecs an array's chain may hold, those of nested chains (sharding's `codecs` and
 * `index_codecs`) counted. Zarr sets no limit, but real chains hold a handful (sharding with an
 * inner compressor and a checksummed index is 5), while each codec is a pass over the chunk with
 * its own buffer, up to the chunk's decode cap: 10^4 gzip codecs took over 3 GB and 100 s for ten
 * elements. 64 leaves room for any chain made on purpose.
 */
export const MAX_CODECS = 64;

/** Refuses a chain of more than MAX_CODECS codecs (INVALID_METADATA); returns it otherwise. */
export function checkCodecCount<T extends readonly unknown[]>(chain: T, where: string): T {
  let count = 0;
  const visit = (codecs: readonly unknown[]): void => {
    for (const c of codecs) {
      if (++count > MAX_CODECS) {
        throw new InvalidMetadataError(`${where}: the codec chain holds more than ${MAX_CODECS} codecs (nested chains counted)`);
      }
      // Counted before its own chains, so the nesting this follows is at most MAX_CODECS deep.
      const conf = isJsonObject(c) ? c.configuration : undefined;
      if (!isJsonObject(conf)) continue;
      if (Array.isArray(conf.codecs)) visit(conf.codecs);
      if (Array.isArray(conf.index_codecs)) visit(conf.index_codecs);
    }
  };
  visit(chain);
  return chain;
}

/** How chunk grid coordinates become keys: `c/0/1` (v3 "default") or `0.1` (v2's). */
export interface ChunkKeyEncoding {
  /** "default": a `c` prefix; "v2": none. */
  name: "default" | "v2";
  /** What joins the coordinates. */
  separator: "/" | ".";
}

/** What a v2 `.zarray` holds beyond the shared model, kept so it can be written back as read. @inline */
export interface V2ArrayFields {
  /** Memory order of the chunks' elements. */
  order: "C" | "F";
  /** The numcodecs compressor as stored, or null. */
  compressor: JsonObject | null;
  /** The numcodecs filters as stored, or null. */
  filters: JsonObject[] | null;
  /** Absent in metadata written before zarr-python 2.8; readers then assume ".". */
  dimensionSeparator: "." | "/" | null;
  /**
   * An object array's fill value as the JSON held it: zarr-python 2 writes 0 for string arrays,
   * which reads as "" but is written back as it was.
   */
  objectFillJson?: JsonValue;
}

/** An array's metadata as parzarr holds it, the same for v2 and v3 (`arr.metadata`). */
export interface ArrayMetadata {
  /** The Zarr format version. */
  zarrFormat: 2 | 3;
  /** Elements along each dimension. */
  shape: number[];
  /**
   * The regular chunk grid's chunk shape. For a rectilinear grid, the largest edge along each
   * dimension: a bound for sizes and limits, never a chunk's shape (chunk-grid.ts gives that).
   */
  chunks: number[];
  /** A rectilinear grid's edges per dimension (v3 only); absent for the regular grid. */
  rectilinear?: AxisEdges[];
  /** The data type, parsed. */
  dtype: DataType;
  /** null only in v2 (`fill_value: null`): missing chunks then read as zeros. */
  fillValue: Scalar | null;
  /** The whole chain, array->array first, as v3 orders it. */
  codecs: CodecConfig[];
  /** How chunk coordinates become store keys. */
  chunkKeyEncoding: ChunkKeyEncoding;
  /** The names of the dimensions (v3 `dimension_names`); null when absent. */
  dimensionNames: (string | null)[] | null;
  /** The user attributes. */
  attributes: JsonObject;
  /** The v2 fields beyond this model, kept to write `.zarray` back as read; null for v3. */
  v2: V2ArrayFields | null;
}

export interface GroupMetadata {
  zarrFormat: 2 | 3;
  attributes: JsonObject;
}

export type NodeMetadata = ({ nodeType: "array" } & ArrayMetadata) | ({ nodeType: "group" } & GroupMetadata);

// ---------------------------------------------------------------------------------------------
// Validation helpers: every error names the document and the field.

function fail(file: string, field: string, message: string): never {
  throw new InvalidMetadataError(`${file}: field "${field}" ${message}`);
}

function requireField(doc: JsonObject, field: string, file: string): JsonValue {
  if (!(field in doc)) fail(file, field, "is missing");
  return doc[field];
}

function intList(v: unknown, file: string, field: string, min: number): number[] {
  if (!Array.isArray(v)) fail(file, field, `must be a list of integers, got ${JSON.stringify(v)}`);
  return v.map((x, i) => {
    if (typeof x !== "number" || !Number.isSafeInteger(x) || x < min) {
      fail(file, `${field}[${i}]`, `must be an integer >= ${min}, got ${JSON.stringify(x)}`);
    }
    return x;
  });
}

function attributesOf(v: unknown, file: string): JsonObject {
  if (v === undefined) return {};
  if (!isJsonObject(v)) fail(file, "attributes", "must be a JSON object");
  return v;
}

// ---------------------------------------------------------------------------------------------
// v2

/** Maps a numcodecs config (`{ id, ...}`) to the v3 codec that has the same bytes on disk. */
export function v2CodecToV3(config: JsonObject, dtype: DataType, file: string, field: string): CodecConfig {
  const id = config.id;
  if (typeof id !== "string") fail(file, field, "must have a string \"id\"");
  const { id: _id, ...rest } = config;
  switch (id) {
    case "blosc": {
      const shuffle = rest.shuffle ?? 1;
      const names = ["noshuffle", "shuffle", "bitshuffle"];
      // numcodecs' -1 (AUTOSHUFFLE) means bit-shuffle for one-byte types, byte-shuffle otherwise.
      const s = shuffle === -1 ? (dtype.itemSize === 1 ? "bitshuffle" : "shuffle") : names[shuffle as number];
      if (s === undefined) fail(file, `${field}.shuffle`, `must be -1, 0, 1 or 2, got ${JSON.stringify(shuffle)}`);
      return {
        name: "blosc",
        configuration: {
          cname: rest.cname ?? "lz4",
          clevel: rest.clevel ?? 5,
          shuffle: s,
          typesize: Math.max(1, dtype.itemSize),
          blocksize: rest.blocksize ?? 0,
        },
      };
    }
    case "gzip":
      return { name: "gzip", configuration: { level: rest.level ?? 1 } };
    case "zstd":
      return { name: "zstd", configuration: { level: rest.level ?? 1, checksum: rest.checksum ?? false } };
    case "crc32c":
      return { name: "crc32c", configuration: {} };
    case "vlen-utf8":
    case "vlen-bytes":
    case "vlen-array": // its dtype is the data type's (VlenArrayDataType)
      // The v2 object codecs are the v3 array->bytes codecs of the same names and bytes.
      return { name: id, configuration: {} };
    default:
      return { name: `numcodecs.${id}`, configuration: rest };
  }
}

export function parseV2Array(doc: unknown, attrs: JsonObject, file = ".zarray"): ArrayMetadata {
  if (!isJsonObject(doc)) throw new InvalidMetadataError(`${file}: must be a JSON object`);
  const format = requireField(doc, "zarr_format", file);
  if (format !== 2) fail(file, "zarr_format", `must be 2, got ${JSON.stringify(format)}`);
  const shape = intList(requireField(doc, "shape", file), file, "shape", 0);
  const chunks = intList(requireField(doc, "chunks", file), file, "chunks", 1);
  if (chunks.length !== shape.length) {
    fail(file, "chunks", `has ${chunks.length} dimensions but shape has ${shape.length}`);
  }
  const dtype = objectElementType(
    parseDataType(requireField(doc, "dtype", file), `${file}: field "dtype"`),
    doc.dtype,
    doc.filters,
    file,
  );
  const fillValue =
    doc.fill_value === null || doc.fill_value === undefined
      ? null
      : parseFillValue(fillValueOf(doc), dtype, `${file}: field "fill_value"`);
  const order = doc.order ?? "C";
  if (order !== "C" && order !== "F") fail(file, "order", `must be "C" or "F", got ${JSON.stringify(order)}`);
  const compressor = doc.compressor ?? null;
  if (compressor !== null && !isJsonObject(compressor)) fail(file, "compressor", "must be null or an object");
  const filtersRaw = doc.filters ?? null;
  if (filtersRaw !== null && !Array.isArray(filtersRaw)) fail(file, "filters", "must be null or a list");
  const filters = filtersRaw?.map((f, i) => {
    if (!isJsonObject(f)) fail(file, `filters[${i}]`, "must be an object");
    return f;
  }) ?? null;
  const sep = doc.dimension_separator ?? null;
  if (sep !== null && sep !== "." && sep !== "/") {
    fail(file, "dimension_separator", `must be "." or "/", got ${JSON.stringify(sep)}`);
  }
  const v2: V2ArrayFields = { order, compressor, filters, dimensionSeparator: sep };
  if (isObjectType(dtype) && doc.fill_value !== undefined && typeof doc.fill_value !== "string") {
    v2.objectFillJson = doc.fill_value;
  }
  return {
    zarrFormat: 2,
    shape,
    chunks,
    dtype,
    fillValue,
    codecs: checkCodecCount(v2Codecs(v2, dtype, shape.length, file), file),
    chunkKeyEncoding: { name: "v2", separator: sep ?? "." },
    dimensionNames: null,
    attributes: attrs,
    v2,
  };
}

/**
 * A v2 `|O` array's elements are whatever its object codec in `filters` makes (v2-filters.ts,
 * loaded with the rare types: metadataJson and rareTypesReady load them for any filters).
 */
function objectElementType(dt: DataType, raw: unknown, filters: unknown, file: string): DataType {
  if (raw !== "|O" && raw !== "O") return dt;
  const type = Array.isArray(filters) && filters.length > 0 ? rareTypes().v2ObjectType(filters, file) : undefined;
  if (type === undefined) throw new InvalidMetadataError(`${file}: an object ("|O") array needs an object codec in "filters" (vlen-utf8, vlen-bytes, vlen-array or json2)`);
  return type;
}

/**
 * The codec chain equivalent to a v2 array's order, filters, byte order and compressor: the
 * filters' part by v2-filters.ts (loaded with the rare types, as a document or options with
 * filters load them), then the plain `bytes` unless a filter made bytes, then the compressor.
 */
export function v2Codecs(v2: V2ArrayFields, dtype: DataType, ndim: number, file: string): CodecConfig[] {
  const chain: CodecConfig[] = [];
  if (v2.order === "F" && ndim > 1) {
    // An F-ordered chunk is the C-ordered bytes of the chunk with its axes reversed.
    chain.push({ name: "transpose", configuration: { order: [...Array(ndim).keys()].reverse() } });
  }
  const to = { codec: (f: JsonObject, dt: DataType, field: string) => v2CodecToV3(f, dt, file, field), bytes: v2BytesCodec };
  const filtered = v2.filters?.length ? rareTypes().v2FilterCodecs(v2.filters, dtype, chain, file, to) : { current: dtype, bytesDone: false };
  if (!filtered.bytesDone) chain.push(v2BytesCodec(filtered.current));
  if (v2.compressor) chain.push(v2CodecToV3(v2.compressor, filtered.current, file, "compressor"));
  return chain;
}

/** The plain `bytes` codec in the byte order of a v2 array's (last array) type. */
function v2BytesCodec(dtype: DataType): CodecConfig {
  return { name: "bytes", configuration: dtype.endian ? { endian: dtype.endian } : {} };
}

export function parseV2Group(doc: unknown, attrs: JsonObject, file = ".zgroup"): GroupMetadata {
  if (!isJsonObject(doc)) throw new InvalidMetadataError(`${file}: must be a JSON object`);
  if (doc.zarr_format !== 2) fail(file, "zarr_format", `must be 2, got ${JSON.stringify(doc.zarr_format)}`);
  return { zarrFormat: 2, attributes: attrs };
}

export function parseV2Attributes(doc: unknown, file = ".zattrs"): JsonObject {
  if (!isJsonObject(doc)) throw new InvalidMetadataError(`${file}: must be a JSON object`);
  return doc;
}

// ---------------------------------------------------------------------------------------------
// v3

const V3_ARRAY_FIELDS = new Set([
  "zarr_format",
  "node_type",
  "shape",
  "data_type",
  "chunk_grid",
  "chunk_key_encoding",
  "fill_value",
  "codecs",
  "attributes",
  "storage_transformers",
  "dimension_names",
]);

function v3Codec(v: unknown, file: string, i: number): CodecConfig {
  // The v3 spec lets a codec without configuration be written as its bare name.
  if (typeof v === "string") return { name: v };
  if (!isJsonObject(v) || typeof v.name !== "string") fail(file, `codecs[${i}]`, "must be an object with a string name");
  const conf = v.configuration;
  if (conf !== undefined && !isJsonObject(conf)) fail(file, `codecs[${i}].configuration`, "must be an object");
  return conf === undefined ? { name: v.name } : { name: v.name, configuration: conf };
}

function v3ChunkKeyEncoding(v: unknown, file: string): ChunkKeyEncoding {
  if (v === undefined) return { name: "default", separator: "/" };
  const obj = typeof v === "string" ? { name: v } : v;
  if (!isJsonObject(obj) || (obj.name !== "default" && obj.name !== "v2")) {
    fail(file, "chunk_key_encoding", `must name "default" or "v2", got ${JSON.stringify(v)}`);
  }
  const conf = obj.configuration;
  const sep = isJsonObject(conf) && conf.separator !== undefined ? conf.separator : obj.name === "default" ? "/" : ".";
  if (sep !== "/" && sep !== ".") fail(file, "chunk_key_encoding.configuration.separator", `must be "/" or "."`);
  return { name: obj.name, separator: sep };
}

export type NodeType = NodeMetadata["nodeType"];

/** A v3 document's node type, checking only what says it (listings need no more). */
export function nodeTypeOfV3(doc: unknown, file = "zarr.json"): NodeType {
  if (!isJsonObject(doc)) throw new InvalidMetadataError(`${file}: must be a JSON object`);
  if (doc.zarr_format !== 3) fail(file, "zarr_format", `must be 3, got ${JSON.stringify(doc.zarr_format)}`);
  const nodeType = doc.node_type;
  if (nodeType !== "array" && nodeType !== "group") fail(file, "node_type", `must be "array" or "group", got ${JSON.stringify(nodeType)}`);
  return nodeType;
}

export function parseV3(input: unknown, file = "zarr.json"): NodeMetadata {
  const nodeType = nodeTypeOfV3(input, file);
  const doc = input as JsonObject;
  if (nodeType === "group") return { nodeType: "group", zarrFormat: 3, attributes: attributesOf(doc.attributes, file) };
  for (const key of Object.keys(doc)) {
    const value = doc[key];
    if (V3_ARRAY_FIELDS.has(key)) continue;
    // Extensions a reader may ignore say so; anything else changes how the data must be read.
    if (isJsonObject(value) && value.must_understand === false) continue;
    throw new UnsupportedError(`${file}: unknown field "${key}" that readers must understand`);
  }
  const shape = intList(requireField(doc, "shape", file), file, "shape", 0);
  const grid = requireField(doc, "chunk_grid", file);
  if (!isJsonObject(grid) || (grid.name !== "regular" && grid.name !== "rectilinear")) {
    throw new UnsupportedError(`${file}: chunk_grid ${JSON.stringify(isJsonObject(grid) ? grid.name : grid)} is not supported (only "regular" and "rectilinear")`);
  }
  let chunks: number[];
  let rectilinear: AxisEdges[] | undefined;
  if (grid.name === "rectilinear") ({ edges: rectilinear, chunks } = rareTypes().parseRectilinear(grid.configuration, shape, file));
  else {
    const gridConf = isJsonObject(grid.configuration) ? grid.configuration : {};
    chunks = intList(gridConf.chunk_shape, file, "chunk_grid.configuration.chunk_shape", 1);
    if (chunks.length !== shape.length) {
      fail(file, "chunk_grid.configuration.chunk_shape", `has ${chunks.length} dimensions but shape has ${shape.length}`);
    }
  }
  const dtype = parseDataType(requireField(doc, "data_type", file), `${file}: field "data_type"`);
  requireField(doc, "fill_value", file);
  const fillValue = parseFillValue(fillValueOf(doc), dtype, `${file}: field "fill_value"`);
  const codecsRaw = requireField(doc, "codecs", file);
  if (!Array.isArray(codecsRaw)) fail(file, "codecs", "must be a list");
  checkCodecCount(codecsRaw, file);
  // zarrita.js writes "codecs": [] and means the plain little-endian bytes codec; read it so.
  const codecs: CodecConfig[] =
    codecsRaw.length === 0
      ? [{ name: "bytes", configuration: dtype.itemSize > 1 ? { endian: "little" } : {} }]
      : codecsRaw.map((c, i) => v3Codec(c, file, i));
  const transformers = doc.storage_transformers;
  if (Array.isArray(transformers) && transformers.length > 0) {
    throw new UnsupportedError(`${file}: storage transformers are not supported`);
  }
  const names = doc.dimension_names;
  let dimensionNames: (string | null)[] | null = null;
  if (names !== undefined && names !== null) {
    if (!Array.isArray(names) || names.length !== shape.length || names.some((n) => n !== null && typeof n !== "string")) {
      fail(file, "dimension_names", `must be a list of ${shape.length} strings or nulls`);
    }
    dimensionNames = names as (string | null)[];
  }
  return {
    nodeType: "array",
    zarrFormat: 3,
    shape,
    chunks,
    ...(rectilinear && { rectilinear }),
    dtype,
    fillValue,
    codecs,
    chunkKeyEncoding: v3ChunkKeyEncoding(doc.chunk_key_encoding, file),
    dimensionNames,
    attributes: attributesOf(doc.attributes, file),
    v2: null,
  };
}
