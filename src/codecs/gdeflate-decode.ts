/**
 * zarrs.gdeflate chunks: a header (u64 LE decoded length, u64 LE page count, a u64 LE compressed
 * size per page), then the pages, each 64 KiB of the input (the last one less) compressed alone as
 * GDeflate: Deflate64 (RFC 1951 with a 64 KiB window and long matches) whose bits are dealt out over 32 lanes.
 *
 * The format, as NVIDIA's reference decoder (github.com/NVIDIA/libdeflate, lib/gdeflate_*) reads it:
 * each lane has a bit buffer that takes the next 32-bit LE word of the page whenever it holds fewer
 * than 32 bits at a refill point; the page starts with one word per lane. A block's header (BFINAL,
 * BTYPE and, for a dynamic block, HLIT/HDIST/HCLEN) is lane 0's. The precode lengths, then the
 * code-length symbols, then the block's symbols go to the lanes in turn, each lane refilling after
 * its item. A lane that read a match length reads its distance on its next turn, and the copy is
 * made then (into the place the length reserved); after end-of-block, the lanes that still owe a
 * distance read it in one more turn of all 32. A stored block is a 16-bit length in lane 0 (no
 * NLEN, no byte alignment), then its bytes, 8 bits each, dealt from lane 0.
 */
import { CorruptChunkError } from "../errors.js";

export const GDEFLATE_NAME = "zarrs.gdeflate";
export const PAGE_SIZE = 65536;
export const LANES = 32;

/**
 * Length base and extra bits of litlen symbols 257..287. GDeflate is Deflate64-based: 285 is not
 * 258 but 3 plus 16 extra bits (matches up to 65538 bytes); the reference reads 286 and 287 the same.
 */
export const LENGTH_BASE = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 3, 3, 3];
export const LENGTH_EXTRA = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 16, 16, 16];
/** Distance base and extra bits of the 32 distance symbols (30 and 31 reach 64 KiB back). */
export const DIST_BASE = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577, 32769, 49153];
export const DIST_EXTRA = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13, 14, 14];
/** The order of the precode's code lengths in a dynamic block header. */
export const PRECODE_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];

/** The fixed code's lengths: 288 litlen symbols, then 32 distance symbols. */
export function staticLengths(): Uint8Array {
  const lens = new Uint8Array(320);
  lens.fill(8, 0, 144).fill(9, 144, 256).fill(7, 256, 280).fill(8, 280, 288).fill(5, 288, 320);
  return lens;
}

function corrupt(what: string): never {
  throw new CorruptChunkError(`${GDEFLATE_NAME}: ${what}`);
}

/** The 32 lanes' bit buffers over one page: up to 63 bits each, in `lo` (bits 0-31) and `hi`. */
class Lanes {
  private pos = 0;
  private readonly lo = new Uint32Array(LANES);
  private readonly hi = new Uint32Array(LANES);
  private readonly count = new Int32Array(LANES);
  constructor(private readonly src: Uint8Array) {}

  /** A refill point: a lane holding fewer than 32 bits takes the page's next word. */
  refill(lane: number): void {
    const c = this.count[lane];
    if (c >= 32) return;
    const p = this.pos;
    // The reference reads on past the page (its compressor never makes it); here that is a truncated page.
    if (p + 4 > this.src.length) corrupt("a page ends before its bits do");
    const s = this.src;
    const w = (s[p] | (s[p + 1] << 8) | (s[p + 2] << 16) | (s[p + 3] << 24)) >>> 0;
    this.pos = p + 4;
    this.lo[lane] |= c === 0 ? w : w << c;
    this.hi[lane] = c === 0 ? 0 : w >>> (32 - c);
    this.count[lane] = c + 32;
  }

  /** The next `n` (0..16) bits of `lane`. Bits the lane never loaded can only come from a damaged page. */
  take(lane: number, n: number): number {
    if (n === 0) return 0;
    if (this.count[lane] < n) corrupt("a lane runs out of bits");
    const lo = this.lo[lane];
    this.lo[lane] = (lo >>> n) | (this.hi[lane] << (32 - n));
    this.hi[lane] >>>= n;
    this.count[lane] -= n;
    return lo & ((1 << n) - 1);
  }

