/**
 * Types that follow a call: the element type of `get`'s result from the array's data type (when
 * the handle knows it: `openArray<"float32">`, `createArray({ dtype: "float32" })`, or
 * `arr.typed("float32")`), and NDArray or scalar from the selection's form. Types only: nothing
 * here runs.
 */
import type { ElementArray, Scalar, TypedArray } from "../metadata/dtype.js";
import type { MiniFloatName } from "../metadata/minifloat.js";
import type { NDArray } from "../indexing/ndarray.js";
import type { Slice } from "../indexing/selection.js";
import type { ZarrArray } from "./array.js";

/** Complex types of float components held as float32 (interleaved re, im). */
type NarrowComplexName = `complex_${MiniFloatName | "bfloat16" | "float16"}`;

/** What `get` puts in `data`, by v3 data type name. */
interface DataByName extends Record<MiniFloatName | NarrowComplexName, Float32Array> {
  bool: Uint8Array;
  int8: Int8Array;
  int16: Int16Array;
  int32: Int32Array;
  int64: BigInt64Array;
  uint8: Uint8Array;
  uint16: Uint16Array;
  uint32: Uint32Array;
  uint64: BigUint64Array;
  // A Float16Array where the runtime has one, else a Float32Array holding the values.
  float16: TypedArray;
  float32: Float32Array;
  float64: Float64Array;
  bfloat16: Float32Array;
  // Interleaved re, im.
  complex64: Float32Array;
  complex128: Float64Array;
  complex_float32: Float32Array;
  complex_float64: Float64Array;
  // zarr-extensions sub-byte integers, one per element.
  int2: Int8Array;
  int4: Int8Array;
  uint2: Uint8Array;
  uint4: Uint8Array;
  string: string[];
  bytes: Uint8Array[];
}

/** numpy type codes (after the byte-order character) and the v3 names they mean. */
interface NumpyCodes {
  b1: "bool";
  i1: "int8";
  i2: "int16";
  i4: "int32";
  i8: "int64";
  u1: "uint8";
  u2: "uint16";
  u4: "uint32";
  u8: "uint64";
  f2: "float16";
  f4: "float32";
  f8: "float64";
  c8: "complex64";
  c16: "complex128";
}

/** The v3 name a data type name stands for: itself, or the one of a numpy type string (`"<f4"`). */
export type CanonicalName<D extends string> = D extends keyof DataByName
  ? D
  : D extends `${"<" | ">" | "|" | "="}${infer C}`
    ? C extends keyof NumpyCodes
      ? NumpyCodes[C]
      : never
    : never;

/** The `data` of an NDArray read from an array of type D; every form when D is not known. */
export type DataOf<D extends string> = [CanonicalName<D>] extends [never] ? ElementArray : DataByName[CanonicalName<D>];

interface ScalarByName extends Record<NarrowComplexName, [number, number]> {
  bool: boolean;
  int64: bigint;
  uint64: bigint;
  complex64: [number, number];
  complex128: [number, number];
  complex_float32: [number, number];
  complex_float64: [number, number];
  string: string;
  bytes: Uint8Array;
}

/** One element of an array of type D; every form when D is not known. */
export type ScalarOf<D extends string> = [CanonicalName<D>] extends [never]
  ? Scalar
  : CanonicalName<D> extends keyof ScalarByName
    ? ScalarByName[CanonicalName<D>]
    : number;

/**
 * Whether a selection surely keeps at least one dimension, so `get` returns an NDArray: none at
 * all (the whole array, also of a 0-d array, as numpy's `a[...]`), a slice or `null` among list
 * items, or a string with a `:`. Integers alone select a scalar only when they cover every
 * dimension, which the type does not know: those give the union.
 */
export type KeepsDimension<S> = S extends null | undefined
  ? true
  : S extends string
    ? string extends S
      ? false
      : S extends `${string}:${string}`
        ? true
        : false
    : S extends readonly unknown[]
      ? S[number] extends number | "..."
        ? false
        : Extract<S[number], Slice | null> extends never
          ? false
          : true
      : false;

/** What `get(selection)` returns on an array whose NDArray data is A and whose elements are V. */
export type GetResult<A extends ElementArray, V extends Scalar, S> = KeepsDimension<S> extends true ? NDArray<A> : NDArray<A> | V;

/** What `get(selection, { out })` returns whatever the selection: an NDArray over `out`'s memory, of its class. */
export type OutResult<O> = NDArray<O extends NDArray<infer T> ? T : O extends TypedArray ? O : never>;

/** The handle on an array of data type D (a v3 name or a numpy type string). */
export type ArrayOf<D extends string> = ZarrArray<DataOf<D>, ScalarOf<D>>;
