/**
 * NDArray, the result of `get` and a value for `set`, and the conversion of user values into a
 * typed array of the array's data type.
 */
import { InvalidArgumentError, ShapeMismatchError } from "../errors.js";
import {
  componentsPerElement,
  integerRange,
  subByteBits,
  typeFamily,
  type DataType,
  type ElementArray,
  type Scalar,
  type TypedArray,
} from "../metadata/dtype.js";
import { allocTypedArray } from "../metadata/elements.js";
import { scalarToComponents } from "../metadata/scalars.js";
import { contiguousStrides, product } from "./strided.js";
import { fromUserItems, userForm } from "./values.js";
import { integerElement } from "./cast.js";
import { rareTypes } from "../metadata/dtype-names.js";

/**
 * An n-dimensional array in C order: `data[offset + Σ i_k * stride_k]` (strides in elements; a
 * complex element is two numbers, re then im). `data` is a typed array for numbers (BigInt64Array
 * for int64 and datetimes, Float32Array for bfloat16), `string[]` for string types and
 * `Uint8Array[]` for byte strings, raw bits and records (see indexing/values.ts).
 */
export interface NDArray<T extends ElementArray = ElementArray> {
  /** The elements, laid out by `stride`. */
  data: T;
  /** Elements along each dimension. */
  shape: number[];
  /** Elements between neighbours along each dimension (C order for what `get` returns). */
  stride: number[];
}

/** The NDArray kinds `get` returns, told apart by their `data`. */
export type AnyNDArray = NDArray<TypedArray> | NDArray<string[]> | NDArray<Uint8Array[]>;

/** Elements as a typed array or a list of numbers, bigints or booleans. @inline */
type ValueList = ElementArray | ArrayLike<number | bigint | boolean>;

/** What `set` accepts: a scalar to broadcast, an NDArray, or a flat typed array / list in C order. */
export type WriteInput =
  | Scalar
  | NDArray
  | { data: ValueList; shape: readonly number[]; stride?: readonly number[] }
  | TypedArray
  | readonly (number | bigint | boolean)[]
  | readonly string[]
  | readonly Uint8Array[]
  | readonly Scalar[];

export function isScalarInput(v: unknown, dtype: DataType): v is Scalar {
  const form = userForm(dtype);
  if (form === "strings") return typeof v === "string";
  if (form === "bytes") return v instanceof Uint8Array;
  // A JSON value that is not a list of values nor an NDArray: an object value is one element.
  if (form === "json") return !ArrayBuffer.isView(v) && !Array.isArray(v) && !(typeof v === "object" && v !== null && "data" in v && "shape" in v);
  if (dtype.kind === "vlen_array") return ArrayBuffer.isView(v); // one element; a list is a list of elements
  if (dtype.kind === "optional") return v === null || (dtype.inner.kind === "optional" ? Array.isArray(v) && v.length === 1 : isScalarInput(v, dtype.inner));
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
): { data: ElementArray; strides: number[] } {
  let data: ValueList;
  let shape: readonly number[];
  let stride: readonly number[] | undefined;
  const perElement = userForm(dtype) === "typed" ? componentsPerElement(dtype) : 1;
  if (ArrayBuffer.isView(value) || Array.isArray(value)) {
    data = value as TypedArray;
    shape = selShape;
    const elements = (value as ArrayLike<unknown>).length / perElement;
    if (elements !== product(selShape)) {
      throw new ShapeMismatchError(`value has ${elements} elements but the selection has shape [${selShape}] (${product(selShape)} elements)`);
    }
  } else if (typeof value === "object" && value !== null && "data" in value && "shape" in value) {
    data = value.data;
    shape = value.shape;
    stride = value.stride;
  } else {
    // A value that is neither a scalar of the array's kind nor an array: an argument, not a selection.
    throw new InvalidArgumentError(`cannot write a value of type ${typeof value} to a ${dtype.name} array`);
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
  if (userForm(dtype) !== "typed") {
    if (data.length < product(shape)) throw new ShapeMismatchError(`value has ${data.length} elements, fewer than its shape [${shape}] needs`);
    return { data: fromUserItems(dtype, gather(data as ArrayLike<Scalar>, fullShape, strides)), strides: contiguousStrides(fullShape) };
  }
  const template = allocTypedArray(dtype, 0);
  // Same class is not same type for bool (any Uint8Array) and the sub-byte integers (an Int8Array
  // may hold 100, which int4 cannot): those are checked element by element.
  const checked = typeFamily(dtype) === "bool" || subByteBits(dtype) !== undefined;
  if (data.constructor === template.constructor && !checked) {
    return { data: data as TypedArray, strides };
  }
  return convert(data as ArrayLike<number | bigint | boolean>, dtype, fullShape, strides);
}

/** The elements of a strided list in C order. */
function gather<T>(src: ArrayLike<T>, shape: readonly number[], strides: readonly number[]): T[] {
  const n = product(shape);
  const out = new Array<T>(n);
  const idx = new Array<number>(shape.length).fill(0);
  for (let i = 0; i < n; i++) {
    let off = 0;
    for (let d = 0; d < shape.length; d++) off += idx[d] * strides[d];
    out[i] = src[off];
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
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
  // Integer types refuse what a typed array would wrap (300 into uint8) or zero (NaN): see cast.ts.
  const range = integerRange(dtype);
  const bool = typeFamily(dtype) === "bool";
  // A complex narrow float's parts, rounded to its component type.
  const round = dtype.kind === "narrow_float" ? rareTypes().roundToComponent.bind(null, dtype.component) : null;
  for (let i = 0; i < n; i++) {
    let off = 0;
    for (let d = 0; d < shape.length; d++) off += idx[d] * strides[d];
    if (range) {
      o[i] = integerElement(src[off], dtype, range, i);
    } else if (bool) {
      // numpy's bool(x): NaN is true, as every non-zero number.
      const x = src[off];
      o[i] = (typeof x === "number" ? x !== 0 : typeof x === "bigint" ? x !== 0n : x) ? 1 : 0;
    } else if (c === 2 && round) {
      o[2 * i] = round(Number(src[2 * off]));
      o[2 * i + 1] = round(Number(src[2 * off + 1]));
    } else if (c === 2) {
      o[2 * i] = Number(src[2 * off]);
      o[2 * i + 1] = Number(src[2 * off + 1]);
    } else {
      o[i] = scalarToComponents(src[off] as Scalar, dtype)[0] as number | bigint;
    }
    for (let d = shape.length - 1; d >= 0; d--) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return { data: out, strides: contiguousStrides(shape) };
}
