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
import { readU64 } from "../u64.js";

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

/*
 * The decoder's state lives in typed arrays made once per module (each worker has its own) and
 * reused by every block and page: nothing is allocated per block or per symbol. A page is decoded
 * synchronously, so no two decodes share them at once.
 *
 * Lane bit buffers: up to 63 bits each, in LO (bits 0-31) and HI, with CNT the bits held, side by
 * side in one array (one lane's state is one load away, which measured 8-12% faster). Every
 * lane holds at least 32 bits at the start of its turn (it refilled after its last item, and the
 * page starts with one word per lane), and no item takes more than 31 (a 15-bit codeword and 16
 * extra bits), so the hot loop takes bits without checking for them.
 */
const LANE = new Int32Array(4 * LANES);
/** A lane's four slots in LANE (at lane << 2): its bit buffer in three, its deferred match's length (0: none owed) last. */
const LO = 0;
const HI = 1;
const CNT = 2;
const COPY_LEN = 3;
/** Where a lane's deferred match goes. */
const COPY_AT = new Int32Array(LANES);
let page: Uint8Array = new Uint8Array(0);
let pos = 0;

/** A refill point: a lane holding fewer than 32 bits takes the page's next word. */
function refill(lane: number): void {
  const k = lane << 2;
  const c = LANE[k + CNT];
  if (c >= 32) return;
  // The reference reads on past the page (its compressor never makes it); here that is a truncated page.
  if (pos + 4 > page.length) corrupt("a page ends before its bits do");
  const w = page[pos] | (page[pos + 1] << 8) | (page[pos + 2] << 16) | (page[pos + 3] << 24);
  pos += 4;
  LANE[k + LO] |= w << c;
  LANE[k + HI] = c === 0 ? 0 : w >>> (32 - c);
  LANE[k + CNT] = c + 32;
}

/** The next `n` (0..16) bits of `lane`, outside the hot loop (block headers, code lengths, stored bytes). */
function take(lane: number, n: number): number {
  if (n === 0) return 0;
  const k = lane << 2;
  if (LANE[k + CNT] < n) corrupt("a lane runs out of bits");
  const lo = LANE[k + LO];
  LANE[k + LO] = (lo >>> n) | (LANE[k + HI] << (32 - n));
  LANE[k + HI] >>>= n;
  LANE[k + CNT] -= n;
  return lo & ((1 << n) - 1);
}

/**
 * Huffman tables as libdeflate builds them: a main table indexed by the next `bits` bits, and for
 * codewords longer than that, subtables after it indexed by the bits that follow. An entry is
 * `symbol << 5 | length` (the whole codeword's length, 1..15), or for a prefix of longer codewords
 * `start << 5 | 16 | subtable bits`. A subtable of 2^k entries holds a complete subtree of depth k,
 * so at least k + 1 codewords, and 2^k / (k + 1) is at most 32 / 6 for k <= 5 (litlen: 15 - 10),
 * 128 / 8 for k <= 7 (distance: 15 - 8): the tables are bounded by the number of codes, never
 * 2^15 entries (a block's header can be a few dozen bytes).
 */
const LIT_BITS = 10;
const DIST_BITS = 8;
const PRE_BITS = 7;
const litTable = new Int32Array((1 << LIT_BITS) + (288 * 32) / 6);
const distTable = new Int32Array((1 << DIST_BITS) + (32 * 128) / 8);
const preTable = new Int32Array(1 << PRE_BITS);
const staticLit = new Int32Array(litTable.length);
const staticDist = new Int32Array(distTable.length);
let staticBuilt = false;
const counts = new Int32Array(16);
const left = new Int32Array(16);
const sortedAt = new Int32Array(16);
const sorted = new Int32Array(288);
/** A dynamic block's code lengths, with room for a run past the end (ignored, as the reference ignores it). */
const lens = new Uint8Array(288 + 32 + 138);
const preLens = new Uint8Array(19);

