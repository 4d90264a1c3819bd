/**
 * Property tests: random arrays (shapes, chunks, data types, formats) receive random writes
 * (integers and slices with steps, scalars and arrays), inline and with threads: 2; every read
 * must equal a plain in-memory model that knows nothing of chunks.
 */
import { strict as assert } from "node:assert";
import { describe, it } from "node:test";
import fc from "fast-check";
import { createArray, MemoryStore, slice, type DimSelection, type NDArray } from "../src/index.js";

const DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "float32", "float64"] as const;
type Dtype = (typeof DTYPES)[number];

interface Dim {
  /** Chosen indices, in order. */
  indices: number[];
  sel: DimSelection;
  /** Whether the dimension is dropped from the result (an integer). */
  dropped: boolean;
}

/** One dimension of a selection: an integer (maybe negative) or a slice with a step. */
function dimArb(n: number): fc.Arbitrary<Dim> {
  const int = fc.integer({ min: 0, max: n - 1 }).chain((i) =>
    fc.boolean().map((neg): Dim => ({ indices: [i], sel: neg ? i - n : i, dropped: true })),
  );
  const range = fc
    .tuple(fc.integer({ min: 0, max: n }), fc.integer({ min: 0, max: n }), fc.integer({ min: 1, max: 3 }))
    .map(([a, b, step]): Dim => {
      const [start, stop] = a <= b ? [a, b] : [b, a];
      const indices: number[] = [];
      for (let i = start; i < stop; i += step) indices.push(i);
      return { indices, sel: slice(start, stop, step), dropped: false };
    });
  return fc.oneof(int, range);
}

const selectionArb = (shape: number[]) => fc.tuple(...shape.map(dimArb));

interface Case {
  shape: number[];
  chunks: number[];
  dtype: Dtype;
  zarrFormat: 2 | 3;
  fill: number;
  writes: { dims: Dim[]; scalar: boolean; seed: number }[];
  read: Dim[];
}

const caseArb: fc.Arbitrary<Case> = fc
  .integer({ min: 1, max: 3 })
  .chain((ndim) => fc.array(fc.integer({ min: 1, max: 9 }), { minLength: ndim, maxLength: ndim }))
  .chain((shape) =>
    fc.record({
      shape: fc.constant(shape),
      chunks: fc.tuple(...shape.map((n) => fc.integer({ min: 1, max: n + 1 }))),
      dtype: fc.constantFrom(...DTYPES),
      zarrFormat: fc.constantFrom(2 as const, 3 as const),
      fill: fc.integer({ min: 0, max: 5 }),
      writes: fc.array(fc.record({ dims: selectionArb(shape), scalar: fc.boolean(), seed: fc.integer({ min: 0, max: 1000 }) }), {
        minLength: 1,
        maxLength: 4,
      }),
      read: selectionArb(shape),
    }),
  );

/** Values every type in DTYPES holds exactly: 0..100, and the seed keeps writes apart. */
const valueAt = (seed: number, k: number) => (seed * 7 + k * 13) % 101;

function typedArrayFor(dtype: Dtype, values: number[]) {
  const ctor = {
    int8: Int8Array,
    uint8: Uint8Array,
    int16: Int16Array,
    uint16: Uint16Array,
    int32: Int32Array,
    uint32: Uint32Array,
    float32: Float32Array,
    float64: Float64Array,
  }[dtype];
  return ctor.from(values);
}

/** Every combination of the per-dimension indices, in C order, with its flat index in the model. */
function* points(dims: Dim[], shape: number[]): Generator<number> {
  const idx = new Array<number>(dims.length).fill(0);
  if (dims.some((d) => d.indices.length === 0)) return;
  for (;;) {
    let flat = 0;
    for (let d = 0; d < dims.length; d++) flat = flat * shape[d] + dims[d].indices[idx[d]];
    yield flat;
    let d = dims.length - 1;
    while (d >= 0 && ++idx[d] === dims[d].indices.length) idx[d--] = 0;
    if (d < 0) return;
  }
}

