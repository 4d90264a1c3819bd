/**
 * The ZIP file format (APPNOTE 6.3), as much of it as a store needs: the end records (with
 * ZIP64), central directory entries and local headers, read and written. Pure functions over
 * bytes; the file I/O lives in zip.ts.
 */
import { readU64 } from "../u64.js";

export const SIG_LOCAL = 0x04034b50;
export const SIG_CENTRAL = 0x02014b50;
export const SIG_END = 0x06054b50;
export const SIG_END64 = 0x06064b50;
export const SIG_LOCATOR64 = 0x07064b50;
export const LOCAL_HEADER_SIZE = 30;
export const END_SIZE = 22;
const CENTRAL_SIZE = 46;
export const END64_SIZE = 56;
export const LOCATOR64_SIZE = 20;
const U16 = 0xffff;
const U32 = 0xffffffff;
const FLAG_UTF8 = 0x800;

/** A member as the central directory describes it. */
export interface ZipEntry {
  name: string;
  /** 0 = stored, 8 = deflate. */
  method: number;
  flags: number;
  crc: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
}

/** Where the central directory lies, from the end records. */
export interface CentralDirectoryLocation {
  offset: number;
  size: number;
  entries: number;
  /** Where the end records start: a file being appended to is cut back here. */
  endOffset: number;
}

/** A malformed archive; the message says what is wrong, the caller adds the file name. */
export class ZipFormatError extends Error {}

function view(b: Uint8Array): DataView {
  return new DataView(b.buffer, b.byteOffset, b.byteLength);
}

function u64(b: Uint8Array, at: number): number {
  const v = readU64(b, at);
  if (v > Number.MAX_SAFE_INTEGER) throw new ZipFormatError(`a 64-bit field holds ${v}, beyond what this reader addresses`);
  return v;
}

/**
 * Finds the end of central directory record in the file's tail (`tail` is the last bytes of a
 * file of `fileSize` bytes, at most 22 + 65535 of them: the record plus the longest comment).
 * Returns the location, or asks for the ZIP64 end record at `zip64At` when the record says so.
 */
export function parseEndRecord(
  tail: Uint8Array,
  fileSize: number,
): { kind: "done"; location: CentralDirectoryLocation } | { kind: "zip64"; locatorAt: number; endOffset: number } {
  const dv = view(tail);
  const tailStart = fileSize - tail.length;
  for (let i = tail.length - END_SIZE; i >= 0; i--) {
    if (dv.getUint32(i, true) !== SIG_END) continue;
    const commentLength = dv.getUint16(i + 20, true);
    if (i + END_SIZE + commentLength > tail.length) continue;
    const disk = dv.getUint16(i + 4, true);
    const cdDisk = dv.getUint16(i + 6, true);
    const entries = dv.getUint16(i + 10, true);
    const size = dv.getUint32(i + 12, true);
    const offset = dv.getUint32(i + 16, true);
    const endOffset = tailStart + i;
    if (entries === U16 || size === U32 || offset === U32) {
      return { kind: "zip64", locatorAt: endOffset - LOCATOR64_SIZE, endOffset };
    }
    if (disk !== 0 || cdDisk !== 0) throw new ZipFormatError("multi-disk archives are not supported");
    if (offset + size > endOffset) {
      throw new ZipFormatError(`the central directory (offset ${offset}, ${size} bytes) runs past its end record at ${endOffset}`);
    }
    return { kind: "done", location: { offset, size, entries, endOffset } };
  }
  throw new ZipFormatError("no end of central directory record: not a zip file, or a truncated one");
}

/** The ZIP64 locator (20 bytes): where the ZIP64 end record is. */
export function parseLocator64(bytes: Uint8Array): number {
  const dv = view(bytes);
  if (bytes.length < LOCATOR64_SIZE || dv.getUint32(0, true) !== SIG_LOCATOR64) {
    throw new ZipFormatError("the end record asks for ZIP64 but no ZIP64 locator precedes it");
  }
  return u64(bytes, 8);
}

/** The ZIP64 end of central directory record (56 bytes at least). */
export function parseEnd64(bytes: Uint8Array, endOffset: number): CentralDirectoryLocation {
  const dv = view(bytes);
  if (bytes.length < END64_SIZE || dv.getUint32(0, true) !== SIG_END64) throw new ZipFormatError("the ZIP64 end record is missing or malformed");
  const entries = u64(bytes, 32);
  const size = u64(bytes, 40);
  const offset = u64(bytes, 48);
  return { offset, size, entries, endOffset };
}

