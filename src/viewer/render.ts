/**
 * Turning a 2-d slice of numbers into pixels: contrast limits, then a colormap. Pure functions,
 * used by the viewer page and checked in Node (test/viewer.test.ts).
 */

export type ColormapName = "gray" | "viridis" | "magma";

export const COLORMAPS: readonly ColormapName[] = ["gray", "viridis", "magma"];

/** A few anchor colours per map, interpolated linearly to 256 entries (close to matplotlib's maps). */
const ANCHORS: Record<ColormapName, [number, number, number][]> = {
  gray: [
    [0, 0, 0],
    [255, 255, 255],
  ],
  viridis: [
    [68, 1, 84],
    [72, 40, 120],
    [62, 74, 137],
    [49, 104, 142],
    [38, 130, 142],
    [31, 158, 137],
    [53, 183, 121],
    [109, 205, 89],
    [180, 222, 44],
    [253, 231, 37],
  ],
  magma: [
    [0, 0, 4],
    [28, 16, 68],
    [79, 18, 123],
    [129, 37, 129],
    [181, 54, 122],
    [229, 80, 100],
    [251, 135, 97],
    [254, 194, 135],
    [252, 253, 191],
  ],
};

const luts = new Map<ColormapName, Uint8Array>();

/** 256 RGB triples. */
export function colormapLut(name: ColormapName): Uint8Array {
  let lut = luts.get(name);
  if (lut) return lut;
  const anchors = ANCHORS[name];
  lut = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const t = (i / 255) * (anchors.length - 1);
    const k = Math.min(Math.floor(t), anchors.length - 2);
    const f = t - k;
    for (let c = 0; c < 3; c++) lut[i * 3 + c] = Math.round(anchors[k][c] * (1 - f) + anchors[k + 1][c] * f);
  }
  luts.set(name, lut);
  return lut;
}

/** The lookup index of a value: `lo` maps to 0, `hi` to 255, clamped; NaN to -1 (drawn transparent). */
export function levelOf(v: number, lo: number, hi: number): number {
  if (Number.isNaN(v)) return -1;
  if (!(hi > lo)) return v >= hi ? 255 : 0;
  const t = (v - lo) / (hi - lo);
  return t <= 0 ? 0 : t >= 1 ? 255 : Math.round(t * 255);
}

/** The smallest and largest finite values (the default contrast limits); [0, 1] when there are none. */
export function autoLimits(values: ArrayLike<number>): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Number.isFinite(v)) {
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  return lo <= hi ? [lo, hi] : [0, 1];
}

/**
 * RGBA pixels of a `rows` x `cols` slice. `values[r * rowStride + c * colStride]` is the value at
 * row r, column c, so either axis order of the read slice draws without a copy.
 */
export function toRgba(
  values: ArrayLike<number>,
  rows: number,
  cols: number,
  rowStride: number,
  colStride: number,
  lo: number,
  hi: number,
  map: ColormapName,
): Uint8ClampedArray<ArrayBuffer> {
  const lut = colormapLut(map);
  const out = new Uint8ClampedArray(new ArrayBuffer(rows * cols * 4));
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const level = levelOf(values[r * rowStride + c * colStride], lo, hi);
      const o = (r * cols + c) * 4;
      if (level < 0) continue; // NaN: transparent
      out[o] = lut[level * 3];
      out[o + 1] = lut[level * 3 + 1];
      out[o + 2] = lut[level * 3 + 2];
      out[o + 3] = 255;
    }
  }
  return out;
}
