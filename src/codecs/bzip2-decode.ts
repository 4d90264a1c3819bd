/**
 * A bzip2 decompressor (one or more concatenated streams, as Python's bz2 reads them), checking
 * every block CRC and the stream CRC. It replaces compressjs's decoder, which ran at about
 * 2 MB/s; corrupt input raises CorruptChunkError instead of a bare Error.
 */
import { CorruptChunkError } from "../errors.js";
import { CRC_TABLE } from "./bzip2-crc.js";

class BitReader {
  private pos = 0;
  private acc = 0;
  private n = 0;
  constructor(private readonly b: Uint8Array) {}

  bits(count: number): number {
    while (this.n < count) {
      if (this.pos >= this.b.length) throw new CorruptChunkError("bz2: stream ends early");
      this.acc = ((this.acc << 8) | this.b[this.pos++]) >>> 0;
      this.n += 8;
    }
    this.n -= count;
    const v = (this.acc >>> this.n) & ((1 << count) - 1);
    this.acc &= (1 << this.n) - 1;
    return v;
  }

  bit(): number {
    return this.bits(1);
  }

  alignToByte(): void {
    this.n -= this.n % 8;
    this.acc &= (1 << this.n) - 1;
  }

  /** Whether whole bytes remain (another concatenated stream may follow). */
  more(): boolean {
    return this.pos < this.b.length || this.n >= 8;
  }
}


class Output {
  buf = new Uint8Array(1 << 16);
  len = 0;
  /** A hard cap on the output: a bz2 bomb (45 MB per 45 bytes of block) stops here. */
  constructor(private readonly max: number) {}
  reserve(extra: number): void {
    if (this.len + extra > this.max) throw new CorruptChunkError(`bz2: the stream decodes past the ${this.max}-byte limit for this chunk`);
    if (this.len + extra <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.len + extra) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.buf.subarray(0, this.len));
    this.buf = grown;
  }
}

interface Table {
  minLen: number;
  maxLen: number;
  limit: Int32Array;
  firstCode: Int32Array;
  firstIdx: Int32Array;
  perm: Int32Array;
}

function buildTable(lengths: Uint8Array): Table {
  let minLen = 32;
  let maxLen = 0;
  for (const l of lengths) {
    minLen = Math.min(minLen, l);
    maxLen = Math.max(maxLen, l);
  }
  const limit = new Int32Array(22).fill(-1);
  const firstCode = new Int32Array(22);
  const firstIdx = new Int32Array(22);
  const perm = new Int32Array(lengths.length);
  let code = 0;
  let idx = 0;
  for (let len = minLen; len <= maxLen; len++) {
    firstCode[len] = code;
    firstIdx[len] = idx;
    for (let s = 0; s < lengths.length; s++) if (lengths[s] === len) perm[idx++] = s;
    code += idx - firstIdx[len];
    limit[len] = code - 1;
    code <<= 1;
  }
  return { minLen, maxLen, limit, firstCode, firstIdx, perm };
}

