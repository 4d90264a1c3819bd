/**
 * numcodecs `shuffle` (bytes->bytes): byte k of every element goes to plane k, so bytes that vary
 * alike sit together for the compressor. numcodecs refuses buffers that are not whole elements.
 */
import { CorruptChunkError } from "../../errors.js";
import { intOption } from "../config.js";
import type { CodecFactory } from "../types.js";

function check(b: Uint8Array, size: number): number {
  if (b.length % size !== 0) throw new CorruptChunkError(`shuffle: ${b.length} bytes are not whole elements of ${size} bytes`);
  return b.length / size;
}

export function shuffleBytes(b: Uint8Array, size: number): Uint8Array {
  if (size <= 1) return b.slice();
  const n = check(b, size);
  const out = new Uint8Array(b.length);
  for (let i = 0; i < n; i++) for (let k = 0; k < size; k++) out[k * n + i] = b[i * size + k];
  return out;
}

export function unshuffleBytes(b: Uint8Array, size: number): Uint8Array {
  if (size <= 1) return b.slice();
  const n = check(b, size);
  const out = new Uint8Array(b.length);
  for (let i = 0; i < n; i++) for (let k = 0; k < size; k++) out[i * size + k] = b[k * n + i];
  return out;
}

export const shuffleCodec: CodecFactory = (conf) => {
  const elementsize = intOption(conf, "elementsize", "numcodecs.shuffle", 4, 0, 2 ** 31 - 1);
  return {
    codec: {
      kind: "bytes_to_bytes",
      name: "numcodecs.shuffle",
      encode: (b) => shuffleBytes(b, elementsize),
      decode: (b) => unshuffleBytes(b, elementsize),
    },
    configuration: { elementsize },
  };
};
