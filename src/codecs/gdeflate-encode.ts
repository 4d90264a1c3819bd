/**
 * A zarrs.gdeflate encoder (the format: gdeflate-decode.ts). Simpler than the reference: per
 * 64 KiB page, greedy LZ77 over hash chains (longer chains at higher levels) in one Huffman block
 * (the fixed code or the page's own, whichever is smaller), or stored blocks when the page does
 * not compress (always at level 0). Its output is not the reference's, but the reference decoder
 * reads it back equal (test/fixtures/gdeflate has the check).
 */
import { huffmanLengths } from "./huffman.js";
import { DIST_BASE, DIST_EXTRA, LANES, LENGTH_BASE, LENGTH_EXTRA, PAGE_SIZE, PRECODE_ORDER, staticLengths } from "./gdeflate-decode.js";

/**
 * The 32 lanes' bits, and the order the decoder takes their 32-bit words in: `refill` is called
 * exactly where the decoder refills, with a count of what the decoder would hold.
 */
export class LaneWriter {
  private readonly words: number[][] = Array.from({ length: LANES }, () => []);
  private readonly cur = new Uint32Array(LANES);
  private readonly fill = new Int32Array(LANES);
  private readonly held = new Int32Array(LANES);
  private readonly order: number[] = [];

  constructor() {
    for (let lane = 0; lane < LANES; lane++) this.refill(lane);
  }

  put(lane: number, v: number, n: number): void {
    const f = this.fill[lane];
    this.cur[lane] |= v << f;
    if (f + n >= 32) {
      this.words[lane].push(this.cur[lane]);
      this.cur[lane] = f === 0 ? 0 : v >>> (32 - f);
    }
    this.fill[lane] = (f + n) % 32;
    this.held[lane] -= n;
  }

  refill(lane: number): void {
    if (this.held[lane] >= 32) return;
    this.order.push(lane);
    this.held[lane] += 32;
  }

  /** The page: each word the decoder reads, in its order (a lane's words past its bits are 0). */
  finish(): Uint8Array {
    for (let lane = 0; lane < LANES; lane++) if (this.fill[lane] > 0) this.words[lane].push(this.cur[lane]);
    const out = new Uint8Array(this.order.length * 4);
    const next = new Int32Array(LANES);
    const view = new DataView(out.buffer);
    this.order.forEach((lane, i) => view.setUint32(4 * i, this.words[lane][next[lane]++] ?? 0, true));
    return out;
  }
}

/** Canonical codewords of `lens`, bit-reversed for LSB-first writing. */
export function codewords(lens: Uint8Array): Uint32Array {
  const counts = new Int32Array(16);
  for (const l of lens) counts[l]++;
  counts[0] = 0;
  const next = new Int32Array(16);
  for (let l = 1, code = 0; l < 16; l++) next[l] = code = (code + counts[l - 1]) << 1;
  return Uint32Array.from(lens, (len) => {
    let code = len === 0 ? 0 : next[len]++;
    let rev = 0;
    for (let i = 0; i < len; i++, code >>= 1) rev = (rev << 1) | (code & 1);
    return rev;
  });
}

/** The fixed code: litlen and distance lengths, then their codewords (two codes, each canonical on its own). */
const FIXED_LIT = staticLengths().subarray(0, 288);
const FIXED_DIST = staticLengths().subarray(288);
const FIXED_CODES = [codewords(FIXED_LIT), codewords(FIXED_DIST)];
/** Chain depth (candidates tried per position) by level 1..12. */
const DEPTH = [0, 2, 4, 8, 16, 32, 48, 64, 96, 128, 192, 256, 384];
const MAX_MATCH = 65535;

function lengthSymbol(len: number): number {
  if (len > 258) return 285;
  let s = 0;
  while (s < 27 && LENGTH_BASE[s + 1] <= len) s++;
  return 257 + s;
}

function distSymbol(d: number): number {
  let s = 0;
  while (s < 31 && DIST_BASE[s + 1] <= d) s++;
  return s;
}

