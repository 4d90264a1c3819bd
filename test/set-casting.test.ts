/**
 * The value-conversion rule of `set` (src/indexing/cast.ts), the same for scalars and arrays:
 * numpy's casting, checked against numpy itself where numpy accepts the value, and
 * INVALID_ARGUMENT, with nothing written, where it refuses (out-of-range integers, NaN into
 * integers). Before: 1.5 into int32 was INVALID_METADATA "invalid fill value", [300] into uint8
 * stored 44, NaN into int32 said INVALID_METADATA and -1e12 from a Float64Array wrapped.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { InvalidArgumentError, MemoryStore, createArray, type NDArray, type Scalar, type WriteInput } from "../src/index.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

async function written(dtype: string, value: WriteInput, n = 3): Promise<unknown[]> {
  const a = await createArray(new MemoryStore(), { shape: [n], chunks: [2], dtype, fillValue: dtype === "bool" ? false : 7 });
  await a.set(null, value);
  return Array.from(((await a.get()) as NDArray).data as ArrayLike<unknown>);
}

/** What numpy stores for `a[:] = value` (value a Python literal), or the exception's name. */
function numpy(dtype: string, literal: string, n = 3): unknown[] | string {
  const r = runPython(
    // numpy 1.24+ deprecates out-of-bound Python integers (and wraps them); numpy 2 refuses them.
    `import sys, json, warnings, numpy as np
warnings.simplefilter("error", DeprecationWarning)
a = np.zeros(${n}, dtype=sys.argv[1])
try:
    a[:] = eval(sys.argv[2])
    print(json.dumps(a.tolist()))
except Exception as e:
    print(json.dumps(type(e).__name__))`,
    dtype,
    literal,
  );
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test("what numpy accepts is stored as numpy stores it, scalars and arrays alike", async (t) => {
  const cases: [string, string, Scalar | WriteInput, string][] = [
    ["int32", "int32", 1.5, "1.5"],
    ["int32", "int32", [1.5, -1.9, 2], "[1.5, -1.9, 2]"],
    ["int32", "int32", Float64Array.from([2.9, -2.9, 1e9]), "[2.9, -2.9, 1e9]"],
    ["uint8", "uint8", [255, 0, true], "[255, 0, True]"],
    ["int16", "int16", -32768, "-32768"],
    ["float32", "float32", [0.1, true, 3n], "[0.1, True, 3]"],
    ["bool", "bool", [2, 0, NaN], "[2, 0, float('nan')]"],
    ["bool", "bool", -1, "-1"],
    ["int8", "int8", Int32Array.from([-128, 127, 5]), "[-128, 127, 5]"],
  ];
  const skip = zarrPythonSkip();
  for (const [dtype, np, value, literal] of cases) {
    const got = await written(dtype, value as WriteInput);
    const norm = got.map((x) => (typeof x === "boolean" ? x : typeof x === "bigint" ? Number(x) : x === 1 && dtype === "bool" ? true : x));
    if (skip) continue;
    const want = numpy(np, literal);
    assert.ok(Array.isArray(want), `numpy refused ${literal} for ${np}: ${want}`);
    const cast = dtype === "float32" ? (want as number[]).map((x) => Math.fround(x)) : want;
    assert.deepEqual(dtype === "bool" ? norm.map(Boolean) : norm, cast, `${dtype} <- ${literal}`);
  }
  if (skip) t.skip(skip);
});

test("out-of-range integers and NaN into integers are INVALID_ARGUMENT, and nothing is written", async (t) => {
  const cases: [string, WriteInput, RegExp, string | null][] = [
    ["uint8", 300, /300 is out of range for uint8 \(0 to 255\)/, "300"],
    ["uint8", [300], /element 0 of the value: 300 is out of range for uint8/, null],
    ["uint8", -1, /-1 is out of range for uint8/, "-1"],
    ["int32", NaN, /cannot store NaN in int32/, "float('nan')"],
    ["int32", [1, NaN], /element 1 of the value: cannot store NaN in int32/, null],
    ["int32", Float64Array.from([-1e12]), /-1000000000000 is out of range for int32/, null],
    ["int32", Infinity, /cannot store Infinity in int32/, "float('inf')"],
    ["uint8", Int32Array.from([1, 256]), /element 1 of the value: 256 is out of range for uint8/, null],
    ["int64", 2n ** 63n, /out of range for int64/, "2**63"],
    ["uint64", [-1n], /-1 is out of range for uint64/, null],
  ];
  for (const [dtype, value, message, literal] of cases) {
    const a = await createArray(new MemoryStore(), { shape: Array.isArray(value) || ArrayBuffer.isView(value) ? [(value as ArrayLike<unknown>).length] : [3], chunks: [2], dtype, fillValue: 7 });
    const before = Array.from(((await a.get()) as NDArray).data as ArrayLike<unknown>);
    await assert.rejects(a.set(null, value), (e: unknown) => e instanceof InvalidArgumentError && e.code === "INVALID_ARGUMENT" && message.test(e.message));
    assert.deepEqual(Array.from(((await a.get()) as NDArray).data as ArrayLike<unknown>), before);
    // numpy refuses the same scalars (OverflowError, ValueError).
    if (literal !== null && !zarrPythonSkip()) assert.equal(typeof numpy(dtype, literal), "string", `numpy accepted ${literal} for ${dtype}`);
  }
  if (zarrPythonSkip()) t.skip("numpy not available for the comparison");
});

test("a value of the wrong kind for a string array is INVALID_ARGUMENT, not a metadata error", async () => {
  const a = await createArray(new MemoryStore(), { shape: [2], chunks: [2], dtype: "string" });
  await assert.rejects(a.set(null, 5 as never), InvalidArgumentError);
  const b = await createArray(new MemoryStore(), { shape: [2], chunks: [2], dtype: "int64" });
  await b.set(null, 2 ** 53);
  assert.deepEqual(Array.from(((await b.get()) as NDArray).data as BigInt64Array), [2n ** 53n, 2n ** 53n]);
});
