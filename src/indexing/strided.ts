/**
 * Strided n-d copy and fill kernels: the scatter of a decoded chunk into the output, the gather of
 * a value into a chunk, and the fill of missing chunks. Offsets and strides are in typed-array
 * elements (numbers); complex data is handled by callers as an extra innermost axis of 2. The
 * same kernels move strings and byte strings in plain JS arrays (variable-length types).
 */
import type { Component, ElementArray } from "../metadata/dtype.js";

export interface StridedRegion {
  offset: number;
  strides: number[];
}

/** C-order strides of a contiguous array of this shape. */
export function contiguousStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let s = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    strides[i] = s;
    s *= shape[i];
  }
  return strides;
}

export function product(shape: readonly number[]): number {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

/**
 * Drops length-1 axes and merges axes that are contiguous in every operand, so that a copy of
 * whole rows (or whole chunks) becomes one long run handled by `TypedArray.set`.
 */
function simplify(shape: readonly number[], stridesList: number[][]): { shape: number[]; strides: number[][] } {
  const outShape: number[] = [];
  const outStrides: number[][] = stridesList.map(() => []);
  for (let d = 0; d < shape.length; d++) {
    const n = shape[d];
    if (n === 1) continue;
    const last = outShape.length - 1;
    if (last >= 0 && stridesList.every((s, k) => outStrides[k][last] === s[d] * n)) {
      outShape[last] *= n;
      stridesList.forEach((s, k) => (outStrides[k][last] = s[d]));
      continue;
    }
    outShape.push(n);
    stridesList.forEach((s, k) => outStrides[k].push(s[d]));
  }
  return { shape: outShape, strides: outStrides };
}

/**
 * Calls `row` with the offsets (one per operand) of the start of every innermost row, in C order;
 * `row` returns false to stop early. The one odometer loop behind copy, fill and compare.
 */
function forEachRow(shape: number[], strides: number[][], start: number[], row: (offsets: number[]) => boolean | void): void {
  const nd = shape.length;
  const offsets = [...start];
  if (nd <= 1) {
    row(offsets);
    return;
  }
  const idx = new Array<number>(nd - 1).fill(0);
  for (;;) {
    if (row(offsets) === false) return;
    let k = nd - 2;
    for (; k >= 0; k--) {
      idx[k]++;
      for (let o = 0; o < offsets.length; o++) offsets[o] += strides[o][k];
      if (idx[k] < shape[k]) break;
      for (let o = 0; o < offsets.length; o++) offsets[o] -= strides[o][k] * shape[k];
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

/** Copies `shape` elements from `src` into `dst`, each addressed by its offset and strides. */
export function copyStrided(
  dst: ElementArray,
  dstRegion: StridedRegion,
  src: ElementArray,
  srcRegion: StridedRegion,
  shape: readonly number[],
): void {
  if (shape.some((n) => n === 0)) return;
  const { shape: sh, strides } = simplify(shape, [dstRegion.strides, srcRegion.strides]);
  const [ds, ss] = strides;
  const nd = sh.length;
  if (nd === 0) {
    (dst as Float64Array)[dstRegion.offset] = (src as Float64Array)[srcRegion.offset];
    return;
  }
  // Typed arrays of one family share set(); mixing bigint and number arrays never happens here.
  let d = dst as Float64Array;
  let s = src as Float64Array;
  let dOff = dstRegion.offset;
  let sOff = srcRegion.offset;
  const typed = ArrayBuffer.isView(dst);
  const bpe = typed ? d.BYTES_PER_ELEMENT : 0;
  // float32 (and float16) values pass through float64 in JavaScript, which quiets a signalling
  // NaN: copy them as integers of their size, so that every bit arrives.
  if (typed && (bpe === 4 || bpe === 2) && !(d instanceof Int32Array || d instanceof Uint32Array || d instanceof Int16Array || d instanceof Uint16Array)) {
    const View = bpe === 4 ? Int32Array : Uint16Array;
    d = new View(d.buffer as ArrayBuffer, d.byteOffset, d.length) as unknown as Float64Array;
    s = new View(s.buffer as ArrayBuffer, s.byteOffset, s.length) as unknown as Float64Array;
  }
  // Short contiguous rows (a 32³ chunk's are 64 bytes) cost more in the subarray that set() needs
  // than in the copy: move them as 8- or 4-byte words of views over both buffers instead (float64
  // and int32 elements copy their bits exactly in V8), creating nothing per row.
  if (typed && ds[nd - 1] === 1 && ss[nd - 1] === 1 && sh[nd - 1] * bpe <= WORD_ROWS_UP_TO) {
    for (const word of [8, 4]) {
      const aligned = (x: number): boolean => (x * bpe) % word === 0;
      if (
        d.byteOffset % word === 0 &&
        s.byteOffset % word === 0 &&
        aligned(dOff) &&
        aligned(sOff) &&
        aligned(sh[nd - 1]) &&
        ds.every((x, k) => k === nd - 1 || aligned(x)) &&
        ss.every((x, k) => k === nd - 1 || aligned(x))
      ) {
        const View = word === 8 ? Float64Array : Int32Array;
        const w = (x: number): number => (x * bpe) / word;
        d = new View(d.buffer as ArrayBuffer, d.byteOffset, Math.floor(d.byteLength / word)) as Float64Array;
        s = new View(s.buffer as ArrayBuffer, s.byteOffset, Math.floor(s.byteLength / word)) as Float64Array;
        for (let k = 0; k < nd - 1; k++) {
          ds[k] = w(ds[k]);
          ss[k] = w(ss[k]);
        }
        sh[nd - 1] = w(sh[nd - 1]);
        dOff = w(dOff);
        sOff = w(sOff);
        break;
      }
    }
  }
  const inner = sh[nd - 1];
  const dsi = ds[nd - 1];
  const ssi = ss[nd - 1];
  const useSet = typed && inner * (d.BYTES_PER_ELEMENT as number) > WORD_ROWS_UP_TO;
  const runRow = (dOff: number, sOff: number): void => {
    if (dsi === 1 && ssi === 1) {
      if (useSet) d.set(s.subarray(sOff, sOff + inner), dOff);
      else for (let i = 0; i < inner; i++) d[dOff + i] = s[sOff + i];
    } else {
      for (let i = 0; i < inner; i++) d[dOff + i * dsi] = s[sOff + i * ssi];
    }
  };
  if (nd > 3) {
    forEachRow(sh, [ds, ss], [dOff, sOff], ([dRow, sRow]) => runRow(dRow, sRow));
    return;
  }
  // Up to three axes (every chunk of a 1-3 d array, and most of any other once merged): plain
  // loops, with no callback and no offsets array per row.
  const n0 = nd === 3 ? sh[0] : 1;
  const n1 = nd >= 2 ? sh[nd - 2] : 1;
  const d0 = nd === 3 ? ds[0] : 0;
  const s0 = nd === 3 ? ss[0] : 0;
  const d1 = nd >= 2 ? ds[nd - 2] : 0;
  const s1 = nd >= 2 ? ss[nd - 2] : 0;
  for (let i0 = 0; i0 < n0; i0++) {
    let dr = dOff + i0 * d0;
    let sr = sOff + i0 * s0;
    for (let i1 = 0; i1 < n1; i1++, dr += d1, sr += s1) runRow(dr, sr);
  }
}

/**
 * Rows up to this many bytes are copied by a word loop, longer ones by TypedArray.set: measured on
 * a 2-core VM, 128³ uint16 chunks (256-byte rows) into a 512³ array took 283 ms by set and 120-150
 * ms by the loop; from 1 KiB rows up set is as fast or faster.
 */
const WORD_ROWS_UP_TO = 512;

/**
 * Sets every element of a strided region to `values` (one number per component: a complex fill
 * passes [re, im] with the last axis being the component axis of length 2).
 */
export function fillStrided(
  dst: ElementArray,
  region: StridedRegion,
  shape: readonly number[],
  value: Component,
): void {
  if (shape.some((n) => n === 0)) return;
  const { shape: sh, strides } = simplify(shape, [region.strides]);
  const [ds] = strides;
  const nd = sh.length;
  const d = dst as unknown as { [i: number]: Component; fill(v: Component, a: number, b: number): void };
  if (nd === 0) {
    d[region.offset] = value;
    return;
  }
  const inner = sh[nd - 1];
  const dsi = ds[nd - 1];
  const runRow = (off: number) => {
    if (dsi === 1) d.fill(value, off, off + inner);
    else for (let i = 0; i < inner; i++) d[off + i * dsi] = value;
  };
  forEachRow(sh, [ds], [region.offset], ([off]) => runRow(off));
}

/** Whether two element values hold the same content: bytes by byte, nested optional [v] by v. */
function sameContent(x: unknown, y: unknown): boolean {
  if (x instanceof Uint8Array && y instanceof Uint8Array) return x.length === y.length && x.every((b, i) => b === y[i]);
  if (Array.isArray(x) && Array.isArray(y)) return x.length === y.length && x.every((v, i) => sameContent(v, y[i]));
  return x === y;
}

/** Whether every element of a strided region equals `value` (NaN equals NaN, as for fill values). */
export function allEqualStrided(
  src: ElementArray,
  region: StridedRegion,
  shape: readonly number[],
  value: Component,
): boolean {
  const isNaNValue = typeof value === "number" && Number.isNaN(value);
  if (typeof value === "object" && value !== null) {
    // Byte strings, and an optional's [value] wrappers, compare by content, not identity.
    const same = (x: Component) => sameContent(x, value);
    let all = true;
    const { shape: sh0, strides: st0 } = simplify(shape, [region.strides]);
    const items = src as unknown as Component[];
    if (sh0.length === 0) return same(items[region.offset]);
    const n = sh0[sh0.length - 1];
    const step = st0[0][sh0.length - 1];
    forEachRow(sh0, st0, [region.offset], ([off]) => {
      for (let i = 0; i < n; i++) if (!same(items[off + i * step])) return (all = false);
    });
    return all;
  }
  const { shape: sh, strides } = simplify(shape, [region.strides]);
  const [ss] = strides;
  const nd = sh.length;
  const s = src as unknown as { [i: number]: Component };
  if (nd === 0) {
    const x = s[region.offset];
    return isNaNValue ? Number.isNaN(x as number) : x === value;
  }
  const inner = sh[nd - 1];
  const ssi = ss[nd - 1];
  const rowEqual = (off: number): boolean => {
    if (isNaNValue) {
      for (let i = 0; i < inner; i++) if (!Number.isNaN(s[off + i * ssi] as number)) return false;
    } else {
      for (let i = 0; i < inner; i++) if (s[off + i * ssi] !== value) return false;
    }
    return true;
  };
  let equal = true;
  forEachRow(sh, [ss], [region.offset], ([off]) => (equal = rowEqual(off)));
  return equal;
}
