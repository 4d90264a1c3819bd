/**
 * BloscLZ, c-blosc's FastLZ-derived codec. The stream is a series of tokens:
 *
 * - literal run: a control byte 0..31, then that many plus one literal bytes;
 * - match: a control byte whose top 3 bits L are 1..7 and low 5 bits H the high part of the
 *   distance; when L = 7, length bytes follow (summed, continuing while a byte is 255); then the
 *   low distance byte C. The match length is L + 2 (plus the length bytes), the distance
 *   (H << 8) + C + 1; H = 31 with C = 255 marks a far match whose 16-bit big-endian distance
 *   extension E follows, giving distance E + 8191 + 1.
 *
 * The first control byte carries a format marker in its top 3 bits (masked off when reading) and
 * is always a literal run. c-blosc 1.21's decoder stops, without copying, at a match that ends the
 * input, so a valid stream always ends with a literal run; the compressor below ensures that.
 * Written from the description of the format in c-blosc's blosclz.c, without its code.
 */
import { CorruptChunkError } from "../../errors.js";

const MAX_COPY = 32;
const MAX_DISTANCE = 8191;
/** Largest distance a far match can encode: a 16-bit extension past MAX_DISTANCE. */
const MAX_FAR_DISTANCE = 65535 + MAX_DISTANCE - 1;
const HASH_LOG = 12;
const MIN_MATCH = 4;

function corrupt(what: string): never {
  throw new CorruptChunkError(`blosclz: ${what}`);
}

/**
 * Decodes a BloscLZ stream (all of `src`) into `dest`; returns the number of bytes written, which
 * the caller compares with the size it expects. Throws CorruptChunkError on malformed input or
 * when the output would overflow `dest`.
 */
export function blosclzDecompress(src: Uint8Array, dest: Uint8Array): number {
  const srcEnd = src.length;
  const destEnd = dest.length;
  if (srcEnd === 0) corrupt("empty input");
  let ip = 1;
  let op = 0;
  let ctrl = src[0] & 31;
  for (;;) {
    if (ctrl >= 32) {
      let len = (ctrl >>> 5) - 1;
      const hi = ctrl & 31;
      if (len === 6) {
        let b: number;
        do {
          if (ip >= srcEnd) corrupt("truncated match length");
          b = src[ip++];
          len += b;
        } while (b === 255);
      }
      if (ip >= srcEnd) corrupt("truncated match distance");
      const code = src[ip++];
      len += 3;
      let distance: number;
      if (code === 255 && hi === 31) {
        if (ip + 2 > srcEnd) corrupt("truncated far match distance");
        distance = ((src[ip] << 8) | src[ip + 1]) + MAX_DISTANCE + 1;
        ip += 2;
      } else {
        distance = (hi << 8) + code + 1;
      }
      if (distance > op) corrupt(`match distance ${distance} reaches before the start of the output (at ${op})`);
      const end = op + len;
      if (end > destEnd) corrupt(`output overflow: match needs ${end} bytes, the buffer holds ${destEnd}`);
      let m = op - distance;
      if (distance >= len && len >= 32) {
        dest.copyWithin(op, m, m + len);
        op = end;
      } else if (distance === 1) {
        dest.fill(dest[m], op, end);
        op = end;
      } else {
        while (op < end) dest[op++] = dest[m++];
      }
    } else {
      const len = ctrl + 1;
      const litEnd = ip + len;
      if (litEnd > srcEnd) corrupt(`literal run of ${len} bytes runs past the end of the input`);
      if (op + len > destEnd) corrupt(`output overflow: literals need ${op + len} bytes, the buffer holds ${destEnd}`);
      while (ip < litEnd) dest[op++] = src[ip++];
    }
    if (ip >= srcEnd) return op;
    ctrl = src[ip++];
  }
}

const hashTable = new Int32Array(1 << HASH_LOG);
let probeScratch = new Uint8Array(0);

const hash4 = (v: number): number => Math.imul(v, -1640531535) >>> (32 - HASH_LOG);

function read32(b: Uint8Array, i: number): number {
  return b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
}

/**
 * The core compressor; returns the compressed length, or 0 when the output would pass `limit`.
 * Literal runs are written in place: a control byte is reserved, then patched when the run ends.
 */
