/**
 * Shared pieces of the numcodecs array filters: reading a v2 dtype option, casting one value into
 * another type the way numpy's `astype` does, and numpy's round-half-to-even.
 */
import { InvalidMetadataError } from "../../errors.js";
import { isObjectType, typeFamily, type DataType, type TypedArray } from "../../metadata/dtype.js";
import { parseDataType } from "../../metadata/dtype-names.js";
import { allocTypedArray } from "../../metadata/elements.js";
import { zeroOf } from "../../metadata/fill-value.js";
import type { JsonObject } from "../../metadata/json.js";
import type { ChunkSpec, ChunkView } from "../types.js";
import { contiguousData, contiguousView } from "../view.js";

/** A numeric dtype option (`"<i4"`) of a filter; refuses strings and records by the filter's name. */
export function numericOption(conf: JsonObject, field: string, codec: string, def: DataType | undefined): DataType {
  const v = conf[field];
  if (v === undefined || v === null) {
    if (def) return def;
    throw new InvalidMetadataError(`codec "${codec}": "${field}" is required`);
  }
  const dt = parseDataType(v, `codec "${codec}": "${field}"`);
  const family = typeFamily(dt);
  if (!["bool", "int", "uint", "float", "datetime"].includes(family)) {
    throw new InvalidMetadataError(`codec "${codec}": "${field}" must be a numeric type, got ${JSON.stringify(v)}`);
  }
  return dt;
}

export function checkInput(spec: ChunkSpec, expected: DataType, codec: string): void {
  if (isObjectType(spec.dtype) || typeFamily(spec.dtype) !== typeFamily(expected) || spec.dtype.itemSize !== expected.itemSize) {
    throw new InvalidMetadataError(`codec "${codec}": configured for ${expected.name} but the array holds ${spec.dtype.name}`);
  }
}

/** numpy's `around`: halves go to the even neighbour. */
export function roundHalfEven(x: number): number {
  if (!Number.isFinite(x)) return x;
  const r = Math.round(x);
  return Math.abs(x - Math.trunc(x)) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/** Writes `v` into element `i` of `out` (of type `dt`) as numpy's astype would (floats truncate toward zero). */
export function store(out: TypedArray, i: number, v: number | bigint, dt: DataType): void {
  const o = out as unknown as { [k: number]: number | bigint };
  const family = typeFamily(dt);
  if (out instanceof BigInt64Array || out instanceof BigUint64Array) {
    if (typeof v === "bigint") o[i] = v;
    else o[i] = Number.isFinite(v) ? BigInt(Math.trunc(v)) : -(2n ** 63n);
    return;
  }
  const x = Number(v);
  if (family === "bool") o[i] = x !== 0 ? 1 : 0;
  else if (family === "int" || family === "uint") o[i] = Number.isFinite(x) ? Math.trunc(x) : 0;
  else o[i] = x;
}

/** Rounds like float32 arithmetic does when the type is float32 (numpy keeps float32 math in float32). */
export function arith(dt: DataType): (x: number) => number {
  return dt.itemSize === 4 && typeFamily(dt) === "float" ? Math.fround : (x) => x;
}

/** An elementwise map from one numeric type to another over a contiguous chunk. */
export function mapElements(
  view: ChunkView,
  from: DataType,
  to: DataType,
  f: (x: number | bigint, i: number, src: TypedArray) => number | bigint,
): ChunkView {
  const src = contiguousData(view, from) as TypedArray;
  const out = allocTypedArray(to, src.length);
  for (let i = 0; i < src.length; i++) store(out, i, f(src[i] as number | bigint, i, src), to);
  return contiguousView(out, view.shape);
}

export function specAs(spec: ChunkSpec, dtype: DataType): ChunkSpec {
  return { shape: spec.shape, dtype, fillValue: zeroOf(dtype) };
}
