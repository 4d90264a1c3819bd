/**
 * Turning a 2-d slice of numbers into pixels: contrast limits, then a colormap, missing elements
 * (an optional array's nulls) in their own colour; a slice of strings or bytes into cell texts.
 * Pure functions, used by the viewer page and checked in Node (test/viewer.test.ts).
 */
import { innermostType, unwrapPresent, type DataType, type Scalar } from "../metadata/dtype.js";

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

/** The colour of a missing element (null in an optional array): opaque red, which no colormap holds. */
export const MISSING_RGBA: readonly number[] = [255, 0, 0, 255];

/** Whether a type's elements are text or bytes (shown as a table of cells, not as an image). */
export function isTextual(dt: DataType): boolean {
  return !["numeric", "narrow_float", "datetime"].includes(innermostType(dt).kind);
}

/**
 * Element i of what `get` returned, null when missing: a nested optional's present value comes
 * wrapped once per level below the first (`[5]`, `[[5]]`), taken off here, a null at any level
 * being missing.
 */
export function elementAt(data: ArrayLike<unknown>, i: number, dt: DataType): unknown {
  let v = data[i];
  for (let t = dt; t.kind === "optional" && v !== null && v !== undefined; t = t.inner) v = unwrapPresent(v as Scalar, t);
  return v ?? null;
}

/** The first `n` elements as numbers, and which are missing (null when none is). */
export function sliceNumbers(data: ArrayLike<unknown>, n: number, dt: DataType): { values: Float64Array; missing: Uint8Array | null } {
  const values = new Float64Array(n);
  let missing: Uint8Array | null = null;
  for (let i = 0; i < n; i++) {
    const v = elementAt(data, i, dt);
    if (v === null) (missing ??= new Uint8Array(n))[i] = 1;
    values[i] = v === null ? NaN : Number(v);
  }
  return { values, missing };
}

/** A cell's text: strings as they are, bytes as hex, anything else as JSON (big integers as digits). */
export function cellText(v: unknown): string {
  if (typeof v === "string") return v;
  if (v instanceof Uint8Array) return Array.from(v, (b) => b.toString(16).padStart(2, "0")).join(" ");
  if (ArrayBuffer.isView(v)) return `[${Array.from(v as unknown as ArrayLike<unknown>).join(", ")}]`;
  return JSON.stringify(v, (_k, x: unknown) => (typeof x === "bigint" ? x.toString() : x)) ?? String(v);
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
 * row r, column c, so either axis order of the read slice draws without a copy; where `missing`
 * marks that element, it is drawn in MISSING_RGBA.
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
  missing: ArrayLike<number> | null = null,
): Uint8ClampedArray<ArrayBuffer> {
  const lut = colormapLut(map);
  const out = new Uint8ClampedArray(new ArrayBuffer(rows * cols * 4));
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const i = r * rowStride + c * colStride;
      const o = (r * cols + c) * 4;
      if (missing?.[i]) {
        out.set(MISSING_RGBA, o);
        continue;
      }
      const level = levelOf(values[i], lo, hi);
      if (level < 0) continue; // NaN: transparent
      out[o] = lut[level * 3];
      out[o + 1] = lut[level * 3 + 1];
      out[o + 2] = lut[level * 3 + 2];
      out[o + 3] = 255;
    }
  }
  return out;
}
