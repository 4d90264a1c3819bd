/**
 * NDArray, the result of `get` and a value for `set`, and the conversion of user values into a
 * typed array of the array's data type.
 */
import { ShapeMismatchError, BadSelectionError } from "../errors.js";
import {
  allocTypedArray,
  componentsPerElement,
  scalarToStored,
  typeFamily,
  type DataType,
  type Scalar,
  type TypedArray,
} from "../metadata/dtype.js";
import { contiguousStrides, product } from "./strided.js";

/**
 * An n-dimensional array in C order: `data[offset + Σ i_k * stride_k]` (strides in elements; a
 * complex element is two numbers, re then im).
 */
export interface NDArray<T extends TypedArray = TypedArray> {
  data: T;
  shape: number[];
  stride: number[];
}

/** What `set` accepts: a scalar to broadcast, an NDArray, or a flat typed array / list in C order. */
export type WriteInput = Scalar | NDArray | { data: TypedArray | ArrayLike<number | bigint | boolean>; shape: readonly number[]; stride?: readonly number[] } | TypedArray | readonly (number | bigint | boolean)[];

export function isScalarInput(v: unknown, dtype: DataType): v is Scalar {
  if (typeof v === "number" || typeof v === "bigint" || typeof v === "boolean") return true;
  return (
    typeFamily(dtype) === "complex" && Array.isArray(v) && v.length === 2 && v.every((x) => typeof x === "number")
  );
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Turns a write value into a typed array of the array's type plus full-rank strides. A value of
 * the right typed-array class is used in place (no copy); anything else is converted once.
 */
export function prepareWriteValue(
  value: WriteInput,
  dtype: DataType,
  selShape: readonly number[],
  fullShape: readonly number[],
  dropped: readonly boolean[],
): { data: TypedArray; strides: number[] } {
  let data: TypedArray | ArrayLike<number | bigint | boolean>;
  let shape: readonly number[];
  let stride: readonly number[] | undefined;
  if (ArrayBuffer.isView(value) || Array.isArray(value)) {
    data = value as TypedArray;
    shape = selShape;
    const elements = (value as ArrayLike<unknown>).length / componentsPerElement(dtype);
    if (elements !== product(selShape)) {
      throw new ShapeMismatchError(`value has ${elements} elements but the selection has shape [${selShape}] (${product(selShape)} elements)`);
    }
  } else if (typeof value === "object" && value !== null && "data" in value && "shape" in value) {
    data = value.data;
    shape = value.shape;
    stride = value.stride;
  } else {
    throw new BadSelectionError(`cannot write a value of type ${typeof value}`);
  }
  // Accept the selection's shape, or the full-rank shape that keeps integer-indexed axes as 1.
  const strides0 = stride ? [...stride] : contiguousStrides(shape);
  let strides: number[];
  if (sameShape(shape, selShape)) {
    strides = [];
    let k = 0;
    for (let d = 0; d < fullShape.length; d++) strides.push(dropped[d] ? 0 : strides0[k++]);
  } else if (sameShape(shape, fullShape)) {
    strides = strides0;
  } else {
    throw new ShapeMismatchError(`value has shape [${shape}] but the selection has shape [${selShape}]`);
  }
  const template = allocTypedArray(dtype, 0);
  if (data.constructor === template.constructor && !(typeFamily(dtype) === "bool" && !(data instanceof Uint8Array))) {
    return { data: data as TypedArray, strides };
  }
  return convert(data, dtype, fullShape, strides);
}

/** Copies a value of another type into a new C-order typed array of `dtype`. */
function convert(
  src: ArrayLike<number | bigint | boolean>,
  dtype: DataType,
  shape: readonly number[],
  strides: readonly number[],
): { data: TypedArray; strides: number[] } {
  const n = product(shape);
  const out = allocTypedArray(dtype, n);
  const c = componentsPerElement(dtype);
  const o = out as unknown as { [i: number]: number | bigint };
  const idx = new Array<number>(shape.length).fill(0);
  for (let i = 0; i < n; i++) {
    let off = 0;
    for (let d = 0; d < shape.length; d++) off += idx[d] * strides[d];
    if (c === 2) {
      o[2 * i] = Number(src[2 * off]);
      o[2 * i + 1] = Number(src[2 * off + 1]);
    } else {
      o[i] = scalarToStored(src[off] as Scalar, dtype) as number | bigint;
    }
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return { data: out, strides: contiguousStrides(shape) };
}
