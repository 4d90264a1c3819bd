/**
 * Node metadata documents written in the layout zarr-python uses (v2: sorted keys, indent 4,
 * ASCII; v3: indent 2). Apart from their parsing (array-metadata.ts): only creation and writes use
 * them, through node-writes.ts, which loads on first use (lazy-features.ts).
 */
import { InvalidMetadataError } from "../errors.js";
import type { ArrayMetadata } from "./array-metadata.js";
import { v2DtypeJson, v3DataTypeJson } from "./dtype-names.js";
import { fillValueToJson } from "./fill-value-json.js";
import { rectilinearJson } from "./grid-edits.js";
import type { JsonObject } from "./json.js";
import { type Serialisable, jsonBytes } from "./json-write.js";

const V2_JSON = { indent: 4, sortKeys: true, asciiOnly: true } as const;
const V3_JSON = { indent: 2, sortKeys: false, asciiOnly: false } as const;

export function v2ArrayDocument(meta: ArrayMetadata): Uint8Array {
  const v2 = meta.v2;
  if (!v2) throw new InvalidMetadataError("a v3 array has no .zarray");
  const doc: Record<string, Serialisable> = {
    chunks: meta.chunks,
    compressor: v2.compressor as Serialisable,
    dtype: v2DtypeJson(meta.dtype),
    fill_value: v2.objectFillJson !== undefined ? (v2.objectFillJson as Serialisable) : fillValueToJson(meta.fillValue, meta.dtype, 2),
    filters: v2.filters as Serialisable,
    order: v2.order,
    shape: meta.shape,
    zarr_format: 2,
  };
  if (v2.dimensionSeparator !== null) doc.dimension_separator = v2.dimensionSeparator;
  return jsonBytes(doc, V2_JSON);
}

export function v2GroupDocument(): Uint8Array {
  return jsonBytes({ zarr_format: 2 }, V2_JSON);
}

export function v2AttributesDocument(attrs: JsonObject): Uint8Array {
  return jsonBytes(attrs, V2_JSON);
}

export function v3ArrayDocument(meta: ArrayMetadata): Uint8Array {
  const doc: Record<string, Serialisable | undefined> = {
    shape: meta.shape,
    data_type: v3DataTypeJson(meta.dtype),
    chunk_grid: meta.rectilinear ? rectilinearJson(meta.rectilinear) : { name: "regular", configuration: { chunk_shape: meta.chunks } },
    chunk_key_encoding: { name: meta.chunkKeyEncoding.name, configuration: { separator: meta.chunkKeyEncoding.separator } },
    fill_value: fillValueToJson(meta.fillValue, meta.dtype, 3),
    codecs: meta.codecs.map((c) => (c.configuration ? { name: c.name, configuration: c.configuration } : { name: c.name })),
    attributes: meta.attributes,
    zarr_format: 3,
    node_type: "array",
    storage_transformers: [],
    dimension_names: meta.dimensionNames ?? undefined,
  };
  return jsonBytes(doc, V3_JSON);
}

export function v3GroupDocument(attributes: JsonObject): Uint8Array {
  return jsonBytes({ attributes, zarr_format: 3, consolidated_metadata: null, node_type: "group" }, V3_JSON);
}
