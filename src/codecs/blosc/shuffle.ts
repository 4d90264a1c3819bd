/**
 * Byte shuffle and bit shuffle with the exact layouts c-blosc 1.x produces.
 *
 * Byte shuffle: byte j of element i goes to `dest[j * n + i]` (n = floor(len / typesize)); the
 * trailing `len % typesize` bytes are copied unchanged.
 *
 * Bit shuffle (the bitshuffle library's `bshuf_trans_bit_elem` layout): for byte j and bit k of
 * an element, one "bit row" of n / 8 bytes holds that bit of every element, element i landing in
 * bit (i % 8) of row byte floor(i / 8); rows are ordered j * 8 + k. c-blosc 1.21 only bit-shuffles
 * a block whose element count is a multiple of 8 (`blosc_internal_bitshuffle` in shuffle.c): such a
 * block has its trailing `len % typesize` bytes copied unchanged, any other block is copied whole,
 * unshuffled. The unshuffle side mirrors that, so the rule has to match c-blosc exactly.
 */

// Typed-array word access is only a valid shortcut when the host stores words little-endian.
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Word fast paths need both views 4-byte aligned and the element count a multiple of 4, so that
 * each of the typesize streams starts on a word boundary too.
 */
const wordAligned = (src: Uint8Array, dest: Uint8Array, n: number): boolean =>
  LITTLE_ENDIAN && src.byteOffset % 4 === 0 && dest.byteOffset % 4 === 0 && n % 4 === 0;

/**
 * Transposes 4x4 bytes between streams and elements: words `s0..s3` (four consecutive words of
 * four streams, or four consecutive elements) become four words where word i holds byte i of each
 * input, in order. The same transform shuffles and unshuffles (a 4x4 transpose is its own
 * inverse), and runs four elements per iteration with word loads and stores only.
 */
function transposeWords(s0: Uint32Array, s1: Uint32Array, s2: Uint32Array, s3: Uint32Array, sStep: number, out: Uint32Array[], oStep: number, words: number): void {
  const [o0, o1, o2, o3] = out;
  for (let i = 0, si = 0, oi = 0; i < words; i++, si += sStep, oi += oStep) {
    const a = s0[si];
    const b = s1[si];
    const c = s2[si];
    const d = s3[si];
    const t0 = (a & 0x00ff00ff) | ((b & 0x00ff00ff) << 8);
    const t1 = ((a >>> 8) & 0x00ff00ff) | (b & 0xff00ff00);
    const t2 = (c & 0x00ff00ff) | ((d & 0x00ff00ff) << 8);
    const t3 = ((c >>> 8) & 0x00ff00ff) | (d & 0xff00ff00);
    o0[oi] = (t0 & 0xffff) | (t2 << 16);
    o1[oi] = (t1 & 0xffff) | (t3 << 16);
    o2[oi] = (t0 >>> 16) | (t2 & 0xffff0000);
    o3[oi] = (t1 >>> 16) | (t3 & 0xffff0000);
  }
}

const u32 = (b: Uint8Array, byteStart: number, words: number): Uint32Array => new Uint32Array(b.buffer, b.byteOffset + byteStart, words);

function checkSizes(name: string, src: Uint8Array, dest: Uint8Array, typesize: number): void {
  if (!Number.isInteger(typesize) || typesize < 1) throw new RangeError(`${name}: typesize must be a positive integer, got ${typesize}`);
  if (dest.length < src.length) throw new RangeError(`${name}: destination holds ${dest.length} bytes, source has ${src.length}`);
}

