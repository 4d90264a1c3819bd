/** An element's value as JS sees it (a `Scalar`) and the components memory holds for it. */
import { InvalidMetadataError } from "../errors.js";
import type { JsonValue } from "./json.js";
import { float16BitsToNumber, numberToFloat16Bits } from "./float16.js";
import { rareTypes } from "./dtype-names.js";
import { NUMERIC_TYPES, componentsPerElement, isObjectType, unwrapPresent, wrapPresent, type Component, type DataType, type ElementArray, type Scalar, type TypedArray } from "./dtype.js";
import { allocTypedArray, hasFloat16Array } from "./elements.js";
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
    case "optional": {
      // Over a variable-length type memory holds the value itself, checked against the inner type.
      const values = isObjectType(dt);
      // A missing element is all zeros, its mask included (as zarrs leaves it).
      const missing = values ? [null as unknown as Component] : Array.from(allocTypedArray(dt, 1) as ArrayLike<Component>);
      if (v === null) return missing;
      const inner = unwrapPresent(v, dt);
      if (inner === undefined) throw new InvalidMetadataError(`a present value of a nested optional is written [value] (null, [null], [5]), got ${String(v)}`);
      const comps = scalarToComponents(inner, dt.inner);
      if (values) return [v as Component];
      comps.push(typeof missing[0] === "bigint" ? 1n : 1);
      return comps;
    }
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
      const parts = Array.isArray(v) ? (v as [number, number]) : [Number(v), 0];
      if (dt.components === 1 && Array.isArray(v)) throw new InvalidMetadataError(`a complex value cannot be stored in ${dt.name}`);
      return parts.slice(0, dt.components).map((x) => rareTypes().roundToComponent(dt.component, x));
    }
    case "numeric":
      break;
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
    case "optional": {
      if (isObjectType(dt)) return (data as Scalar[])[i];
      const c = componentsPerElement(dt);
      const t = data as TypedArray;
      if (!t[i * c + c - 1]) return null;
      const v = storedToScalar(t.subarray(i * c, i * c + c - 1), 0, dt.inner);
      return wrapPresent(v, dt);
    }
    case "string":
    case "bytes":
    case "json":
      return (data as Scalar[])[i];
    case "vlen_array":
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
