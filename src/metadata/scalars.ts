/** An element's value as JS sees it (a `Scalar`) and the components memory holds for it. */
import { InvalidMetadataError } from "../errors.js";
import type { JsonValue } from "./json.js";
import { float16BitsToNumber, numberToFloat16Bits } from "./float16.js";
import { rareTypes } from "./dtype-names.js";
import { NUMERIC_TYPES, type Component, type DataType, type ElementArray, type Scalar, type TypedArray } from "./dtype.js";
import { hasFloat16Array } from "./elements.js";
import { bytesToBase64 } from "./base64.js";

/** Bytes with trailing NULs removed, as numpy shows `|S` values. */
export function stripNuls(b: Uint8Array): Uint8Array {
  let n = b.length;
  while (n > 0 && b[n - 1] === 0) n--;
  return b.subarray(0, n);
}

export function padBytes(b: Uint8Array, size: number): Uint8Array {
  if (b.length === size) return b;
  const out = new Uint8Array(size);
  out.set(b);
  return out;
}

/**
 * The components memory stores for a scalar: one number for plain numbers (bool as 0/1, int64
 * as bigint), [re, im] for complex, the padded bytes or code points of fixed strings, the string
 * or Uint8Array itself for variable-length types.
 */
export function scalarToComponents(v: Scalar, dt: DataType): Component[] {
  // null is a JSON value as well (json2 arrays hold it); every other type but optional refuses it.
  if (v === null && dt.kind !== "optional" && dt.kind !== "json") throw new InvalidMetadataError(`null (a missing value) can only be stored in an optional array, not ${dt.name}`);
  switch (dt.kind) {
    case "string":
      if (typeof v !== "string") throw new InvalidMetadataError(`a ${typeof v} cannot be stored in a string array`);
      return [v];
    case "bytes":
    case "vlen_array": // memory's form: the stored bytes (metadata/vlen-array.ts converts users' numbers)
      if (!(v instanceof Uint8Array)) throw new InvalidMetadataError(`a ${typeof v} cannot be stored in a bytes array (use Uint8Array)`);
      return [v];
    case "json":
      // The JSON value itself (checked where it is written).
      return [v as Component];
    case "numeric":
      break;
    default:
      return rareTypes().rareComponents(v, dt);
  }
  const family = NUMERIC_TYPES[dt.name].family;
  if (typeof v === "string" || v instanceof Uint8Array) throw new InvalidMetadataError(`a ${typeof v} cannot be stored in ${dt.name}`);
  if (family === "complex") {
    if (Array.isArray(v) && v.length !== 2) throw new InvalidMetadataError(`a complex value is [re, im], got ${v.length} parts`);
    return Array.isArray(v) ? [...(v as [number, number])] : [Number(v), 0];
  }
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
    case "json":
      return (data as Scalar[])[i];
    case "vlen_array":
      return (data as string[] | Uint8Array[])[i];
    case "numeric":
      break;
    default:
      return rareTypes().rareStoredScalar(data, i, dt);
  }
  const family = NUMERIC_TYPES[dt.name].family;
  const t = data as TypedArray;
  if (family === "complex") return [t[2 * i] as number, t[2 * i + 1] as number];
  if (family === "bool") return t[i] !== 0;
  return t[i] as number | bigint;
}

/** JSON-compatible value of a fill value for messages and manifests. */
export function describeScalar(v: Scalar): JsonValue {
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Uint8Array) return bytesToBase64(v);
  if (Array.isArray(v)) return v.map((x: Scalar) => describeScalar(x));
  if (typeof v === "number" && !Number.isFinite(v)) return String(v);
  return v;
}
