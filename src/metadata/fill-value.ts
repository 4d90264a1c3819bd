/**
 * Fill values: every JSON form of either Zarr version into a `Scalar` (written back by
 * fill-value-json.ts, which a page that only reads never loads); the rare types' forms in
 * rare-types.ts (dtype-names.ts says why).
 */
import { InvalidMetadataError } from "../errors.js";
import { float16BitsToNumber } from "./float16.js";
import { NUMERIC_TYPES, integerRange, type DataType } from "./dtype.js";
import type { NumericDataType, Scalar } from "./dtype.js";
import { EMPTY_BYTES } from "./elements.js";
import { BASE64, base64ToBytes } from "./base64.js";
import { rareTypes } from "./dtype-names.js";

export function parseFloatJson(v: unknown, dt: DataType, where: string, bits: 16 | 32 | 64): number {
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
  throw invalidFill(v, dt, where);
}

function componentBits(dt: NumericDataType): 16 | 32 | 64 {
  if (dt.name === "float16") return 16;
  if (dt.name === "float32" || dt.name === "complex64" || dt.name === "complex_float32") return 32;
  return 64;
}

export function parseInteger(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
  if (typeof v === "boolean") return v ? 1n : 0n;
  if (typeof v === "string" && /^-?\d+$/.test(v)) return BigInt(v);
  if (typeof v === "string" && /^0x[0-9a-fA-F]+$/.test(v)) return BigInt(v);
  return undefined;
}

/** A JSON byte-string fill value: base64, or (as zarr-python 2 leniently accepts) any other value's text. */
export function jsonBytesValue(v: unknown, where: string, dt: DataType): Uint8Array {
  if (v instanceof Uint8Array) return v;
  if (typeof v === "string") return BASE64.test(v) ? base64ToBytes(v) : new TextEncoder().encode(v);
  if (Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isInteger(x) && x >= 0 && x < 256)) {
    return Uint8Array.from(v as number[]);
  }
  if (typeof v === "number" || typeof v === "boolean") return new TextEncoder().encode(String(v));
  throw invalidFill(v, dt, where);
}

/**
 * Turns a fill value (a JS value or any JSON form of either version) into the JS scalar of this
 * type. `null` (v2 only) means "no fill value"; such arrays read missing chunks as zeros.
 */
export function parseFillValue(v: unknown, dt: DataType, where = "fill_value"): Scalar {
  if (v === null || v === undefined) return zeroOf(dt);
  switch (dt.kind) {
    case "string":
      // zarr-python 2 writes 0 for object arrays; it has no meaning for strings, so it reads as "".
      return typeof v === "string" ? v : "";
    case "bytes":
      if (v === 0) return EMPTY_BYTES;
      return jsonBytesValue(v, where, dt);
    case "json":
      // Any JSON value (zarr-python 2 writes 0); a value of the type, as the Scalar it is typed as.
      return v as Scalar;
    case "vlen_array":
      // zarr-python 2's 0 is numpy's 0-d array, which vlen-array stores as one value.
      return rareTypes().numbersToBytes(typeof v === "object" ? v : [v], dt);
    case "numeric":
      return parseNumericFill(v, dt, where);
  }
  return rareTypes().parseRareFill(v, dt, where);
}

export function invalidFill(v: unknown, dt: DataType, where: string): InvalidMetadataError {
  return new InvalidMetadataError(`${where}: invalid fill value ${JSON.stringify(v)} for ${dt.name}`);
}

function parseNumericFill(v: unknown, dt: NumericDataType, where: string): Scalar {
  const family = NUMERIC_TYPES[dt.name].family;
  switch (family) {
    case "bool":
      if (typeof v === "boolean") return v;
      if (v === 0 || v === 1) return v === 1;
      break;
    case "int":
    case "uint": {
      const n = parseInteger(v);
      if (n === undefined) break;
      const [lo, hi] = integerRange(dt)!;
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
  throw invalidFill(v, dt, where);
}

export function zeroOf(dt: DataType): Scalar {
  switch (dt.kind) {
    case "optional":
      return null;
    case "narrow_float":
      return dt.components === 2 ? [0, 0] : 0;
    case "datetime":
      return 0n;
    case "fixed_bytes":
    case "bytes":
    case "vlen_array":
      return EMPTY_BYTES;
    case "raw_bits":
    case "structured":
      return new Uint8Array(dt.itemSize);
    case "utf32":
    case "string":
      return "";
    case "json":
      // numpy's empty object array holds None.
      return null as unknown as Scalar;
    case "numeric":
      switch (NUMERIC_TYPES[dt.name].family) {
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
