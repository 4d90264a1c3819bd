/**
 * createArray's options and their translation into array metadata, with the defaults zarr-python
 * uses: v3 `bytes` + `zstd`, v2 blosc lz4 with byte shuffle, fill value 0, chunks near 1 MiB.
 */
import { InvalidMetadataError } from "../errors.js";
import {
  type ArrayMetadata,
  type ChunkKeyEncoding,
  type CodecConfig,
  type V2ArrayFields,
  v2Codecs,
} from "../metadata/array-metadata.js";
import { defaultArrayToBytes } from "../metadata/default-codecs.js";
import { componentsPerElement, isObjectType, type DataType } from "../metadata/dtype.js";
import { jsonType, parseDataType, rareTypes, v2DtypeJson, v3DataTypeJson, vlenBytesType } from "../metadata/dtype-names.js";
import { parseFillValue, zeroOf } from "../metadata/fill-value.js";
import { isJsonObject, type JsonObject, type JsonValue } from "../metadata/json.js";
import { CodecPipeline } from "../codecs/pipeline.js";
import { codecsReady } from "../codecs/registry.js";
import { chunkSpecOf } from "../parallel/chunk-io/chunk-codec.js";
import { checkChunkSize } from "../limits.js";
import { type AxisEdges, checkShardEdges } from "../metadata/chunk-grid.js";
import { edgesFromOption } from "../metadata/grid-edits.js";
import { rareTypesReady } from "../metadata/metadata-json.js";

/**
 * A chunk (or shard) shape; a dimension given as a list of edges makes the grid `rectilinear`
 * (v3), spelled as its `chunk_shapes`: `[10, [5, 5, [20, 3]]]` is a uniform 10, then edges 5, 5
 * and three of 20, in order, covering at least the array's length.
 */
export type GridOption = readonly (number | readonly (number | readonly number[])[])[];

/** What createArray (and the creation helpers) take: the array's shape, type, chunking and codecs. */
export interface CreateArrayOptions {
  /** Elements along each dimension. */
  shape: readonly number[];
  /**
   * Chunk shape; guessed (about 1 MiB per chunk) when omitted. With `shards`, the shape of the
   * inner chunks (as in zarr-python 3).
   */
  chunks?: GridOption;
  /**
   * v3 only: store shards of this shape (a multiple of `chunks`), each holding a grid of inner
   * chunks encoded by `codecs`: the chain becomes one `sharding_indexed` codec around them.
   */
  shards?: GridOption;
  /** Where the shard index lies in each shard (default "end", as zarr-python writes it). */
  shardIndexLocation?: "start" | "end";
  /**
   * A v3 name (`"int32"`, `"string"`, `"bfloat16"`, `"r16"`), a v3 object
   * (`{ name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 10 } }`), a numpy type
   * string (`"<i4"`, `"|S7"`, `"<U5"`, `"<M8[10ms]"`, `"|O"`) or a numpy record description.
   */
  dtype: string | JsonValue;
  /** A JS value or any JSON form (`"NaN"`, `"0x7fc00000"`, `[re, im]`); v2 also takes null. */
  fillValue?: unknown;
  /** The Zarr format to write (default 3). */
  zarrFormat?: 2 | 3;
  /** v3 codec chain. A chain without an array->bytes codec gets `bytes` (little-endian) added. */
  codecs?: readonly (CodecConfig | string)[];
  /** v2 compressor (numcodecs form, `{ id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 }`), or null. */
  compressor?: JsonObject | null;
  /** v2 filters (numcodecs form). */
  filters?: JsonObject[] | null;
  /** v2 memory order of chunks. */
  order?: "C" | "F";
  /** v2 chunk key separator. */
  dimensionSeparator?: "." | "/";
  /** v3 chunk key encoding; default `{ name: "default", separator: "/" }`. */
  chunkKeyEncoding?: ChunkKeyEncoding;
  /** v3 `dimension_names`, one per dimension (null: unnamed). */
  dimensionNames?: readonly (string | null)[];
  /** User attributes to write with the metadata. */
  attributes?: JsonObject;
  /** Replace whatever node is at the path. */
  overwrite?: boolean;
}


/** numcodecs' default compressor in zarr-python 2. */
const V2_DEFAULT_COMPRESSOR: JsonObject = { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 };

/** Chunks of about 1 MiB: halve the longest dimension until a chunk fits. */
export function guessChunks(shape: readonly number[], itemSize: number): number[] {
  const chunks = shape.map((s) => Math.max(1, s));
  const target = 1 << 20;
  for (;;) {
    const bytes = chunks.reduce((a, b) => a * b, itemSize);
    if (bytes <= target || chunks.every((c) => c === 1)) return chunks;
    let longest = 0;
    chunks.forEach((c, i) => (c > chunks[longest] ? (longest = i) : undefined));
    chunks[longest] = Math.ceil(chunks[longest] / 2);
  }
}

