/**
 * The numcodecs 32-bit checksums (bytes->bytes). `adler32` (and `crc32`) put the little-endian
 * checksum before the data, as numcodecs' Checksum32 does; `fletcher32` appends HDF5's Fletcher-32
 * of the data after it, little-endian. A mismatch on read means the chunk is corrupt.
 */
import { CorruptChunkError } from "../errors.js";
import type { CodecFactory } from "./types.js";

export function adler32(b: Uint8Array): number {
  let a = 1;
  let s = 0;
  // 5552 bytes is the most that can be summed before the 32-bit sums must be reduced.
  for (let i = 0; i < b.length; ) {
    const end = Math.min(b.length, i + 5552);
    for (; i < end; i++) {
      a += b[i];
      s += a;
    }
    a %= 65521;
    s %= 65521;
  }
  return ((s << 16) | a) >>> 0;
}

/** HDF5's Fletcher-32: sums of big-endian 16-bit words, a trailing odd byte as the high half. */
export function fletcher32(b: Uint8Array): number {
  let sum1 = 0;
  let sum2 = 0;
  const words = b.length >> 1;
  let i = 0;
  for (let left = words; left > 0; ) {
    const t = Math.min(left, 360);
    left -= t;
    for (let k = 0; k < t; k++, i += 2) {
      sum1 += (b[i] << 8) | b[i + 1];
      sum2 += sum1;
    }
    sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  }
  if (b.length & 1) {
    sum1 += b[b.length - 1] << 8;
    sum2 += sum1;
    sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
    sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  }
  sum1 = (sum1 & 0xffff) + (sum1 >>> 16);
  sum2 = (sum2 & 0xffff) + (sum2 >>> 16);
  return ((sum2 << 16) | sum1) >>> 0;
}

// zlib's CRC-32 (reflected 0xEDB88320); our own so that it works where node:zlib has no crc32.
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
    t[i] = c >>> 0;
  }
  return t;
})();

export function crc32(b: Uint8Array): number {
  let c = 0xffffffff;
  for (let i = 0; i < b.length; i++) c = CRC_TABLE[(c ^ b[i]) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function prefixed(name: string, sum: (b: Uint8Array) => number): CodecFactory {
  return () => ({
    codec: {
      kind: "bytes_to_bytes",
      name,
      encode(b) {
        const out = new Uint8Array(b.length + 4);
        new DataView(out.buffer).setUint32(0, sum(b), true);
        out.set(b, 4);
        return out;
      },
      decode(b) {
        if (b.length < 4) throw new CorruptChunkError(`${name}: ${b.length} bytes is too short for a checksum`);
        const data = b.subarray(4);
        const want = new DataView(b.buffer, b.byteOffset, 4).getUint32(0, true);
        const got = sum(data);
        if (want !== got) throw new CorruptChunkError(`${name}: checksum ${got.toString(16)} does not match the stored ${want.toString(16)}`);
        return data;
      },
    },
    configuration: {},
  });
}

export const adler32Codec = prefixed("numcodecs.adler32", adler32);
export const crc32Codec = prefixed("numcodecs.crc32", crc32);

export const fletcher32Codec: CodecFactory = () => ({
  codec: {
    kind: "bytes_to_bytes",
    name: "numcodecs.fletcher32",
    encode(b) {
      const out = new Uint8Array(b.length + 4);
      out.set(b);
      new DataView(out.buffer).setUint32(b.length, fletcher32(b), true);
      return out;
    },
    decode(b) {
      if (b.length < 4) throw new CorruptChunkError(`numcodecs.fletcher32: ${b.length} bytes is too short for a checksum`);
      const data = b.subarray(0, b.length - 4);
      const want = new DataView(b.buffer, b.byteOffset + b.length - 4, 4).getUint32(0, true);
      const got = fletcher32(data);
      if (want !== got) throw new CorruptChunkError(`numcodecs.fletcher32: checksum ${got.toString(16)} does not match the stored ${want.toString(16)}`);
      return data;
    },
  },
  configuration: {},
});
