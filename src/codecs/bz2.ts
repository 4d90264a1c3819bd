/**
 * numcodecs `bz2` (bytes->bytes): standard bzip2 streams through compressjs, `level` being the
 * block size in 100 kB (1-9, numcodecs' default 1). Streams decode in Python's bz2 and back.
 */
import compressjs from "compressjs";
import { CorruptChunkError } from "../errors.js";
import { intOption } from "./config.js";
import type { CodecFactory } from "./types.js";

export const bz2Codec: CodecFactory = (conf) => {
  const level = intOption(conf, "level", "numcodecs.bz2", 1, 1, 9);
  return {
    codec: {
      kind: "bytes_to_bytes",
      name: "numcodecs.bz2",
      encode: (b) => compressjs.Bzip2.compressFile(b, null, level),
      decode(b) {
        let out: Uint8Array | number[];
        try {
          out = compressjs.Bzip2.decompressFile(b);
        } catch (cause) {
          throw new CorruptChunkError(`bz2: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
        }
        return out instanceof Uint8Array ? out : Uint8Array.from(out);
      },
    },
    configuration: { level },
  };
};
