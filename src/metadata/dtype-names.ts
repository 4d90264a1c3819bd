/**
 * Data type names: parsing v3 names/objects and numpy type strings into the model, and back. The
 * numeric types and the variable-length strings, bytes and JSON are parsed here; every other type
 * (narrow floats, datetimes, fixed-length strings and bytes, raw bits, records, optional) by
 * rare-types.ts, which a page loads with the first metadata document naming one
 * (metadata-json.ts) and Node and workers import at start. A value of a rare kind exists only
 * once that module is loaded, so what is given one may call it; a name parsed before it is loaded
 * is an internal fault, never read as another type.
 */
import { InternalFault, UnsupportedError } from "../errors.js";
import type { Serialisable } from "./json-write.js";
import {
  NUMERIC_TYPES, type DataType, type Endian, type JsonDataType, type NumericDataType, type NumericTypeName,
  type VlenBytesDataType, type VlenStringDataType,
} from "./dtype.js";

type RareTypes = (typeof import("./rare-types.js"))["RARE_TYPES"];
let rare: RareTypes | undefined;

/** Called by rare-types.ts as it loads. */
export function installRareTypes(m: RareTypes): void {
  rare = m;
}

export function rareTypesLoaded(): boolean {
  return rare !== undefined;
}

/** The rare types' module, for a value or name of one of them. */
export function rareTypes(): RareTypes {
  if (rare === undefined) throw new InternalFault("a rare data type was met before its module (metadata/rare-types.ts) was loaded");
  return rare;
}

const NUMPY_TO_NAME = new Map<string, NumericTypeName>(
  Object.entries(NUMERIC_TYPES).flatMap(([name, info]) => (info.numpy === null ? [] : [[info.numpy, name as NumericTypeName] as const])),
);

function numericType(name: NumericTypeName, endian: Endian | null): NumericDataType {
  const size = NUMERIC_TYPES[name].size;
  return { kind: "numeric", name, itemSize: size, endian: size === 1 ? null : endian };
}

const STRING_TYPE: VlenStringDataType = { kind: "string", name: "string", itemSize: 0, endian: null };
const BYTES_TYPE: VlenBytesDataType = { kind: "bytes", name: "variable_length_bytes", itemSize: 0, endian: null };
const JSON_TYPE: JsonDataType = { kind: "json", name: "json", itemSize: 0, endian: null };

export function vlenStringType(): VlenStringDataType {
  return STRING_TYPE;
}
export function vlenBytesType(): VlenBytesDataType {
  return BYTES_TYPE;
}
/** The element type of a v2 `|O` array whose object codec is `json2`. */
export function jsonType(): JsonDataType {
  return JSON_TYPE;
}

/** A numpy type string: `<i4`, `|S7`, `<U5`, `<M8[10ms]`, `|O`, `|V8`. */
export const NUMPY_TYPESTR = /^([<>|=]?)([a-zA-Z])(\d*)(?:\[(\d*)([a-zA-Zμ]+)\])?$/;

/** The types parsed without rare-types.ts: numeric names and type strings, strings, bytes, `|O`; else null. */
export function commonDataType(input: unknown): DataType | null {
  if (typeof input !== "string") return null;
  if (Object.hasOwn(NUMERIC_TYPES, input)) return numericType(input as NumericTypeName, "little");
  switch (input) {
    case "string":
    case "str":
      return STRING_TYPE;
    case "bytes":
    case "variable_length_bytes":
      return BYTES_TYPE;
  }
  const m = NUMPY_TYPESTR.exec(input);
  if (!m) return null;
  const [, order, kind, size, , unit] = m;
  // The object type: its element kind comes from the v2 filters (see array-metadata.ts).
  if (kind === "O") return STRING_TYPE;
  const name = NUMPY_TO_NAME.get(`${kind}${size}`);
  return name && unit === undefined ? numericType(name, order === ">" ? "big" : "little") : null;
}

/**
 * Parses a dtype option or metadata value: a v3 name (`"int32"`, `"string"`, `"r16"`), a v3
 * object (`{ name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 10 } }`), a
 * numpy type string (`"<i4"`, `"|S7"`, `"<U5"`, `"<M8[10ms]"`, `"|O"`) or a numpy structured
 * description (`[["a", "<i4"], ["b", "<f8", [2]]]`).
 */
export function parseDataType(input: unknown, where = "dtype"): DataType {
  return commonDataType(input) ?? rareTypes().parseRareDataType(input, where);
}

export function byteOrder(dt: { endian: Endian | null }): string {
  return dt.endian === null ? "|" : dt.endian === "big" ? ">" : "<";
}

/** The type as info and tree print it: its name, and for an optional its inner type's (`optional(int16)`). */
export function dataTypeLabel(dt: DataType): string {
  return dt.kind === "optional" ? `optional(${dataTypeLabel(dt.inner)})` : dt.name;
}

/** Whether numpy (and so Zarr v2) has this type: not bfloat16, float8_*, int4 and the other v3-only ones. */
export function hasNumpyForm(dt: DataType): boolean {
  return dt.kind === "narrow_float" || dt.kind === "optional" ? false : dt.kind === "numeric" ? NUMERIC_TYPES[dt.name].numpy !== null : true;
}

/** The numpy type string of a type (`<f8`, `|S7`, `<U5`, `<M8[10ms]`, `|O`); records have none. */
export function toNumpyTypestr(dt: DataType): string {
  switch (dt.kind) {
    case "numeric": {
      const numpy = NUMERIC_TYPES[dt.name].numpy;
      if (numpy === null) throw new UnsupportedError(`${dt.name} has no numpy type string: it exists only in Zarr v3`);
      return byteOrder(dt) + numpy;
    }
    case "datetime":
    case "fixed_bytes":
    case "raw_bits":
    case "utf32":
      return rareTypes().rareNumpyTypestr(dt);
    case "string":
    case "bytes":
    case "json":
    case "vlen_array":
      return "|O";
    case "narrow_float":
    case "optional":
      throw new UnsupportedError(`${dt.name} has no numpy type string: it exists only in Zarr v3`);
    case "structured":
      throw new UnsupportedError("a structured type has no single numpy type string; use v2DtypeJson");
  }
}

/** The `dtype` of a v2 `.zarray`: a type string, or a field list for records. */
export function v2DtypeJson(dt: DataType): Serialisable {
  return dt.kind === "structured" ? rareTypes().structuredV2Json(dt) : toNumpyTypestr(dt);
}

/** The `data_type` of a v3 `zarr.json`. */
export function v3DataTypeJson(dt: DataType): Serialisable {
  switch (dt.kind) {
    case "datetime":
    case "utf32":
    case "fixed_bytes":
    case "structured":
    case "optional":
      return rareTypes().rareV3Json(dt);
    case "json":
      throw new UnsupportedError("an object array of JSON values (numcodecs json2) exists only in Zarr v2");
    default:
      return dt.name;
  }
}
