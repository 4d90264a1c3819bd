/**
 * Run-time validation of Zarr Object Models with zod. The schema factories are generic in the
 * attributes and the members, so a convention is declared once and checked both ways: its zod
 * schema at run time, the type it infers (or the matching `ArraySpecV2<...>` type) at compile time.
 * Issues are reported per node: `"a/b": attributes._ARRAY_DIMENSIONS: is missing`.
 */
import { z } from "zod";
import type { AnyGroupSpecV2, AnyGroupSpecV3, ArraySpecV2, ArraySpecV3, GroupSpecV2, GroupSpecV3 } from "./zom-types.js";
import type { JsonObject } from "./json.js";

const jsonValue = z.json();
/** User attributes, or any JSON object (a codec's configuration, a v2 compressor). */
export const attributesSchema = z.record(z.string(), jsonValue);

const count = (min: number) => z.number().int().min(min);

// Node names as both versions allow them: not empty, no "/", not "." or "..".
const nodeName = z.string().regex(/^(?!\.{1,2}$)[^/]+$/, { error: "is not a valid node name" });

function rankCheck(shape: number[], other: unknown[] | null | undefined, field: string, ctx: z.RefinementCtx) {
  if (other && other.length !== shape.length) {
    ctx.addIssue({ code: "custom", path: field.split("."), message: `has ${other.length} entries but the array has rank ${shape.length}`, input: other });
  }
}

// ---------------------------------------------------------------------------------------------
// v2

/** A v2 array (`.zarray` plus `attributes`) whose attributes follow `attributes`. */
export function arraySpecV2Schema<A extends z.ZodType<object>>(attributes: A) {
  return z
    .strictObject({
      zarr_format: z.literal(2),
      attributes,
      shape: z.array(count(0)),
      chunks: z.array(count(1)),
      dtype: z.union([z.string(), z.array(jsonValue)]),
      compressor: z.union([attributesSchema, z.null()]),
      fill_value: jsonValue,
      order: z.enum(["C", "F"]),
      filters: z.union([z.array(attributesSchema), z.null()]),
      dimension_separator: z.enum([".", "/"]).optional(),
    })
    .superRefine((a, ctx) => rankCheck(a.shape, a.chunks, "chunks", ctx));
}

/** A v2 group whose attributes follow `attributes` and whose members each follow `members`. */
export function groupSpecV2Schema<A extends z.ZodType<object>, M extends z.ZodType>(attributes: A, members: M) {
  return z.strictObject({ zarr_format: z.literal(2), attributes, members: z.record(nodeName, members) });
}

export const arraySpecV2AnySchema = arraySpecV2Schema(attributesSchema);
/** Any v2 hierarchy: groups and arrays of any attributes, as deep as they go. */
export const groupSpecV2AnySchema: z.ZodType<AnyGroupSpecV2> = z.lazy(() =>
  groupSpecV2Schema(attributesSchema, z.union([arraySpecV2AnySchema, groupSpecV2AnySchema])),
);

// ---------------------------------------------------------------------------------------------
// v3

const namedConfig = z.strictObject({
  name: z.string(),
  configuration: z.union([attributesSchema, z.null()]).optional(),
  must_understand: z.boolean().optional(),
});
const extensionPoint = z.union([z.string(), namedConfig]);

const V3_ARRAY_KEYS = new Set([
  "zarr_format", "node_type", "attributes", "shape", "data_type", "chunk_grid", "chunk_key_encoding",
  "fill_value", "codecs", "storage_transformers", "dimension_names",
]);
const V3_GROUP_KEYS = new Set(["zarr_format", "node_type", "attributes", "members"]);

/** v3 admits unknown fields only as extensions that say readers may ignore them. */
function extensionCheck(known: Set<string>) {
  return (doc: Record<string, unknown>, ctx: z.RefinementCtx) => {
    for (const [key, value] of Object.entries(doc)) {
      if (known.has(key)) continue;
      const ignorable = typeof value === "object" && value !== null && (value as JsonObject).must_understand === false;
      if (!ignorable) {
        ctx.addIssue({ code: "custom", path: [key], message: "is not a v3 field, nor an extension with \"must_understand\": false", input: value });
      }
    }
  };
}

/** A v3 array (`zarr.json`) whose attributes follow `attributes`. */
export function arraySpecV3Schema<A extends z.ZodType<object>>(attributes: A) {
  return z
    .looseObject({
      zarr_format: z.literal(3),
      node_type: z.literal("array"),
      attributes,
      shape: z.array(count(0)),
      data_type: extensionPoint,
      chunk_grid: namedConfig,
      chunk_key_encoding: namedConfig,
      fill_value: jsonValue,
      codecs: z.array(extensionPoint),
      storage_transformers: z.union([z.array(extensionPoint), z.null()]).optional(),
      dimension_names: z.union([z.array(z.union([z.string(), z.null()])), z.null()]).optional(),
    })
    .superRefine(extensionCheck(V3_ARRAY_KEYS))
    .superRefine((a, ctx) => rankCheck(a.shape, a.dimension_names, "dimension_names", ctx));
}

