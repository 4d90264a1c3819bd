/**
 * numcodecs `bz2` (bytes->bytes): standard bzip2 streams, `level` being the block size in 100 kB
 * (1-9, numcodecs' default 1), through our own encoder and decoder (bzip2-encode.ts,
 * bzip2-decode.ts). compressjs, the maintained npm bzip2, reads and writes the same format
 * but about ten times slower in both directions; both of ours are checked against Python's bz2.
 */
import { intOption } from "./config.js";
import { decodeCap } from "./compressors.js";
import { onFirstUse } from "../first-use.js";
import type { CodecFactory } from "./types.js";

// The encoder and decoder load with the codec's first use (compressors.ts says why).
const encoder = onFirstUse(() => import("./bzip2-encode.js"));
const decoder = onFirstUse(() => import("./bzip2-decode.js"));

export const bz2Codec: CodecFactory = (conf, spec) => {
  const level = intOption(conf, "level", "numcodecs.bz2", 1, 1, 9);
  const cap = decodeCap(spec);
  return {
    codec: {
      kind: "bytes_to_bytes",
      name: "numcodecs.bz2",
      encode: encoder((m, b: Uint8Array) => m.bzip2Compress(b, level)),
      decode: decoder((m, b: Uint8Array) => m.bzip2Decompress(b, cap)),
    },
    configuration: { level },
  };
};
