/**
 * The numcodecs 32-bit checksums: adler32 and crc32 (before the data by default, as numcodecs'
 * Checksum32 writes them) and HDF5's Fletcher-32 (after it). The framing is checksum32.ts's.
 */
import { checksumCodec } from "./checksum32.js";
import { slicingCrc32 } from "./slicing-crc32.js";

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

// zlib's CRC-32, our own so that it works where node:zlib has no crc32.
export const crc32 = slicingCrc32(0xedb88320);

export const adler32Codec = checksumCodec("numcodecs.adler32", adler32, "start", true);
export const crc32Codec = checksumCodec("numcodecs.crc32", crc32, "start", true);
export const fletcher32Codec = checksumCodec("numcodecs.fletcher32", fletcher32, "end", false);
