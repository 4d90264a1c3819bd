/**
 * Data types: the one model that v3 names and numpy type strings parse into (dtype-names.ts),
 * with what every layer asks of a type. Memory is elements.ts, scalars scalars.ts, fill values
 * fill-value.ts.
 *
 * Every fixed-size type lives in a typed array of "components": a number is one component, a
 * complex number two, a `|S7` byte string seven uint8 components, a `<U5` string five uint32 code
 * points, a record its bytes. The chunk machinery (copy, fill, compare, transpose, `bytes`) then
 * treats them all alike; the user-facing forms (strings, Uint8Arrays) appear only at `get`/`set`
 * (see indexing/values.ts).
 */
import type { NarrowFloatComponent } from "./narrow-float.js";
import type { JsonValue } from "./json.js";

/** The names of the numeric data types (v3 names; zarr-extensions' sub-byte integers and complex aliases included). */
export type NumericTypeName =
  | "bool"
  | "int8"
  | "int16"
  | "int32"
  | "int64"
  | "uint8"
  | "uint16"
  | "uint32"
  | "uint64"
  | "float16"
  | "float32"
  | "float64"
  | "complex64"
  | "complex128"
  // zarr-extensions (v3 only): sub-byte integers, one per stored byte; complex64/128 by their
  // other names, which keep the name the metadata gave.
  | "int2"
  | "int4"
  | "uint2"
  | "uint4"
  | "complex_float32"
  | "complex_float64";

/** A byte order. @inline */
export type Endian = "little" | "big";

/**
 * A numeric data type. `endian` is the byte order of the stored bytes as v2 metadata declares it
 * (v3 puts it in the `bytes` codec instead); one-byte types have none.
 */
export interface NumericDataType {
  /** Tells the data types apart. */
  readonly kind: "numeric";
  /** The type's name, as `arr.dtype` gives it. */
  readonly name: NumericTypeName;
  /** Bytes per stored element. */
  readonly itemSize: number;
  /** Byte order of the stored bytes as v2 declares it; null where it has none (v3: the `bytes` codec says). */
  readonly endian: Endian | null;
}

/**
 * Floats held as float32 in memory whose stored components are narrower (see narrow-float.ts):
 * `bfloat16`, the zarr-extensions floats of 8 bits or fewer (`float8_e4m3`, `float6_e2m3fn`,
 * `float4_e2m1fn`, ...), and the complex types of two of them (`complex_bfloat16`,
 * `complex_float16`, `complex_float8_e5m2`, ...), interleaved re, im as complex64 is. Stored
 * one byte per component for the 8-bit-or-smaller ones (sub-byte codes in the low bits, as the
 * specifications' `bytes` encoding says), two for bfloat16/float16 (endian from the codec).
 */
export interface NarrowFloatDataType {
  /** Tells the data types apart. */
  readonly kind: "narrow_float";
  /** The type's name, as `arr.dtype` gives it. */
  readonly name: string;
  /** The stored float format of each component. */
  readonly component: NarrowFloatComponent;
  /** 1 for a real type, 2 (re, im) for a complex one. */
  readonly components: 1 | 2;
  /** Bytes per stored element (0: variable length). */
  readonly itemSize: number;
  /** Byte order of the stored bytes as v2 declares it; null where it has none (v3: the `bytes` codec says). */
  readonly endian: Endian | null;
}

export const DATETIME_UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "generic"] as const;
/** numpy's datetime64/timedelta64 units. */
export type DateTimeUnit = (typeof DATETIME_UNITS)[number];

/** numpy datetime64/timedelta64: int64 counts of `scaleFactor` x `unit`; int64 min is NaT. */
export interface DateTimeDataType {
  /** Tells the data types apart. */
  readonly kind: "datetime";
  /** The type's name, as `arr.dtype` gives it. */
  readonly name: "numpy.datetime64" | "numpy.timedelta64";
  /** The unit of one count. */
  readonly unit: DateTimeUnit;
  /** Counts are of `scaleFactor` units (`<M8[10ms]`: 10). */
  readonly scaleFactor: number;
  /** Bytes per stored element (0: variable length). */
  readonly itemSize: 8;
  /** Byte order of the stored bytes as v2 declares it; null where it has none (v3: the `bytes` codec says). */
  readonly endian: Endian;
}

