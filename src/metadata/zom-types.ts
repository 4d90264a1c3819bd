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
  name: string;
  configuration?: JsonObject | null;
  must_understand?: boolean;
}

// ---------------------------------------------------------------------------------------------
// Zarr v2: `.zarray` / `.zgroup` plus `.zattrs` as `attributes`.

export type ArraySpecV2<TAttrs extends object = JsonObject> = {
  zarr_format: 2;
  attributes: TAttrs;
  shape: number[];
  chunks: number[];
  /** A numpy type string, or a structured dtype's list of `[name, type, shape?]` fields. */
  dtype: string | JsonValue[];
  compressor: JsonObject | null;
  fill_value: JsonValue;
  order: "C" | "F";
  filters: JsonObject[] | null;
  /** Absent in metadata written before zarr-python 2.8 (readers then assume "."). */
  dimension_separator?: "." | "/";
};

/** The members of any v2 group: arrays and groups of any attributes, recursively. */
export type AnyNodeSpecV2 = ArraySpecV2 | AnyGroupSpecV2;
// An interface breaks the cycle that a default type argument could not.
export interface AnyGroupSpecV2 {
  zarr_format: 2;
  attributes: JsonObject;
  members: { [name: string]: AnyNodeSpecV2 };
}

export type GroupSpecV2<TAttrs extends object = JsonObject, TMembers = AnyNodeSpecV2> = {
  zarr_format: 2;
  attributes: TAttrs;
  members: { [name: string]: TMembers };
};

// ---------------------------------------------------------------------------------------------
// Zarr v3: `zarr.json`, whose `attributes` already hold the user attributes.

export type ArraySpecV3<TAttrs extends object = JsonObject> = {
  zarr_format: 3;
  node_type: "array";
  attributes: TAttrs;
  shape: number[];
  /** A data type name, or an extension data type's `{ name, configuration }`. */
  data_type: string | NamedConfigJson;
  chunk_grid: NamedConfigJson;
  chunk_key_encoding: NamedConfigJson;
  fill_value: JsonValue;
  codecs: (NamedConfigJson | string)[];
  storage_transformers?: (NamedConfigJson | string)[] | null;
  dimension_names?: (string | null)[] | null;
};

export type AnyNodeSpecV3 = ArraySpecV3 | AnyGroupSpecV3;
export interface AnyGroupSpecV3 {
  zarr_format: 3;
  node_type: "group";
  attributes: JsonObject;
  members: { [name: string]: AnyNodeSpecV3 };
}

/**
 * A v3 group. Its `zarr.json` may also hold `consolidated_metadata` (zarr-python 3's cache of the
 * members' documents): the model leaves it out, since `members` already is that information.
 */
export type GroupSpecV3<TAttrs extends object = JsonObject, TMembers = AnyNodeSpecV3> = {
  zarr_format: 3;
  node_type: "group";
  attributes: TAttrs;
  members: { [name: string]: TMembers };
};

// ---------------------------------------------------------------------------------------------
// Either version.

export type ArraySpec<TAttrs extends object = JsonObject> = ArraySpecV2<TAttrs> | ArraySpecV3<TAttrs>;
export type GroupSpec<TAttrs extends object = JsonObject, TMembers = AnyNodeSpecV2 | AnyNodeSpecV3> =
  | GroupSpecV2<TAttrs, Extract<TMembers, { zarr_format: 2 }>>
  | GroupSpecV3<TAttrs, Extract<TMembers, { zarr_format: 3 }>>;
export type NodeSpec = AnyNodeSpecV2 | AnyNodeSpecV3;
export type NodeSpecV<V extends 2 | 3> = V extends 2 ? AnyNodeSpecV2 : AnyNodeSpecV3;

export function isGroupSpec(node: NodeSpec): node is AnyGroupSpecV2 | AnyGroupSpecV3 {
  return "members" in node;
}

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
