/**
 * numcodecs `bz2` (bytes->bytes): standard bzip2 streams, `level` being the block size in 100 kB
 * (1-9, numcodecs' default 1), through our own encoder and decoder (bzip2-encode.ts,
 * bzip2-decode.ts). compressjs, the maintained npm bzip2, reads and writes the same format
 * but about ten times slower in both directions; both of ours are checked against Python's bz2.
 */
import { bzip2Compress } from "./bzip2-encode.js";
import { bzip2Decompress } from "./bzip2-decode.js";
import { intOption } from "./config.js";
import { decodeCap } from "./compressors.js";
import type { CodecFactory } from "./types.js";

export const bz2Codec: CodecFactory = (conf, spec) => {
  const level = intOption(conf, "level", "numcodecs.bz2", 1, 1, 9);
  const cap = decodeCap(spec);
  return {
    codec: {
      kind: "bytes_to_bytes",
      name: "numcodecs.bz2",
      encode: (b) => bzip2Compress(b, level),
      decode: (b) => bzip2Decompress(b, cap),
    },
    configuration: { level },
  };
};