/** A v3 group whose attributes follow `attributes` and whose members each follow `members`. */
export function groupSpecV3Schema<A extends z.ZodType<object>, M extends z.ZodType>(attributes: A, members: M) {
  return z
    .looseObject({ zarr_format: z.literal(3), node_type: z.literal("group"), attributes, members: z.record(nodeName, members) })
    .superRefine(extensionCheck(V3_GROUP_KEYS));
}

export const arraySpecV3AnySchema = arraySpecV3Schema(attributesSchema);
export const groupSpecV3AnySchema: z.ZodType<AnyGroupSpecV3> = z.lazy(() =>
  groupSpecV3Schema(attributesSchema, z.union([arraySpecV3AnySchema, groupSpecV3AnySchema])),
);

/** The schema of any hierarchy (a root group) of one Zarr version. */
export function zomSchema(zarrFormat: 2): z.ZodType<AnyGroupSpecV2>;
export function zomSchema(zarrFormat: 3): z.ZodType<AnyGroupSpecV3>;
export function zomSchema(zarrFormat: 2 | 3): z.ZodType<AnyGroupSpecV2 | AnyGroupSpecV3>;
export function zomSchema(zarrFormat: 2 | 3): z.ZodType<AnyGroupSpecV2 | AnyGroupSpecV3> {
  return zarrFormat === 2 ? groupSpecV2AnySchema : groupSpecV3AnySchema;
}

/** The schema of one node of either kind (a hierarchy whose root may be an array). */
export function nodeSpecSchema(zarrFormat: 2 | 3): z.ZodType {
  return zarrFormat === 2
    ? z.union([arraySpecV2AnySchema, groupSpecV2AnySchema])
    : z.union([arraySpecV3AnySchema, groupSpecV3AnySchema]);
}

// ---------------------------------------------------------------------------------------------
// The xarray convention (ZEP 6's example): every array names its dimensions, one name per axis.
// v2 keeps the names in the `_ARRAY_DIMENSIONS` attribute; for v3, xarray writes `dimension_names`.

/** The attributes xarray requires of a v2 array. */
export type XarrayAttrs = { _ARRAY_DIMENSIONS: string[] };
/** A v2 array as xarray writes it: `_ARRAY_DIMENSIONS` names its dimensions. */
export type XarrayArraySpecV2 = ArraySpecV2<XarrayAttrs>;
/** A group of xarray arrays and of groups like itself (xarray's DataTree nests datasets so). */
export interface XarrayGroupSpecV2 extends GroupSpecV2<JsonObject, XarrayArraySpecV2 | XarrayGroupSpecV2> {}
/** A v3 array as xarray writes it: `dimension_names` names every dimension. */
export type XarrayArraySpecV3 = ArraySpecV3 & { dimension_names: string[] };
export interface XarrayGroupSpecV3 extends GroupSpecV3<JsonObject, XarrayArraySpecV3 | XarrayGroupSpecV3> {}

const dimensionNames = z.array(z.string(), {
  error: (issue) => (issue.input === undefined ? "is missing" : "must be a list of strings"),
});

/** Other attributes may sit beside `_ARRAY_DIMENSIONS` (xarray writes `units`, `_FillValue`...). */
export const xarrayAttrsSchema = z.looseObject({ _ARRAY_DIMENSIONS: dimensionNames });

/** A v2 array as xarray writes it: `_ARRAY_DIMENSIONS` present, one name per dimension. */
export const xarrayArraySpecV2Schema = arraySpecV2Schema(xarrayAttrsSchema).superRefine((a, ctx) =>
  rankCheck(a.shape, a.attributes._ARRAY_DIMENSIONS, "attributes._ARRAY_DIMENSIONS", ctx),
);
export const xarrayGroupSpecV2Schema: z.ZodType<XarrayGroupSpecV2> = z.lazy(() =>
  groupSpecV2Schema(attributesSchema, z.union([xarrayArraySpecV2Schema, xarrayGroupSpecV2Schema])),
);

/** A v3 array as xarray writes it: `dimension_names` names every dimension. */
export const xarrayArraySpecV3Schema = arraySpecV3Schema(attributesSchema).superRefine((a, ctx) => {
  const names = a.dimension_names;
  if (!Array.isArray(names) || names.some((n) => typeof n !== "string")) {
    ctx.addIssue({ code: "custom", path: ["dimension_names"], message: "must name every dimension", input: names });
  }
});
export const xarrayGroupSpecV3Schema: z.ZodType<XarrayGroupSpecV3> = z.lazy(() =>
  groupSpecV3Schema(attributesSchema, z.union([xarrayArraySpecV3Schema, xarrayGroupSpecV3Schema])),
) as z.ZodType<XarrayGroupSpecV3>;

/** The schema of a hierarchy that follows the xarray convention, of one Zarr version. */
export function xarraySchema(zarrFormat: 2): z.ZodType<XarrayGroupSpecV2>;
export function xarraySchema(zarrFormat: 3): z.ZodType<XarrayGroupSpecV3>;
export function xarraySchema(zarrFormat: 2 | 3): z.ZodType<XarrayGroupSpecV2 | XarrayGroupSpecV3> {
  return zarrFormat === 2 ? xarrayGroupSpecV2Schema : xarrayGroupSpecV3Schema;
}
