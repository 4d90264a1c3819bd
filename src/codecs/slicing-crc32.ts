/**
 * The table-driven CRC-32 kernel, apart from the checksum codecs (checksum32.ts) so that the xz
 * container (xz-container.ts, loaded on first use) imports the kernel alone: importing the codecs'
 * module would reach their configuration helpers (config.ts, metadata/json.ts), which the page
 * loads up front, and esbuild's splitting would cut them into more chunk files.
 */
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
