/**
 * Types whose memory is not their stored bytes: the narrow floats (held as float32; see
 * narrow-float.ts), float16 where the runtime has no Float16Array, and the sub-byte integers,
 * whose stored byte keeps the value in its low bits and whose upper bits readers ignore. The
 * `bytes` codec and record fields convert through here, on host-order components.
 */
import { subByteBits, type DataType, type TypedArray } from "./dtype.js";
import { hasFloat16Array } from "./elements.js";
import type { ComponentCodec } from "./narrow-float.js";
import { float16Codec } from "./float16.js";
import { rareTypes } from "./dtype-names.js";

export interface StoredConversion {
  /** Bytes of one stored component. */
  readonly width: 1 | 2;
  /** `count` stored components (host byte order) into memory. */
  decode(stored: Uint8Array, count: number): TypedArray;
  /** Memory's components into stored ones (host byte order). */
  encode(data: TypedArray): Uint8Array;
}

/** How a type's stored components become memory and back; null where memory is the bytes. */
export function storedConversion(dt: DataType): StoredConversion | null {
  if (dt.kind === "narrow_float") return floatConversion(rareTypes().componentCodec(dt.component));
  if (dt.kind === "numeric" && dt.name === "float16" && !hasFloat16Array) return floatConversion(float16Codec());
  const bits = subByteBits(dt);
  if (bits !== undefined) return subByteConversion(bits, dt.kind === "numeric" && dt.name.startsWith("int"));
  return null;
}

function floatConversion(codec: ComponentCodec): StoredConversion {
  const mask = 2 ** codec.bits - 1;
  return {
    width: codec.bytes,
    decode(stored, count) {
      const codes = codec.bytes === 1 ? stored : halves(stored, count);
      const out = new Float32Array(count);
      for (let i = 0; i < count; i++) out[i] = codec.table[codes[i] & mask];
      return out;
    },
    encode(data) {
      const codes = codec.bytes === 1 ? new Uint8Array(data.length) : new Uint16Array(data.length);
      for (let i = 0; i < data.length; i++) codes[i] = codec.encode(data[i] as number);
      return new Uint8Array(codes.buffer, 0, codes.byteLength);
    },
  };
}

function subByteConversion(bits: number, signed: boolean): StoredConversion {
  const mask = (1 << bits) - 1;
  const shift = 32 - bits;
  return {
    width: 1,
    decode(stored, count) {
      const out = signed ? new Int8Array(count) : new Uint8Array(count);
      // Sign-extend the low bits (int) or keep them (uint); whatever the upper bits hold is ignored.
      if (signed) for (let i = 0; i < count; i++) out[i] = (stored[i] << shift) >> shift;
      else for (let i = 0; i < count; i++) out[i] = stored[i] & mask;
      return out;
    },
    encode(data) {
      // Upper bits zero, as ml_dtypes (and so TensorStore's int4) writes them: -1 in int4 is 0x0f.
      const out = new Uint8Array(data.length);
      for (let i = 0; i < data.length; i++) out[i] = (data[i] as number) & mask;
      return out;
    },
  };
}

/** Two-byte codes over stored bytes, copied when their offset is odd. */
function halves(stored: Uint8Array, count: number): Uint16Array {
  return stored.byteOffset % 2 === 0 ? new Uint16Array(stored.buffer, stored.byteOffset, count) : new Uint16Array(stored.slice(0, 2 * count).buffer);
}
