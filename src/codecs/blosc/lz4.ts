/**
 * The LZ4 block format (no frame): a sequence of [token, literal-length bytes, literals, 2-byte
 * little-endian offset, match-length bytes], the last sequence being literals only.
 * Written from the format description in lz4's doc/lz4_Block_format.md.
 */
import { CorruptChunkError } from "../../errors.js";
import { runStaged } from "../wasm/wasm.js";

/** Shortest match the format can express. */
const MIN_MATCH = 4;
/** The last 5 bytes of a block are always literals. */
const LAST_LITERALS = 5;
/** The last match starts at least 12 bytes before the end of the block. */
const MF_LIMIT = 12;
const MAX_OFFSET = 65535;
const HASH_LOG = 12;
/**
 * The hash-chain finder's table is larger (LZ4HC's size): with 4096 buckets every bucket's chain
 * is full of unrelated positions, and the search spends its whole budget rejecting them.
 */
const HC_HASH_LOG = 15;
/** Below this literal length a byte loop beats creating a subarray for `set`. */
const SET_THRESHOLD = 24;
/** A hash-chain search stops at a match this long: longer ones gain little, and cost time on runs. */
const NICE_LENGTH = 4096;

/** The most bytes an LZ4 block for `n` input bytes can take (lz4's LZ4_COMPRESSBOUND). */
export function lz4CompressBound(n: number): number {
  return n + Math.floor(n / 255) + 16;
}

function corrupt(what: string): never {
  throw new CorruptChunkError(`lz4: ${what}`);
}

/**
 * Decodes one LZ4 block from all of `src` into `dest`, which must have room for the whole output;
 * returns the number of bytes written. Throws CorruptChunkError on truncated or malformed input
 * or when the output would not fit in `dest`. Bytes of `dest` past the returned length may be
 * overwritten (the fast path copies in whole words), but nothing outside `dest` ever is.
 */
export function lz4DecompressBlock(src: Uint8Array, dest: Uint8Array): number {
  if (dest.length >= WASM_DECODE_FROM) {
    // The WebAssembly kernel (../wasm/kernels.c) decodes about twice as fast; the two copies cost less.
    const n = runStaged(src, dest.length, dest, 0, (k, outAt) => k.lz4Decompress(0, src.length, outAt, dest.length));
    // Null: no kernels; negative: malformed, and the JavaScript decoder says what is wrong.
    if (n !== null && n >= 0) return n;
  }
  return lz4DecompressBlockJs(src, dest);
}

/** Below this many output bytes the JavaScript decoder runs: the copies would cost more. */
const WASM_DECODE_FROM = 64 * 1024;

