/**
 * A fill value's JSON form, as zarr-python writes it for each version. Apart from fill-value.ts's
 * parsing: only metadata writing, info() and the rare types' module use it, all loaded on first use.
 */
import { BigJsonInt, PyFloat, type Serialisable } from "./json-write.js";
import { NUMERIC_TYPES, type DataType, type Scalar } from "./dtype.js";
import { bytesToBase64 } from "./base64.js";
import { rareTypes } from "./dtype-names.js";
import { bytesToNumbers } from "./vlen-array.js";

export function floatJson(x: number, asV3: boolean): Serialisable {
  if (Number.isNaN(x)) return "NaN";
  if (x === Infinity) return "Infinity";
  if (x === -Infinity) return "-Infinity";
  return asV3 ? x : new PyFloat(x);
}

export function bigintJson(v: bigint): Serialisable {
  return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : new BigJsonInt(v);
}

/** The JSON form of a fill value, as zarr-python writes it for that version. */
export function fillValueToJson(v: Scalar | null, dt: DataType, zarrFormat: 2 | 3): Serialisable {
  if (v === null) return null;
  switch (dt.kind) {
    case "bytes":
      return bytesToBase64(v as Uint8Array);
    case "vlen_array":
      return Array.from(bytesToNumbers(v as Uint8Array, dt) as ArrayLike<number | bigint>, (x) => (typeof x === "bigint" ? bigintJson(x) : x));
    case "string":
      return v as string;
    case "json":
      return v as Serialisable;
    case "numeric":
      break;
    default:
      return rareTypes().rareFillToJson(v, dt, zarrFormat);
  }
  const family = NUMERIC_TYPES[dt.name].family;
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
