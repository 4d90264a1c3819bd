/**
 * `get(selection, { out })`: reading into the caller's memory, as zarr-python's `out=`. The
 * caller's buffer is checked completely before any chunk is read, so a wrong one is refused with
 * nothing written.
 */
import { InvalidArgumentError, ShapeMismatchError } from "../errors.js";
import { componentsPerElement, type DataType, type TypedArray } from "../metadata/dtype.js";
import { allocTypedArray } from "../metadata/elements.js";
import type { NDArray } from "./ndarray.js";
import type { ResolvedSelection } from "./fancy.js";
import { contiguousStrides, product } from "./strided.js";
import { userForm } from "./values.js";

/** Where `get` may write: a flat typed array in C order, or an n-d view of the selection's shape. */
export type ReadOutput = TypedArray | NDArray<TypedArray>;

export interface PreparedOutput {
  data: TypedArray;
  /** Full-rank element strides into `data` (dimensions dropped by an integer get stride 0). */
  strides: number[];
  /** What `get` returns: an NDArray over `data` itself. */
  result: NDArray<TypedArray>;
}

const describe = (x: unknown): string =>
  x === null ? "null" : ArrayBuffer.isView(x) ? x.constructor.name : Array.isArray(x) ? "an array" : typeof x;

/**
 * Checks `out` against the array's type and the selection and returns the task's view of it.
 * `fullShape` is the selection's shape with integer-selected dimensions kept as length 1,
 * `dropped` marks those dimensions, `shape` is the result's shape (without them).
 */
export function prepareReadOutput(
  out: unknown,
  dtype: DataType,
  fullShape: readonly number[],
  dropped: readonly boolean[],
  shape: readonly number[],
): PreparedOutput {
  if (userForm(dtype) !== "typed") {
    throw new InvalidArgumentError(`out: ${dtype.name} values are not numbers, so they cannot be read into a typed array`);
  }
  const Expected = allocTypedArray(dtype, 0).constructor as { name: string };
  const c = componentsPerElement(dtype);
  const checkData = (data: unknown, what: string): TypedArray => {
    if (!ArrayBuffer.isView(data) || data.constructor !== Expected) {
      throw new InvalidArgumentError(`${what} must be a ${Expected.name} for ${dtype.name} values, got ${describe(data)}`);
    }
    return data as TypedArray;
  };
  if (ArrayBuffer.isView(out)) {
    const data = checkData(out, "out");
    const n = product(shape);
    if (data.length !== n * c) {
      throw new ShapeMismatchError(
        `out has ${data.length} numbers, the selection of shape [${shape}] needs ${n * c}` + (c > 1 ? ` (${c} per ${dtype.name} element)` : ""),
      );
    }
    return { data, strides: contiguousStrides(fullShape as number[]), result: { data, shape: [...shape], stride: contiguousStrides(shape as number[]) } };
  }
  if (typeof out !== "object" || out === null || !("data" in out) || !("shape" in out)) {
    throw new InvalidArgumentError(`out must be a typed array or an NDArray ({ data, shape, stride }), got ${describe(out)}`);
  }
  const nd = out as { data: unknown; shape: unknown; stride?: unknown };
  const data = checkData(nd.data, "out.data");
  const outShape = nd.shape;
  if (!Array.isArray(outShape) || outShape.length !== shape.length || outShape.some((n, i) => n !== shape[i])) {
    throw new ShapeMismatchError(`out has shape [${Array.isArray(outShape) ? outShape : "?"}], the selection has shape [${shape}]`);
  }
  const stride = nd.stride === undefined ? contiguousStrides(shape as number[]) : nd.stride;
  if (!Array.isArray(stride) || stride.length !== shape.length || !stride.every((s) => Number.isInteger(s))) {
    throw new InvalidArgumentError(`out.stride must be ${shape.length} integers (element strides), got ${JSON.stringify(nd.stride)}`);
  }
  // Every element the read writes must lie inside out.data: its first and last offsets bound them.
  let lo = 0;
  let hi = 0;
  shape.forEach((n, d) => {
    if (n === 0) return;
    const reach = (n - 1) * stride[d];
    if (reach < 0) lo += reach;
    else hi += reach;
  });
  if (product(shape) > 0 && (lo < 0 || (hi + 1) * c > data.length)) {
    throw new ShapeMismatchError(`out.stride [${stride}] reaches elements [${lo}, ${hi}] outside out.data (${data.length / c} elements)`);
  }
  const strides: number[] = [];
  let k = 0;
  for (let d = 0; d < fullShape.length; d++) strides.push(dropped[d] ? 0 : stride[k++]);
  return { data, strides, result: { data, shape: [...shape], stride: [...stride] } };
}

/**
 * `get`'s `out` (options.out) checked against a resolved selection: what prepareReadOutput checks,
 * and that a point selection, which addresses its output by element index, reads only into a
 * C-contiguous one. Nothing is read yet. ZarrArray.get calls it through lazy-features.ts: a page
 * that never reads into its own buffer never loads this module.
 */
export function selectionOutput(
  resolved: ResolvedSelection,
  options: { out?: unknown; field?: string },
  dtype: DataType,
  full: readonly number[],
  dropped: readonly boolean[],
  shape: readonly number[],
): PreparedOutput {
  if (options.field !== undefined) throw new InvalidArgumentError("get: out and field cannot be combined");
  if (resolved.kind !== "points") return prepareReadOutput(options.out, dtype, full, dropped, shape);
  const into = prepareReadOutput(options.out, dtype, shape, shape.map(() => false), shape);
  const c = contiguousStrides(shape as number[]);
  if (!shape.every((n, d) => n <= 1 || into.strides[d] === c[d])) {
    throw new InvalidArgumentError("get: a point selection (vindex) reads only into a C-contiguous out");
  }
  return { ...into, strides: [1] };
}
