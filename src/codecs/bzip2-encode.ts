/**
 * A bzip2 compressor. compressjs's encoder is correct but runs at about 100 kB/s; this one writes
 * the same standard format at a few MB/s: run-length step 1, a Burrows-Wheeler transform by prefix
 * doubling with radix sorts (no worst case on repetitive data), move-to-front with RUNA/RUNB zero
 * runs, and two identical length-limited Huffman tables (the format's minimum). Its streams are
 * not byte-identical to libbz2's (which picks up to six tables); any bzip2 reader decodes them.
 */
import { huffmanLengths } from "./huffman.js";
import { CRC_TABLE } from "./bzip2-crc.js";

class BitWriter {
  private buf = new Uint8Array(1 << 16);
  private pos = 0;
  private acc = 0;
  private n = 0;

  /** Writes the low `count` bits of `value` (count <= 24), most significant first. */
  bits(count: number, value: number): void {
    this.acc = (this.acc << count) | (value & ((1 << count) - 1));
    this.n += count;
    while (this.n >= 8) {
      this.n -= 8;
      if (this.pos === this.buf.length) {
        const grown = new Uint8Array(this.buf.length * 2);
        grown.set(this.buf);
        this.buf = grown;
      }
      this.buf[this.pos++] = (this.acc >>> this.n) & 0xff;
    }
    this.acc &= (1 << this.n) - 1;
  }

  u32(v: number): void {
    this.bits(16, v >>> 16);
    this.bits(16, v & 0xffff);
  }

  finish(): Uint8Array {
    if (this.n > 0) this.bits(8 - this.n, 0);
    return this.buf.slice(0, this.pos);
  }
}


function blockCrc(b: Uint8Array, start: number, end: number): number {
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = (c << 8) ^ CRC_TABLE[((c >>> 24) ^ b[i]) & 0xff];
  return ~c >>> 0;
}

/** Run-length step 1 from `start` until the output would pass `limit`; returns the input end. */
function rle1(src: Uint8Array, start: number, out: Uint8Array, limit: number): { end: number; length: number } {
  let i = start;
  let o = 0;
  while (i < src.length && o + 5 <= limit) {
    const b = src[i];
    let run = 1;
    while (run < 255 && i + run < src.length && src[i + run] === b) run++;
    if (run >= 4) {
      out[o] = out[o + 1] = out[o + 2] = out[o + 3] = b;
      out[o + 4] = run - 4;
      o += 5;
    } else {
      for (let k = 0; k < run; k++) out[o++] = b;
    }
    i += run;
  }
  return { end: i, length: o };
}

/** Sorted order of the cyclic rotations of `s` (prefix doubling, counting sorts). */
function sortRotations(s: Uint8Array, n: number): Int32Array {
  const sa = new Int32Array(n);
  let rank = new Int32Array(n);
  let next = new Int32Array(n);
  const tmp = new Int32Array(n);
  const count = new Int32Array(Math.max(256, n) + 1);
  for (let i = 0; i < n; i++) count[s[i] + 1]++;
  for (let c = 1; c <= 256; c++) count[c] += count[c - 1];
  for (let i = 0; i < n; i++) sa[count[s[i]]++] = i;
  let classes = 1;
  rank[sa[0]] = 0;
  for (let j = 1; j < n; j++) {
    if (s[sa[j]] !== s[sa[j - 1]]) classes++;
    rank[sa[j]] = classes - 1;
  }
  for (let k = 1; k < n && classes < n; k <<= 1) {
    // Rotations ordered by their second half are those ordered by the first, shifted back by k.
    for (let j = 0; j < n; j++) {
      let p = sa[j] - k;
      if (p < 0) p += n;
      tmp[j] = p;
    }
    count.fill(0, 0, classes + 1);
    for (let j = 0; j < n; j++) count[rank[tmp[j]] + 1]++;
    for (let c = 1; c <= classes; c++) count[c] += count[c - 1];
    for (let j = 0; j < n; j++) sa[count[rank[tmp[j]]]++] = tmp[j];
    next[sa[0]] = 0;
    classes = 1;
    for (let j = 1; j < n; j++) {
      const a = sa[j];
      const b = sa[j - 1];
      let a2 = a + k;
      if (a2 >= n) a2 -= n;
      let b2 = b + k;
      if (b2 >= n) b2 -= n;
      if (rank[a] !== rank[b] || rank[a2] !== rank[b2]) classes++;
      next[a] = classes - 1;
    }
    const t = rank;
    rank = next;
    next = t;
  }
  return sa;
}

