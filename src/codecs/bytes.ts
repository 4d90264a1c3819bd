/**
 * The `bytes` codec (array->bytes): elements to bytes in the configured byte order. It is also
 * where float16 meets runtimes without Float16Array (held as float32 in memory).
 */
import { CorruptChunkError, InvalidMetadataError, UnsupportedError } from "../errors.js";
import { componentsPerElement, hasFloat16Array, isObjectType, memoryBytesPerComponent, typedArrayOver, type StructuredDataType, type TypedArray } from "../metadata/dtype.js";
import { bfloat16BitsToNumber, numberToBfloat16Bits } from "../metadata/bfloat16.js";
import { float16Table, numberToFloat16Bits } from "../metadata/float16.js";
import { product } from "../indexing/strided.js";
import type { JsonObject } from "../metadata/json.js";
import { enumOption } from "./config.js";
import type { ArrayToBytesCodec, ChunkSpec, ChunkView, CodecFactory } from "./types.js";
import { contiguousData, contiguousView } from "./view.js";
import type { ScratchLease } from "../scratch.js";

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function swapBytes(bytes: Uint8Array, width: number): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i += width) {
    for (let j = 0; j < width; j++) out[i + j] = bytes[i + width - 1 - j];
  }
  return out;
}

class BytesCodec implements ArrayToBytesCodec {
  readonly kind = "array_to_bytes";
  readonly name = "bytes";
  constructor(private readonly endian: "little" | "big") {}

  private needsSwap(componentSize: number): boolean {
    return componentSize > 1 && (this.endian === "little") !== LITTLE_ENDIAN_HOST;
  }

  decodesAsCopy(spec: ChunkSpec): boolean {
    const dt = spec.dtype;
    if (isObjectType(dt)) return false;
    // Types held wider in memory than stored (float16 without Float16Array, bfloat16) convert.
    if (memoryBytesPerComponent(dt) * componentsPerElement(dt) !== dt.itemSize) return false;
    return !this.needsSwap(dt.itemSize / componentsPerElement(dt));
  }

  decode(bytes: Uint8Array, spec: ChunkSpec): ChunkView {
    const dt = spec.dtype;
    const n = product(spec.shape);
    if (bytes.length !== n * dt.itemSize) {
      throw new CorruptChunkError(`expected ${n * dt.itemSize} bytes for ${n} ${dt.name} elements, got ${bytes.length}`);
    }
    const comps = componentsPerElement(dt);
    const componentSize = dt.itemSize / comps;
    let raw = this.needsSwap(componentSize) ? swapBytes(bytes, componentSize) : bytes;
    if (dt.kind === "bfloat16") {
      const halves = raw.byteOffset % 2 === 0 ? new Uint16Array(raw.buffer, raw.byteOffset, n) : new Uint16Array(raw.slice().buffer);
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = bfloat16BitsToNumber(halves[i]);
      return contiguousView(out, spec.shape);
    }
    if (dt.name === "float16" && !hasFloat16Array) {
      const halves = raw.byteOffset % 2 === 0 ? new Uint16Array(raw.buffer, raw.byteOffset, n) : new Uint16Array(raw.slice().buffer);
      const table = float16Table();
      const out = new Float32Array(n);
      for (let i = 0; i < n; i++) out[i] = table[halves[i]];
      return contiguousView(out, spec.shape);
    }
    // A typed array needs its offset aligned to its element size; decompressors usually give
    // fresh buffers, so the copy below is rare.
    if (raw.byteOffset % componentSize !== 0) raw = raw.slice();
    const data = typedArrayOver(dt, raw.buffer, raw.byteOffset, n * comps);
    return contiguousView(data, spec.shape);
  }

  encode(view: ChunkView, spec: ChunkSpec, scratch?: ScratchLease): Uint8Array {
    const dt = spec.dtype;
    let data = contiguousData(view, dt, scratch) as TypedArray;
    if (dt.kind === "bfloat16") {
      const halves = new Uint16Array(data.length);
      for (let i = 0; i < data.length; i++) halves[i] = numberToBfloat16Bits(data[i] as number);
      data = halves;
    } else if (dt.name === "float16" && !hasFloat16Array) {
      const halves = new Uint16Array(data.length);
      for (let i = 0; i < data.length; i++) halves[i] = numberToFloat16Bits(data[i] as number);
      data = halves;
    }
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const componentSize = dt.itemSize / componentsPerElement(dt);
    return this.needsSwap(componentSize) ? swapBytes(bytes, componentSize) : bytes;
  }
}

function hasMultiByteField(dt: StructuredDataType): boolean {
  return dt.fields.some((f) => (f.dtype.kind === "structured" ? hasMultiByteField(f.dtype) : f.dtype.itemSize / componentsPerElement(f.dtype) > 1));
}

export const bytesCodec: CodecFactory = (conf, spec) => {
  if (isObjectType(spec.dtype)) {
    const codec = spec.dtype.kind === "string" ? "vlen-utf8" : "vlen-bytes";
    throw new InvalidMetadataError(`codec "bytes" cannot encode variable-length ${spec.dtype.name} elements; use "${codec}"`);
  }
  const single = spec.dtype.itemSize / componentsPerElement(spec.dtype) === 1;
  if (!single && conf.endian === undefined) {
    throw new InvalidMetadataError(`codec "bytes": "endian" is required for ${spec.dtype.name}`);
  }
  const endian = enumOption(conf, "endian", "bytes", ["little", "big"] as const, "little");
  // A struct's records are their little-endian bytes in memory (see dtype.ts): the zarr-extensions
  // spec wants the endian written when a field has more than one byte, and big is not supported.
  const multiByteRecord = spec.dtype.kind === "structured" && hasMultiByteField(spec.dtype);
  if (multiByteRecord && endian === "big") {
    throw new UnsupportedError('codec "bytes": a struct with multi-byte fields is supported little-endian only');
  }
  const configuration: JsonObject = single && conf.endian === undefined && !multiByteRecord ? {} : { endian };
  return { codec: new BytesCodec(endian), configuration };
};