function checkShape(v: readonly number[] | undefined, field: string, min: number): number[] {
  if (!Array.isArray(v)) throw new InvalidMetadataError(`createArray: "${field}" must be a list of integers`);
  return v.map((x, i) => {
    if (typeof x !== "number" || !Number.isSafeInteger(x) || x < min) {
      throw new InvalidMetadataError(`createArray: "${field}[${i}]" must be an integer >= ${min}, got ${JSON.stringify(x)}`);
    }
    return x;
  });
}

const ARRAY_TO_BYTES = new Set([
  ...["bytes", "sharding_indexed", "vlen-utf8", "vlen-bytes", "numcodecs.vlen-utf8", "numcodecs.vlen-bytes", "numcodecs.packbits", "packbits"],
  ...["optional", "zarrs.optional", "zarrs.vlen", "zarrs.vlen_v2", "vlen-array", "numcodecs.vlen-array"],
]);
/** Array->array codecs that keep the element type; the others may hand `bytes` a wider one. */
const KEEPS_TYPE = new Set(["transpose", "reshape", "zarrs.squeeze", "bitround", "scale_offset"]);
const ARRAY_TO_ARRAY = new Set([
  ...KEEPS_TYPE,
  "cast_value",
  ...["delta", "fixedscaleoffset", "quantize", "astype", "categorize", "bitround"].map((id) => `numcodecs.${id}`),
]);

function v3Codecs(input: readonly (CodecConfig | string)[] | undefined, dtype: DataType): CodecConfig[] {
  // Variable-length and optional types have their own array->bytes codec in place of `bytes`.
  const bytesCodec = (widened: boolean): CodecConfig => defaultArrayToBytes(dtype, widened);
  if (input === undefined) return [bytesCodec(false), { name: "zstd", configuration: { level: 0, checksum: false } }];
  const codecs = input.map((c, i): CodecConfig => {
    if (typeof c === "string") return { name: c };
    if (!isJsonObject(c as unknown) || typeof c.name !== "string") {
      throw new InvalidMetadataError(`createArray: codecs[${i}] must be { name, configuration? }`);
    }
    return c;
  });
  const widenedAt = (i: number) => codecs.slice(0, i).some((c) => ARRAY_TO_ARRAY.has(c.name) && !KEEPS_TYPE.has(c.name));
  // A bare { name: "bytes" } means the platform's usual little-endian.
  const filled = codecs.map((c, i) => {
    const plain = bytesCodec(widenedAt(i));
    return c.name === "bytes" && c.configuration?.endian === undefined && plain.name === "bytes" ? plain : c;
  });
  if (!filled.some((c) => ARRAY_TO_BYTES.has(c.name))) {
    const at = filled.findIndex((c) => !ARRAY_TO_ARRAY.has(c.name));
    const i = at === -1 ? filled.length : at;
    filled.splice(i, 0, bytesCodec(widenedAt(i)));
  }
  return filled;
}

