/**
 * Data types: v3 names and numpy type strings parsed into one model, the typed array that holds
 * each in memory, and the JSON forms of fill values in both Zarr versions.
 */
import { UnsupportedError, InvalidMetadataError } from "../errors.js";
import { BigJsonInt, PyFloat, type JsonValue, type Serialisable } from "./json.js";
import { float16BitsToNumber, numberToFloat16Bits } from "./float16.js";

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
  | "complex128";

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

/** The data types of this release; the formats issue adds strings, datetimes and records. */
export type DataType = NumericDataType;

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

/** One element's value as JS sees it: complex values are [re, im]. */
export type Scalar = number | bigint | boolean | [number, number];

interface TypeInfo {
  size: number;
  numpy: string; // numpy kind letter and size, without byte order
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
};

const NUMPY_TO_NAME = new Map<string, NumericTypeName>(
  Object.entries(TYPES).map(([name, info]) => [info.numpy, name as NumericTypeName]),
);

export function typeFamily(dt: DataType): TypeInfo["family"] {
  return TYPES[dt.name].family;
}

/** Numbers per element in memory: complex values take two (re, im). */
export function componentsPerElement(dt: DataType): 1 | 2 {
  return TYPES[dt.name].family === "complex" ? 2 : 1;
}

/** True when the runtime has Float16Array, so float16 arrays hold half floats natively. */
export const hasFloat16Array = typeof (globalThis as { Float16Array?: unknown }).Float16Array === "function";

function numericType(name: NumericTypeName, endian: Endian | null): NumericDataType {
  const size = TYPES[name].size;
  return { kind: "numeric", name, itemSize: size, endian: size === 1 ? null : endian };
}

/**
 * Parses a dtype option or metadata value: a v3 name (`"int32"`) or a numpy type string
 * (`"<i4"`, `">f8"`, `"|b1"`, `"i4"`). Types that later releases add are refused by name.
 */
export function parseDataType(input: unknown, where = "dtype"): DataType {
  if (typeof input !== "string") {
    if (Array.isArray(input)) {
      throw new UnsupportedError(`${where}: structured data type ${JSON.stringify(input)} is not supported yet`);
    }
    if (typeof input === "object" && input !== null && "name" in input) {
      throw new UnsupportedError(`${where}: data type ${JSON.stringify(input)} is not supported yet`);
    }
    throw new InvalidMetadataError(`${where}: expected a data type name, got ${JSON.stringify(input)}`);
  }
  if (input in TYPES) return numericType(input as NumericTypeName, "little");
  const m = /^([<>|=]?)([a-zA-Z])(\d*)(\[.*\])?$/.exec(input);
  if (m) {
    const [, order, kind, size] = m;
    const name = NUMPY_TO_NAME.get(`${kind}${size}`);
    if (name) {
      const endian: Endian = order === ">" ? "big" : "little";
      return numericType(name, endian);
    }
    if ("MmSUOVa".includes(kind)) {
      throw new UnsupportedError(`${where}: data type "${input}" is not supported yet`);
    }
  }
  if (/^(string|bytes|variable_length_bytes|fixed_length_utf32|bfloat16|datetime64|timedelta64|numpy\.|r\d+)/.test(input)) {
    throw new UnsupportedError(`${where}: data type "${input}" is not supported yet`);
  }
  throw new InvalidMetadataError(`${where}: unknown data type ${JSON.stringify(input)}`);
}

/** The numpy type string for v2 metadata (`<f8`, `|b1`). */
export function toNumpyTypestr(dt: DataType): string {
  const order = dt.endian === null ? "|" : dt.endian === "big" ? ">" : "<";
  return order + TYPES[dt.name].numpy;
}

/** Allocates the typed array that holds `count` elements of this type. */
export function allocTypedArray(dt: DataType, count: number, shared = false): TypedArray {
  const len = count * componentsPerElement(dt);
  const bytes = len * memoryBytesPerComponent(dt);
  const buf = shared ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
  return typedArrayOver(dt, buf, 0, len);
}

/** Bytes per number in memory (float16 without Float16Array lives in a Float32Array). */
export function memoryBytesPerComponent(dt: DataType): number {
  if (dt.name === "float16") return hasFloat16Array ? 2 : 4;
  return TYPES[dt.name].size / componentsPerElement(dt);
}

