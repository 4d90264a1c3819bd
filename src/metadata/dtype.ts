/**
 * Data types: v3 names and numpy type strings parsed into one model, the memory that holds each
 * (a typed array, or a JS array of strings / byte strings for variable-length types), and the
 * JSON forms of fill values in both Zarr versions.
 *
 * Every fixed-size type lives in a typed array of "components": a number is one component, a
 * complex number two, a `|S7` byte string seven uint8 components, a `<U5` string five uint32 code
 * points, a record its bytes. The chunk machinery (copy, fill, compare, transpose, `bytes`) then
 * treats them all alike; the user-facing forms (strings, Uint8Arrays) appear only at `get`/`set`
 * (see indexing/values.ts).
 */
import { UnsupportedError, InvalidMetadataError } from "../errors.js";
import { BigJsonInt, PyFloat, type JsonValue, type Serialisable, isJsonObject } from "./json.js";
import { float16BitsToNumber, numberToFloat16Bits } from "./float16.js";
import { componentCodec, roundToComponent, type NarrowFloatComponent } from "./narrow-float.js";
import { isMiniFloatName } from "./minifloat.js";

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

export type Endian = "little" | "big";

/**
 * A numeric data type. `endian` is the byte order of the stored bytes as v2 metadata declares it
 * (v3 puts it in the `bytes` codec instead); one-byte types have none.
 */
export interface NumericDataType {
  readonly kind: "numeric";
  readonly name: NumericTypeName;
  readonly itemSize: number;
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
  readonly kind: "narrow_float";
  readonly name: string;
  readonly component: NarrowFloatComponent;
  readonly components: 1 | 2;
  readonly itemSize: number;
  readonly endian: Endian | null;
}

export const DATETIME_UNITS = ["Y", "M", "W", "D", "h", "m", "s", "ms", "us", "ns", "ps", "fs", "as", "generic"] as const;
export type DateTimeUnit = (typeof DATETIME_UNITS)[number];

/** numpy datetime64/timedelta64: int64 counts of `scaleFactor` x `unit`; int64 min is NaT. */
export interface DateTimeDataType {
  readonly kind: "datetime";
  readonly name: "numpy.datetime64" | "numpy.timedelta64";
  readonly unit: DateTimeUnit;
  readonly scaleFactor: number;
  readonly itemSize: 8;
  readonly endian: Endian;
}

/** numpy `|S<n>` (v3 `null_terminated_bytes`): byte strings padded with NULs to n bytes. */
export interface FixedBytesDataType {
  readonly kind: "fixed_bytes";
  readonly name: "null_terminated_bytes";
  readonly itemSize: number;
  readonly endian: null;
}

/** v3 raw bits `r<bits>` (numpy `|V<n>`): opaque bytes per element. */
export interface RawBitsDataType {
  readonly kind: "raw_bits";
  readonly name: string;
  readonly itemSize: number;
  readonly endian: null;
}

/** numpy `<U<n>` (v3 `fixed_length_utf32`): n UTF-32 code points, NUL-padded. */
export interface Utf32DataType {
  readonly kind: "utf32";
  readonly name: "fixed_length_utf32";
  /** Code points per element. */
  readonly length: number;
  readonly itemSize: number;
  readonly endian: Endian;
}

/** A field of a structured (record) type: its bytes start at `offset` within the record. */
export interface StructuredField {
  readonly name: string;
  readonly dtype: FixedDataType;
  /** Sub-array shape (`[2]` for `["b", "<f8", [2]]`), [] for a scalar field. */
  readonly shape: number[];
  readonly offset: number;
}

/** A numpy structured dtype (v2 records); a record is its raw bytes in memory. */
export interface StructuredDataType {
  readonly kind: "structured";
  readonly name: "structured";
  readonly fields: StructuredField[];
  readonly itemSize: number;
  readonly endian: null;
}

/** Variable-length UTF-8 strings: v3 `string`, v2 `|O` with the vlen-utf8 filter. */
export interface VlenStringDataType {
  readonly kind: "string";
  readonly name: "string";
  readonly itemSize: 0;
  readonly endian: null;
}