/** numpy `|S<n>` (v3 `null_terminated_bytes`): byte strings padded with NULs to n bytes. */
export interface FixedBytesDataType {
  /** Tells the data types apart. */
  readonly kind: "fixed_bytes";
  /** The type's name, as `arr.dtype` gives it. */
  readonly name: "null_terminated_bytes";
  /** Bytes per stored element (0: variable length). */
  readonly itemSize: number;
  /** Byte order of the stored bytes as v2 declares it; null where it has none (v3: the `bytes` codec says). */
  readonly endian: null;
}

/** v3 raw bits `r<bits>` (numpy `|V<n>`): opaque bytes per element. */
export interface RawBitsDataType {
  /** Tells the data types apart. */
  readonly kind: "raw_bits";
  /** The type's name, as `arr.dtype` gives it. */
  readonly name: string;
  /** Bytes per stored element (0: variable length). */
  readonly itemSize: number;
  /** Byte order of the stored bytes as v2 declares it; null where it has none (v3: the `bytes` codec says). */
  readonly endian: null;
}

/** numpy `<U<n>` (v3 `fixed_length_utf32`): n UTF-32 code points, NUL-padded. */
export interface Utf32DataType {
  /** Tells the data types apart. */
  readonly kind: "utf32";
  /** The type's name, as `arr.dtype` gives it. */
  readonly name: "fixed_length_utf32";
  /** Code points per element. */
  readonly length: number;
  /** Bytes per stored element (0: variable length). */
  readonly itemSize: number;
  /** Byte order of the stored bytes as v2 declares it; null where it has none (v3: the `bytes` codec says). */
  readonly endian: Endian;
}

/** A field of a structured (record) type: its bytes start at `offset` within the record. */
export interface StructuredField {
  /** The field's name. */
  readonly name: string;
  /** Its data type. */
  readonly dtype: FixedDataType;
  /** Sub-array shape (`[2]` for `["b", "<f8", [2]]`), [] for a scalar field. */
  readonly shape: number[];
  /** Its first byte within the record. */
  readonly offset: number;
}

/** A numpy structured dtype (v2 records); a record is its raw bytes in memory. */
export interface StructuredDataType {
  /** Tells the data types apart. */
  readonly kind: "structured";
  /** The type's name, as `arr.dtype` gives it. */
  readonly name: "structured";
  /** The fields, in record order. */
  readonly fields: StructuredField[];
  /** Bytes per stored element (0: variable length). */
  readonly itemSize: number;
  /** Byte order of the stored bytes as v2 declares it; null where it has none (v3: the `bytes` codec says). */
  readonly endian: null;
}

/** Variable-length UTF-8 strings: v3 `string`, v2 `|O` with the vlen-utf8 filter. */
export interface VlenStringDataType {
  /** Tells the data types apart. */
  readonly kind: "string";
  /** The type's name, as `arr.dtype` gives it. */
  readonly name: "string";
  /** Bytes per stored element (0: variable length). */
  readonly itemSize: 0;
  /** Byte order of the stored bytes as v2 declares it; null where it has none (v3: the `bytes` codec says). */
  readonly endian: null;
}

/** Variable-length byte strings: v3 `variable_length_bytes` (or `bytes`), v2 `|O` with vlen-bytes. */
export interface VlenBytesDataType {
  /** Tells the data types apart. */
  readonly kind: "bytes";
  /** The type's name, as `arr.dtype` gives it. */
  readonly name: "variable_length_bytes";
  /** Bytes per stored element (0: variable length). */
  readonly itemSize: 0;
  /** Byte order of the stored bytes as v2 declares it; null where it has none (v3: the `bytes` codec says). */
  readonly endian: null;
}

/**
 * A v2 object array of JSON values (`|O` with numcodecs' `json2` object codec): one JS value
 * per element (null, boolean, number, string, array or object). Its scalars and fill value are
 * those JS values, typed as Scalar where the API names one.
 */
export interface JsonDataType extends Omit<VlenBytesDataType, "kind" | "name"> {
  /** Tells the data types apart. */
  readonly kind: "json";
  /** The type's name, as `arr.dtype` gives it. */
  readonly name: "json";
}

