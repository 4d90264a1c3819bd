/**
 * numcodecs `shuffle` (bytes->bytes): byte k of every element goes to plane k, so bytes that vary
 * alike sit together for the compressor. numcodecs refuses buffers that are not whole elements.
 */
import { CorruptChunkError } from "../../errors.js";
import { intOption } from "../config.js";
import { onFirstUse } from "../../first-use.js";
import type { CodecFactory } from "../types.js";

function check(b: Uint8Array, size: number): number {
  if (b.length % size !== 0) throw new CorruptChunkError(`shuffle: ${b.length} bytes are not whole elements of ${size} bytes`);
  return b.length / size;
}

/** Element size 0 or 1 has nothing to shuffle; otherwise blosc's byte-shuffle kernels do the work. */
function planes(b: Uint8Array, size: number, kernel: (src: Uint8Array, dst: Uint8Array, size: number) => void): Uint8Array {
  if (size <= 1) return b;
  check(b, size);
  const out = new Uint8Array(b.length);
  kernel(b, out, size);
  return out;
}

/** blosc's kernels load with the codec's first use (compressors.ts says why). */
const kernels = onFirstUse(() => import("../blosc/shuffle.js"));

export const shuffleCodec: CodecFactory = (conf) => {
  const elementsize = intOption(conf, "elementsize", "numcodecs.shuffle", 4, 0, 2 ** 31 - 1);
  return {
    codec: {
      kind: "bytes_to_bytes",
      name: "numcodecs.shuffle",
      encode: kernels((k, b: Uint8Array) => planes(b, elementsize, k.byteShuffle)),
      decode: kernels((k, b: Uint8Array) => planes(b, elementsize, k.byteUnshuffle)),
    },
    configuration: { elementsize },
  };
};