/** `code`'s low `n` bits in reverse order: Deflate sends codewords from their first bit. */
function reverse(code: number, n: number): number {
  let rev = 0;
  for (let i = 0; i < n; i++, code >>= 1) rev = (rev << 1) | (code & 1);
  return rev;
}

/**
 * Builds the code of `lens` into `table` (main table of 2^`bits`) and returns how many entries it
 * filled. As the reference: an over-full code is corrupt; of incomplete codes only an empty one
 * (symbol 0) and one of a single 1-bit codeword are taken, that symbol answering both bit values.
 */
export function buildTable(lens: Uint8Array, table: Int32Array, bits: number): number {
  counts.fill(0);
  let maxLen = 1;
  for (let s = 0; s < lens.length; s++) {
    const l = lens[s];
    counts[l]++;
    if (l > maxLen) maxLen = l;
  }
  counts[0] = 0;
  let used = 0;
  for (let l = 1; l <= maxLen; l++) used = (used << 1) + counts[l];
  const size = 1 << bits;
  if (used > 1 << maxLen) corrupt("a Huffman code is over-subscribed");
  if (used < 1 << maxLen) {
    if (used === 0) return (table.fill(1, 0, size), size);
    if (maxLen !== 1 || counts[1] !== 1) corrupt("a Huffman code is incomplete");
    return (table.fill((lens.indexOf(1) << 5) | 1, 0, size), size);
  }
  // The symbols in codeword order: by length, then by symbol.
  sortedAt[1] = 0;
  for (let l = 1; l < maxLen; l++) sortedAt[l + 1] = sortedAt[l] + counts[l];
  for (let s = 0; s < lens.length; s++) if (lens[s] !== 0) sorted[sortedAt[lens[s]]++] = s;
  left.set(counts);
  let end = size;
  let prefix = -1;
  let sub = 0;
  let subBits = 0;
  for (let len = 1, code = 0, k = 0; len <= maxLen; len++, code <<= 1) {
    for (let n = counts[len]; n > 0; n--, code++, k++) {
      const entry = (sorted[k] << 5) | len;
      if (len <= bits) {
        for (let i = reverse(code, len); i < size; i += 1 << len) table[i] = entry;
        continue;
      }
      const p = reverse(code >>> (len - bits), bits);
      if (p !== prefix) {
        // A new subtable, as wide as the codewords left under this prefix need (libdeflate's way).
        prefix = p;
        sub = end;
        subBits = len - bits;
        for (let have = left[len]; have < 1 << subBits; ) have = (have << 1) + left[bits + ++subBits];
        end += 1 << subBits;
        table[p] = (sub << 5) | 16 | subBits;
      }
      for (let i = reverse(code, len - bits); i < 1 << subBits; i += 1 << (len - bits)) table[sub + i] = entry;
      left[len]--;
    }
  }
  return end;
}

/** The entry of a table of `bits` main bits for the codeword at the start of `lo`. */
function entry(table: Int32Array, bits: number, lo: number): number {
  const e = table[lo & ((1 << bits) - 1)];
  return e & 16 ? table[(e >>> 5) + ((lo >>> bits) & ((1 << (e & 15)) - 1))] : e;
}

/** The next symbol of `lane` in a table of `bits` main bits (outside the hot loop). */
function symbol(lane: number, table: Int32Array, bits: number): number {
  const e = entry(table, bits, LANE[(lane << 2) + LO]);
  take(lane, e & 15);
  return e >>> 5;
}