/** Shuffles all of `src` into the first `src.length` bytes of `dest`. */
export function byteShuffle(src: Uint8Array, dest: Uint8Array, typesize: number): void {
  checkSizes("byteShuffle", src, dest, typesize);
  const len = src.length;
  const n = Math.floor(len / typesize);
  const body = n * typesize;
  if (typesize === 1 || n === 0) {
    dest.set(src);
    return;
  }
  if ((typesize === 4 || typesize === 8) && wordAligned(src, dest, n)) {
    // Elements 4i..4i+3 (word k of each) become word i of streams k*4..k*4+3.
    const q = n >>> 2;
    const wordsPerElem = typesize >>> 2;
    const w = u32(src, 0, n * wordsPerElem);
    for (let k = 0; k < wordsPerElem; k++) {
      const e0 = w.subarray(k);
      const e1 = w.subarray(k + wordsPerElem);
      const e2 = w.subarray(k + 2 * wordsPerElem);
      const e3 = w.subarray(k + 3 * wordsPerElem);
      const out = [0, 1, 2, 3].map((j) => u32(dest, (4 * k + j) * n, q));
      transposeWords(e0, e1, e2, e3, 4 * wordsPerElem, out, 1, q);
    }
  } else if (typesize === 4 && LITTLE_ENDIAN && src.byteOffset % 4 === 0) {
    // One aligned word read per element instead of four byte reads.
    const w = new Uint32Array(src.buffer, src.byteOffset, n);
    const n2 = n * 2;
    const n3 = n * 3;
    for (let i = 0; i < n; i++) {
      const v = w[i];
      dest[i] = v;
      dest[n + i] = v >>> 8;
      dest[n2 + i] = v >>> 16;
      dest[n3 + i] = v >>> 24;
    }
  } else if (typesize === 8 && LITTLE_ENDIAN && src.byteOffset % 4 === 0) {
    const w = new Uint32Array(src.buffer, src.byteOffset, n * 2);
    for (let i = 0; i < n; i++) {
      const lo = w[2 * i];
      const hi = w[2 * i + 1];
      dest[i] = lo;
      dest[n + i] = lo >>> 8;
      dest[2 * n + i] = lo >>> 16;
      dest[3 * n + i] = lo >>> 24;
      dest[4 * n + i] = hi;
      dest[5 * n + i] = hi >>> 8;
      dest[6 * n + i] = hi >>> 16;
      dest[7 * n + i] = hi >>> 24;
    }
  } else if (typesize === 2 && wordAligned(src, dest, n)) {
    // Four elements (two words) in, one word to each of the two streams out.
    const q = n >>> 2;
    const w = u32(src, 0, 2 * q);
    const o0 = u32(dest, 0, q);
    const o1 = u32(dest, n, q);
    for (let i = 0; i < q; i++) {
      const a = w[2 * i];
      const b = w[2 * i + 1];
      o0[i] = (a & 0xff) | ((a >>> 8) & 0xff00) | ((b & 0xff) << 16) | ((b << 8) & 0xff000000);
      o1[i] = ((a >>> 8) & 0xff) | ((a >>> 16) & 0xff00) | ((b << 8) & 0xff0000) | (b & 0xff000000);
    }
  } else if (typesize === 2) {
    for (let i = 0, s = 0; i < n; i++, s += 2) {
      dest[i] = src[s];
      dest[n + i] = src[s + 1];
    }
  } else {
    for (let j = 0; j < typesize; j++) {
      const base = j * n;
      for (let i = 0, s = j; i < n; i++, s += typesize) dest[base + i] = src[s];
    }
  }
  if (body < len) dest.set(src.subarray(body), body);
}