export function typedArrayOver(dt: DataType, buffer: ArrayBufferLike, byteOffset: number, length: number): TypedArray {
  switch (dt.name) {
    case "bool":
    case "uint8":
      return new Uint8Array(buffer, byteOffset, length);
    case "int8":
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
      return new Float32Array(buffer, byteOffset, length);
    case "float64":
    case "complex128":
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

function componentBits(dt: DataType): 16 | 32 | 64 {
  if (dt.name === "float16") return 16;
  if (dt.name === "float32" || dt.name === "complex64") return 32;
  return 64;
}

const INT_RANGES: Partial<Record<NumericTypeName, [bigint, bigint]>> = {
  int8: [-128n, 127n],
  int16: [-32768n, 32767n],
  int32: [-2147483648n, 2147483647n],
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint8: [0n, 255n],
  uint16: [0n, 65535n],
  uint32: [0n, 4294967295n],
  uint64: [0n, 2n ** 64n - 1n],
};

/**
 * Turns a fill value (a JS value or any JSON form of either version) into the JS scalar of this
 * type. `null` (v2 only) means "no fill value"; such arrays read missing chunks as zeros.
 */
export function parseFillValue(v: unknown, dt: DataType, where = "fill_value"): Scalar {
  const family = typeFamily(dt);
  if (v === null || v === undefined) return zeroOf(dt);
  switch (family) {
    case "bool":
      if (typeof v === "boolean") return v;
      if (v === 0 || v === 1) return v === 1;
      break;
    case "int":
    case "uint": {
      let n: bigint | undefined;
      if (typeof v === "bigint") n = v;
      else if (typeof v === "number" && Number.isInteger(v)) n = BigInt(v);
      else if (typeof v === "boolean") n = v ? 1n : 0n;
      else if (typeof v === "string" && /^-?\d+$/.test(v)) n = BigInt(v);
      else if (typeof v === "string" && /^0x[0-9a-fA-F]+$/.test(v)) n = BigInt(v);
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
  switch (typeFamily(dt)) {
    case "bool":
      return false;
    case "complex":
      return [0, 0];
    default:
      return dt.itemSize === 8 && typeFamily(dt) !== "float" ? 0n : 0;
  }
}

function floatJson(x: number, asV3: boolean): Serialisable {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  return asV3 ? x : new PyFloat(x);
}

/** The JSON form of a fill value, as zarr-python writes it for that version. */
export function fillValueToJson(v: Scalar | null, dt: DataType, zarrFormat: 2 | 3): Serialisable {
  if (v === null) return null;
  const family = typeFamily(dt);
  if (family === "complex") {
    const [re, im] = v as [number, number];
    return [floatJson(re, zarrFormat === 3), floatJson(im, zarrFormat === 3)];
  }
  if (family === "float") {
    const x = v as number;
    // zarr-python 3 writes 0.0 too; both versions print floats the Python way.
    return floatJson(x, false);
  }
  if (family === "bool") return Boolean(v);
  if (typeof v === "bigint") {
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : new BigJsonInt(v);
  }
  return v as number;
}

/** The value a typed array of this type stores for a scalar (bool as 0/1, int64 as bigint). */
export function scalarToStored(v: Scalar, dt: DataType): number | bigint | [number, number] {
  const family = typeFamily(dt);
  if (family === "complex") {
    if (Array.isArray(v)) return v;
    return [Number(v), 0];
  }
  if (Array.isArray(v)) throw new InvalidMetadataError(`a complex value cannot be stored in ${dt.name}`);
  if (family === "bool") return v ? 1 : 0;
  if (dt.itemSize === 8 && family !== "float") return typeof v === "bigint" ? v : BigInt(Math.trunc(Number(v)));
  if (dt.name === "float16" && !hasFloat16Array) return float16BitsToNumber(numberToFloat16Bits(Number(v)));
  return typeof v === "boolean" ? (v ? 1 : 0) : Number(v);
}

/** Reads element `i` of a typed array as the JS scalar of the data type. */
export function storedToScalar(data: TypedArray, i: number, dt: DataType): Scalar {
  const family = typeFamily(dt);
  if (family === "complex") return [data[2 * i] as number, data[2 * i + 1] as number];
  if (family === "bool") return data[i] !== 0;
  return data[i] as number | bigint;
}

/** JSON-compatible value of a fill value for messages and manifests. */
export function describeScalar(v: Scalar): JsonValue {
  if (typeof v === "bigint") return v.toString();
  if (Array.isArray(v)) return v.map((x) => (Number.isFinite(x) ? x : String(x)));
  if (typeof v === "number" && !Number.isFinite(v)) return String(v);
  return v;
}
