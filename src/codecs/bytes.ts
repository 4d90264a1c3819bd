/**
 * The `bytes` codec (array->bytes): elements to bytes in the configured byte order. It is also
 * where types held differently in memory meet their stored form (stored-form.ts): float16 on
 * runtimes without Float16Array, bfloat16 and the 8-bit-or-smaller floats (float32 in memory),
 * and the sub-byte integers (one per byte, upper bits ignored, as their specifications say).
 */
import { CorruptChunkError, InvalidMetadataError, UnsupportedError } from "../errors.js";
import { componentsPerElement, isObjectType, type StructuredDataType, type TypedArray } from "../metadata/dtype.js";
import { LITTLE_ENDIAN_HOST, swapBytes, typedArrayOver } from "../metadata/elements.js";
import { storedConversion } from "../metadata/stored-form.js";
import { product } from "../indexing/strided.js";
import type { JsonObject } from "../metadata/json.js";
import { enumOption } from "./config.js";
import type { ArrayToBytesCodec, ChunkSpec, ChunkView, CodecFactory } from "./types.js";
import { contiguousData, contiguousView } from "./view.js";
import type { ScratchLease } from "../scratch.js";

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
    if (storedConversion(dt) !== null) return false;
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
    const conversion = storedConversion(dt);
    if (conversion) return contiguousView(conversion.decode(raw, n * comps), spec.shape);
    // A typed array needs its offset aligned to its element size; decompressors usually give
    // fresh buffers, so the copy below is rare.
    if (raw.byteOffset % componentSize !== 0) raw = raw.slice();
    const data = typedArrayOver(dt, raw.buffer, raw.byteOffset, n * comps);
    return contiguousView(data, spec.shape);
  }

  encode(view: ChunkView, spec: ChunkSpec, scratch?: ScratchLease): Uint8Array {
    const dt = spec.dtype;
    const data = contiguousData(view, dt, scratch) as TypedArray;
    const conversion = storedConversion(dt);
    const bytes = conversion ? conversion.encode(data) : new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const componentSize = dt.itemSize / componentsPerElement(dt);
    return this.needsSwap(componentSize) ? swapBytes(bytes, componentSize) : bytes;
  }
}

function hasMultiByteField(dt: StructuredDataType): boolean {
  return dt.fields.some((f) => (f.dtype.kind === "structured" ? hasMultiByteField(f.dtype) : f.dtype.itemSize / componentsPerElement(f.dtype) > 1));
}

export const bytesCodec: CodecFactory = (conf, spec) => {
  if (spec.dtype.kind === "optional") throw new InvalidMetadataError('codec "bytes" cannot encode optional elements; use "optional"');
  if (isObjectType(spec.dtype)) {
    const codec = spec.dtype.kind === "string" ? "vlen-utf8" : "vlen-bytes";
    throw new InvalidMetadataError(`codec "bytes" cannot encode variable-length ${spec.dtype.name} elements; use "${codec}"`);
  }
  const single = spec.dtype.itemSize / componentsPerElement(spec.dtype) === 1;
  if (!single && conf.endian === undefined) {
    throw new InvalidMetadataError(`codec "bytes": "endian" is required for ${spec.dtype.name}`);
  }
  const endian = enumOption(conf, "endian", "bytes", ["little", "big"] as const, "little");
  // A struct's records are their little-endian bytes in memory (see dtype-names.ts): the zarr-extensions
  // spec wants the endian written when a field has more than one byte, and big is not supported.
  const multiByteRecord = spec.dtype.kind === "structured" && hasMultiByteField(spec.dtype);
  if (multiByteRecord && endian === "big") {
    throw new UnsupportedError('codec "bytes": a struct with multi-byte fields is supported little-endian only');
  }
  const configuration: JsonObject = single && conf.endian === undefined && !multiByteRecord ? {} : { endian };
  return { codec: new BytesCodec(endian), configuration };
};

