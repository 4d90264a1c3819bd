/**
 * The JSON Schemas of the Zarr Object Model, as printed in ZEP 6, with the corrections listed in
 * `ZOM_SCHEMA_ERRATA`. The printed schemas reject the metadata that zarr-python and zarrs really
 * write (a v2 `"compressor": null`, a v3 codec without `configuration`) and the v2 one requires a
 * misspelt field, so taken literally no real hierarchy would validate. Each correction is named
 * below by its JSON Pointer; the tests check that these are the only places where the schemas
 * differ from the ZEP's text.
 */
import type { JsonObject } from "./json.js";

/** One correction to ZEP 6's printed schema. @inline */
export interface SchemaErratum {
  /** JSON Pointer into the printed schema where ours differs. */
  pointer: string;
  /** Why the printed schema is wrong there. */
  why: string;
}

/** Where zomJsonSchema departs from the schemas printed in ZEP 6 (for v2 and v3), and why. */
export const ZOM_SCHEMA_ERRATA: { 2: SchemaErratum[]; 3: SchemaErratum[] } = {
  2: [
    { pointer: "/definitions/Array/required", why: "lists \"attributess\" (a typo) and not \"zarr_format\"; the model's field is \"attributes\"" },
    { pointer: "/definitions/Array/properties/zarr_version", why: "v2 documents (and the ZEP's own v2 example) name it \"zarr_format\"" },
    { pointer: "/definitions/Array/properties/zarr_format", why: "replaces \"zarr_version\": the constant 2, as .zarray holds it" },
    { pointer: "/definitions/Array/properties/compressor", why: "the v2 spec allows null (no compressor), which zarr-python writes" },
    { pointer: "/definitions/Array/properties/filters", why: "the v2 spec allows null (no filters), which zarr-python writes" },
    { pointer: "/definitions/Array/properties/dtype", why: "a structured dtype is a list of [name, type(, shape)] lists, not of strings" },
    { pointer: "/definitions/Group/properties/zarr_version", why: "v2 documents name it \"zarr_format\"" },
    { pointer: "/definitions/Group/properties/zarr_format", why: "replaces \"zarr_version\": the constant 2, as .zgroup holds it" },
    { pointer: "/definitions/Group/required", why: "zarr_format is part of the document, so of the model" },
  ],
  3: [
    { pointer: "/$defs/NamedConfig/required", why: "the v3 spec makes \"configuration\" optional (zarr-python writes {\"name\": \"crc32c\"})" },
    { pointer: "/$defs/NamedConfig/properties/must_understand", why: "v3 extension objects may carry must_understand" },
    { pointer: "/$defs/ArraySpec/properties/data_type", why: "v3 extension data types are { name, configuration } (numpy.datetime64)" },
    { pointer: "/$defs/ArraySpec/properties/dimension_names", why: "the v3 spec allows null for an unnamed dimension" },
    { pointer: "/$defs/ArraySpec/properties/fill_value", why: "extension data types have other fill values: null and [null] for zarrs' optional type" },
    { pointer: "/$defs/ArraySpec/properties/codecs", why: "the v3 spec lets a bare name stand for a codec without configuration" },
    { pointer: "/$defs/ArraySpec/additionalProperties", why: "the v3 spec admits extension fields that say \"must_understand\": false" },
    { pointer: "/$defs/GroupSpec/additionalProperties", why: "as for arrays: extension fields with \"must_understand\": false" },
  ],
};

const ignorableExtension: JsonObject = {
  type: "object",
  properties: { must_understand: { const: false } },
  required: ["must_understand"],
};