function compressCore(src: Uint8Array, n: number, dst: Uint8Array, dstStart: number, limit: number): number {
  const table = hashTable;
  table.fill(-1);
  const ipLimit = n - 12;
  // Matches stop 4 bytes short of the end so the stream always ends with a literal run.
  const matchLimit = n - 4;
  let op = dstStart;
  let anchor = 0;
  let ip = 1;
  // Literal bytes are flushed lazily from [anchor, ip) when a match is emitted or input ends.
  const flushLiterals = (from: number, to: number): boolean => {
    while (from < to) {
      const run = Math.min(MAX_COPY, to - from);
      if (op + 1 + run > limit) return false;
      dst[op++] = run - 1;
      for (let i = 0; i < run; i++) dst[op++] = src[from + i];
      from += run;
    }
    return true;
  };
  let misses = 0;
  while (ip < ipLimit) {
    const seq = read32(src, ip);
    const h = hash4(seq);
    const ref = table[h];
    table[h] = ip;
    const distance = ip - ref;
    if (ref < 0 || distance > MAX_FAR_DISTANCE || read32(src, ref) !== seq) {
      // Skip faster through data that keeps missing, as LZ4 does.
      ip += 1 + (misses++ >>> 5);
      continue;
    }
    misses = 0;
    let len = MIN_MATCH;
    while (ip + len < matchLimit && src[ref + len] === src[ip + len]) len++;
    if (distance > MAX_DISTANCE && len < 6) {
      // A far match costs 4+ bytes; a short one is not worth it.
      ip++;
      continue;
    }
    // ip >= 1 here, so the stream's first token is always a literal run, as the format requires.
    if (!flushLiterals(anchor, ip)) return 0;
    const field = len - 2;
    const d = distance - 1;
    if (d < MAX_DISTANCE) {
      if (op + 3 + Math.floor(field / 255) > limit) return 0;
      if (field < 7) {
        dst[op++] = (field << 5) + (d >>> 8);
      } else {
        dst[op++] = (7 << 5) + (d >>> 8);
        let rest = field - 7;
        for (; rest >= 255; rest -= 255) dst[op++] = 255;
        dst[op++] = rest;
      }
      dst[op++] = d & 255;
    } else {
      const far = d - MAX_DISTANCE;
      if (op + 5 + Math.floor(field / 255) > limit) return 0;
      if (field < 7) {
        dst[op++] = (field << 5) + 31;
      } else {
        dst[op++] = (7 << 5) + 31;
        let rest = field - 7;
        for (; rest >= 255; rest -= 255) dst[op++] = 255;
        dst[op++] = rest;
      }
      dst[op++] = 255;
      dst[op++] = far >>> 8;
      dst[op++] = far & 255;
    }
    ip += len;
    anchor = ip;
    // Index the last two positions of the match so adjacent repeats are found.
    if (ip < ipLimit) {
      table[hash4(read32(src, ip - 2))] = ip - 2;
      table[hash4(read32(src, ip - 1))] = ip - 1;
    }
  }
  if (!flushLiterals(anchor, n)) return 0;
  // The format marker c-blosc writes into the first control byte.
  dst[dstStart] |= 1 << 5;
  return op - dstStart;
}

/** Minimum compression ratio of the first eighth of a stream, per clevel, before compressing it. */
const MIN_PROBE_RATIO = [0, 2, 2, 2, 2, 1.8, 1.6, 1.4, 1.2, 1.1];

/**
 * Compresses `src` as a BloscLZ stream into `dst` at `dstStart`, writing at most `maxOut` bytes.
 * Returns the compressed length, or 0 when the stream should be stored raw: inputs under 16
 * bytes, `maxOut` under 66, output that would not fit, or (as c-blosc 1.21's blosclz does) a
 * first eighth of the input that compresses worse than the clevel's minimum ratio.
 */
export function blosclzCompressInto(src: Uint8Array, dst: Uint8Array, dstStart: number, maxOut: number, clevel: number): number {
  const n = src.length;
  if (n < 16 || maxOut < 66) return 0;
  const level = Math.min(9, Math.max(1, Math.floor(clevel)));
  const probeLen = n >>> 3;
  if (probeLen >= 16) {
    const cap = probeLen + (probeLen >>> 4) + 64;
    if (probeScratch.length < cap) probeScratch = new Uint8Array(cap);
    const csize = compressCore(src.subarray(0, probeLen), probeLen, probeScratch, 0, cap);
    if (csize === 0 || probeLen / csize < MIN_PROBE_RATIO[level]) return 0;
  }
  const limit = Math.min(dst.length, dstStart + maxOut);
  return compressCore(src, n, dst, dstStart, limit);
}

/** Compresses `src` into a new BloscLZ stream; returns null when it does not shrink. */
export function blosclzCompress(src: Uint8Array, clevel = 5): Uint8Array | null {
  const out = new Uint8Array(src.length + Math.floor(src.length / 16) + 66);
  const len = blosclzCompressInto(src, out, 0, src.length, clevel);
  return len === 0 ? null : out.slice(0, len);
}