  /** The next symbol of `lane` in a code made by `decodeTable`. */
  symbol(lane: number, code: Code): number {
    const bits = this.lo[lane];
    const e = code.table[bits & (code.table.length - 1)];
    if ((e & 15) !== 0) {
      this.take(lane, e & 15);
      return e >>> 4;
    }
    // A codeword longer than the table's bits: canonical decoding, a bit at a time (as puff.c).
    for (let len = 1, c = 0, first = 0, index = 0; len < 16; len++, first = (first + code.counts[len - 1]) << 1, c <<= 1) {
      c |= (bits >>> (len - 1)) & 1;
      if (c - first < code.counts[len]) {
        this.take(lane, len);
        return code.sorted[index + c - first];
      }
      index += code.counts[len];
    }
    return corrupt("no codeword matches");
  }
}

/**
 * A canonical code: `table` (entry: symbol << 4 | length) indexed by the next up to TABLE_BITS
 * bits, its entry 0 where the codeword is longer; `counts` per length and the symbols sorted by
 * codeword decode those. The table stays 2^10 at most so that a block's header, which can be a few
 * dozen bytes, never costs 2^15 entries to build.
 */
interface Code {
  table: Int32Array;
  counts: Int32Array;
  sorted: Int32Array;
}
const TABLE_BITS = 10;

/**
 * The code of `lens`. As the reference: an over-full code is corrupt; of incomplete codes only an
 * empty one (symbol 0) and one of a single 1-bit codeword are taken, that symbol answering both bit values.
 */
function decodeTable(lens: Uint8Array): Code {
  const counts = new Int32Array(16);
  let maxLen = 1;
  for (const l of lens) {
    counts[l]++;
    if (l > maxLen) maxLen = l;
  }
  counts[0] = 0;
  let used = 0;
  for (let l = 1; l <= maxLen; l++) used = (used << 1) + counts[l];
  const bits = Math.min(maxLen, TABLE_BITS);
  const code = { table: new Int32Array(1 << bits), counts, sorted: new Int32Array(lens.length) };
  if (used > 1 << maxLen) corrupt("a Huffman code is over-subscribed");
  if (used < 1 << maxLen) {
    if (used === 0) return (code.table.fill(1), code);
    if (maxLen !== 1 || counts[1] !== 1) corrupt("a Huffman code is incomplete");
    return (code.table.fill((lens.indexOf(1) << 4) | 1), code);
  }
  const next = new Int32Array(16);
  const at = new Int32Array(16);
  for (let l = 1, c = 0; l <= maxLen; l++) {
    next[l] = c = (c + counts[l - 1]) << 1;
    at[l] = at[l - 1] + counts[l - 1];
  }
  for (let sym = 0; sym < lens.length; sym++) {
    const len = lens[sym];
    if (len === 0) continue;
    code.sorted[at[len]++] = sym;
    if (len > bits) continue;
    let c = next[len]++;
    let rev = 0;
    for (let i = 0; i < len; i++, c >>= 1) rev = (rev << 1) | (c & 1);
    for (let i = rev; i < code.table.length; i += 1 << len) code.table[i] = (sym << 4) | len;
  }
  return code;
}

let staticTables: [Code, Code] | undefined;

/** Reads a dynamic block's code lengths (after its 3-bit header) into its litlen and distance tables. */
function dynamicTables(r: Lanes): [Code, Code] {
  const nLit = r.take(0, 5) + 257;
  const nDist = r.take(0, 5) + 1;
  const nPre = r.take(0, 4) + 4;
  r.refill(0);
  const preLens = new Uint8Array(19);
  for (let i = 0; i < nPre; i++) {
    preLens[PRECODE_ORDER[i]] = r.take(i % LANES, 3);
    r.refill(i % LANES);
  }
  const pre = decodeTable(preLens);
  // Room for a run past the end (ignored, as the reference ignores it).
  const lens = new Uint8Array(nLit + nDist + 138);
  for (let i = 0, lane = 0; i < nLit + nDist; lane = (lane + 1) % LANES) {
    const sym = r.symbol(lane, pre);
    if (sym < 16) lens[i++] = sym;
    else if (sym === 16) {
      if (i === 0) corrupt("a code-length repeat has nothing to repeat");
      const n = 3 + r.take(lane, 2);
      lens.fill(lens[i - 1], i, i + n);
      i += n;
    } else i += sym === 17 ? 3 + r.take(lane, 3) : 11 + r.take(lane, 7);
    r.refill(lane);
  }
  return [decodeTable(lens.subarray(0, nLit)), decodeTable(lens.subarray(nLit, nLit + nDist))];
}