function v3Schema(): JsonObject {
  const namedConfig = { $ref: "#/$defs/NamedConfig" };
  return {
    $defs: {
      ArraySpec: {
        additionalProperties: ignorableExtension,
        description: "A model of a Zarr version 3 Array",
        properties: {
          zarr_format: { const: 3, default: 3, title: "Zarr Format" },
          node_type: { const: "array", default: "array", title: "Node Type" },
          attributes: { default: {}, title: "Attributes", type: "object" },
          shape: { items: { type: "integer" }, title: "Shape", type: "array" },
          data_type: { anyOf: [{ type: "string" }, namedConfig], title: "Data Type" },
          chunk_grid: namedConfig,
          chunk_key_encoding: namedConfig,
          fill_value: {
            anyOf: [
              { type: "boolean" },
              { type: "integer" },
              { type: "number" },
              { const: "Infinity" },
              { const: "-Infinity" },
              { const: "NaN" },
              { type: "string" },
              { maxItems: 2, minItems: 2, prefixItems: [{ type: "number" }, { type: "number" }], type: "array" },
              { items: { type: "integer" }, type: "array" },
              { type: "null" },
              { type: "array" },
            ],
            title: "Fill Value",
          },
          codecs: { items: { anyOf: [namedConfig, { type: "string" }] }, title: "Codecs", type: "array" },
          storage_transformers: {
            anyOf: [{ items: namedConfig, type: "array" }, { type: "null" }],
            default: null,
            title: "Storage Transformers",
          },
          dimension_names: {
            anyOf: [{ items: { anyOf: [{ type: "string" }, { type: "null" }] }, type: "array" }, { type: "null" }],
            title: "Dimension Names",
          },
        },
        required: ["shape", "data_type", "chunk_grid", "chunk_key_encoding", "fill_value", "codecs"],
        title: "ArraySpec",
        type: "object",
      },
      GroupSpec: {
        additionalProperties: ignorableExtension,
        properties: {
          zarr_format: { const: 3, default: 3, title: "Zarr Format" },
          node_type: { const: "group", default: "group", title: "Node Type" },
          attributes: { title: "Attributes", type: "object" },
          members: {
            additionalProperties: { anyOf: [{ $ref: "#/$defs/GroupSpec" }, { $ref: "#/$defs/ArraySpec" }] },
            default: {},
            title: "Members",
            type: "object",
          },
        },
        required: ["attributes", "members"],
        title: "GroupSpec",
        type: "object",
      },
      NamedConfig: {
        additionalProperties: false,
        properties: {
          name: { title: "Name", type: "string" },
          configuration: { anyOf: [{ type: "object" }, { type: "null" }], title: "Configuration" },
          must_understand: { type: "boolean" },
        },
        required: ["name"],
        title: "NamedConfig",
        type: "object",
      },
    },
    allOf: [{ $ref: "#/$defs/GroupSpec" }],
  };
}

function v2Schema(): JsonObject {
  return {
    $ref: "#/definitions/Group",
    definitions: {
      Array: {
        title: "Array",
        description: "Model of a Zarr Version 2 Array",
        type: "object",
        properties: {
          attributes: { title: "Attributess", type: "object" },
          shape: { title: "Shape", type: "array", items: { type: "integer" } },
          chunks: { title: "Chunks", type: "array", items: { type: "integer" } },
          dtype: { title: "Dtype", anyOf: [{ type: "string" }, { type: "array", items: { type: "array" } }] },
          compressor: { title: "Compressor", anyOf: [{ type: "object" }, { type: "null" }] },
          fill_value: { title: "Fill Value" },
          order: { title: "Order", enum: ["C", "F"], type: "string" },
          filters: { title: "Filters", anyOf: [{ type: "array", items: { type: "object" } }, { type: "null" }] },
          dimension_separator: { title: "Dimension Separator", enum: [".", "/"], type: "string" },
          zarr_format: { title: "Zarr Format", const: 2 },
        },
        required: ["attributes", "shape", "chunks", "dtype", "compressor", "order", "filters", "zarr_format"],
        additionalProperties: false,
      },
      Group: {
        title: "Group",
        description: "Model of a Zarr Version 2 Group",
        type: "object",
        properties: {
          attributes: { title: "Attributes", type: "object" },
          members: {
            title: "Members",
            type: "object",
            additionalProperties: { anyOf: [{ $ref: "#/definitions/Array" }, { $ref: "#/definitions/Group" }] },
          },
          zarr_format: { title: "Zarr Format", const: 2 },
        },
        required: ["attributes", "members", "zarr_format"],
        additionalProperties: false,
      },
    },
  };
}

/** The JSON Schema of a ZEP 6 model of a whole hierarchy (its root is a group). A fresh copy. */
export function zomJsonSchema(zarrFormat: 2 | 3): JsonObject {
  return zarrFormat === 2 ? v2Schema() : v3Schema();
}
