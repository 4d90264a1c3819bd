/**
 * The 32-bit checksum codecs (bytes->bytes) share one framing: the data plus its little-endian
 * checksum, before it ("start", numcodecs' Checksum32 default: adler32, crc32) or after it ("end":
 * crc32c, fletcher32). numcodecs lets adler32, crc32 and crc32c choose with `location`. A mismatch
 * on read means the chunk is corrupt.
 */
import { CorruptChunkError } from "../errors.js";
import { enumOption } from "./config.js";
import type { JsonObject } from "../metadata/json.js";
import type { CodecFactory } from "./types.js";

export type ChecksumLocation = "start" | "end";

/**
 * A checksum codec: `sum` placed at `location`, `def` by default. Only codecs whose numcodecs
 * class has the option (`configurable`) read `location`; it is recorded only when it was given,
 * so metadata that did not spell it keeps not spelling it.
 */
export function checksumCodec(name: string, sum: (b: Uint8Array) => number, def: ChecksumLocation, configurable: boolean): CodecFactory {
  return (conf) => {
    const location = configurable ? enumOption(conf, "location", name, ["start", "end"] as const, def) : def;
    const atStart = location === "start";
    const configuration: JsonObject = configurable && conf.location !== undefined ? { location } : {};
    return {
      codec: {
        kind: "bytes_to_bytes",
        name,
        encode(b) {
          const out = new Uint8Array(b.length + 4);
          out.set(b, atStart ? 4 : 0);
          new DataView(out.buffer).setUint32(atStart ? 0 : b.length, sum(b), true);
          return out;
        },
        decode(b) {
          if (b.length < 4) throw new CorruptChunkError(`${name}: ${b.length} bytes is too short to hold a checksum`);
          const data = atStart ? b.subarray(4) : b.subarray(0, b.length - 4);
          const want = new DataView(b.buffer, b.byteOffset + (atStart ? 0 : b.length - 4), 4).getUint32(0, true);
          const got = sum(data);
          if (want !== got) throw new CorruptChunkError(`${name}: checksum ${got.toString(16)} does not match the stored ${want.toString(16)}`);
          return data;
        },
      },
      configuration,
    };
  };
}