/** Decodes one page into `out` (exactly its length); every read and copy is checked against the page. */
export function inflatePage(src: Uint8Array, out: Uint8Array): void {
  const r = new Lanes(src);
  for (let lane = 0; lane < LANES; lane++) r.refill(lane);
  const copyLen = new Int32Array(LANES);
  const copyAt = new Int32Array(LANES);
  let o = 0;
  let dist: Code | undefined;
  // The deferred copy of `lane`: its distance is read now, its place was reserved with its length.
  const copy = (lane: number): void => {
    const sym = r.symbol(lane, dist!);
    const d = DIST_BASE[sym] + r.take(lane, DIST_EXTRA[sym]);
    const at = copyAt[lane];
    if (d > at) corrupt("a match reaches back before its page");
    for (let i = at, end = at + copyLen[lane]; i < end; i++) out[i] = out[i - d];
    copyLen[lane] = 0;
  };
  let final = 0;
  while (!final) {
    final = r.take(0, 1);
    const type = r.take(0, 2);
    r.refill(0);
    let lane = 0;
    if (type === 0) {
      const n = r.take(0, 16);
      if (n > out.length - o) corrupt("a page decodes past its size");
      for (let i = 0; i < n; i++, lane = (lane + 1) % LANES) {
        out[o++] = r.take(lane, 8);
        r.refill(lane);
      }
    } else {
      if (type === 3) corrupt("a block has the reserved type 3");
      let lit: Code;
      if (type === 2) [lit, dist] = dynamicTables(r);
      else [lit, dist] = staticTables ??= [decodeTable(staticLengths().subarray(0, 288)), decodeTable(staticLengths().subarray(288))];
      for (;; lane = (lane + 1) % LANES) {
        if (copyLen[lane] !== 0) copy(lane);
        else {
          const sym = r.symbol(lane, lit);
          if (sym < 256) {
            if (o === out.length) corrupt("a page decodes past its size");
            out[o++] = sym;
          } else if (sym === 256) break;
          else {
            const len = LENGTH_BASE[sym - 257] + r.take(lane, LENGTH_EXTRA[sym - 257]);
            if (len > out.length - o) corrupt("a page decodes past its size");
            copyLen[lane] = len;
            copyAt[lane] = o;
            o += len;
          }
        }
        r.refill(lane);
      }
    }
    // One more turn of all the lanes from the one that ended the block: owed distances, refills.
    for (let n = 0; n < LANES; n++, lane = (lane + 1) % LANES) {
      if (copyLen[lane] !== 0) copy(lane);
      r.refill(lane);
    }
  }
  if (o !== out.length) corrupt(`a page decodes to ${o} bytes, ${out.length} expected`);
}

/** A u64 LE at `at` as a number; past 2^53 it cannot be a size here. */
function u64(b: Uint8Array, at: number): number {
  const v = new DataView(b.buffer, b.byteOffset + at, 8);
  const hi = v.getUint32(4, true);
  if (hi >= 0x200000) corrupt(`the header field at byte ${at} is past 2^53`);
  return hi * 2 ** 32 + v.getUint32(0, true);
}

/**
 * Decodes a whole chunk. `cap`: the most bytes a chunk of this array may decode to; a header
 * declaring more is refused before anything is allocated. Page count and sizes must add up to the
 * chunk exactly (one page per 64 KiB, sizes summing to the bytes after the header).
 */
export function gdeflateDecode(b: Uint8Array, cap: number): Uint8Array {
  if (b.length < 16) corrupt(`${b.length} bytes is shorter than the 16-byte header`);
  const size = u64(b, 0);
  const pages = u64(b, 8);
  if (size > cap) corrupt(`the header declares ${size} decoded bytes, over this chunk's limit of ${cap}`);
  if (pages !== Math.ceil(size / PAGE_SIZE)) corrupt(`the header gives ${pages} pages for ${size} bytes`);
  let at = 16 + 8 * pages;
  if (at > b.length) corrupt(`the page sizes run past the chunk's ${b.length} bytes`);
  let total = at;
  for (let p = 0; p < pages; p++) total += u64(b, 16 + 8 * p);
  if (total !== b.length) corrupt(`the pages add up to ${total} bytes, the chunk has ${b.length}`);
  const out = new Uint8Array(size);
  for (let p = 0; p < pages; p++) {
    const n = u64(b, 16 + 8 * p);
    inflatePage(b.subarray(at, at + n), out.subarray(p * PAGE_SIZE, Math.min(size, (p + 1) * PAGE_SIZE)));
    at += n;
  }
  return out;
}
