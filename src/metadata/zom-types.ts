/**
 * Zarr Object Model (ZEP 6) types: a hierarchy as one JSON document. A node is its metadata
 * document (`zarr.json`, or `.zarray`/`.zgroup`) with the user attributes under `attributes`
 * (`{}` when there are none) and, for a group, its children under `members`.
 *
 * The types are generic in the attributes and in the members, so that a convention (xarray's
 * `_ARRAY_DIMENSIONS`, ZEP 6's example) is a type: `GroupSpecV2<JsonObject, ArraySpecV2<XAttrs>>`.
 * Declare attribute types with `type` (not `interface`) so they stay assignable to JSON objects.
 */
import type { JsonObject, JsonValue } from "./json.js";

/** A v3 extension point: `{ name, configuration }`; v3 also lets a bare name stand for one. */
export interface NamedConfigJson {
  /** The extension's name. */
  name: string;
  /** Its parameters. */
  configuration?: JsonObject | null;
  /** false: a reader that does not know the extension may ignore it. */
  must_understand?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Zarr v2: `.zarray` / `.zgroup` plus `.zattrs` as `attributes`.

/** A v2 array's model: its `.zarray` fields plus `attributes`. */
export type ArraySpecV2<TAttrs extends object = JsonObject> = {
  /** The Zarr format version. */
  zarr_format: 2;
  /** The user attributes (`{}` when there are none). */
  attributes: TAttrs;
  /** Elements along each dimension. */
  shape: number[];
  /** The chunk shape. */
  chunks: number[];
  /** A numpy type string, or a structured dtype's list of `[name, type, shape?]` fields. */
  dtype: string | JsonValue[];
  /** The numcodecs compressor, or null. */
  compressor: JsonObject | null;
  /** The fill value, as JSON encodes it. */
  fill_value: JsonValue;
  /** Memory order of the chunks' elements. */
  order: "C" | "F";
  /** The numcodecs filters, or null. */
  filters: JsonObject[] | null;
  /** Absent in metadata written before zarr-python 2.8 (readers then assume "."). */
  dimension_separator?: "." | "/";
};

/** The members of any v2 group: arrays and groups of any attributes, recursively. */
export type AnyNodeSpecV2 = ArraySpecV2 | AnyGroupSpecV2;
// An interface breaks the cycle that a default type argument could not.
/** A v2 group of any attributes whose members are any v2 nodes. */
export interface AnyGroupSpecV2 {
  /** The Zarr format version. */
  zarr_format: 2;
  /** The user attributes (`{}` when there are none). */
  attributes: JsonObject;
  /** The children, by name. */
  members: { [name: string]: AnyNodeSpecV2 };
}

/** A v2 group's model: `zarr_format`, `attributes`, and its `members` of type `TMembers`. */
export type GroupSpecV2<TAttrs extends object = JsonObject, TMembers = AnyNodeSpecV2> = {
  /** The Zarr format version. */
  zarr_format: 2;
  /** The user attributes (`{}` when there are none). */
  attributes: TAttrs;
  /** The children, by name. */
  members: { [name: string]: TMembers };
};

// ---------------------------------------------------------------------------------------------
// Zarr v3: `zarr.json`, whose `attributes` already hold the user attributes.

/** A v3 array's model: its `zarr.json`. */
export type ArraySpecV3<TAttrs extends object = JsonObject> = {
  /** The Zarr format version. */
  zarr_format: 3;
  /** The node kind. */
  node_type: "array";
  /** The user attributes (`{}` when there are none). */
  attributes: TAttrs;
  /** Elements along each dimension. */
  shape: number[];
  /** A data type name, or an extension data type's `{ name, configuration }`. */
  data_type: string | NamedConfigJson;
  /** The chunk grid (`regular`, with its `chunk_shape`). */
  chunk_grid: NamedConfigJson;
  /** How chunk coordinates become keys. */
  chunk_key_encoding: NamedConfigJson;
  /** The fill value, as JSON encodes it. */
  fill_value: JsonValue;
  /** The codec chain, array->array codecs first. */
  codecs: (NamedConfigJson | string)[];
  /** Storage transformers (none that parzarr knows). */
  storage_transformers?: (NamedConfigJson | string)[] | null;
  /** A name (or null) per dimension. */
  dimension_names?: (string | null)[] | null;
};

/** The members of any v3 group: arrays and groups of any attributes, recursively. */
export type AnyNodeSpecV3 = ArraySpecV3 | AnyGroupSpecV3;
/** A v3 group of any attributes whose members are any v3 nodes. */
export interface AnyGroupSpecV3 {
  /** The Zarr format version. */
  zarr_format: 3;
  /** The node kind. */
  node_type: "group";
  /** The user attributes (`{}` when there are none). */
  attributes: JsonObject;
  /** The children, by name. */
  members: { [name: string]: AnyNodeSpecV3 };
}

/**
 * A v3 group. Its `zarr.json` may also hold `consolidated_metadata` (zarr-python 3's cache of the
 * members' documents): the model leaves it out, since `members` already is that information.
 */
export type GroupSpecV3<TAttrs extends object = JsonObject, TMembers = AnyNodeSpecV3> = {
  /** The Zarr format version. */
  zarr_format: 3;
  /** The node kind. */
  node_type: "group";
  /** The user attributes (`{}` when there are none). */
  attributes: TAttrs;
  /** The children, by name. */
  members: { [name: string]: TMembers };
};

// ---------------------------------------------------------------------------------------------
// Either version.

/** An array's model of either version. */
export type ArraySpec<TAttrs extends object = JsonObject> = ArraySpecV2<TAttrs> | ArraySpecV3<TAttrs>;
/** A group's model of either version; members of the group's own version. */
export type GroupSpec<TAttrs extends object = JsonObject, TMembers = AnyNodeSpecV2 | AnyNodeSpecV3> =
  | GroupSpecV2<TAttrs, Extract<TMembers, { zarr_format: 2 }>>
  | GroupSpecV3<TAttrs, Extract<TMembers, { zarr_format: 3 }>>;
/** Any node's model, of either version. */
export type NodeSpec = AnyNodeSpecV2 | AnyNodeSpecV3;
export type NodeSpecV<V extends 2 | 3> = V extends 2 ? AnyNodeSpecV2 : AnyNodeSpecV3;

/** Whether a model is a group's (it has `members`). */
export function isGroupSpec(node: NodeSpec): node is AnyGroupSpecV2 | AnyGroupSpecV3 {
  return "members" in node;
}

/** Whether a model is an array's (it has no `members`). */
export function isArraySpec(node: NodeSpec): node is ArraySpecV2 | ArraySpecV3 {
  return !("members" in node);
}

/** Every node of a model with its path ("" for the root, else `a/b`), parents before children. */
export function* walkSpec(node: NodeSpec, path = ""): Generator<[string, NodeSpec]> {
  yield [path, node];
  if (!isGroupSpec(node)) return;
  for (const name of Object.keys(node.members).sort()) {
    yield* walkSpec(node.members[name] as NodeSpec, path === "" ? name : `${path}/${name}`);
  }
}
