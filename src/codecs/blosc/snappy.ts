/**
 * Snappy raw-block decompression (the "snappy" compressor inside blosc chunks), written from
 * snappy's format_description.txt: a varint of the uncompressed length, then elements whose tag's
 * low two bits say literal (00), copy with 1-byte offset (01), 2-byte offset (10) or 4-byte
 * offset (11). Encoding is not offered: zarr-python deprecates snappy in blosc.
 */
import { CorruptChunkError, UnsupportedError } from "../../errors.js";

function corrupt(what: string): never {
  throw new CorruptChunkError(`snappy: ${what}`);
}

/** The uncompressed length stored at the start of a snappy block, and the varint's size. */
export function snappyUncompressedLength(src: Uint8Array): { length: number; headerBytes: number } {
  let result = 0;
  let shift = 0;
  for (let i = 0; i < 5; i++) {
    if (i >= src.length) corrupt("truncated length preamble");
    const b = src[i];
    result += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) {
      if (result > 0xffffffff) corrupt("length preamble exceeds 32 bits");
      return { length: result, headerBytes: i + 1 };
    }
    shift += 7;
  }
  corrupt("length preamble longer than 5 bytes");
}

/**
 * Decodes a snappy block into `dest`, whose length must equal the block's declared uncompressed
 * length; returns the number of bytes written.
 */
export function snappyDecompress(src: Uint8Array, dest: Uint8Array): number {
  const { length, headerBytes } = snappyUncompressedLength(src);
  if (length !== dest.length) corrupt(`block declares ${length} bytes, ${dest.length} expected`);
  const srcEnd = src.length;
  let ip = headerBytes;
  let op = 0;
  while (ip < srcEnd) {
    const tag = src[ip++];
    const kind = tag & 3;
    if (kind === 0) {
      let len = tag >>> 2;
      if (len >= 60) {
        const extra = len - 59;
        if (ip + extra > srcEnd) corrupt("truncated literal length");
        len = 0;
        for (let i = 0; i < extra; i++) len += src[ip + i] * 2 ** (8 * i);
        ip += extra;
      }
      len += 1;
      if (ip + len > srcEnd) corrupt(`literal of ${len} bytes runs past the end of the input`);
      if (op + len > length) corrupt("literal overflows the declared length");
      if (len < 24) {
        for (let i = 0; i < len; i++) dest[op++] = src[ip++];
      } else {
        dest.set(src.subarray(ip, ip + len), op);
        op += len;
        ip += len;
      }
      continue;
    }
    let len: number;
    let offset: number;
    if (kind === 1) {
      if (ip >= srcEnd) corrupt("truncated copy offset");
      len = 4 + ((tag >>> 2) & 7);
      offset = ((tag >>> 5) << 8) | src[ip++];
    } else if (kind === 2) {
      if (ip + 2 > srcEnd) corrupt("truncated copy offset");
      len = (tag >>> 2) + 1;
      offset = src[ip] | (src[ip + 1] << 8);
      ip += 2;
    } else {
      if (ip + 4 > srcEnd) corrupt("truncated copy offset");
      len = (tag >>> 2) + 1;
      offset = (src[ip] | (src[ip + 1] << 8) | (src[ip + 2] << 16) | (src[ip + 3] << 24)) >>> 0;
      ip += 4;
    }
    if (offset === 0 || offset > op) corrupt(`copy offset ${offset} is invalid at output position ${op}`);
    if (op + len > length) corrupt("copy overflows the declared length");
    let m = op - offset;
    const end = op + len;
    if (offset >= len) {
      dest.copyWithin(op, m, m + len);
      op = end;
    } else {
      while (op < end) dest[op++] = dest[m++];
    }
  }
  if (op !== length) corrupt(`decoded ${op} bytes, the block declares ${length}`);
  return op;
}

/** Always throws: snappy encoding is not offered. */
export function snappyCompress(_src: Uint8Array): never {
  throw new UnsupportedError('blosc: encoding with cname "snappy" is not supported (zarr-python deprecates it); use "lz4", "zstd", "blosclz" or "zlib"');
}