/** Types whose elements have a fixed size in bytes (everything but the variable-length ones). */
export type FixedDataType =
  | NumericDataType
  | NarrowFloatDataType
  | DateTimeDataType
  | FixedBytesDataType
  | RawBitsDataType
  | Utf32DataType
  | StructuredDataType;

/**
 * zarrs' `optional` (nullable) type over a fixed-size type, `string`, `bytes` or another optional.
 * Over a fixed-size type, memory holds the inner element's components and then a mask component
 * (1 present, 0 missing) in the inner type's typed array: zarrs' own in-memory form, so a nested
 * optional's masks follow its value innermost first and a missing element is all zeros. Over a
 * variable-length type, memory holds one JS value per element, the user's form (null, "s", ["s"]).
 * Users see null for a missing element (see `Scalar`). `itemSize` counts those components' bytes
 * in memory (0 for the variable-length ones); the stored form has none.
 */
export interface OptionalDataType {
  /** Tells the data types apart. */
  readonly kind: "optional";
  /** The type's name, as `arr.dtype` gives it. */
  readonly name: "optional";
  /** The type of a present element (fixed-size, string, bytes, or optional again). */
  readonly inner: FixedDataType | VlenStringDataType | VlenBytesDataType | OptionalDataType;
  /** Bytes per element in memory: the inner element's components and the mask component. */
  readonly itemSize: number;
  /** Always null: a v3-only type, whose byte order the codecs say. */
  readonly endian: null;
}

/**
 * numcodecs' `vlen-array` elements (v2 `|O` with { id: "vlen-array", dtype }): arrays of numbers
 * of any length. Memory holds each element's stored bytes (in `element`'s byte order) as a
 * Uint8Array, as for `variable_length_bytes`; users see typed arrays (metadata/vlen-array.ts).
 */
export interface VlenArrayDataType {
  /** Tells the data types apart. */
  readonly kind: "vlen_array";
  /** The type's name, as `arr.dtype` gives it. */
  readonly name: "vlen_array";
  /** The numeric type of each element's numbers (its byte order is the stored one). */
  readonly element: NumericDataType;
  /** Bytes per stored element (0: variable length). */
  readonly itemSize: 0;
  /** Byte order of the stored bytes as v2 declares it; null where it has none (the element type says). */
  readonly endian: null;
}

/** Every data type parzarr reads and writes, told apart by `kind`. */
export type DataType = FixedDataType | OptionalDataType | VlenStringDataType | VlenBytesDataType | VlenArrayDataType | JsonDataType;

/** The typed arrays elements live in (components of complex, narrow-float and string types too). */
export type TypedArray =
  | Int8Array
  | Uint8Array
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/** Memory for elements: a typed array of components, or one JS value per element (also what `get` returns for optional types). */
export type ElementArray = TypedArray | string[] | Uint8Array[] | JsonValue[] | Scalar[] | TypedArray[];

/**
 * One element's value as JS sees it: complex values are [re, im]; strings for string types;
 * Uint8Array for byte strings, raw bits and records; bigint for int64 and datetimes. An optional
 * type's element is null when missing, else its inner value, wrapped as `[value]` when the inner
 * type is itself optional (so `null`, `[null]` and `[5]` tell the levels of a nested one apart).
 */
export type Scalar = number | bigint | boolean | [number, number] | string | Uint8Array | null | [Scalar];

/** One component as memory holds it. */
export type Component = number | bigint | string | Uint8Array;

export interface TypeInfo {
  size: number;
  numpy: string | null; // numpy kind letter and size, without byte order; null: v3 only
  family: "bool" | "int" | "uint" | "float" | "complex";
}

export const NUMERIC_TYPES: Record<NumericTypeName, TypeInfo> = {
  bool: { size: 1, numpy: "b1", family: "bool" },
  int8: { size: 1, numpy: "i1", family: "int" },
  int16: { size: 2, numpy: "i2", family: "int" },
  int32: { size: 4, numpy: "i4", family: "int" },
  int64: { size: 8, numpy: "i8", family: "int" },
  uint8: { size: 1, numpy: "u1", family: "uint" },
  uint16: { size: 2, numpy: "u2", family: "uint" },
  uint32: { size: 4, numpy: "u4", family: "uint" },
  uint64: { size: 8, numpy: "u8", family: "uint" },
  float16: { size: 2, numpy: "f2", family: "float" },
  float32: { size: 4, numpy: "f4", family: "float" },
  float64: { size: 8, numpy: "f8", family: "float" },
  complex64: { size: 8, numpy: "c8", family: "complex" },
  complex128: { size: 16, numpy: "c16", family: "complex" },
  int2: { size: 1, numpy: null, family: "int" },
  int4: { size: 1, numpy: null, family: "int" },
  uint2: { size: 1, numpy: null, family: "uint" },
  uint4: { size: 1, numpy: null, family: "uint" },
  complex_float32: { size: 8, numpy: null, family: "complex" },
  complex_float64: { size: 16, numpy: null, family: "complex" },
};

