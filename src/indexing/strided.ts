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
  const inner = sh[nd - 1];
  const dsi = ds[nd - 1];
  const ssi = ss[nd - 1];
  // Typed arrays of one family share set(); mixing bigint and number arrays never happens here.
  const d = dst as Float64Array;
  const s = src as Float64Array;
  const typed = ArrayBuffer.isView(dst);
  const runRow = (dOff: number, sOff: number) => {
    if (dsi === 1 && ssi === 1) {
      if (inner > 32 && typed) d.set(s.subarray(sOff, sOff + inner), dOff);
      else for (let i = 0; i < inner; i++) d[dOff + i] = s[sOff + i];
    } else {
      for (let i = 0; i < inner; i++) d[dOff + i * dsi] = s[sOff + i * ssi];
    }
  };
  forEachRow(sh, [ds, ss], [dstRegion.offset, srcRegion.offset], ([dOff, sOff]) => runRow(dOff, sOff));
}

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

/** Whether every element of a strided region equals `value` (NaN equals NaN, as for fill values). */
export function allEqualStrided(
  src: ElementArray,
  region: StridedRegion,
  shape: readonly number[],
  value: Component,
): boolean {
  const isNaNValue = typeof value === "number" && Number.isNaN(value);
  if (value instanceof Uint8Array) {
    // Byte strings compare by content, not identity.
    const same = (x: Component) => x instanceof Uint8Array && x.length === value.length && x.every((b, i) => b === value[i]);
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