/** lz4DecompressBlock in JavaScript only (runtimes without WASM SIMD, small blocks, tests). */
export function lz4DecompressBlockJs(src: Uint8Array, dest: Uint8Array): number {
  const srcEnd = src.length;
  const destEnd = dest.length;
  if (srcEnd === 0) corrupt("empty input (a block holds at least one token)");
  const sv = new DataView(src.buffer, src.byteOffset, srcEnd);
  const dv = new DataView(dest.buffer, dest.byteOffset, destEnd);
  // A short sequence starting before these limits reads at most 16 bytes past `ip` and writes at
  // most 14 + 24 bytes past `op`, so it needs no bounds checks and cannot end the block.
  const fastSrcLimit = srcEnd - 24;
  const fastDestLimit = destEnd - 48;
  let ip = 0;
  let op = 0;
  for (;;) {
    const token = src[ip++];
    let litLen = token >>> 4;
    let matchLen = token & 15;
    if (litLen !== 15 && matchLen !== 15 && ip < fastSrcLimit && op < fastDestLimit) {
      // Most sequences in shuffled numeric data are like this: a few literals, a short match.
      // Copying whole 32-bit words (the excess is overwritten by what follows) beats byte loops.
      dv.setUint32(op, sv.getUint32(ip, true), true);
      dv.setUint32(op + 4, sv.getUint32(ip + 4, true), true);
      if (litLen > 8) {
        dv.setUint32(op + 8, sv.getUint32(ip + 8, true), true);
        dv.setUint32(op + 12, sv.getUint32(ip + 12, true), true);
      }
      op += litLen;
      ip += litLen;
      const offset = src[ip] | (src[ip + 1] << 8);
      ip += 2;
      if (offset === 0 || offset > op) badOffset(offset, op);
      let m = op - offset;
      const end = op + matchLen + MIN_MATCH;
      if (offset >= 8) {
        do {
          dv.setUint32(op, dv.getUint32(m, true), true);
          dv.setUint32(op + 4, dv.getUint32(m + 4, true), true);
          op += 8;
          m += 8;
        } while (op < end);
      } else if (offset >= 4) {
        // Word copies stay correct for overlapping matches as long as a word never reads bytes
        // it has not yet written, i.e. offset >= 4.
        do {
          dv.setUint32(op, dv.getUint32(m, true), true);
          op += 4;
          m += 4;
        } while (op < end);
      } else {
        while (op < end) dest[op++] = dest[m++];
      }
      op = end;
      continue;
    }
    if (litLen === 15) {
      let b: number;
      do {
        if (ip >= srcEnd) corrupt("truncated literal length");
        b = src[ip++];
        litLen += b;
      } while (b === 255);
    }
    if (litLen !== 0) {
      const litEnd = ip + litLen;
      if (litEnd > srcEnd) corrupt(`literal run of ${litLen} bytes runs past the end of the input`);
      if (op + litLen > destEnd) corrupt(`output overflow: literals need ${op + litLen} bytes, the buffer holds ${destEnd}`);
      if (litLen < SET_THRESHOLD) {
        while (ip < litEnd) dest[op++] = src[ip++];
      } else {
        dest.set(src.subarray(ip, litEnd), op);
        op += litLen;
        ip = litEnd;
      }
    }
    if (ip === srcEnd) return op;
    if (ip + 2 > srcEnd) corrupt("truncated match offset");
    const offset = src[ip] | (src[ip + 1] << 8);
    ip += 2;
    if (offset === 0 || offset > op) badOffset(offset, op);
    if (matchLen === 15) {
      let b: number;
      do {
        if (ip >= srcEnd) corrupt("truncated match length");
        b = src[ip++];
        matchLen += b;
      } while (b === 255);
    }
    matchLen += MIN_MATCH;
    const matchEnd = op + matchLen;
    if (matchEnd > destEnd) corrupt(`output overflow: match needs ${matchEnd} bytes, the buffer holds ${destEnd}`);
    let m = op - offset;
    if (matchLen < 32) {
      // Short matches, overlapping or not: a byte loop copies LZ77-style (repeating the pattern).
      while (op < matchEnd) dest[op++] = dest[m++];
    } else if (offset >= matchLen) {
      dest.copyWithin(op, m, m + matchLen);
      op = matchEnd;
    } else {
      // Long overlapping match (a run): copy what exists, then double the copied span each step.
      while (op < matchEnd) {
        const n = Math.min(op - m, matchEnd - op);
        dest.copyWithin(op, m, m + n);
        op += n;
      }
    }
    if (ip >= srcEnd) corrupt("block ends with a match (the last sequence must be literals only)");
  }
}

function badOffset(offset: number, op: number): never {
  corrupt(offset === 0 ? "match offset 0" : `match offset ${offset} reaches before the start of the output (at ${op})`);
}

// Reused across calls: compression is synchronous, so no two calls share it at once.
const hashTable = new Int32Array(1 << HASH_LOG);
let chainTable: Int32Array | null = null;
let hcHashTable: Int32Array | null = null;

const hash4 = (v: number, log: number): number => Math.imul(v, -1640531535) >>> (32 - log);

function read32(b: Uint8Array, i: number): number {
  return b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
}

/** Emits the last literals; returns the new output position or -1 when `limit` is exceeded. */
function writeLastLiterals(src: Uint8Array, anchor: number, end: number, dst: Uint8Array, op: number, limit: number): number {
  const litLen = end - anchor;
  if (op + 1 + litLen + Math.floor((litLen + 240) / 255) > limit) return -1;
  if (litLen >= 15) {
    dst[op++] = 15 << 4;
    let l = litLen - 15;
    for (; l >= 255; l -= 255) dst[op++] = 255;
    dst[op++] = l;
  } else {
    dst[op++] = litLen << 4;
  }
  dst.set(src.subarray(anchor, end), op);
  return op + litLen;
}

