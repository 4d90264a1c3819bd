/**
 * numpy's .npy format, version 1.0: the magic, a little-endian header length, a Python dict
 * literal (descr, fortran_order, shape) padded with spaces to a multiple of 64 bytes and ended by
 * a newline, then the raw C-order data.
 */
import { numberToFloat16Bits } from "../metadata/float16.js";
import type { ElementArray, NDArray, TypedArray } from "../index.js";
import { CliError } from "./args.js";

/** numpy type strings of what we write: always little-endian, as the values sit in memory. */
const DESCR: Record<string, string> = {
  bool: "|b1",
  int8: "|i1",
  uint8: "|u1",
  int16: "<i2",
  uint16: "<u2",
  int32: "<i4",
  uint32: "<u4",
  int64: "<i8",
  uint64: "<u8",
  float16: "<f2",
  float32: "<f4",
  float64: "<f8",
  complex64: "<c8",
  complex128: "<c16",
};

/**
 * Types numpy lacks are written as `get` holds them: bfloat16 and the float8/6/4 types as float32
 * values, their complex forms as complex64, the sub-byte integers one per byte.
 */
function heldAs(dtype: string): string | undefined {
  if (dtype === "complex_float64") return "<c16";
  if (dtype.startsWith("complex_")) return "<c8";
  if (dtype === "bfloat16" || /^float[468]_/.test(dtype)) return "<f4";
  if (dtype === "int2" || dtype === "int4") return "|i1";
  if (dtype === "uint2" || dtype === "uint4") return "|u1";
  return undefined;
}

export function npyDescr(dtype: string): string {
  const d = DESCR[dtype] ?? heldAs(dtype);
  if (!d) throw new CliError(`no .npy type for ${dtype}`, 1);
  return d;
}

/**
 * The values as little-endian bytes in C order. A float16 array held in a Float32Array (no
 * Float16Array in this runtime) is converted back to half floats.
 */
export function rawBytes(elements: ElementArray, dtype: string): Uint8Array {
  // Strings and byte strings have no fixed-size binary form to write: JSON holds them.
  if (!ArrayBuffer.isView(elements)) throw new CliError(`--out .npy/.bin needs a fixed-size data type; ${dtype} values go to .json`, 1);
  const data: TypedArray = elements;
  if (dtype === "float16" && data instanceof Float32Array) {
    const halves = new Uint16Array(data.length);
    for (let i = 0; i < data.length; i++) halves[i] = numberToFloat16Bits(data[i]);
    return new Uint8Array(halves.buffer);
  }
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
}

export function npyHeader(dtype: string, shape: readonly number[]): Uint8Array {
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(", ")})`;
  let dict = `{'descr': '${npyDescr(dtype)}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  // 10 bytes of preamble; the whole header, newline included, is a multiple of 64.
  const total = Math.ceil((10 + dict.length + 1) / 64) * 64;
  dict = dict.padEnd(total - 10 - 1, " ") + "\n";
  const out = new Uint8Array(total);
  out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0], 0); // \x93NUMPY, version 1.0
  new DataView(out.buffer).setUint16(8, dict.length, true);
  out.set(new TextEncoder().encode(dict), 10);
  return out;
}

/** A contiguous C-order NDArray (what `get` returns) as a complete .npy file. */
export function toNpy(arr: NDArray, dtype: string): Uint8Array[] {
  return [npyHeader(dtype, arr.shape), rawBytes(arr.data, dtype)];
}
