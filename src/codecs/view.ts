/** Helpers for chunk views: contiguity checks and the one gather that makes a view contiguous. */
import { allocElements, componentsPerElement, type DataType, type ElementArray } from "../metadata/dtype.js";
import { contiguousStrides, copyStrided, product } from "../indexing/strided.js";
import type { ChunkView } from "./types.js";

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
export function contiguousData(view: ChunkView, dtype: DataType): ElementArray {
  const n = product(view.shape);
  const c = componentsPerElement(dtype);
  if (isCContiguous(view)) {
    const start = view.offset * c;
    if (start === 0 && view.data.length === n * c) return view.data;
    return ArrayBuffer.isView(view.data)
      ? (view.data.subarray(start, start + n * c) as ElementArray)
      : (view.data.slice(start, start + n * c) as ElementArray);
  }
  const out = allocElements(dtype, n);
  const src = componentLayout(view.shape, view.strides, view.offset, dtype);
  const dst = componentLayout(view.shape, contiguousStrides(view.shape), 0, dtype);
  copyStrided(out, dst, view.data, src, src.shape);
  return out;
}