/** Reverses {@link byteShuffle}: unshuffles all of `src` into the first `src.length` bytes of `dest`. */
export function byteUnshuffle(src: Uint8Array, dest: Uint8Array, typesize: number): void {
  checkSizes("byteUnshuffle", src, dest, typesize);
  const len = src.length;
  const n = Math.floor(len / typesize);
  const body = n * typesize;
  if (typesize === 1 || n === 0) {
    dest.set(src);
    return;
  }
  if ((typesize === 4 || typesize === 8) && wordAligned(src, dest, n)) {
    // Word i of streams k*4..k*4+3 becomes word k of elements 4i..4i+3.
    const q = n >>> 2;
    const wordsPerElem = typesize >>> 2;
    const w = u32(dest, 0, n * wordsPerElem);
    for (let k = 0; k < wordsPerElem; k++) {
      const s = [0, 1, 2, 3].map((j) => u32(src, (4 * k + j) * n, q));
      const out = [w.subarray(k), w.subarray(k + wordsPerElem), w.subarray(k + 2 * wordsPerElem), w.subarray(k + 3 * wordsPerElem)];
      transposeWords(s[0], s[1], s[2], s[3], 1, out, 4 * wordsPerElem, q);
    }
  } else if (typesize === 4 && LITTLE_ENDIAN && dest.byteOffset % 4 === 0) {
    // Assemble each element in a register and store it with one aligned word write.
    const w = new Uint32Array(dest.buffer, dest.byteOffset, n);
    const n2 = n * 2;
    const n3 = n * 3;
    for (let i = 0; i < n; i++) {
      w[i] = src[i] | (src[n + i] << 8) | (src[n2 + i] << 16) | (src[n3 + i] << 24);
    }
  } else if (typesize === 8 && LITTLE_ENDIAN && dest.byteOffset % 4 === 0) {
    const w = new Uint32Array(dest.buffer, dest.byteOffset, n * 2);
    const n2 = n * 2;
    const n3 = n * 3;
    const n4 = n * 4;
    const n5 = n * 5;
    const n6 = n * 6;
    const n7 = n * 7;
    for (let i = 0; i < n; i++) {
      w[2 * i] = src[i] | (src[n + i] << 8) | (src[n2 + i] << 16) | (src[n3 + i] << 24);
      w[2 * i + 1] = src[n4 + i] | (src[n5 + i] << 8) | (src[n6 + i] << 16) | (src[n7 + i] << 24);
    }
  } else if (typesize === 2 && wordAligned(src, dest, n)) {
    // One word from each stream in, two words (four elements) out.
    const q = n >>> 2;
    const s0 = u32(src, 0, q);
    const s1 = u32(src, n, q);
    const w = u32(dest, 0, 2 * q);
    for (let i = 0; i < q; i++) {
      const a = s0[i];
      const b = s1[i];
      w[2 * i] = (a & 0xff) | ((b & 0xff) << 8) | ((a & 0xff00) << 8) | ((b & 0xff00) << 16);
      w[2 * i + 1] = ((a >>> 16) & 0xff) | ((b >>> 8) & 0xff00) | ((a >>> 8) & 0xff0000) | (b & 0xff000000);
    }
  } else if (typesize === 2) {
    for (let i = 0, d = 0; i < n; i++, d += 2) {
      dest[d] = src[i];
      dest[d + 1] = src[n + i];
    }
  } else {
    for (let j = 0; j < typesize; j++) {
      const base = j * n;
      for (let i = 0, d = j; i < n; i++, d += typesize) dest[d] = src[base + i];
    }
  }
  if (body < len) dest.set(src.subarray(body), body);
}

/*
 * The 8x8 bit-matrix transpose at the heart of bit shuffling: eight bytes (byte m = row m, bit k
 * = column k) become eight bytes where byte k bit m is input byte m bit k. `lo` holds bytes 0-3 and
 * `hi` bytes 4-7, little-endian; this is the 64-bit delta-swap sequence of bitshuffle's
 * TRANS_BIT_8X8 split into 32-bit halves (the first two swaps never cross the halves, the third
 * moves nibbles between them). It is written out inline below because returning two values from a
 * helper costs more than the transpose itself.
 */

/** Elements to bit rows: byte j of elements 8q..8q+7 becomes byte q of rows 8j..8j+7. */
function bitTransposeForward(src: Uint8Array, dest: Uint8Array, typesize: number, n: number): void {
  const rowBytes = n >>> 3;
  const ts = typesize;
  for (let j = 0; j < ts; j++) {
    const rowBase = j * 8 * rowBytes;
    for (let q = 0, e = j; q < rowBytes; q++, e += 8 * ts) {
      let lo = src[e] | (src[e + ts] << 8) | (src[e + 2 * ts] << 16) | (src[e + 3 * ts] << 24);
      const e4 = e + 4 * ts;
      let hi = src[e4] | (src[e4 + ts] << 8) | (src[e4 + 2 * ts] << 16) | (src[e4 + 3 * ts] << 24);
      let t = (lo ^ (lo >>> 7)) & 0x00aa00aa;
      lo = lo ^ t ^ (t << 7);
      t = (hi ^ (hi >>> 7)) & 0x00aa00aa;
      hi = hi ^ t ^ (t << 7);
      t = (lo ^ (lo >>> 14)) & 0x0000cccc;
      lo = lo ^ t ^ (t << 14);
      t = (hi ^ (hi >>> 14)) & 0x0000cccc;
      hi = hi ^ t ^ (t << 14);
      t = (lo ^ ((lo >>> 28) | (hi << 4))) & 0xf0f0f0f0;
      lo = lo ^ t;
      hi = hi ^ (t >>> 4);
      const r = rowBase + q;
      dest[r] = lo;
      dest[r + rowBytes] = lo >>> 8;
      dest[r + 2 * rowBytes] = lo >>> 16;
      dest[r + 3 * rowBytes] = lo >>> 24;
      const r4 = r + 4 * rowBytes;
      dest[r4] = hi;
      dest[r4 + rowBytes] = hi >>> 8;
      dest[r4 + 2 * rowBytes] = hi >>> 16;
      dest[r4 + 3 * rowBytes] = hi >>> 24;
    }
  }
}