/** Variable-length byte strings: v3 `variable_length_bytes` (or `bytes`), v2 `|O` with vlen-bytes. */
export interface VlenBytesDataType {
  readonly kind: "bytes";
  readonly name: "variable_length_bytes";
  readonly itemSize: 0;
  readonly endian: null;
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

export type DataType = FixedDataType | VlenStringDataType | VlenBytesDataType;

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

/** Memory for elements: a typed array of components, or one JS value per element. */
export type ElementArray = TypedArray | string[] | Uint8Array[];

/** Whether elements live in a typed array (every fixed-size type) rather than a JS array. */
export function isTypedArray(data: ElementArray | ArrayLike<unknown>): data is TypedArray {
  return ArrayBuffer.isView(data);
}

/**
 * One element's value as JS sees it: complex values are [re, im]; strings for string types;
 * Uint8Array for byte strings, raw bits and records; bigint for int64 and datetimes.
 */
export type Scalar = number | bigint | boolean | [number, number] | string | Uint8Array;

/** One component as memory holds it. */
export type Component = number | bigint | string | Uint8Array;

interface TypeInfo {
  size: number;
  numpy: string | null; // numpy kind letter and size, without byte order; null: v3 only
  family: "bool" | "int" | "uint" | "float" | "complex";
}

const TYPES: Record<NumericTypeName, TypeInfo> = {
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

const NUMPY_TO_NAME = new Map<string, NumericTypeName>(
  Object.entries(TYPES).flatMap(([name, info]) => (info.numpy === null ? [] : [[info.numpy, name as NumericTypeName] as const])),
);

/** Sub-byte integers: held in an Int8Array/Uint8Array, their stored byte's upper bits ignored. */
const SUB_BYTE_BITS: Partial<Record<NumericTypeName, number>> = { int2: 2, int4: 4, uint2: 2, uint4: 4 };

/** The bits of a sub-byte integer type (int2, int4, uint2, uint4); undefined for every other type. */
export function subByteBits(dt: DataType): number | undefined {
  return dt.kind === "numeric" ? SUB_BYTE_BITS[dt.name] : undefined;
}

export type TypeFamily = TypeInfo["family"] | "datetime" | "fixed_bytes" | "raw_bits" | "utf32" | "structured" | "string" | "bytes";

export function typeFamily(dt: DataType): TypeFamily {
  switch (dt.kind) {
    case "numeric":
      return TYPES[dt.name].family;
    case "narrow_float":
      return dt.components === 2 ? "complex" : "float";
    default:
      return dt.kind;
  }
}

/** Whether elements are JS values (strings, Uint8Arrays) rather than typed-array components. */
export function isObjectType(dt: DataType): dt is VlenStringDataType | VlenBytesDataType {
  return dt.kind === "string" || dt.kind === "bytes";
}

/** Components per element in memory (see the module comment). */
export function componentsPerElement(dt: DataType): number {
  switch (dt.kind) {
    case "numeric":
      return TYPES[dt.name].family === "complex" ? 2 : 1;
    case "fixed_bytes":
    case "raw_bits":
    case "structured":
      return dt.itemSize;
    case "utf32":
      return dt.length;
    case "narrow_float":
      return dt.components;
    default:
      return 1;
  }
}

/** True when the runtime has Float16Array, so float16 arrays hold half floats natively. */
export const hasFloat16Array = typeof (globalThis as { Float16Array?: unknown }).Float16Array === "function";

function numericType(name: NumericTypeName, endian: Endian | null): NumericDataType {
  const size = TYPES[name].size;
  return { kind: "numeric", name, itemSize: size, endian: size === 1 ? null : endian };
}

const STRING_TYPE: VlenStringDataType = { kind: "string", name: "string", itemSize: 0, endian: null };
const BYTES_TYPE: VlenBytesDataType = { kind: "bytes", name: "variable_length_bytes", itemSize: 0, endian: null };

export function vlenStringType(): VlenStringDataType {
  return STRING_TYPE;
}
export function vlenBytesType(): VlenBytesDataType {
  return BYTES_TYPE;
}

function dateTimeType(kind: "M" | "m", unit: string, scale: number, endian: Endian, where: string): DateTimeDataType {
  const u = unit === "μs" ? "us" : unit;
  if (!(DATETIME_UNITS as readonly string[]).includes(u)) {
    throw new InvalidMetadataError(`${where}: unknown datetime unit ${JSON.stringify(unit)}`);
  }
  if (!Number.isSafeInteger(scale) || scale < 1 || scale > 2 ** 31 - 1) {
    throw new InvalidMetadataError(`${where}: datetime scale factor must be an integer from 1 to 2^31-1, got ${scale}`);
  }
  return {
    kind: "datetime",
    name: kind === "M" ? "numpy.datetime64" : "numpy.timedelta64",
    unit: u as DateTimeUnit,
    scaleFactor: scale,
    itemSize: 8,
    endian,
  };
}

function utf32Type(length: number, endian: Endian, where: string): Utf32DataType {
  if (!Number.isSafeInteger(length) || length < 1) throw new InvalidMetadataError(`${where}: a UTF-32 string type needs a length >= 1`);
  return { kind: "utf32", name: "fixed_length_utf32", length, itemSize: 4 * length, endian };
}

function fixedBytesType(size: number, where: string): FixedBytesDataType {
  if (!Number.isSafeInteger(size) || size < 1) throw new InvalidMetadataError(`${where}: a byte string type needs a size >= 1`);
  return { kind: "fixed_bytes", name: "null_terminated_bytes", itemSize: size, endian: null };
}

function rawBitsType(bytes: number, where: string): RawBitsDataType {
  if (!Number.isSafeInteger(bytes) || bytes < 1) throw new InvalidMetadataError(`${where}: raw bits need a size of 8 bits or more`);
  return { kind: "raw_bits", name: `r${bytes * 8}`, itemSize: bytes, endian: null };
}

/** A numpy type string: `<i4`, `|S7`, `<U5`, `<M8[10ms]`, `|O`, `|V8`. */
function parseNumpyTypestr(input: string, where: string): DataType | null {
  const m = /^([<>|=]?)([a-zA-Z])(\d*)(?:\[(\d*)([a-zA-Zμ]+)\])?$/.exec(input);
  if (!m) return null;
  const [, order, kind, sizeStr, scaleStr, unit] = m;
  const endian: Endian = order === ">" ? "big" : "little";
  const size = sizeStr === "" ? NaN : Number(sizeStr);
  const name = NUMPY_TO_NAME.get(`${kind}${sizeStr}`);
  if (name && unit === undefined) return numericType(name, endian);
  switch (kind) {
    case "M":
    case "m":
      if (sizeStr !== "8") break;
      return dateTimeType(kind, unit ?? "generic", scaleStr ? Number(scaleStr) : 1, endian, where);
    case "S":
    case "a":
      return fixedBytesType(size, where);
    case "U":
      return utf32Type(size, endian, where);
    case "V":
      return rawBitsType(size, where);
    case "O":
      // The object type: its element kind comes from the v2 filters (see array-metadata.ts).
      return STRING_TYPE;
  }
  return null;
}

function parseStructured(input: unknown[], where: string): StructuredDataType {
  const fields: StructuredField[] = [];
  let offset = 0;
  input.forEach((f, i) => {
    if (!Array.isArray(f) || f.length < 2 || f.length > 3 || typeof f[0] !== "string") {
      throw new InvalidMetadataError(`${where}: structured field ${i} must be [name, type] or [name, type, shape], got ${JSON.stringify(f)}`);
    }
    const dt = parseDataType(f[1], `${where}: field "${f[0]}"`);
    if (isObjectType(dt)) throw new UnsupportedError(`${where}: field "${f[0]}" has an object type, which records cannot hold`);
    const shape = f.length === 3 ? f[2] : [];
    if (!Array.isArray(shape) || shape.some((n) => typeof n !== "number" || !Number.isSafeInteger(n) || n < 0)) {
      throw new InvalidMetadataError(`${where}: field "${f[0]}" has an invalid shape ${JSON.stringify(shape)}`);
    }
    const count = (shape as number[]).reduce((a, b) => a * b, 1);
    fields.push({ name: f[0], dtype: dt, shape: shape as number[], offset });
    offset += dt.itemSize * count;
  });
  if (offset === 0) throw new InvalidMetadataError(`${where}: a structured type needs at least one non-empty field`);
  return { kind: "structured", name: "structured", fields, itemSize: offset, endian: null };
}

function configurationOf(input: Record<string, unknown>, where: string): Record<string, unknown> {
  const conf = input.configuration ?? {};
  if (!isJsonObject(conf)) throw new InvalidMetadataError(`${where}: data type configuration must be an object`);
  return conf;
}

function lengthBytes(conf: Record<string, unknown>, where: string, multiple: number): number {
  const n = conf.length_bytes;
  if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 1 || n % multiple !== 0) {
    throw new InvalidMetadataError(`${where}: "length_bytes" must be a positive multiple of ${multiple}, got ${JSON.stringify(n)}`);
  }
  return n;
}

/** A v3 data type in object form: `{ name, configuration }`. */
function parseV3Object(input: Record<string, unknown>, where: string): DataType {
  const name = input.name;
  if (typeof name !== "string") throw new InvalidMetadataError(`${where}: a data type object needs a string "name"`);
  const conf = configurationOf(input, where);
  switch (name) {
    case "numpy.datetime64":
    case "datetime64":
    case "numpy.timedelta64":
    case "timedelta64": {
      if (typeof conf.unit !== "string") throw new InvalidMetadataError(`${where}: ${name} needs a "unit"`);
      const scale = conf.scale_factor ?? 1;
      if (typeof scale !== "number") throw new InvalidMetadataError(`${where}: "scale_factor" must be an integer`);
      return dateTimeType(name.includes("datetime") ? "M" : "m", conf.unit, scale, "little", where);
    }
    case "struct":
    case "structured":
      return parseStruct(conf, where);
    case "fixed_length_utf32":
      return utf32Type(lengthBytes(conf, where, 4) / 4, "little", where);
    case "null_terminated_bytes":
    case "fixed_length_bytes":
      return fixedBytesType(lengthBytes(conf, where, 1), where);
  }
  if (Object.keys(conf).length === 0) return parseDataType(name, where);
  throw new UnsupportedError(`${where}: data type ${JSON.stringify(input)} is not supported`);
}

/**
 * Parses a dtype option or metadata value: a v3 name (`"int32"`, `"string"`, `"r16"`), a v3
 * object (`{ name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 10 } }`), a
 * numpy type string (`"<i4"`, `"|S7"`, `"<U5"`, `"<M8[10ms]"`, `"|O"`) or a numpy structured
 * description (`[["a", "<i4"], ["b", "<f8", [2]]]`).
 */
export function parseDataType(input: unknown, where = "dtype"): DataType {
  if (Array.isArray(input)) return parseStructured(input, where);
  if (isJsonObject(input)) return parseV3Object(input, where);
  if (typeof input !== "string") {
    throw new InvalidMetadataError(`${where}: expected a data type name, got ${JSON.stringify(input)}`);
  }
  if (input in TYPES) return numericType(input as NumericTypeName, "little");
  const narrow = narrowFloatType(input);
  if (narrow) return narrow;
  switch (input) {
    case "string":
    case "str":
      return STRING_TYPE;
    case "bytes":
    case "variable_length_bytes":
      return BYTES_TYPE;
  }
  const raw = /^r(\d+)$/.exec(input);
  if (raw) {
    const bits = Number(raw[1]);
    if (bits % 8 !== 0 || bits === 0) throw new InvalidMetadataError(`${where}: raw bits "${input}" must be a positive multiple of 8 bits`);
    return rawBitsType(bits / 8, where);
  }
  const dt = /^(datetime64|timedelta64)(?:\[(\d*)([a-zA-Zμ]+)\])?$/.exec(input);
  if (dt) return dateTimeType(dt[1] === "datetime64" ? "M" : "m", dt[3] ?? "generic", dt[2] ? Number(dt[2]) : 1, "little", where);
  const numpy = parseNumpyTypestr(input, where);
  if (numpy) return numpy;
  if (/^(numpy\.|fixed_length|null_terminated)/.test(input)) {
    throw new InvalidMetadataError(`${where}: data type "${input}" needs its configuration ({ name, configuration })`);
  }
  throw new InvalidMetadataError(`${where}: unknown data type ${JSON.stringify(input)}`);
}

/** `bfloat16`, `float8_e4m3`, ... and `complex_` of any of them or of float16; null for other names. */
function narrowFloatType(name: string): NarrowFloatDataType | null {
  const complex = name.startsWith("complex_");
  const component = complex ? name.slice("complex_".length) : name;
  const known = component === "bfloat16" || isMiniFloatName(component) || (complex && component === "float16");
  if (!known) return null;
  const c = component as NarrowFloatComponent;
  const bytes = componentCodec(c).bytes;
  const components = complex ? 2 : 1;
  return { kind: "narrow_float", name, component: c, components, itemSize: bytes * components, endian: bytes > 1 ? "little" : null };
}

function byteOrder(dt: { endian: Endian | null }): string {
  return dt.endian === null ? "|" : dt.endian === "big" ? ">" : "<";
}

/** Whether numpy (and so Zarr v2) has this type: not bfloat16, float8_*, int4 and the other v3-only ones. */
export function hasNumpyForm(dt: DataType): boolean {
  return dt.kind === "narrow_float" ? false : dt.kind === "numeric" ? TYPES[dt.name].numpy !== null : true;
}

/** The numpy type string of a type (`<f8`, `|S7`, `<U5`, `<M8[10ms]`, `|O`); records have none. */
export function toNumpyTypestr(dt: DataType): string {
  switch (dt.kind) {
    case "numeric": {
      const numpy = TYPES[dt.name].numpy;
      if (numpy === null) throw new UnsupportedError(`${dt.name} has no numpy type string: it exists only in Zarr v3`);
      return byteOrder(dt) + numpy;
    }
    case "datetime": {
      const letter = dt.name === "numpy.datetime64" ? "M8" : "m8";
      const unit = dt.unit === "generic" ? "" : `[${dt.scaleFactor === 1 ? "" : dt.scaleFactor}${dt.unit}]`;
      return byteOrder(dt) + letter + unit;
    }
    case "fixed_bytes":
      return `|S${dt.itemSize}`;
    case "raw_bits":
      return `|V${dt.itemSize}`;
    case "utf32":
      return `${byteOrder(dt)}U${dt.length}`;
    case "string":
    case "bytes":
      return "|O";
    case "narrow_float":
      throw new UnsupportedError(`${dt.name} has no numpy type string: it exists only in Zarr v3`);
    case "structured":
      throw new UnsupportedError("a structured type has no single numpy type string; use v2DtypeJson");
  }
}

/** The `dtype` of a v2 `.zarray`: a type string, or a field list for records. */
export function v2DtypeJson(dt: DataType): Serialisable {
  if (dt.kind !== "structured") return toNumpyTypestr(dt);
  return dt.fields.map((f) => {
    const t = f.dtype.kind === "structured" ? v2DtypeJson(f.dtype) : toNumpyTypestr(f.dtype);
    return f.shape.length > 0 ? [f.name, t, f.shape] : [f.name, t];
  });
}

/** The `data_type` of a v3 `zarr.json`. */
export function v3DataTypeJson(dt: DataType): Serialisable {
  switch (dt.kind) {
    case "datetime":
      return { name: dt.name, configuration: { unit: dt.unit, scale_factor: dt.scaleFactor } };
    case "utf32":
      return { name: "fixed_length_utf32", configuration: { length_bytes: dt.itemSize } };
    case "fixed_bytes":
      return { name: "null_terminated_bytes", configuration: { length_bytes: dt.itemSize } };
    case "structured":
      return structJson(dt);
    default:
      return dt.name;
  }
}

/** Allocates the memory that holds `count` elements of this type. */
export function allocElements(dt: DataType, count: number, shared = false): ElementArray {
  if (dt.kind === "string") return new Array<string>(count).fill("");
  if (dt.kind === "bytes") return new Array<Uint8Array>(count).fill(EMPTY_BYTES);
  return allocTypedArray(dt, count, shared);
}

const EMPTY_BYTES = new Uint8Array(0);

/** Allocates the typed array that holds `count` elements of a fixed-size type. */
export function allocTypedArray(dt: DataType, count: number, shared = false): TypedArray {
  const len = count * componentsPerElement(dt);
  const bytes = len * memoryBytesPerComponent(dt);
  const buf = shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
  return typedArrayOver(dt, buf, 0, len);
}

/** Bytes per component in memory (float16 without Float16Array and bfloat16 live in a Float32Array). */
export function memoryBytesPerComponent(dt: DataType): number {
  switch (dt.kind) {
    case "numeric":
      if (dt.name === "float16") return hasFloat16Array ? 2 : 4;
      return TYPES[dt.name].size / componentsPerElement(dt);
    case "narrow_float":
      return 4;
    case "datetime":
      return 8;
    case "utf32":
      return 4;
    case "fixed_bytes":
    case "raw_bits":
    case "structured":
      return 1;
    case "string":
    case "bytes":
      throw new UnsupportedError(`${dt.name} elements are JS values, not typed-array components`);
  }
}

export function typedArrayOver(dt: DataType, buffer: ArrayBufferLike, byteOffset: number, length: number): TypedArray {
  switch (dt.kind) {
    case "narrow_float":
      return new Float32Array(buffer, byteOffset, length);
    case "datetime":
      return new BigInt64Array(buffer, byteOffset, length);
    case "utf32":
      return new Uint32Array(buffer, byteOffset, length);
    case "fixed_bytes":
    case "raw_bits":
    case "structured":
      return new Uint8Array(buffer, byteOffset, length);
    case "string":
    case "bytes":
      throw new UnsupportedError(`${dt.name} elements are JS values, not typed-array components`);
  }
  switch (dt.name) {
    case "bool":
    case "uint8":
    case "uint2":
    case "uint4":
      return new Uint8Array(buffer, byteOffset, length);
    case "int8":
    case "int2":
    case "int4":
      return new Int8Array(buffer, byteOffset, length);
    case "int16":
      return new Int16Array(buffer, byteOffset, length);
    case "uint16":
      return new Uint16Array(buffer, byteOffset, length);
    case "int32":
      return new Int32Array(buffer, byteOffset, length);
    case "uint32":
      return new Uint32Array(buffer, byteOffset, length);
    case "int64":
      return new BigInt64Array(buffer, byteOffset, length);
    case "uint64":
      return new BigUint64Array(buffer, byteOffset, length);
    case "float16":
      if (hasFloat16Array) {
        const F16 = (globalThis as unknown as { Float16Array: new (b: ArrayBufferLike, o: number, l: number) => TypedArray })
          .Float16Array;
        return new F16(buffer, byteOffset, length);
      }
      return new Float32Array(buffer, byteOffset, length);
    case "float32":
    case "complex64":
    case "complex_float32":
      return new Float32Array(buffer, byteOffset, length);
    case "float64":
    case "complex128":
    case "complex_float64":
      return new Float64Array(buffer, byteOffset, length);
  }
}

// ---------------------------------------------------------------------------------------------
// Fill values

function parseFloatJson(v: unknown, dt: DataType, where: string, bits: 16 | 32 | 64): number {
  if (typeof v === "number") return v;
  if (v === "NaN") return NaN;
  if (v === "Infinity") return Infinity;
  if (v === "-Infinity") return -Infinity;
  if (typeof v === "string" && /^0x[0-9a-fA-F]+$/.test(v)) {
    // v3 spells exact bit patterns (a NaN payload, say) as the big-endian hex of the float.
    const hex = v.slice(2);
    if (hex.length !== bits / 4) {
      throw new InvalidMetadataError(`${where}: hex fill value ${v} has the wrong length for ${dt.name}`);
    }
    const n = BigInt(v);
    if (bits === 16) return float16BitsToNumber(Number(n));
    const view = new DataView(new ArrayBuffer(8));
    if (bits === 32) {
      view.setUint32(0, Number(n));
      return view.getFloat32(0);
    }
    view.setBigUint64(0, n);
    return view.getFloat64(0);
  }
  throw new InvalidMetadataError(`${where}: invalid fill value ${JSON.stringify(v)} for ${dt.name}`);
}

function componentBits(dt: NumericDataType): 16 | 32 | 64 {
  if (dt.name === "float16") return 16;
  if (dt.name === "float32" || dt.name === "complex64" || dt.name === "complex_float32") return 32;
  return 64;
}

/**
 * One component of a narrow float's fill value: a number, a constant the format can hold, or
 * the hex of its stored code ("0x7c": one byte for the 8-bit-or-smaller floats, two otherwise).
 */
function parseNarrowComponent(v: unknown, dt: NarrowFloatDataType, where: string): number {
  const codec = componentCodec(dt.component);
  if (typeof v === "string" && /^0x[0-9a-fA-F]+$/.test(v)) {
    const code = Number.parseInt(v.slice(2), 16);
    if (v.length - 2 !== 2 * codec.bytes || code >= 2 ** codec.bits) {
      throw new InvalidMetadataError(`${where}: hex fill value ${v} is not a ${codec.bits}-bit code of ${dt.name}`);
    }
    return codec.table[code];
  }
  const x = parseFloatJson(v, dt, where, 64);
  const special = codec.format?.special ?? "ieee";
  // The specifications refuse the constants a format cannot represent.
  if (Number.isNaN(x) && special === "finite") throw new InvalidMetadataError(`${where}: ${dt.name} has no NaN`);
  if (Math.abs(x) === Infinity && special !== "ieee") throw new InvalidMetadataError(`${where}: ${dt.name} has no infinity`);
  return x;
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

/** int64 min: numpy's NaT ("Not a Time"). */
export const NAT = -(2n ** 63n);

function parseInteger(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
  if (typeof v === "boolean") return v ? 1n : 0n;
  if (typeof v === "string" && /^-?\d+$/.test(v)) return BigInt(v);
  if (typeof v === "string" && /^0x[0-9a-fA-F]+$/.test(v)) return BigInt(v);
  return undefined;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

// atob/btoa rather than Buffer: metadata parsing also runs in browsers and web workers.
export function base64ToBytes(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function bytesToBase64(b: Uint8Array): string {
  let bin = "";
  for (let i = 0; i < b.length; i += 0x8000) bin += String.fromCharCode(...b.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** Bytes with trailing NULs removed, as numpy shows `|S` values. */
export function stripNuls(b: Uint8Array): Uint8Array {
  let n = b.length;
  while (n > 0 && b[n - 1] === 0) n--;
  return b.subarray(0, n);
}

/** A JSON byte-string fill value: base64, or (as zarr-python 2 leniently accepts) any other value's text. */
function jsonBytesValue(v: unknown, where: string, dt: DataType): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === "string") return BASE64.test(v) ? base64ToBytes(v) : new TextEncoder().encode(v);
  if (Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isInteger(x) && x >= 0 && x < 256)) {
    return Uint8Array.from(v as number[]);
  }
  if (typeof v === "number" || typeof v === "boolean") return new TextEncoder().encode(String(v));
  throw new InvalidMetadataError(`${where}: invalid fill value ${JSON.stringify(v)} for ${dt.name}`);
}

function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Turns a fill value (a JS value or any JSON form of either version) into the JS scalar of this
 * type. `null` (v2 only) means "no fill value"; such arrays read missing chunks as zeros.
 */
export function parseFillValue(v: unknown, dt: DataType, where = "fill_value"): Scalar {
  if (v === null || v === undefined) return zeroOf(dt);
  switch (dt.kind) {
    case "narrow_float": {
      const one = (x: unknown) => parseNarrowComponent(typeof x === "bigint" ? Number(x) : x, dt, where);
      if (dt.components === 1) return one(v);
      if (Array.isArray(v) && v.length === 2) return [one(v[0]), one(v[1])];
      if (typeof v === "number") return [v, 0];
      break;
    }
    case "datetime": {
      if (v === "NaT") return NAT;
      const n = parseInteger(v);
      if (n === undefined || n < NAT || n >= 2n ** 63n) break;
      return n;
    }
    case "fixed_bytes":
    case "raw_bits":
    case "structured": {
      if (dt.kind === "structured" && isJsonObject(v) && !ArrayBuffer.isView(v)) return structFillFromJson(v, dt, where);
      const b = jsonBytesValue(v === 0 && dt.kind !== "fixed_bytes" ? [] : v, where, dt);
      if (b.length > dt.itemSize || (dt.kind !== "fixed_bytes" && b.length !== 0 && b.length !== dt.itemSize)) {
        throw new InvalidMetadataError(`${where}: fill value has ${b.length} bytes, ${dt.name} holds ${dt.itemSize}`);
      }
      return dt.kind === "fixed_bytes" ? stripNuls(b) : padBytes(b, dt.itemSize);
    }
    case "utf32": {
      // zarr-python 2 keeps a non-string fill value as numpy turns it into text (0 -> "0").
      const s = typeof v === "string" ? v : String(v);
      if (codePointLength(s) > dt.length) throw new InvalidMetadataError(`${where}: fill value ${JSON.stringify(s)} is longer than ${dt.length} characters`);
      return s;
    }
    case "string":
      // zarr-python 2 writes 0 for object arrays; it has no meaning for strings, so it reads as "".
      return typeof v === "string" ? v : "";
    case "bytes":
      if (v === 0) return EMPTY_BYTES;
      return jsonBytesValue(v, where, dt);
    case "numeric":
      return parseNumericFill(v, dt, where);
  }
  throw new InvalidMetadataError(`${where}: invalid fill value ${JSON.stringify(v)} for ${dt.name}`);
}

function padBytes(b: Uint8Array, size: number): Uint8Array {
  if (b.length === size) return b;
  const out = new Uint8Array(size);
  out.set(b);
  return out;
}

function parseNumericFill(v: unknown, dt: NumericDataType, where: string): Scalar {
  const family = TYPES[dt.name].family;
  switch (family) {
    case "bool":
      if (typeof v === "boolean") return v;
      if (v === 0 || v === 1) return v === 1;
      break;
    case "int":
    case "uint": {
      const n = parseInteger(v);
      if (n === undefined) break;
      const [lo, hi] = INT_RANGES[dt.name]!;
      if (n < lo || n > hi) {
        throw new InvalidMetadataError(`${where}: fill value ${n} is out of range for ${dt.name}`);
      }
      return dt.itemSize === 8 ? n : Number(n);
    }
    case "float":
      return parseFloatJson(typeof v === "bigint" ? Number(v) : v, dt, where, componentBits(dt));
    case "complex": {
      if (Array.isArray(v) && v.length === 2) {
        const bits = componentBits(dt);
        return [parseFloatJson(v[0], dt, where, bits), parseFloatJson(v[1], dt, where, bits)];
      }
      if (typeof v === "number") return [v, 0];
      break;
    }
  }
  throw new InvalidMetadataError(`${where}: invalid fill value ${JSON.stringify(v)} for ${dt.name}`);
}

export function zeroOf(dt: DataType): Scalar {
  switch (dt.kind) {
    case "narrow_float":
      return dt.components === 2 ? [0, 0] : 0;
    case "datetime":
      return 0n;
    case "fixed_bytes":
    case "bytes":
      return EMPTY_BYTES;
    case "raw_bits":
    case "structured":
      return new Uint8Array(dt.itemSize);
    case "utf32":
    case "string":
      return "";
    case "numeric":
      switch (TYPES[dt.name].family) {
        case "bool":
          return false;
        case "complex":
          return [0, 0];
        case "float":
          return 0;
        default:
          return dt.itemSize === 8 ? 0n : 0;
      }
  }
}

function floatJson(x: number, asV3: boolean): Serialisable {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  return asV3 ? x : new PyFloat(x);
}

function bigintJson(v: bigint): Serialisable {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : new BigJsonInt(v);
}

/** The JSON form of a fill value, as zarr-python writes it for that version. */
export function fillValueToJson(v: Scalar | null, dt: DataType, zarrFormat: 2 | 3): Serialisable {
  if (v === null) return null;
  switch (dt.kind) {
    case "narrow_float":
      if (dt.components === 2) return (v as [number, number]).map((x) => floatJson(x, zarrFormat === 3));
      return floatJson(v as number, false);
    case "datetime":
      return bigintJson(v as bigint);
    case "structured":
      // v3 (the zarr-extensions `struct` type): an object of field values; v2: base64 bytes.
      return zarrFormat === 3 ? structFillToJson(v as Uint8Array, dt) : bytesToBase64(v as Uint8Array);
    case "fixed_bytes":
      return bytesToBase64(v as Uint8Array);
    case "raw_bits":
      // v3 spells raw bits as a list of byte values; v2 (`|V`) as base64.
      return zarrFormat === 3 ? Array.from(v as Uint8Array) : bytesToBase64(v as Uint8Array);
    case "bytes":
      return bytesToBase64(v as Uint8Array);
    case "utf32":
    case "string":
      return v as string;
    case "numeric":
      break;
  }
  const family = TYPES[dt.name].family;
  if (family === "complex") {
    const [re, im] = v as [number, number];
    return [floatJson(re, zarrFormat === 3), floatJson(im, zarrFormat === 3)];
  }
  if (family === "float") {
    // zarr-python 3 writes 0.0 too; both versions print floats the Python way.
    return floatJson(v as number, false);
  }
  if (family === "bool") return Boolean(v);
  if (typeof v === "bigint") return bigintJson(v);
  return v as number;
}

/**
 * The components memory stores for a scalar: one number for plain numbers (bool as 0/1, int64
 * as bigint), [re, im] for complex, the padded bytes or code points of fixed strings, the string
 * or Uint8Array itself for variable-length types.
 */
export function scalarToComponents(v: Scalar, dt: DataType): Component[] {
  switch (dt.kind) {
    case "string":
      if (typeof v !== "string") throw new InvalidMetadataError(`a ${typeof v} cannot be stored in a string array`);
      return [v];
    case "bytes":
      if (!(v instanceof Uint8Array)) throw new InvalidMetadataError(`a ${typeof v} cannot be stored in a bytes array (use Uint8Array)`);
      return [v];
    case "fixed_bytes":
    case "raw_bits":
    case "structured": {
      if (!(v instanceof Uint8Array)) throw new InvalidMetadataError(`a ${typeof v} cannot be stored in ${dt.name} (use Uint8Array)`);
      if (v.length > dt.itemSize) throw new InvalidMetadataError(`a value of ${v.length} bytes does not fit ${dt.name} of ${dt.itemSize} bytes`);
      return Array.from(padBytes(v, dt.itemSize));
    }
    case "utf32": {
      if (typeof v !== "string") throw new InvalidMetadataError(`a ${typeof v} cannot be stored in a ${dt.name} array`);
      const out = new Array<number>(dt.length).fill(0);
      let i = 0;
      for (const ch of v) {
        if (i === dt.length) throw new InvalidMetadataError(`${JSON.stringify(v)} is longer than ${dt.length} characters`);
        out[i++] = ch.codePointAt(0)!;
      }
      return out;
    }
    case "datetime":
      if (typeof v === "bigint") return [v];
      if (typeof v === "number" && Number.isInteger(v)) return [BigInt(v)];
      throw new InvalidMetadataError(`a datetime is stored as an integer count (bigint), got ${String(v)}`);
    case "narrow_float": {
      // Memory holds the values the type can represent: round once, here.
      if (typeof v === "string" || v instanceof Uint8Array) throw new InvalidMetadataError(`a ${typeof v} cannot be stored in ${dt.name}`);
      const parts = Array.isArray(v) ? v : [Number(v), 0];
      if (dt.components === 1 && Array.isArray(v)) throw new InvalidMetadataError(`a complex value cannot be stored in ${dt.name}`);
      return parts.slice(0, dt.components).map((x) => roundToComponent(dt.component, x));
    }
    case "numeric":
      break;
  }
  const family = TYPES[dt.name].family;
  if (typeof v === "string" || v instanceof Uint8Array) throw new InvalidMetadataError(`a ${typeof v} cannot be stored in ${dt.name}`);
  if (family === "complex") return Array.isArray(v) ? [...v] : [Number(v), 0];
  if (Array.isArray(v)) throw new InvalidMetadataError(`a complex value cannot be stored in ${dt.name}`);
  if (family === "bool") return [v ? 1 : 0];
  if (dt.itemSize === 8 && family !== "float") return [typeof v === "bigint" ? v : BigInt(Math.trunc(Number(v)))];
  if (dt.name === "float16" && !hasFloat16Array) return [float16BitsToNumber(numberToFloat16Bits(Number(v)))];
  return [typeof v === "boolean" ? (v ? 1 : 0) : Number(v)];
}

/** Decodes code points (NUL padding dropped, as numpy does) into a string. */
export function codePointsToString(data: ArrayLike<number>, start: number, length: number): string {
  let end = start + length;
  while (end > start && data[end - 1] === 0) end--;
  let s = "";
  for (let i = start; i < end; i++) s += String.fromCodePoint(data[i]);
  return s;
}

/** Reads element `i` of memory as the JS scalar of the data type. */
export function storedToScalar(data: ElementArray, i: number, dt: DataType): Scalar {
  switch (dt.kind) {
    case "string":
    case "bytes":
      return (data as string[] | Uint8Array[])[i];
    case "fixed_bytes":
      return stripNuls((data as Uint8Array).slice(i * dt.itemSize, (i + 1) * dt.itemSize));
    case "raw_bits":
    case "structured":
      return (data as Uint8Array).slice(i * dt.itemSize, (i + 1) * dt.itemSize);
    case "utf32":
      return codePointsToString(data as Uint32Array, i * dt.length, dt.length);
    case "narrow_float": {
      const t = data as Float32Array;
      return dt.components === 2 ? [t[2 * i], t[2 * i + 1]] : t[i];
    }
    case "datetime":
      return (data as BigInt64Array)[i];
    case "numeric":
      break;
  }
  const family = TYPES[dt.name].family;
  const t = data as TypedArray;
  if (family === "complex") return [t[2 * i] as number, t[2 * i + 1] as number];
  if (family === "bool") return t[i] !== 0;
  return t[i] as number | bigint;
}

/** JSON-compatible value of a fill value for messages and manifests. */
export function describeScalar(v: Scalar): JsonValue {
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Uint8Array) return bytesToBase64(v);
  if (Array.isArray(v)) return v.map((x) => (Number.isFinite(x) ? x : String(x)));
  if (typeof v === "number" && !Number.isFinite(v)) return String(v);
  return v;
}

// ---------------------------------------------------------------------------------------------
// The v3 `struct` data type (zarr-extensions data-types/struct): named fields of fixed-size v3
// types packed without padding, in declaration order. Records are their raw bytes in memory, so
// a v3 struct's fields are little-endian (the `bytes` codec must say "little" for multi-byte
// fields); numpy sub-array fields have no v3 form.

function parseStruct(conf: Record<string, unknown>, where: string): StructuredDataType {
  const fields = conf.fields;
  if (!Array.isArray(fields) || fields.length === 0) throw new InvalidMetadataError(`${where}: struct needs a non-empty "fields" list`);
  const names = new Set<string>();
  // Objects `{ name, data_type }`, or the legacy "structured" tuples `[name, data_type]`.
  const tuples = fields.map((f, i) => {
    const [name, type] = Array.isArray(f) ? f : isJsonObject(f) ? [f.name, f.data_type] : [undefined, undefined];
    if (typeof name !== "string" || name === "" || type === undefined) {
      throw new InvalidMetadataError(`${where}: struct field ${i} must be { "name", "data_type" }, got ${JSON.stringify(f)}`);
    }
    if (names.has(name)) throw new InvalidMetadataError(`${where}: struct field name "${name}" is repeated`);
    names.add(name);
    const dt = parseDataType(type, `${where}: field "${name}"`);
    if (isObjectType(dt)) throw new InvalidMetadataError(`${where}: field "${name}" has a variable-length type`);
    return [name, dt] as const;
  });
  let offset = 0;
  const out: StructuredField[] = tuples.map(([name, dt]) => {
    const field = { name, dtype: dt as FixedDataType, shape: [], offset };
    offset += dt.itemSize;
    return field;
  });
  return { kind: "structured", name: "structured", fields: out, itemSize: offset, endian: null };
}

/** Whether a record type can be a v3 struct: no sub-arrays, no big-endian fields. */
function structProblem(dt: StructuredDataType): string | null {
  for (const f of dt.fields) {
    if (f.shape.length > 0) return `field "${f.name}" is a sub-array of shape [${f.shape}]`;
    if (f.dtype.kind === "structured") {
      const inner = structProblem(f.dtype);
      if (inner) return `field "${f.name}": ${inner}`;
    } else if (f.dtype.endian === "big" && f.dtype.itemSize > 1) return `field "${f.name}" is big-endian`;
  }
  return null;
}

function structJson(dt: StructuredDataType): Serialisable {
  const problem = structProblem(dt);
  if (problem) throw new UnsupportedError(`this record type has no Zarr v3 struct form: ${problem}`);
  return { name: "struct", configuration: { fields: dt.fields.map((f) => ({ name: f.name, data_type: v3DataTypeJson(f.dtype) })) } };
}

/** A field's value inside a record's bytes, through an aligned copy of its bytes. */
function fieldScalar(record: Uint8Array, f: StructuredField): Scalar {
  const copy = new Uint8Array(f.dtype.itemSize);
  copy.set(record.subarray(f.offset, f.offset + f.dtype.itemSize));
  return storedToScalar(typedArrayOver(f.dtype, copy.buffer, 0, componentsPerElement(f.dtype)), 0, f.dtype);
}

function structFillToJson(record: Uint8Array, dt: StructuredDataType): Serialisable {
  const out: { [key: string]: Serialisable } = {};
  for (const f of dt.fields) out[f.name] = fillValueToJson(fieldScalar(record, f), f.dtype, 3);
  return out;
}

function structFillFromJson(v: Record<string, unknown>, dt: StructuredDataType, where: string): Uint8Array {
  const record = new Uint8Array(dt.itemSize);
  for (const f of dt.fields) {
    if (!(f.name in v)) throw new InvalidMetadataError(`${where}: the struct fill value has no field "${f.name}"`);
    if (f.shape.length > 0) throw new InvalidMetadataError(`${where}: field "${f.name}" is a sub-array; give the fill value as base64 bytes`);
    const scalar = parseFillValue(v[f.name], f.dtype, `${where}.${f.name}`);
    const one = allocTypedArray(f.dtype, 1);
    const comps = scalarToComponents(scalar, f.dtype);
    comps.forEach((c, k) => ((one as unknown as Component[])[k] = c));
    record.set(new Uint8Array(one.buffer, one.byteOffset, f.dtype.itemSize), f.offset);
  }
  return record;
}
