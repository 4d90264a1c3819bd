/**
 * The `crc32c` codec (bytes->bytes): a CRC-32C (Castagnoli) of the bytes appended little-endian.
 * A mismatch on read means the chunk is corrupt.
 */
import { CorruptChunkError } from "../errors.js";
import type { BytesToBytesCodec, CodecFactory } from "./types.js";

// Slicing-by-8 tables: eight lookups per 8 bytes instead of one per byte.
const TABLES: Uint32Array[] = (() => {
  const t = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
    t[0][i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) {
    for (let k = 1; k < 8; k++) t[k][i] = (t[k - 1][i] >>> 8) ^ t[0][t[k - 1][i] & 0xff];
  }
  return t;
})();

export function crc32c(bytes: Uint8Array, initial = 0): number {
  const [t0, t1, t2, t3, t4, t5, t6, t7] = TABLES;
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
}

class Crc32cCodec implements BytesToBytesCodec {
  readonly kind = "bytes_to_bytes";
  readonly name = "crc32c";

  encode(bytes: Uint8Array): Uint8Array {
    const out = new Uint8Array(bytes.length + 4);
    out.set(bytes);
    new DataView(out.buffer).setUint32(bytes.length, crc32c(bytes), true);
    return out;
  }

  decode(bytes: Uint8Array): Uint8Array {
    if (bytes.length < 4) throw new CorruptChunkError(`crc32c: ${bytes.length} bytes is too short to hold a checksum`);
    const body = bytes.subarray(0, bytes.length - 4);
    const stored = new DataView(bytes.buffer, bytes.byteOffset + body.length, 4).getUint32(0, true);
    const actual = crc32c(body);
    if (stored !== actual) {
      throw new CorruptChunkError(`crc32c checksum mismatch (stored ${stored.toString(16)}, computed ${actual.toString(16)})`);
    }
    return body;
  }
}

export const crc32cCodec: CodecFactory = () => ({ codec: new Crc32cCodec(), configuration: {} });