/** Reads a dynamic block's code lengths (after its 3-bit header) into litTable and distTable. */
function dynamicTables(): void {
  const nLit = take(0, 5) + 257;
  const nDist = take(0, 5) + 1;
  const nPre = take(0, 4) + 4;
  refill(0);
  preLens.fill(0);
  for (let i = 0; i < nPre; i++) {
    preLens[PRECODE_ORDER[i]] = take(i % LANES, 3);
    refill(i % LANES);
  }
  buildTable(preLens, preTable, PRE_BITS);
  lens.fill(0);
  for (let i = 0, lane = 0; i < nLit + nDist; lane = (lane + 1) % LANES) {
    const sym = symbol(lane, preTable, PRE_BITS);
    if (sym < 16) lens[i++] = sym;
    else if (sym === 16) {
      if (i === 0) corrupt("a code-length repeat has nothing to repeat");
      const n = 3 + take(lane, 2);
      lens.fill(lens[i - 1], i, i + n);
      i += n;
    } else i += sym === 17 ? 3 + take(lane, 3) : 11 + take(lane, 7);
    refill(lane);
  }
  buildTable(lens.subarray(0, nLit), litTable, LIT_BITS);
  buildTable(lens.subarray(nLit, nLit + nDist), distTable, DIST_BITS);
}

/** Copies a match of `len` bytes from `d` back to `at`; an overlapping one repeats its bytes. */
function copyMatch(out: Uint8Array, at: number, d: number, len: number): void {
  if (d === 1) out.fill(out[at - 1], at, at + len);
  else if (d >= len && len > 32) out.copyWithin(at, at - d, at - d + len);
  else for (let i = at, end = at + len; i < end; i++) out[i] = out[i - d];
}

/** Decodes one page into `out` (exactly its length); every read and copy is checked against the page. */
export function inflatePage(src: Uint8Array, out: Uint8Array): void {
  page = src;
  pos = 0;
  LANE.fill(0);
  for (let lane = 0; lane < LANES; lane++) refill(lane);
  const size = out.length;
  let o = 0;
  let dist = distTable;
  let final = 0;
  while (!final) {
    final = take(0, 1);
    const type = take(0, 2);
    refill(0);
    let lane = 0;
    if (type === 0) {
      const n = take(0, 16);
      if (n > size - o) corrupt("a page decodes past its size");
      for (let i = 0; i < n; i++, lane = (lane + 1) % LANES) {
        out[o++] = take(lane, 8);
        refill(lane);
      }
    } else {
      if (type === 3) corrupt("a block has the reserved type 3");
      let lit = litTable;
      if (type === 2) (dynamicTables(), (dist = distTable));
      else {
        if (!staticBuilt) {
          const fixed = staticLengths();
          buildTable(fixed.subarray(0, 288), staticLit, LIT_BITS);
          buildTable(fixed.subarray(288), staticDist, DIST_BITS);
          staticBuilt = true;
        }
        (lit = staticLit), (dist = staticDist);
      }
      // The hot loop: one item of one lane per turn, its bit buffer in locals.
      for (;; lane = (lane + 1) & (LANES - 1)) {
        const k = lane << 2;
        let lo = LANE[k + LO];
        let hi = LANE[k + HI];
        let c = LANE[k + CNT];
        const owed = LANE[k + COPY_LEN];
        // The lane's next symbol: the distance of the match it owes, else a literal or length.
        const e = owed !== 0 ? entry(dist, DIST_BITS, lo) : entry(lit, LIT_BITS, lo);
        let n = e & 15;
        lo = (lo >>> n) | (hi << (32 - n));
        hi >>>= n;
        c -= n;
        const sym = e >>> 5;
        if (owed !== 0) {
          // Its bytes go to the place its length reserved.
          let d = DIST_BASE[sym];
          n = DIST_EXTRA[sym];
          if (n !== 0) {
            d += lo & ((1 << n) - 1);
            lo = (lo >>> n) | (hi << (32 - n));
            hi >>>= n;
            c -= n;
          }
          const at = COPY_AT[lane];
          if (d > at) corrupt("a match reaches back before its page");
          copyMatch(out, at, d, owed);
          LANE[k + COPY_LEN] = 0;
        } else if (sym < 256) {
          if (o === size) corrupt("a page decodes past its size");
          out[o++] = sym;
        } else if (sym === 256) {
          LANE[k + LO] = lo;
          LANE[k + HI] = hi;
          LANE[k + CNT] = c;
          break;
        } else {
          let len = LENGTH_BASE[sym - 257];
          n = LENGTH_EXTRA[sym - 257];
          if (n !== 0) {
            len += lo & ((1 << n) - 1);
            lo = (lo >>> n) | (hi << (32 - n));
            hi >>>= n;
            c -= n;
          }
          if (len > size - o) corrupt("a page decodes past its size");
          LANE[k + COPY_LEN] = len;
          COPY_AT[lane] = o;
          o += len;
        }
        if (c < 32) {
          if (pos + 4 > src.length) corrupt("a page ends before its bits do");
          const w = src[pos] | (src[pos + 1] << 8) | (src[pos + 2] << 16) | (src[pos + 3] << 24);
          pos += 4;
          lo |= w << c;
          hi = c === 0 ? 0 : w >>> (32 - c);
          c += 32;
        }
        LANE[k + LO] = lo;
        LANE[k + HI] = hi;
        LANE[k + CNT] = c;
      }
    }
    // One more turn of all the lanes from the one that ended the block: owed distances, refills.
    for (let k = 0; k < LANES; k++, lane = (lane + 1) % LANES) {
      const owed = LANE[(lane << 2) + COPY_LEN];
      if (owed !== 0) {
        const sym = symbol(lane, dist, DIST_BITS);
        const d = DIST_BASE[sym] + take(lane, DIST_EXTRA[sym]);
        if (d > COPY_AT[lane]) corrupt("a match reaches back before its page");
        copyMatch(out, COPY_AT[lane], d, owed);
        LANE[(lane << 2) + COPY_LEN] = 0;
      }
      refill(lane);
    }
  }
  if (o !== size) corrupt(`a page decodes to ${o} bytes, ${size} expected`);
}