async function check(c: Case, threads: number): Promise<void> {
  const a = await createArray(new MemoryStore(), {
    shape: c.shape,
    chunks: c.chunks,
    dtype: c.dtype,
    zarrFormat: c.zarrFormat,
    fillValue: c.fill,
  });
  const model = new Array<number>(c.shape.reduce((x, y) => x * y, 1)).fill(c.fill);
  for (const w of c.writes) {
    const flats = [...points(w.dims, c.shape)];
    const selShape = w.dims.filter((d) => !d.dropped).map((d) => d.indices.length);
    if (w.scalar) {
      const v = valueAt(w.seed, 0);
      flats.forEach((f) => (model[f] = v));
      await a.set(w.dims.map((d) => d.sel), v, { threads });
    } else {
      const values = flats.map((_, k) => valueAt(w.seed, k));
      flats.forEach((f, k) => (model[f] = values[k]));
      await a.set(w.dims.map((d) => d.sel), { data: typedArrayFor(c.dtype, values), shape: selShape }, { threads });
    }
  }
  const whole = (await a.get(null, { threads })) as NDArray;
  assert.deepEqual(Array.from(whole.data as ArrayLike<number>), model);
  const expected = [...points(c.read, c.shape)].map((f) => model[f]);
  const got = await a.get(c.read.map((d) => d.sel), { threads });
  if (c.read.every((d) => d.dropped)) assert.equal(got, expected[0]);
  else {
    const nd = got as NDArray;
    assert.deepEqual(nd.shape, c.read.filter((d) => !d.dropped).map((d) => d.indices.length));
    assert.deepEqual(Array.from(nd.data as ArrayLike<number>), expected);
  }
}

describe("set/get against an in-memory model", () => {
  for (const threads of [0, 2]) {
    it(`random shapes, chunks, types and selections (threads: ${threads})`, async () => {
      await fc.assert(
        fc.asyncProperty(caseArb, (c) => check(c, threads)),
        { numRuns: 150 },
      );
    });
  }
});

describe("concurrent writes to disjoint selections against the model", () => {
  // K writers own the elements whose index along one axis is k mod K: disjoint, but (for most
  // chunk shapes) every chunk is shared, so each chunk is read, merged and written under its lock.
  const concurrentArb = fc
    .array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 3 })
    .chain((shape) =>
      fc.record({
        shape: fc.constant(shape),
        chunks: fc.tuple(...shape.map((n) => fc.integer({ min: 1, max: n }))),
        axis: fc.integer({ min: 0, max: shape.length - 1 }),
        writers: fc.integer({ min: 2, max: 6 }),
        dtype: fc.constantFrom(...DTYPES),
      }),
    )
    // Each writer needs an element of its own (parzarr refuses a slice starting past the end).
    .filter(({ shape, axis, writers }) => writers <= shape[axis]);
  for (const threads of [0, 2]) {
    it(`every element ends with its owner's value (threads: ${threads})`, async () => {
      await fc.assert(
        fc.asyncProperty(concurrentArb, async ({ shape, chunks, axis, writers, dtype }) => {
          const a = await createArray(new MemoryStore(), { shape, chunks, dtype, fillValue: 0, codecs: ["bytes", "gzip"] });
          await Promise.all(
            Array.from({ length: writers }, (_, k) =>
              a.set(shape.map((n, d) => (d === axis ? slice(k, n, writers) : null)), k + 1, { threads }),
            ),
          );
          const got = (await a.get(null, { threads })) as NDArray;
          const strideOfAxis = shape.slice(axis + 1).reduce((x, y) => x * y, 1);
          const expected = Array.from({ length: got.data.length }, (_, f) => (Math.floor(f / strideOfAxis) % shape[axis]) % writers + 1);
          assert.deepEqual(Array.from(got.data as ArrayLike<number>), expected);
        }),
        { numRuns: 60 },
      );
    });
  }
});
