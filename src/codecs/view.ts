/**
 * Helpers for chunk views: contiguity checks, the one gather that makes a view contiguous, and the
 * element-region kernels (fill, copy, compare) that the chunk tasks and the sharding codec share.
 */
import {
  componentsPerElement,
  isObjectType,
  type Component,
  type DataType,
  type ElementArray,
  type Scalar,
  type TypedArray,
} from "../metadata/dtype.js";
import { allocElements, memoryBytesPerComponent, typedArrayOver } from "../metadata/elements.js";
import { scalarToComponents } from "../metadata/scalars.js";
import { zeroOf } from "../metadata/fill-value.js";
import { allEqualStrided, contiguousStrides, copyStrided, fillStrided, product, type StridedRegion } from "../indexing/strided.js";
import type { ChunkView } from "./types.js";
import type { ScratchLease } from "../scratch.js";

export function contiguousView(data: ElementArray, shape: number[]): ChunkView {
  return { data, shape, strides: contiguousStrides(shape), offset: 0 };
}

export function isCContiguous(view: ChunkView): boolean {
  let expected = 1;
  for (let i = view.shape.length - 1; i >= 0; i--) {
    if (view.shape[i] !== 1 && view.strides[i] !== expected) return false;
    expected *= view.shape[i];
  }
  return true;
}

/** Expands element strides into number strides, adding the re/im axis for complex types. */
export function componentLayout(
  shape: readonly number[],
  strides: readonly number[],
  offset: number,
  dtype: DataType,
): { shape: number[]; strides: number[]; offset: number } {
  const c = componentsPerElement(dtype);
  if (c === 1) return { shape: [...shape], strides: [...strides], offset };
  return { shape: [...shape, c], strides: [...strides.map((s) => s * c), 1], offset: offset * c };
}

/** The view's elements in C order, as exactly `product(shape)` elements with nothing around them. */
export function contiguousData(view: ChunkView, dtype: DataType, scratch?: ScratchLease): ElementArray {
  const n = product(view.shape);
  const c = componentsPerElement(dtype);
  if (isCContiguous(view)) {
    const start = view.offset * c;
    if (start === 0 && view.data.length === n * c) return view.data;
    return ArrayBuffer.isView(view.data)
      ? (view.data.subarray(start, start + n * c) as ElementArray)
      : (view.data.slice(start, start + n * c) as ElementArray);
  }
  const out = scratch && !isObjectType(dtype) ? scratchElements(scratch, dtype, n) : allocElements(dtype, n);
  const src = componentLayout(view.shape, view.strides, view.offset, dtype);
  const dst = componentLayout(view.shape, contiguousStrides(view.shape), 0, dtype);
  copyStrided(out, dst, view.data, src, src.shape);
  return out;
}

/** `count` elements of a fixed-size type in a buffer of `scratch` (not zeroed: for overwriting). */
export function scratchElements(scratch: ScratchLease, dtype: DataType, count: number): TypedArray {
  const len = count * componentsPerElement(dtype);
  return typedArrayOver(dtype, scratch.take(len * memoryBytesPerComponent(dtype)).buffer, 0, len);
}

/** A region of elements `start (+ step)` within an n-d layout of `strides`, beginning at `base`. */
export function regionAt(start: readonly number[], steps: readonly number[] | null, strides: readonly number[], base = 0): StridedRegion {
  let offset = base;
  for (let d = 0; d < start.length; d++) offset += start[d] * strides[d];
  return { offset, strides: steps ? strides.map((s, d) => s * steps[d]) : [...strides] };
}

/** The fill value as memory stores it, one value per component; a null fill (v2 only) is zero. */
export function fillComponents(fillValue: Scalar | null, dtype: DataType): Component[] {
  return scalarToComponents(fillValue ?? zeroOf(dtype), dtype);
}

/** An element region as one region per component (complex: re, then im). */
function componentRegions(region: StridedRegion, c: number): StridedRegion[] {
  if (c === 1) return [region];
  const strides = region.strides.map((s) => s * c);
  return Array.from({ length: c }, (_, k) => ({ offset: region.offset * c + k, strides }));
}

/** Fills a region of elements with per-component values. */
export function fillElements(data: ElementArray, region: StridedRegion, shape: readonly number[], comps: readonly Component[]): void {
  componentRegions(region, comps.length).forEach((r, k) => fillStrided(data, r, shape, comps[k]));
}

/** Whether every element of a region equals the per-component values. */
export function elementsEqual(data: ElementArray, region: StridedRegion, shape: readonly number[], comps: readonly Component[]): boolean {
  return componentRegions(region, comps.length).every((r, k) => allEqualStrided(data, r, shape, comps[k]));
}

/** Copies between two element regions, expanding complex elements into their components. */
export function copyElements(
  dtype: DataType,
  dst: ElementArray,
  dstRegion: StridedRegion,
  src: ElementArray,
  srcRegion: StridedRegion,
  shape: readonly number[],
): void {
  const d = componentLayout(shape, dstRegion.strides, dstRegion.offset, dtype);
  const s = componentLayout(shape, srcRegion.strides, srcRegion.offset, dtype);
  copyStrided(dst, d, src, s, d.shape);
}