/**
 * Decodes a whole chunk into `out`, which must be exactly its decoded length. `cap`: the most bytes
 * a chunk of this array may decode to; a header declaring more is refused before anything is
 * allocated. Page count and sizes must add up to the chunk exactly (one page per 64 KiB, sizes
 * summing to the bytes after the header).
 */
export function gdeflateDecodeInto(b: Uint8Array, out: Uint8Array | ((size: number) => Uint8Array), cap = Infinity): Uint8Array {
  if (b.length < 16) corrupt(`${b.length} bytes is shorter than the 16-byte header`);
  const size = readU64(b, 0);
  const pages = readU64(b, 8);
  if (size > cap) corrupt(`the header declares ${size} decoded bytes, over this chunk's limit of ${cap}`);
  if (pages !== Math.ceil(size / PAGE_SIZE)) corrupt(`the header gives ${pages} pages for ${size} bytes`);
  let at = 16 + 8 * pages;
  if (at > b.length) corrupt(`the page sizes run past the chunk's ${b.length} bytes`);
  let total = at;
  for (let p = 0; p < pages; p++) total += readU64(b, 16 + 8 * p);
  if (total !== b.length) corrupt(`the pages add up to ${total} bytes, the chunk has ${b.length}`);
  const dest = typeof out === "function" ? out(size) : out;
  if (dest.length !== size) corrupt(`the chunk decodes to ${size} bytes, ${dest.length} expected`);
  for (let p = 0; p < pages; p++) {
    const n = readU64(b, 16 + 8 * p);
    inflatePage(b.subarray(at, at + n), dest.subarray(p * PAGE_SIZE, Math.min(size, (p + 1) * PAGE_SIZE)));
    at += n;
  }
  return dest;
}

/** Decodes a whole chunk into a new buffer of the length its header declares (at most `cap`). */
export function gdeflateDecode(b: Uint8Array, cap: number): Uint8Array {
  return gdeflateDecodeInto(b, (size) => new Uint8Array(size), cap);
}
