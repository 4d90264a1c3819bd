/** The little-endian u64 fields of binary formats (ZIP64 records, zstd frames, zarrs' codec headers). */

/**
 * The u64 LE at byte `at` of `b` as a number: exact up to 2^53, past it inexact but still past
 * Number.MAX_SAFE_INTEGER, so a caller's check against a length or limit refuses it.
 */
export function readU64(b: Uint8Array, at: number): number {
  // A view of all of b, so a field past its end throws (RangeError) rather than reading the bytes
  // of the buffer after it.
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return dv.getUint32(at + 4, true) * 2 ** 32 + dv.getUint32(at, true);
}