function writeBlock(out: BitWriter, block: Uint8Array, n: number, crc: number): void {
  const sa = sortRotations(block, n);
  let origPtr = 0;
  const last = new Uint8Array(n);
  for (let j = 0; j < n; j++) {
    const p = sa[j];
    if (p === 0) origPtr = j;
    last[j] = block[p === 0 ? n - 1 : p - 1];
  }
  // Symbols: the bytes in use, in order; MTF indices with zero runs as RUNA (0) / RUNB (1).
  const inUse = new Uint8Array(256);
  for (let i = 0; i < n; i++) inUse[last[i]] = 1;
  const seqOf = new Int32Array(256);
  const mtf: number[] = [];
  for (let b = 0; b < 256; b++) if (inUse[b]) {
    seqOf[b] = mtf.length;
    mtf.push(mtf.length);
  }
  const nInUse = mtf.length;
  const eob = nInUse + 1;
  const syms = new Uint16Array(2 * n + 2);
  let ns = 0;
  let zeros = 0;
  const flushZeros = () => {
    let r = zeros - 1;
    for (;;) {
      syms[ns++] = r & 1 ? 1 : 0;
      if (r < 2) break;
      r = (r - 2) >> 1;
    }
    zeros = 0;
  };
  const order = Uint8Array.from(mtf);
  for (let i = 0; i < n; i++) {
    const s = seqOf[last[i]];
    let j = 0;
    while (order[j] !== s) j++;
    if (j === 0) {
      zeros++;
      continue;
    }
    if (zeros > 0) flushZeros();
    order.copyWithin(1, 0, j);
    order[0] = s;
    syms[ns++] = j + 1;
  }
  if (zeros > 0) flushZeros();
  syms[ns++] = eob;

  const alphaSize = nInUse + 2;
  const freq = new Int32Array(alphaSize);
  for (let i = 0; i < ns; i++) freq[syms[i]]++;
  // Every symbol gets a codeword in bzip2, used or not.
  const lengths = huffmanLengths(Int32Array.from(freq, (x) => Math.max(1, x)), 17);
  const codes = new Int32Array(alphaSize);
  let code = 0;
  for (let len = 1; len <= 20; len++) {
    for (let s = 0; s < alphaSize; s++) if (lengths[s] === len) codes[s] = code++;
    code <<= 1;
  }

  out.bits(24, 0x314159);
  out.bits(24, 0x265359);
  out.u32(crc);
  out.bits(1, 0); // not randomised
  out.bits(24, origPtr);
  let used16 = 0;
  for (let i = 0; i < 16; i++) for (let k = 0; k < 16; k++) if (inUse[i * 16 + k]) used16 |= 0x8000 >> i;
  out.bits(16, used16);
  for (let i = 0; i < 16; i++) {
    if (!(used16 & (0x8000 >> i))) continue;
    let bits16 = 0;
    for (let k = 0; k < 16; k++) if (inUse[i * 16 + k]) bits16 |= 0x8000 >> k;
    out.bits(16, bits16);
  }
  const groups = 2;
  const nSelectors = Math.ceil(ns / 50);
  out.bits(3, groups);
  out.bits(15, nSelectors);
  for (let i = 0; i < nSelectors; i++) out.bits(1, 0); // every group uses table 0
  for (let t = 0; t < groups; t++) {
    let cur = lengths[0];
    out.bits(5, cur);
    for (let s = 0; s < alphaSize; s++) {
      while (cur < lengths[s]) {
        out.bits(2, 2);
        cur++;
      }
      while (cur > lengths[s]) {
        out.bits(2, 3);
        cur--;
      }
      out.bits(1, 0);
    }
  }
  for (let i = 0; i < ns; i++) out.bits(lengths[syms[i]], codes[syms[i]]);
}

/** bzip2 of `data` with blocks of `level` x 100 kB (1-9). */
export function bzip2Compress(data: Uint8Array, level: number): Uint8Array {
  const out = new BitWriter();
  out.bits(24, 0x425a68); // "BZh"
  out.bits(8, 0x30 + level);
  // libbz2 keeps 19 bytes of slack below the nominal block size; so do we.
  const limit = level * 100000 - 19;
  const block = new Uint8Array(limit);
  let combined = 0;
  for (let start = 0; start < data.length; ) {
    const { end, length } = rle1(data, start, block, limit);
    const crc = blockCrc(data, start, end);
    combined = (((combined << 1) | (combined >>> 31)) ^ crc) >>> 0;
    writeBlock(out, block, length, crc);
    start = end;
  }
  out.bits(24, 0x177245);
  out.bits(24, 0x385090);
  out.u32(combined);
  return out.finish();
}
