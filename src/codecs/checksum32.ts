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
 * A reflected CRC-32 over polynomial `poly` (0x82F63B78 Castagnoli, 0xEDB88320 zlib), sliced by
 * 8: eight table lookups per 8 bytes instead of one per byte.
 */
export function slicingCrc32(poly: number): (bytes: Uint8Array, initial?: number) => number {
  const t = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ poly : c >>> 1;
    t[0][i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) {
    for (let k = 1; k < 8; k++) t[k][i] = (t[k - 1][i] >>> 8) ^ t[0][t[k - 1][i] & 0xff];
  }
  const [t0, t1, t2, t3, t4, t5, t6, t7] = t;
  return (bytes, initial = 0) => {
    let crc = ~initial >>> 0;
    let i = 0;
    const n = bytes.length;
    for (; i + 8 <= n; i += 8) {
      const a = (crc ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24))) >>> 0;
      crc =
        t7[a & 0xff] ^
        t6[(a >>> 8) & 0xff] ^
        t5[(a >>> 16) & 0xff] ^
        t4[a >>> 24] ^
        t3[bytes[i + 4]] ^
        t2[bytes[i + 5]] ^
        t1[bytes[i + 6]] ^
        t0[bytes[i + 7]];
    }
    for (; i < n; i++) crc = t0[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
    return ~crc >>> 0;
  };
}

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