/** Bit rows to elements: the inverse of {@link bitTransposeForward}. */
function bitTransposeBackward(src: Uint8Array, dest: Uint8Array, typesize: number, n: number): void {
  const rowBytes = n >>> 3;
  const ts = typesize;
  for (let j = 0; j < ts; j++) {
    const rowBase = j * 8 * rowBytes;
    for (let q = 0, e = j; q < rowBytes; q++, e += 8 * ts) {
      const r = rowBase + q;
      let lo = src[r] | (src[r + rowBytes] << 8) | (src[r + 2 * rowBytes] << 16) | (src[r + 3 * rowBytes] << 24);
      const r4 = r + 4 * rowBytes;
      let hi = src[r4] | (src[r4 + rowBytes] << 8) | (src[r4 + 2 * rowBytes] << 16) | (src[r4 + 3 * rowBytes] << 24);
      let t = (lo ^ (lo >>> 7)) & 0x00aa00aa;
      lo = lo ^ t ^ (t << 7);
      t = (hi ^ (hi >>> 7)) & 0x00aa00aa;
      hi = hi ^ t ^ (t << 7);
      t = (lo ^ (lo >>> 14)) & 0x0000cccc;
      lo = lo ^ t ^ (t << 14);
      t = (hi ^ (hi >>> 14)) & 0x0000cccc;
      hi = hi ^ t ^ (t << 14);
      t = (lo ^ ((lo >>> 28) | (hi << 4))) & 0xf0f0f0f0;
      lo = lo ^ t;
      hi = hi ^ (t >>> 4);
      dest[e] = lo;
      dest[e + ts] = lo >>> 8;
      dest[e + 2 * ts] = lo >>> 16;
      dest[e + 3 * ts] = lo >>> 24;
      const e4 = e + 4 * ts;
      dest[e4] = hi;
      dest[e4 + ts] = hi >>> 8;
      dest[e4 + 2 * ts] = hi >>> 16;
      dest[e4 + 3 * ts] = hi >>> 24;
    }
  }
}

function bitShuffleImpl(name: string, src: Uint8Array, dest: Uint8Array, typesize: number, forward: boolean): void {
  checkSizes(name, src, dest, typesize);
  const len = src.length;
  const n = Math.floor(len / typesize);
  if (n % 8 !== 0 || n === 0) {
    // c-blosc 1.x leaves such a block as it is rather than shuffling the first 8k elements.
    dest.set(src);
    return;
  }
  if (forward) bitTransposeForward(src, dest, typesize, n);
  else bitTransposeBackward(src, dest, typesize, n);
  const body = n * typesize;
  if (body < len) dest.set(src.subarray(body), body);
}

/** Bit-shuffles all of `src` into the first `src.length` bytes of `dest` (c-blosc 1.x rules). */
export function bitShuffle(src: Uint8Array, dest: Uint8Array, typesize: number): void {
  bitShuffleImpl("bitShuffle", src, dest, typesize, true);
}

/** Reverses {@link bitShuffle}. */
export function bitUnshuffle(src: Uint8Array, dest: Uint8Array, typesize: number): void {
  bitShuffleImpl("bitUnshuffle", src, dest, typesize, false);
}