/** Greedy LZ77 over one page: `len[k]` 0 for a literal `val[k]`, else a match of `len[k]` bytes `val[k]` back. */
function matches(page: Uint8Array, depth: number): { len: Int32Array; val: Int32Array; n: number } {
  const n = page.length;
  const len = new Int32Array(n);
  const val = new Int32Array(n);
  const head = new Int32Array(1 << 15).fill(-1);
  const prev = new Int32Array(n);
  const hash = (i: number) => ((page[i] << 10) ^ (page[i + 1] << 5) ^ page[i + 2]) & 0x7fff;
  const insert = (i: number) => {
    if (i + 3 > n) return;
    const h = hash(i);
    prev[i] = head[h];
    head[h] = i;
  };
  let k = 0;
  for (let i = 0; i < n; ) {
    let best = 0;
    let bestAt = 0;
    if (i + 3 <= n) {
      const limit = Math.min(MAX_MATCH, n - i);
      for (let c = head[hash(i)], tries = depth; c >= 0 && tries > 0; c = prev[c], tries--) {
        let l = 0;
        while (l < limit && page[c + l] === page[i + l]) l++;
        if (l > best) {
          best = l;
          bestAt = c;
          if (l === limit) break;
        }
      }
    }
    if (best >= 3) {
      len[k] = best;
      val[k++] = i - bestAt;
      for (const end = i + best; i < end; i++) insert(i);
    } else {
      val[k++] = page[i];
      insert(i++);
    }
  }
  return { len, val, n: k };
}

const RUN_EXTRA = [2, 3, 7];

/** `lens` as code-length symbols (0-15 themselves, 16 repeats the last 3-6 times, 17 and 18 are 3-10 and 11-138 zeros) and their extra bits' values. */
function lengthRuns(lens: Uint8Array): { sym: number[]; extra: number[] } {
  const sym: number[] = [];
  const extra: number[] = [];
  const push = (s: number, e: number) => (sym.push(s), extra.push(e));
  for (let i = 0; i < lens.length; ) {
    const v = lens[i];
    let run = 1;
    while (i + run < lens.length && lens[i + run] === v) run++;
    i += run;
    if (v === 0) {
      for (; run >= 11; run -= Math.min(run, 138)) push(18, Math.min(run, 138) - 11);
      if (run >= 3) run = (push(17, run - 3), 0);
    } else {
      push(v, 0);
      for (run--; run >= 3; run -= Math.min(run, 6)) push(16, Math.min(run, 6) - 3);
    }
    for (; run > 0; run--) push(v, 0);
  }
  return { sym, extra };
}

const bits = (freq: Int32Array, lens: Uint8Array) => freq.reduce((sum, n, s) => sum + n * lens[s], 0);

