/**
 * numcodecs `packbits` (bool array -> bytes): a first byte counting the padding bits, then the
 * values eight to a byte, first value in the highest bit (numpy's packbits order).
 */
import { CorruptChunkError, InvalidMetadataError } from "../../errors.js";
import { product } from "../../indexing/strided.js";
import type { ArrayToBytesCodec, CodecFactory } from "../types.js";
import { contiguousData, contiguousView } from "../view.js";

export const packbitsCodec: CodecFactory = (_conf, spec) => {
  if (spec.dtype.kind !== "numeric" || spec.dtype.name !== "bool") {
    throw new InvalidMetadataError(`codec "numcodecs.packbits" needs a bool array, not ${spec.dtype.name}`);
  }
  const codec: ArrayToBytesCodec = {
    kind: "array_to_bytes",
    name: "numcodecs.packbits",
    encode(view, s) {
      const bits = contiguousData(view, s.dtype) as Uint8Array;
      const n = bits.length;
      const out = new Uint8Array(1 + Math.ceil(n / 8));
      out[0] = (8 - (n % 8)) % 8;
      for (let i = 0; i < n; i++) if (bits[i]) out[1 + (i >> 3)] |= 0x80 >> (i & 7);
      return out;
    },
    decode(bytes, s) {
      const n = product(s.shape);
      if (bytes.length < 1 || (bytes.length - 1) * 8 - bytes[0] !== n) {
        throw new CorruptChunkError(`packbits: ${bytes.length} bytes (padding ${bytes[0]}) do not hold ${n} values`);
      }
      const out = new Uint8Array(n);
      for (let i = 0; i < n; i++) out[i] = (bytes[1 + (i >> 3)] >> (7 - (i & 7))) & 1;
      return contiguousView(out, s.shape);
    },
  };
  return { codec, configuration: {} };
};