/** Every entry of a central directory. */
export function parseCentralDirectory(cd: Uint8Array, expected: number): ZipEntry[] {
  const dv = view(cd);
  const out: ZipEntry[] = [];
  const decoder = new TextDecoder("utf-8", { fatal: false });
  let p = 0;
  while (p < cd.length) {
    if (p + CENTRAL_SIZE > cd.length || dv.getUint32(p, true) !== SIG_CENTRAL) {
      throw new ZipFormatError(`central directory entry ${out.length} at byte ${p} is malformed (bad signature or truncated)`);
    }
    const flags = dv.getUint16(p + 8, true);
    const method = dv.getUint16(p + 10, true);
    const crc = dv.getUint32(p + 16, true);
    let compressedSize = dv.getUint32(p + 20, true);
    let size = dv.getUint32(p + 24, true);
    const nameLength = dv.getUint16(p + 28, true);
    const extraLength = dv.getUint16(p + 30, true);
    const commentLength = dv.getUint16(p + 32, true);
    let localHeaderOffset = dv.getUint32(p + 42, true);
    const end = p + CENTRAL_SIZE + nameLength + extraLength + commentLength;
    if (end > cd.length) throw new ZipFormatError(`central directory entry ${out.length} runs past the directory's end`);
    const nameBytes = cd.subarray(p + CENTRAL_SIZE, p + CENTRAL_SIZE + nameLength);
    // Names without the UTF-8 flag are CP437; zarr keys are ASCII, where the two agree.
    const name = decoder.decode(nameBytes);
    // ZIP64 extra field: the 64-bit values of the fields set to 0xffffffff, in this order.
    let e = p + CENTRAL_SIZE + nameLength;
    const extraEnd = e + extraLength;
    while (e + 4 <= extraEnd) {
      const id = dv.getUint16(e, true);
      const len = dv.getUint16(e + 2, true);
      if (id === 0x0001) {
        let q = e + 4;
        // Bounded by the extra area too: a hostile len must not read sizes from the comment or the next entry.
        const fieldEnd = Math.min(e + 4 + len, extraEnd);
        const take = (): number => {
          if (q + 8 > fieldEnd) throw new ZipFormatError(`the ZIP64 field of "${name}" is too short`);
          const v = u64(cd, q);
          q += 8;
          return v;
        };
        if (size === U32) size = take();
        if (compressedSize === U32) compressedSize = take();
        if (localHeaderOffset === U32) localHeaderOffset = take();
      }
      e += 4 + len;
    }
    out.push({ name, method, flags, crc, compressedSize, size, localHeaderOffset });
    p = end;
  }
  if (out.length !== expected && expected !== U16) {
    throw new ZipFormatError(`the central directory holds ${out.length} entries but its end record says ${expected}`);
  }
  return out;
}

/** Where a member's data starts, from its local header (whose extra field may differ). */
export function dataOffsetFromLocalHeader(header: Uint8Array, entry: ZipEntry): number {
  const dv = view(header);
  if (header.length < LOCAL_HEADER_SIZE || dv.getUint32(0, true) !== SIG_LOCAL) {
    throw new ZipFormatError(`the local header of "${entry.name}" at ${entry.localHeaderOffset} is missing or malformed`);
  }
  return entry.localHeaderOffset + LOCAL_HEADER_SIZE + dv.getUint16(26, true) + dv.getUint16(28, true);
}

// ---------------------------------------------------------------------------------------------
// Writing

