/**
 * Seeded random inputs for the tests that compare paths (inline and pool, parzarr and
 * zarr-python) on random arrays, so that a failing case can be replayed from its seed.
 */
import { after } from "node:test";
import { WorkerPool, type NumericTypeName, type TypedArray } from "../../src/index.js";
import { allocTypedArray } from "../../src/metadata/elements.js";

export { rng } from "./rng.js";

export interface RandomValues {
  /** Integers are drawn from [-half, half]. */
  half: number;
  /** 64-bit integers are scaled by this, to reach past 2^53. */
  bigScale: bigint;
  /** Floats and complex parts are the integer over this, so they are exact in every float type. */
  floatDivisor: number;
}

/**
 * `count` values of a numeric type: bools 0/1, unsigned types the draw modulo 2^bits (a typed
 * array's own wrapping), floats exact binary fractions.
 */
export function randomData(dtype: NumericTypeName, count: number, r: (n: number) => number, v: RandomValues): TypedArray {
  const data = allocTypedArray({ kind: "numeric", name: dtype } as never, count);
  const o = data as unknown as { [i: number]: number | bigint };
  for (let i = 0; i < data.length; i++) {
    const x = r(2 * v.half + 1) - v.half;
    if (typeof o[i] === "bigint") o[i] = BigInt(x) * v.bigScale;
    else if (dtype === "bool") o[i] = x & 1;
    else if (dtype.startsWith("float") || dtype.startsWith("complex")) o[i] = x / v.floatDivisor;
    else o[i] = x;
  }
  return data;
}

/** A pool of two workers for one test file, closed when the file's tests are done. */
export function testPool(): WorkerPool {
  const pool = new WorkerPool({ threads: 2 });
  after(() => pool.close());
  return pool;
}