/** Emits one sequence; returns the new output position or -1 when `limit` is exceeded. */
function writeSequence(
  src: Uint8Array,
  anchor: number,
  ip: number,
  offset: number,
  matchLen: number,
  dst: Uint8Array,
  op: number,
  limit: number,
): number {
  const litLen = ip - anchor;
  const ml = matchLen - MIN_MATCH;
  const need = 1 + litLen + Math.floor((litLen + 240) / 255) + 2 + Math.floor((ml + 240) / 255);
  if (op + need > limit) return -1;
  const tokenPos = op++;
  let token: number;
  if (litLen >= 15) {
    token = 15 << 4;
    let l = litLen - 15;
    for (; l >= 255; l -= 255) dst[op++] = 255;
    dst[op++] = l;
  } else {
    token = litLen << 4;
  }
  if (litLen < SET_THRESHOLD) {
    for (let i = anchor; i < ip; i++) dst[op++] = src[i];
  } else {
    dst.set(src.subarray(anchor, ip), op);
    op += litLen;
  }
  dst[op++] = offset & 255;
  dst[op++] = offset >>> 8;
  if (ml >= 15) {
    token |= 15;
    let l = ml - 15;
    for (; l >= 255; l -= 255) dst[op++] = 255;
    dst[op++] = l;
  } else {
    token |= ml;
  }
  dst[tokenPos] = token;
  return op;
}

/**
 * Compresses `src` as one LZ4 block into `dst` starting at `dstStart`, writing at most `maxOut`
 * bytes. Returns the compressed length, or 0 when the block does not fit in `maxOut` (the contract
 * of lz4's limited-output mode, which c-blosc relies on to detect incompressible streams).
 *
 * `acceleration` >= 1 trades ratio for speed as in LZ4_compress_fast. `chainDepth` > 0 switches to
 * a hash-chain match finder that tries up to that many earlier positions per step; parzarr uses it
 * for blosc's "lz4hc" (LZ4_compress_HC's output format is plain LZ4, so any match finder is valid).
 */
export function lz4CompressInto(
  src: Uint8Array,
  dst: Uint8Array,
  dstStart: number,
  maxOut: number,
  acceleration = 1,
  chainDepth = 0,
): number {
  if (chainDepth === 0 && src.length >= WASM_FROM) {
    // The fast mode has a WebAssembly twin (../wasm/kernels.c) that writes the same bytes 2-3x faster;
    // staging the input in its memory and copying the block out cost far less than that.
    const room = Math.max(0, Math.min(dst.length, dstStart + maxOut) - dstStart);
    const accel = Math.max(1, Math.floor(acceleration)) | 0;
    const len = runStaged(src, room, dst, dstStart, (k, outAt) => k.lz4Compress(0, src.length, outAt, room, accel));
    if (len !== null) return len;
  }
  return lz4CompressIntoJs(src, dst, dstStart, maxOut, acceleration, chainDepth);
}

/** Below this many input bytes the JavaScript compressor runs: the copies would cost more. */
const WASM_FROM = 1024;

