/** The memory that holds elements: typed arrays of components, or JS arrays for variable-length types. */
import { UnsupportedError } from "../errors.js";
import { NUMERIC_TYPES, componentsPerElement, isObjectType, type DataType, type ElementArray, type Scalar, type TypedArray } from "./dtype.js";
import type { JsonValue } from "./json.js";

/** Whether elements live in a typed array (every fixed-size type) rather than a JS array. */
export function isTypedArray(data: ElementArray | ArrayLike<unknown>): data is TypedArray {
  return ArrayBuffer.isView(data);
}

/** True when the runtime has Float16Array, so float16 arrays hold half floats natively. */
export const hasFloat16Array = typeof (globalThis as { Float16Array?: unknown }).Float16Array === "function";

/** Allocates the memory that holds `count` elements of this type. */
export function allocElements(dt: DataType, count: number, shared = false): ElementArray {
  if (dt.kind === "string") return new Array<string>(count).fill("");
  if (dt.kind === "bytes" || dt.kind === "vlen_array") return new Array<Uint8Array>(count).fill(EMPTY_BYTES);
  if (dt.kind === "json") return new Array<JsonValue>(count).fill(null);
  // An optional string or bytes type: one value each, missing (null) to begin with.
  if (isObjectType(dt)) return new Array<Scalar>(count).fill(null);
  return allocTypedArray(dt, count, shared);
}

export const EMPTY_BYTES = new Uint8Array(0);

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
    case "optional":
      return memoryBytesPerComponent(dt.inner);
    case "numeric":
      if (dt.name === "float16") return hasFloat16Array ? 2 : 4;
      return NUMERIC_TYPES[dt.name].size / componentsPerElement(dt);
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
    case "json":
    case "vlen_array":
      throw new UnsupportedError(`${dt.name} elements are JS values, not typed-array components`);
  }
}

export function typedArrayOver(dt: DataType, buffer: ArrayBufferLike, byteOffset: number, length: number): TypedArray {
  switch (dt.kind) {
    case "optional":
      return typedArrayOver(dt.inner, buffer, byteOffset, length);
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
    case "json":
    case "vlen_array":
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

export const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** A copy of `bytes` with each `width`-byte component's bytes reversed. */
export function swapBytes(bytes: Uint8Array, width: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += width) {
    for (let j = 0; j < width; j++) out[i + j] = bytes[i + width - 1 - j];
  }
  return out;
}
