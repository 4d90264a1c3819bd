/**
 * The xz container (https://tukaani.org/xz/xz-file-format.txt), read and rewritten without
 * decompressing, for two jobs the LZMA binding cannot do:
 *
 * - a hard cap on the decoded size: every LZMA2 chunk header states its unpacked size, and a
 *   decoder must produce exactly that, so walking the chunk headers gives the decoded size
 *   before a byte is decoded (an xz bomb is refused from its headers, whatever its index says);
 * - integrity checks: the binding writes streams with no check, while numcodecs (liblzma) writes
 *   CRC64 by default. `withCrc64` adds a CRC64 to every block, rewriting the stream's flags and
 *   index, and `verifyXzChecks` checks CRC32/CRC64 on read (the binding does not).
 */
import { CorruptChunkError, UnsupportedError } from "../errors.js";
import { slicingCrc32 } from "./slicing-crc32.js";

const crc32 = slicingCrc32(0xedb88320);

const MAGIC = [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00];
const FOOTER_MAGIC = [0x59, 0x5a];
const LZMA2_FILTER = 0x21;
export const CHECK_NONE = 0;
export const CHECK_CRC32 = 1;
export const CHECK_CRC64 = 4;

/** Bytes of the check field for each check type (xz-file-format 2.1.1.2). */
function checkSize(type: number): number {
  return type === 0 ? 0 : 4 << Math.floor((type - 1) / 3);
}

export interface XzBlock {
  /** Where the block header starts, and its size. */
  headerStart: number;
  headerSize: number;
  /** The compressed data: [dataStart, dataEnd). */
  dataStart: number;
  dataEnd: number;
  /** Where the check field starts (after the block padding). */
  checkStart: number;
  checkType: number;
  /** Decoded bytes, from the LZMA2 chunk headers. */
  unpacked: number;
}

function corrupt(why: string): never {
  throw new CorruptChunkError(`lzma: ${why}`);
}

function readVarint(b: Uint8Array, at: number): [value: number, next: number] {
  let v = 0;
  for (let i = 0; i < 9; i++) {
    if (at + i >= b.length) corrupt("the stream ends inside a number");
    const byte = b[at + i];
    v += (byte & 0x7f) * 2 ** (7 * i);
    if ((byte & 0x80) === 0) return [v, at + i + 1];
  }
  corrupt("a number longer than 9 bytes");
}

function writeVarint(out: number[], v: number): void {
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

const u32 = (b: Uint8Array, at: number): number => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16) | (b[at + 3] << 24)) >>> 0;

function putU32(out: number[], v: number): void {
  out.push(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24);
}

export function isXz(b: Uint8Array): boolean {
  return b.length >= 6 && MAGIC.every((m, i) => b[i] === m);
}

/** Walks an LZMA2 chunk sequence from `at`; returns its end and the bytes it decodes to. */
function walkLzma2(b: Uint8Array, at: number, limit: number): { end: number; unpacked: number } {
  let unpacked = 0;
  for (;;) {
    if (at >= b.length) corrupt("the LZMA2 data ends without its end marker");
    const control = b[at];
    if (control === 0x00) return { end: at + 1, unpacked };
    if (control === 0x01 || control === 0x02) {
      if (at + 3 > b.length) corrupt("an LZMA2 chunk header is cut short");
      const size = ((b[at + 1] << 8) | b[at + 2]) + 1;
      unpacked += size;
      at += 3 + size;
    } else if (control >= 0x80) {
      if (at + 5 > b.length) corrupt("an LZMA2 chunk header is cut short");
      unpacked += (control & 0x1f) * 65536 + ((b[at + 1] << 8) | b[at + 2]) + 1;
      const packed = ((b[at + 3] << 8) | b[at + 4]) + 1;
      at += 5 + (control >= 0xc0 ? 1 : 0) + packed;
    } else {
      corrupt(`bad LZMA2 control byte 0x${control.toString(16)}`);
    }
    if (unpacked > limit) corrupt(`the stream decodes to more than the ${limit}-byte limit for this chunk`);
  }
}

/**
 * Every block of every stream in `b`, with its decoded size from the LZMA2 chunk headers. Refuses
 * (CORRUPT_CHUNK) anything malformed and any stream whose decoded size passes `limit`.
 */