/** lz4CompressInto in JavaScript only (the hash-chain mode, runtimes without WASM SIMD, tests). */
export function lz4CompressIntoJs(
  src: Uint8Array,
  dst: Uint8Array,
  dstStart: number,
  maxOut: number,
  acceleration = 1,
  chainDepth = 0,
): number {
  const n = src.length;
  const limit = Math.min(dst.length, dstStart + maxOut);
  let op = dstStart;
  let anchor = 0;
  if (n >= MF_LIMIT + 1) {
    const matchLimit = n - LAST_LITERALS;
    const mfLimit = n - MF_LIMIT;
    const accel = Math.max(1, Math.floor(acceleration)) | 0;
    let chain: Int32Array | null = null;
    let table: Int32Array = hashTable;
    if (chainDepth > 0) {
      chain = chainTable ??= new Int32Array(MAX_OFFSET + 1);
      table = hcHashTable ??= new Int32Array(1 << HC_HASH_LOG);
    }
    table.fill(-1);
    // Positions below `inserted` are in the hash table (chain mode inserts every position).
    let inserted = 0;
    const insert = (upTo: number): void => {
      for (; inserted < upTo; inserted++) {
        const h = hash4(read32(src, inserted), HC_HASH_LOG);
        chain![inserted & MAX_OFFSET] = table[h];
        table[h] = inserted;
      }
    };
    let ip = 1;
    if (!chain) table[hash4(read32(src, 0), HASH_LOG)] = 0;
    outer: while (ip <= mfLimit) {
      let ref = -1;
      let matchLen = 0;
      if (chain) {
        // Hash-chain search: the longest match among the last `chainDepth` candidates.
        let best = 0;
        let bestRef = -1;
        // After long runs without a match (noisy mantissa bytes) the search steps further each
        // time and stops indexing the skipped positions, as LZ4's fast mode does; a match resets it.
        let misses = 0;
        while (ip <= mfLimit) {
          insert(ip);
          const seq = read32(src, ip);
          let cand = table[hash4(seq, HC_HASH_LOG)];
          let tries = chainDepth;
          while (cand >= 0 && ip - cand <= MAX_OFFSET && tries-- > 0) {
            if (src[cand + best] === src[ip + best] && read32(src, cand) === seq) {
              let len = MIN_MATCH;
              while (ip + len < matchLimit && src[cand + len] === src[ip + len]) len++;
              if (len > best) {
                best = len;
                bestRef = cand;
                if (len >= NICE_LENGTH || ip + len >= matchLimit) break;
              }
            }
            const next = chain[cand & MAX_OFFSET];
            if (next >= cand) break;
            cand = next;
          }
          if (bestRef >= 0) break;
          const step = 1 + (misses++ >>> 5);
          if (step > 1) {
            insert(ip + 1);
            inserted = ip + step;
          }
          ip += step;
        }
        if (bestRef < 0) break outer;
        ref = bestRef;
        matchLen = best;
      } else {
        // Greedy single-probe search; the step grows while nothing matches (LZ4's skip heuristic).
        let searchCount = accel << 6;
        let step = accel;
        for (;;) {
          const seq = read32(src, ip);
          const h = hash4(seq, HASH_LOG);
          const cand = table[h];
          table[h] = ip;
          if (cand >= 0 && ip - cand <= MAX_OFFSET && read32(src, cand) === seq) {
            ref = cand;
            break;
          }
          ip += step;
          step = searchCount++ >>> 6;
          if (ip > mfLimit) break outer;
        }
        matchLen = MIN_MATCH;
        while (ip + matchLen < matchLimit && src[ref + matchLen] === src[ip + matchLen]) matchLen++;
      }
      // Extend backwards over literals that also match.
      while (ip > anchor && ref > 0 && src[ip - 1] === src[ref - 1]) {
        ip--;
        ref--;
        matchLen++;
      }
      op = writeSequence(src, anchor, ip, ip - ref, matchLen, dst, op, limit);
      if (op < 0) return 0;
      ip += matchLen;
      anchor = ip;
      if (ip > mfLimit) break;
      if (!chain) {
        // Index a position inside the match so the next search can find nearby repeats.
        table[hash4(read32(src, ip - 2), HASH_LOG)] = ip - 2;
      }
    }
  }
  op = writeLastLiterals(src, anchor, n, dst, op, limit);
  if (op < 0) return 0;
  return op - dstStart;
}

/**
 * Compresses `src` into a new LZ4 block readable by any LZ4 block decoder. `acceleration` >= 1
 * trades ratio for speed as in LZ4_compress_fast.
 */
export function lz4CompressBlock(src: Uint8Array, acceleration = 1): Uint8Array {
  const out = new Uint8Array(lz4CompressBound(src.length));
  const len = lz4CompressInto(src, out, 0, out.length, acceleration);
  return out.slice(0, len);
}