/** Validates the options and builds the metadata, codec chain checked and normalised. */
export async function buildArrayMetadata(options: CreateArrayOptions): Promise<ArrayMetadata> {
  if (typeof options !== "object" || options === null) throw new InvalidMetadataError("createArray: options are required");
  await rareTypesReady(options);
  const zarrFormat = options.zarrFormat ?? 3;
  if (zarrFormat !== 2 && zarrFormat !== 3) throw new InvalidMetadataError(`createArray: zarrFormat must be 2 or 3`);
  const shape = checkShape(options.shape, "shape", 0);
  let dtype = parseDataType(options.dtype, "createArray: dtype");
  // `|O` with vlen-bytes holds byte strings, with json2 JSON values; plain `|O` and `str` hold strings.
  if (dtype.kind === "string" && options.filters?.some((f) => f.id === "vlen-bytes")) dtype = vlenBytesType();
  if (dtype.kind === "string" && options.filters?.some((f) => f.id === "json2")) dtype = jsonType();
  const vlenArray = dtype.kind === "string" ? options.filters?.find((f) => f.id === "vlen-array") : undefined;
  if (vlenArray) dtype = rareTypes().vlenArrayType(parseDataType(vlenArray.dtype, 'createArray: vlen-array "dtype"'), "createArray");
  // A rectilinear grid: its largest edges stand for the chunk shape in the checks below.
  const uneven = (option: GridOption | undefined, field: string) => (Array.isArray(option) ? edgesFromOption(option, shape, `createArray: "${field}"`) : null);
  const chunkEdges = uneven(options.chunks, "chunks");
  const chunks = options.chunks === undefined ? guessChunks(shape, Math.max(1, dtype.itemSize)) : (chunkEdges?.chunks ?? checkShape(options.chunks as number[], "chunks", 1));
  let rectilinear: AxisEdges[] | undefined = chunkEdges?.edges;
  if (rectilinear && zarrFormat !== 3) throw new InvalidMetadataError(`createArray: a rectilinear chunk grid (edge lists in "chunks") needs Zarr v3`);
  if (chunks.length !== shape.length) {
    throw new InvalidMetadataError(`createArray: chunks has ${chunks.length} dimensions but shape has ${shape.length}`);
  }
  checkChunkSize(chunks, dtype.itemSize, "createArray");
  const fillValue =
    options.fillValue === null && zarrFormat === 2 ? null : options.fillValue === undefined
        ? zeroOf(dtype)
        : parseFillValue(options.fillValue, dtype, "createArray: fillValue");
  const attributes = options.attributes ?? {};
  if (!isJsonObject(attributes)) throw new InvalidMetadataError("createArray: attributes must be a JSON object");
  const names = options.dimensionNames ? [...options.dimensionNames] : null;
  if (names && names.length !== shape.length) {
    throw new InvalidMetadataError(`createArray: dimensionNames has ${names.length} entries but shape has ${shape.length}`);
  }

  // A type one version cannot spell (bfloat16 in v2, records in v3) fails here, before any write.
  if (zarrFormat === 3) v3DataTypeJson(dtype);
  else v2DtypeJson(dtype);
  let meta: ArrayMetadata;
  let gridChunks = chunks;
  if (options.shards !== undefined && zarrFormat !== 3) throw new InvalidMetadataError(`createArray: "shards" needs Zarr v3`);
  if (zarrFormat === 3) {
    for (const v2only of ["compressor", "filters", "order", "dimensionSeparator"] as const) {
      if (options[v2only] !== undefined) {
        throw new InvalidMetadataError(`createArray: "${v2only}" is a Zarr v2 option; use "codecs" for v3`);
      }
    }
    let codecs = v3Codecs(options.codecs, dtype);
    if (options.shards !== undefined) {
      if (rectilinear) throw new InvalidMetadataError(`createArray: with "shards", "chunks" is the inner chunk shape and takes no edge lists`);
      const shardEdges = uneven(options.shards, "shards");
      rectilinear = shardEdges?.edges;
      gridChunks = shardEdges?.chunks ?? checkShape(options.shards as number[], "shards", 1);
      if (gridChunks.length !== shape.length) {
        throw new InvalidMetadataError(`createArray: shards has ${gridChunks.length} dimensions but shape has ${shape.length}`);
      }
      if (codecs.some((c) => c.name === "sharding_indexed")) {
        throw new InvalidMetadataError(`createArray: give either "shards" or a "sharding_indexed" codec, not both`);
      }
      const inner = options.chunks === undefined ? guessChunks(gridChunks, dtype.itemSize) : chunks;
      checkShardEdges(rectilinear, inner, "createArray");
      codecs = [
        {
          name: "sharding_indexed",
          configuration: {
            chunk_shape: inner,
            codecs: codecs.map((c): JsonObject => (c.configuration ? { name: c.name, configuration: c.configuration } : { name: c.name })),
            index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
            index_location: options.shardIndexLocation ?? "end",
          },
        },
      ];
    } else if (options.shardIndexLocation !== undefined) {
      throw new InvalidMetadataError(`createArray: "shardIndexLocation" needs "shards"`);
    }
    meta = {
      zarrFormat: 3,
      shape,
      chunks: gridChunks,
      ...(rectilinear && { rectilinear }),
      dtype,
      fillValue,
      codecs,
      chunkKeyEncoding: options.chunkKeyEncoding ?? { name: "default", separator: "/" },
      dimensionNames: names,
      attributes,
      v2: null,
    };
  } else {
    if (options.codecs !== undefined) throw new InvalidMetadataError(`createArray: "codecs" is a Zarr v3 option; use "compressor" and "filters" for v2`);
    const order = options.order ?? "C";
    if (order !== "C" && order !== "F") throw new InvalidMetadataError(`createArray: order must be "C" or "F"`);
    const compressor = options.compressor === undefined ? V2_DEFAULT_COMPRESSOR : options.compressor;
    let filters = options.filters && options.filters.length > 0 ? options.filters : null;
    // zarr-python 2 adds the object codec that a string or bytes array needs; so do we.
    const objectCodec = dtype.kind === "string" ? "vlen-utf8" : dtype.kind === "bytes" ? "vlen-bytes" : null;
    if (objectCodec && !filters?.some((f) => f.id === objectCodec || f.id === "categorize")) {
      filters = [...(filters ?? []), { id: objectCodec }];
    }
    // zarr-python 2 writes dimension_separator only when one was asked for; readers assume ".".
    const v2: V2ArrayFields = { order, compressor, filters, dimensionSeparator: options.dimensionSeparator ?? null };
    // zarr-python 2's default fill value of object arrays (0) is kept as given.
    const fv = options.fillValue;
    if (isObjectType(dtype) && (typeof fv === "number" || typeof fv === "boolean")) v2.objectFillJson = fv;
    meta = {
      zarrFormat: 2,
      shape,
      chunks,
      dtype,
      fillValue,
      codecs: v2Codecs(v2, dtype, shape.length, "createArray"),
      chunkKeyEncoding: { name: "v2", separator: options.dimensionSeparator ?? "." },
      dimensionNames: null,
      attributes,
      v2,
    };
  }
  // Building the pipeline validates every codec before anything is written (once their modules load).
  await codecsReady(meta.codecs);
  const pipeline = CodecPipeline.create(meta.codecs, chunkSpecOf(meta));
  return zarrFormat === 3 ? { ...meta, codecs: pipeline.configs } : meta;
}