/** Sub-byte integers: held in an Int8Array/Uint8Array, their stored byte's upper bits ignored. */
const SUB_BYTE_BITS: Partial<Record<NumericTypeName, number>> = { int2: 2, int4: 4, uint2: 2, uint4: 4 };

/** The bits of a sub-byte integer type (int2, int4, uint2, uint4); undefined for every other type. */
export function subByteBits(dt: DataType): number | undefined {
  return dt.kind === "numeric" ? SUB_BYTE_BITS[dt.name] : undefined;
}

export type TypeFamily =
  | TypeInfo["family"] | "datetime" | "fixed_bytes" | "raw_bits" | "utf32" | "structured" | "optional" | "string" | "bytes" | "vlen_array" | "json";

export function typeFamily(dt: DataType): TypeFamily {
  switch (dt.kind) {
    case "numeric":
      return NUMERIC_TYPES[dt.name].family;
    case "narrow_float":
      return dt.components === 2 ? "complex" : "float";
    default:
      return dt.kind;
  }
}

/** Whether elements are JS values (strings, Uint8Arrays, JSON values, optional ones of those) rather than typed-array components. */
export function isObjectType(dt: DataType): boolean {
  return dt.kind === "string" || dt.kind === "bytes" || dt.kind === "vlen_array" || dt.kind === "json" || (dt.kind === "optional" && isObjectType(dt.inner));
}

/** Components per element in memory (see the module comment). */
export function componentsPerElement(dt: DataType): number {
  switch (dt.kind) {
    case "numeric":
      return NUMERIC_TYPES[dt.name].family === "complex" ? 2 : 1;
    case "fixed_bytes":
    case "raw_bits":
    case "structured":
      return dt.itemSize;
    case "utf32":
      return dt.length;
    case "narrow_float":
      return dt.components;
    case "optional":
      return isObjectType(dt) ? 1 : componentsPerElement(dt.inner) + 1;
    default:
      return 1;
  }
}

const INT_RANGES: Partial<Record<NumericTypeName, [bigint, bigint]>> = {
  int8: [-128n, 127n],
  int16: [-32768n, 32767n],
  int32: [-2147483648n, 2147483647n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  int2: [-2n, 1n],
  int4: [-8n, 7n],
  uint2: [0n, 3n],
  uint4: [0n, 15n],
  uint8: [0n, 255n],
  uint16: [0n, 65535n],
  uint32: [0n, 4294967295n],
  uint64: [0n, 2n ** 64n - 1n],
};

/** The inclusive range of an integer type; undefined for every other type. */
export function integerRange(dt: DataType): [bigint, bigint] | undefined {
  return dt.kind === "numeric" ? INT_RANGES[dt.name] : undefined;
}

/** The type under any number of `optional` wrappers (fixed-size: its typed array holds the elements). */
export function innermostType(dt: DataType): DataType {
  return dt.kind === "optional" ? innermostType(dt.inner) : dt;
}

/** An optional's present value as its inner type's: a nested optional's is wrapped once more (`[5]`, `[null]`); undefined if not. */
export const unwrapPresent = (v: Scalar, dt: OptionalDataType): Scalar | undefined =>
  dt.inner.kind !== "optional" ? v : Array.isArray(v) && v.length === 1 ? (v as [Scalar])[0] : undefined;
/** The inverse of `unwrapPresent`. */
export const wrapPresent = (v: Scalar, dt: OptionalDataType): Scalar => (dt.inner.kind === "optional" ? [v] : v);

/** int64 min: numpy's NaT ("Not a Time"). */
export const NAT = -(2n ** 63n);