/** One page as one Huffman block: the fixed code, or a code of its own where that is smaller. */
function huffmanPage(page: Uint8Array, level: number): Uint8Array {
  const { len, val, n } = matches(page, DEPTH[level]);
  const litSym = new Uint16Array(n);
  const distSym = new Uint8Array(n);
  const litFreq = new Int32Array(288);
  const distFreq = new Int32Array(32);
  for (let k = 0; k < n; k++) {
    litSym[k] = len[k] === 0 ? val[k] : lengthSymbol(len[k]);
    litFreq[litSym[k]]++;
    if (len[k] !== 0) distFreq[(distSym[k] = distSymbol(val[k]))]++;
  }
  litFreq[256] = 1;
  let [litLens, distLens] = [FIXED_LIT, FIXED_DIST];
  const ownLit = huffmanLengths(litFreq, 15);
  const ownDist = huffmanLengths(distFreq, 15);
  // Trailing unused symbols are left out of the table.
  let nLit = 288;
  while (nLit > 257 && ownLit[nLit - 1] === 0) nLit--;
  let nDist = 32;
  while (nDist > 1 && ownDist[nDist - 1] === 0) nDist--;
  const runs = lengthRuns(Uint8Array.of(...ownLit.subarray(0, nLit), ...ownDist.subarray(0, nDist)));
  const runFreq = new Int32Array(19);
  for (const s of runs.sym) runFreq[s]++;
  const runLens = huffmanLengths(runFreq, 7);
  let nRun = 19;
  while (nRun > 4 && runLens[PRECODE_ORDER[nRun - 1]] === 0) nRun--;
  const tableBits = 14 + 3 * nRun + bits(runFreq, runLens) + runs.sym.reduce((sum, s) => sum + (s > 15 ? RUN_EXTRA[s - 16] : 0), 0);
  const own = tableBits + bits(litFreq, ownLit) + bits(distFreq, ownDist) < bits(litFreq, litLens) + bits(distFreq, distLens);

  const w = new LaneWriter();
  w.put(0, 1, 1); // BFINAL
  w.put(0, own ? 2 : 1, 2); // dynamic or fixed Huffman
  w.refill(0);
  if (own) {
    [litLens, distLens] = [ownLit, ownDist];
    w.put(0, nLit - 257, 5);
    w.put(0, nDist - 1, 5);
    w.put(0, nRun - 4, 4);
    w.refill(0);
    for (let i = 0; i < nRun; i++) {
      w.put(i, runLens[PRECODE_ORDER[i]], 3);
      w.refill(i);
    }
    const runCodes = codewords(runLens);
    runs.sym.forEach((s, i) => {
      const lane = i % LANES;
      w.put(lane, runCodes[s], runLens[s]);
      if (s > 15) w.put(lane, runs.extra[i], RUN_EXTRA[s - 16]);
      w.refill(lane);
    });
  }
  const [litCodes, distCodes] = own ? [codewords(litLens), codewords(distLens)] : FIXED_CODES;
  const sym = (lane: number, s: number) => w.put(lane, litCodes[s], litLens[s]);
  const owed = new Int32Array(LANES).fill(-1);
  const dist = (lane: number) => {
    const k = owed[lane];
    const s = distSym[k];
    w.put(lane, distCodes[s], distLens[s]);
    w.put(lane, val[k] - DIST_BASE[s], DIST_EXTRA[s]);
    owed[lane] = -1;
  };
  let lane = 0;
  for (let k = 0; ; lane = (lane + 1) % LANES) {
    if (owed[lane] >= 0) dist(lane);
    else if (k === n) {
      sym(lane, 256);
      break;
    } else {
      const s = litSym[k];
      sym(lane, s);
      if (s > 256) {
        w.put(lane, len[k] - LENGTH_BASE[s - 257], LENGTH_EXTRA[s - 257]);
        owed[lane] = k;
      }
      k++;
    }
    w.refill(lane);
  }
  for (let i = 0; i < LANES; i++, lane = (lane + 1) % LANES) {
    if (owed[lane] >= 0) dist(lane);
    w.refill(lane);
  }
  return w.finish();
}

function storedPage(page: Uint8Array): Uint8Array {
  const w = new LaneWriter();
  let i = 0;
  do {
    const n = Math.min(0xffff, page.length - i);
    w.put(0, i + n === page.length ? 1 : 0, 1);
    w.put(0, 0, 2);
    w.refill(0);
    w.put(0, n, 16);
    let lane = 0;
    for (const end = i + n; i < end; lane = (lane + 1) % LANES) {
      w.put(lane, page[i++], 8);
      w.refill(lane);
    }
    for (let k = 0; k < LANES; k++, lane = (lane + 1) % LANES) w.refill(lane);
  } while (i < page.length);
  return w.finish();
}

/** A whole chunk at `level` (0..12): the header, then each 64 KiB page. */
export function gdeflateEncode(b: Uint8Array, level: number): Uint8Array {
  const pages: Uint8Array[] = [];
  for (let at = 0; at < b.length; at += PAGE_SIZE) {
    const page = b.subarray(at, at + PAGE_SIZE);
    const packed = level > 0 ? huffmanPage(page, level) : undefined;
    // Stored blocks are always a little longer than the page: only when the code does not help.
    pages.push(packed && packed.length < page.length ? packed : storedPage(page));
  }
  const size = 16 + 8 * pages.length + pages.reduce((s, p) => s + p.length, 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  const u64 = (at: number, v: number) => {
    view.setUint32(at, v % 2 ** 32, true);
    view.setUint32(at + 4, Math.floor(v / 2 ** 32), true);
  };
  u64(0, b.length);
  u64(8, pages.length);
  let at = 16 + 8 * pages.length;
  pages.forEach((p, i) => {
    u64(16 + 8 * i, p.length);
    out.set(p, at);
    at += p.length;
  });
  return out;
}