function dosDateTime(d: Date): { time: number; date: number } {
  const year = Math.max(1980, d.getFullYear());
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | (d.getSeconds() >> 1),
    date: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

const encoder = new TextEncoder();
const isAscii = (s: string): boolean => /^[\x00-\x7f]*$/.test(s);

export interface WrittenEntry extends ZipEntry {
  modified: Date;
}

/** A local header for a stored member whose size and CRC are known up front (no data descriptor). */
export function localHeader(entry: WrittenEntry, forceZip64: boolean): Uint8Array {
  const name = encoder.encode(entry.name);
  const zip64 = forceZip64 || entry.size >= U32 || entry.compressedSize >= U32;
  const extra = zip64 ? 20 : 0;
  const b = new Uint8Array(LOCAL_HEADER_SIZE + name.length + extra);
  const dv = view(b);
  const { time, date } = dosDateTime(entry.modified);
  dv.setUint32(0, SIG_LOCAL, true);
  dv.setUint16(4, zip64 ? 45 : 20, true);
  dv.setUint16(6, isAscii(entry.name) ? 0 : FLAG_UTF8, true);
  dv.setUint16(8, entry.method, true);
  dv.setUint16(10, time, true);
  dv.setUint16(12, date, true);
  dv.setUint32(14, entry.crc, true);
  dv.setUint32(18, zip64 ? U32 : entry.compressedSize, true);
  dv.setUint32(22, zip64 ? U32 : entry.size, true);
  dv.setUint16(26, name.length, true);
  dv.setUint16(28, extra, true);
  b.set(name, LOCAL_HEADER_SIZE);
  if (zip64) {
    const at = LOCAL_HEADER_SIZE + name.length;
    dv.setUint16(at, 0x0001, true);
    dv.setUint16(at + 2, 16, true);
    dv.setBigUint64(at + 4, BigInt(entry.size), true);
    dv.setBigUint64(at + 12, BigInt(entry.compressedSize), true);
  }
  return b;
}

function centralEntry(entry: WrittenEntry, forceZip64: boolean): Uint8Array {
  const name = encoder.encode(entry.name);
  const big = [entry.size, entry.compressedSize, entry.localHeaderOffset].map((v) => forceZip64 || v >= U32);
  const extraValues = [entry.size, entry.compressedSize, entry.localHeaderOffset].filter((_, i) => big[i]);
  const extra = extraValues.length ? 4 + 8 * extraValues.length : 0;
  const b = new Uint8Array(CENTRAL_SIZE + name.length + extra);
  const dv = view(b);
  const { time, date } = dosDateTime(entry.modified);
  dv.setUint32(0, SIG_CENTRAL, true);
  dv.setUint16(4, (3 << 8) | 45, true); // made by: Unix, spec 4.5
  dv.setUint16(6, extraValues.length ? 45 : 20, true);
  dv.setUint16(8, isAscii(entry.name) ? 0 : FLAG_UTF8, true);
  dv.setUint16(10, entry.method, true);
  dv.setUint16(12, time, true);
  dv.setUint16(14, date, true);
  dv.setUint32(16, entry.crc, true);
  dv.setUint32(20, big[1] ? U32 : entry.compressedSize, true);
  dv.setUint32(24, big[0] ? U32 : entry.size, true);
  dv.setUint16(28, name.length, true);
  dv.setUint16(30, extra, true);
  dv.setUint32(38, (0o100644 << 16) >>> 0, true); // a regular file, rw-r--r--
  dv.setUint32(42, big[2] ? U32 : entry.localHeaderOffset, true);
  b.set(name, CENTRAL_SIZE);
  if (extra) {
    let at = CENTRAL_SIZE + name.length;
    dv.setUint16(at, 0x0001, true);
    dv.setUint16(at + 2, 8 * extraValues.length, true);
    at += 4;
    for (const v of extraValues) {
      dv.setBigUint64(at, BigInt(v), true);
      at += 8;
    }
  }
  return b;
}

/** The central directory and end records for members written from byte 0 up to `cdOffset`. */
export function centralDirectoryAndEnd(entries: readonly WrittenEntry[], cdOffset: number, forceZip64: boolean): Uint8Array {
  const parts = entries.map((e) => centralEntry(e, forceZip64));
  const cdSize = parts.reduce((n, p) => n + p.length, 0);
  const zip64 = forceZip64 || entries.length >= U16 || cdSize >= U32 || cdOffset >= U32;
  const total = cdSize + (zip64 ? END64_SIZE + LOCATOR64_SIZE : 0) + END_SIZE;
  const out = new Uint8Array(total);
  const dv = view(out);
  let p = 0;
  for (const part of parts) {
    out.set(part, p);
    p += part.length;
  }
  if (zip64) {
    const end64At = cdOffset + p;
    dv.setUint32(p, SIG_END64, true);
    dv.setBigUint64(p + 4, BigInt(END64_SIZE - 12), true);
    dv.setUint16(p + 12, (3 << 8) | 45, true);
    dv.setUint16(p + 14, 45, true);
    dv.setBigUint64(p + 24, BigInt(entries.length), true);
    dv.setBigUint64(p + 32, BigInt(entries.length), true);
    dv.setBigUint64(p + 40, BigInt(cdSize), true);
    dv.setBigUint64(p + 48, BigInt(cdOffset), true);
    p += END64_SIZE;
    dv.setUint32(p, SIG_LOCATOR64, true);
    dv.setBigUint64(p + 8, BigInt(end64At), true);
    dv.setUint32(p + 16, 1, true);
    p += LOCATOR64_SIZE;
  }
  dv.setUint32(p, SIG_END, true);
  dv.setUint16(p + 8, zip64 ? U16 : entries.length, true);
  dv.setUint16(p + 10, zip64 ? U16 : entries.length, true);
  dv.setUint32(p + 12, zip64 ? U32 : cdSize, true);
  dv.setUint32(p + 16, zip64 ? U32 : cdOffset, true);
  return out;
}