function readBlock(r: BitReader, level: number, out: Output): number {
  const crc = r.bits(16) * 0x10000 + r.bits(16);
  if (r.bit()) throw new CorruptChunkError("bz2: randomised blocks (bzip2 0.9.0) are not supported");
  const origPtr = r.bits(24);
  const used16 = r.bits(16);
  const seqToUnseq: number[] = [];
  for (let i = 0; i < 16; i++) {
    if (!(used16 & (0x8000 >> i))) continue;
    const bits16 = r.bits(16);
    for (let k = 0; k < 16; k++) if (bits16 & (0x8000 >> k)) seqToUnseq.push(i * 16 + k);
  }
  if (seqToUnseq.length === 0) throw new CorruptChunkError("bz2: block uses no symbols");
  const alphaSize = seqToUnseq.length + 2;
  const nGroups = r.bits(3);
  const nSelectors = r.bits(15);
  if (nGroups < 2 || nGroups > 6 || nSelectors < 1) throw new CorruptChunkError("bz2: bad Huffman group header");
  const selectorMtf = [...Array(nGroups).keys()];
  const selectors = new Uint8Array(nSelectors);
  for (let i = 0; i < nSelectors; i++) {
    let j = 0;
    while (r.bit()) if (++j >= nGroups) throw new CorruptChunkError("bz2: bad selector");
    const v = selectorMtf[j];
    selectorMtf.splice(j, 1);
    selectorMtf.unshift(v);
    selectors[i] = v;
  }
  const tables: Table[] = [];
  for (let t = 0; t < nGroups; t++) {
    const lengths = new Uint8Array(alphaSize);
    let cur = r.bits(5);
    for (let s = 0; s < alphaSize; s++) {
      for (;;) {
        if (cur < 1 || cur > 20) throw new CorruptChunkError("bz2: bad code length");
        if (!r.bit()) break;
        cur += r.bit() ? -1 : 1;
      }
      lengths[s] = cur;
    }
    tables.push(buildTable(lengths));
  }

  // Huffman symbols -> MTF/RUNA-RUNB -> the BWT's last column.
  const maxBlock = level * 100000;
  const last = new Uint8Array(maxBlock);
  const counts = new Int32Array(256);
  const mtf = Uint8Array.from(seqToUnseq.keys());
  const eob = alphaSize - 1;
  let n = 0;
  let run = 0;
  let runBit = 1;
  let group = -1;
  let left = 0;
  for (;;) {
    if (left === 0) {
      if (++group >= nSelectors) throw new CorruptChunkError("bz2: selectors run out");
      left = 50;
    }
    left--;
    const t = tables[selectors[group]];
    let len = t.minLen;
    let v = r.bits(len);
    while (v > t.limit[len]) {
      if (++len > t.maxLen) throw new CorruptChunkError("bz2: bad Huffman code");
      v = (v << 1) | r.bit();
    }
    const sym = t.perm[t.firstIdx[len] + v - t.firstCode[len]];
    if (sym <= 1) {
      run += runBit << sym;
      runBit <<= 1;
      if (run > maxBlock) throw new CorruptChunkError("bz2: run exceeds the block size");
      continue;
    }
    if (run > 0) {
      if (n + run > maxBlock) throw new CorruptChunkError("bz2: block exceeds its declared size");
      const b = seqToUnseq[mtf[0]];
      last.fill(b, n, n + run);
      counts[b] += run;
      n += run;
      run = 0;
      runBit = 1;
    }
    if (sym === eob) break;
    const j = sym - 1;
    const s = mtf[j];
    mtf.copyWithin(1, 0, j);
    mtf[0] = s;
    if (n >= maxBlock) throw new CorruptChunkError("bz2: block exceeds its declared size");
    const b = seqToUnseq[s];
    last[n++] = b;
    counts[b]++;
  }
  if (origPtr >= n) throw new CorruptChunkError("bz2: origin pointer outside the block");

  // Inverse BWT, then undo the first run-length step while computing the block CRC.
  const next = new Int32Array(n);
  const start = new Int32Array(256);
  for (let b = 0, sum = 0; b < 256; b++) {
    start[b] = sum;
    sum += counts[b];
  }
  for (let i = 0; i < n; i++) next[start[last[i]]++] = i;
  let p = next[origPtr];
  let c = 0xffffffff;
  let prev = -1;
  let same = 0;
  out.reserve(n);
  for (let k = 0; k < n; k++) {
    const b = last[p];
    p = next[p];
    if (same === 4) {
      out.reserve(b);
      for (let m = 0; m < b; m++) {
        out.buf[out.len++] = prev;
        c = (c << 8) ^ CRC_TABLE[((c >>> 24) ^ prev) & 0xff];
      }
      same = 0;
      prev = -1;
      continue;
    }
    same = b === prev ? same + 1 : 1;
    prev = b;
    out.reserve(1);
    out.buf[out.len++] = b;
    c = (c << 8) ^ CRC_TABLE[((c >>> 24) ^ b) & 0xff];
  }
  const got = ~c >>> 0;
  if (got !== crc) throw new CorruptChunkError(`bz2: block CRC ${got.toString(16)} does not match ${crc.toString(16)}`);
  return crc;
}

export function bzip2Decompress(data: Uint8Array, maxOutput = Infinity): Uint8Array {
  const r = new BitReader(data);
  const out = new Output(maxOutput);
  do {
    if (r.bits(8) !== 0x42 || r.bits(8) !== 0x5a || r.bits(8) !== 0x68) throw new CorruptChunkError("bz2: not a bzip2 stream");
    const level = r.bits(8) - 0x30;
    if (level < 1 || level > 9) throw new CorruptChunkError("bz2: bad block size");
    let combined = 0;
    for (;;) {
      const m1 = r.bits(24);
      const m2 = r.bits(24);
      if (m1 === 0x314159 && m2 === 0x265359) {
        const crc = readBlock(r, level, out);
        combined = (((combined << 1) | (combined >>> 31)) ^ crc) >>> 0;
      } else if (m1 === 0x177245 && m2 === 0x385090) {
        const want = r.bits(16) * 0x10000 + r.bits(16);
        if (want !== combined) throw new CorruptChunkError("bz2: stream CRC does not match");
        break;
      } else {
        throw new CorruptChunkError("bz2: bad block header");
      }
    }
    r.alignToByte();
  } while (r.more());
  return out.buf.slice(0, out.len);
}