export function xzBlocks(b: Uint8Array, limit = Infinity): XzBlock[] {
  const blocks: XzBlock[] = [];
  let at = 0;
  let total = 0;
  while (at < b.length) {
    if (!isXz(b.subarray(at))) {
      // Stream padding: null bytes in groups of four between and after streams.
      if (blocks.length > 0 && b[at] === 0) {
        at++;
        continue;
      }
      corrupt("not an xz stream");
    }
    if (at + 12 > b.length) corrupt("the stream header is cut short");
    if (crc32(b.subarray(at + 6, at + 8)) !== u32(b, at + 8)) corrupt("the stream header's CRC32 does not match");
    const checkType = b[at + 7] & 0x0f;
    at += 12;
    for (;;) {
      if (at >= b.length) corrupt("the stream ends before its index");
      if (b[at] === 0x00) break; // the index indicator
      const headerStart = at;
      const headerSize = (b[at] + 1) * 4;
      if (at + headerSize > b.length) corrupt("a block header is cut short");
      if (crc32(b.subarray(at, at + headerSize - 4)) !== u32(b, at + headerSize - 4)) corrupt("a block header's CRC32 does not match");
      const flags = b[at + 1];
      let p = at + 2;
      if (flags & 0x40) p = readVarint(b, p)[1];
      if (flags & 0x80) p = readVarint(b, p)[1];
      let lastFilter = -1;
      for (let f = 0; f <= (flags & 3); f++) {
        const [id, q] = readVarint(b, p);
        const [propsSize, r] = readVarint(b, q);
        lastFilter = id;
        p = r + propsSize;
      }
      if (lastFilter !== LZMA2_FILTER) throw new UnsupportedError(`lzma: a block whose last filter is 0x${lastFilter.toString(16)}, not LZMA2`);
      const dataStart = at + headerSize;
      const { end: dataEnd, unpacked } = walkLzma2(b, dataStart, limit - total);
      total += unpacked;
      const checkStart = dataEnd + ((4 - ((dataEnd - headerStart) % 4)) % 4);
      at = checkStart + checkSize(checkType);
      if (at > b.length) corrupt("a block's check is cut short");
      blocks.push({ headerStart, headerSize, dataStart, dataEnd, checkStart, checkType, unpacked });
    }
    // Skip the index (its size is in the footer) and the footer.
    const [records] = readVarint(b, at + 1);
    let p = readVarint(b, at + 1)[1];
    for (let i = 0; i < records; i++) p = readVarint(b, readVarint(b, p)[1])[1];
    p += (4 - ((p - at) % 4)) % 4;
    at = p + 4 + 12;
    if (at > b.length || !FOOTER_MAGIC.every((m, i) => b[at - 2 + i] === m)) corrupt("the stream footer is missing");
  }
  return blocks;
}

// CRC64 (ECMA-182, reflected, as xz uses it), on two 32-bit halves.
const POLY_LO = 0xd7870f42;
const POLY_HI = 0xc96c5795;
const CRC64_LO = new Uint32Array(256);
const CRC64_HI = new Uint32Array(256);
for (let i = 0; i < 256; i++) {
  let lo = i;
  let hi = 0;
  for (let k = 0; k < 8; k++) {
    const bit = lo & 1;
    lo = ((lo >>> 1) | ((hi & 1) << 31)) >>> 0;
    hi = hi >>> 1;
    if (bit) {
      lo = (lo ^ POLY_LO) >>> 0;
      hi = (hi ^ POLY_HI) >>> 0;
    }
  }
  CRC64_LO[i] = lo;
  CRC64_HI[i] = hi;
}

/** The CRC64 of `data` as xz stores it: 8 bytes, little-endian. */
export function crc64(data: Uint8Array): Uint8Array {
  let lo = 0xffffffff;
  let hi = 0xffffffff;
  for (let i = 0; i < data.length; i++) {
    const idx = (lo ^ data[i]) & 0xff;
    lo = (((lo >>> 8) | (hi << 24)) ^ CRC64_LO[idx]) >>> 0;
    hi = ((hi >>> 8) ^ CRC64_HI[idx]) >>> 0;
  }
  const out: number[] = [];
  putU32(out, ~lo >>> 0);
  putU32(out, ~hi >>> 0);
  return Uint8Array.from(out);
}

/**
 * A single-stream xz without check (what the binding writes) rewritten with a CRC64 of `plain`
 * per block, as liblzma writes by default: same compressed data, new flags, checks and index.
 */
export function withCrc64(xz: Uint8Array, plain: Uint8Array): Uint8Array {
  const blocks = xzBlocks(xz);
  if (blocks.some((blk) => blk.checkType !== CHECK_NONE)) return xz;
  const out: number[] = [...MAGIC];
  const flags = [0x00, CHECK_CRC64];
  out.push(...flags);
  putU32(out, crc32(Uint8Array.from(flags)));
  const records: number[] = [];
  let plainAt = 0;
  for (const blk of blocks) {
    for (let i = blk.headerStart; i < blk.checkStart; i++) out.push(xz[i]);
    const part = plain.subarray(plainAt, plainAt + blk.unpacked);
    if (part.length !== blk.unpacked) throw new CorruptChunkError("lzma: the compressed stream does not match its input");
    plainAt += blk.unpacked;
    out.push(...crc64(part));
    writeVarint(records, blk.headerSize + (blk.dataEnd - blk.dataStart) + 8);
    writeVarint(records, blk.unpacked);
  }
  const indexStart = out.length;
  out.push(0x00);
  writeVarint(out, blocks.length);
  out.push(...records);
  while ((out.length - indexStart) % 4 !== 0) out.push(0);
  putU32(out, crc32(Uint8Array.from(out.slice(indexStart))));
  const backward = (out.length - indexStart) / 4 - 1;
  const tail: number[] = [];
  putU32(tail, backward);
  tail.push(...flags);
  putU32(out, crc32(Uint8Array.from(tail)));
  out.push(...tail, ...FOOTER_MAGIC);
  return Uint8Array.from(out);
}

/** Checks every block's CRC32 or CRC64 against the decoded bytes (other check types are skipped). */
export function verifyXzChecks(xz: Uint8Array, blocks: readonly XzBlock[], decoded: Uint8Array): void {
  let at = 0;
  for (const blk of blocks) {
    const part = decoded.subarray(at, at + blk.unpacked);
    at += blk.unpacked;
    if (blk.checkType === CHECK_CRC64) {
      const want = crc64(part);
      if (want.some((v, i) => xz[blk.checkStart + i] !== v)) corrupt("a block's CRC64 does not match its data");
    } else if (blk.checkType === CHECK_CRC32) {
      if (crc32(part) !== u32(xz, blk.checkStart)) corrupt("a block's CRC32 does not match its data");
    }
  }
  if (at !== decoded.length) corrupt(`decoded ${decoded.length} bytes, the stream's blocks say ${at}`);
}
