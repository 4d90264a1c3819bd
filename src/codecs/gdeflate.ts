/**
 * zarrs' `zarrs.gdeflate` (bytes->bytes; also named by its URL): 64 KiB pages of GDeflate, the
 * 32-lane deflate of NVIDIA's GPU decompression, under a header of sizes (gdeflate-decode.ts has
 * the format). Our decoder and encoder are checked against NVIDIA's reference implementation
 * (test/fixtures/gdeflate); `level` is zarrs' 0-12, which our simpler encoder maps to its effort.
 */
import { intOption } from "./config.js";
import { decodeCap } from "./compressors.js";
import { onFirstUse } from "../first-use.js";
import type { CodecFactory } from "./types.js";

// The encoder and decoder load with the codec's first use (compressors.ts says why).
const encoder = onFirstUse(() => import("./gdeflate-encode.js"));
const decoder = onFirstUse(() => import("./gdeflate-decode.js"));

export const gdeflateCodec: CodecFactory = (conf, spec) => {
  const level = intOption(conf, "level", "zarrs.gdeflate", 9, 0, 12);
  const cap = decodeCap(spec);
  return {
    codec: {
      kind: "bytes_to_bytes",
      name: "zarrs.gdeflate",
      encode: encoder((m, b: Uint8Array) => m.gdeflateEncode(b, level)),
      decode: decoder((m, b: Uint8Array) => m.gdeflateDecode(b, cap)),
    },
    configuration: { level },
  };
};
