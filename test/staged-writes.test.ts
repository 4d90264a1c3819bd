/**
 * Pool writes of a value that is not in shared memory (issue 12): the value is gathered task by
 * task into reused shared buffers (src/parallel/execution/staged-value.ts) instead of copied whole into a
 * fresh SharedArrayBuffer. What the pool stores must be byte for byte what an inline write stores,
 * for every kind of region an item can have: interior and edge chunks, partial chunks merged
 * under locks, backward steps, dropped dimensions, integer-array selections (which address the
 * whole value) and two-component (complex) elements; and the staging buffers are reused.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { WorkerPool, createArray, openArray, slice, type NDArray, type Selection } from "../src/index.js";
import { sharedScratchAllocations } from "../src/scratch.js";
import { scratchDir } from "./helpers/paths.js";

const pool = new WorkerPool({ threads: 2 });
after(() => pool.close());

const BLOSC = { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 };

/** Every stored file of a folder array, by name. */
function storedFiles(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  for (const name of readdirSync(dir).sort()) files.set(name, readFileSync(join(dir, name)));
  return files;
}

interface Case {
  name: string;
  dtype: string;
  shape: number[];
  chunks: number[];
  selection: Selection;
  /** The value's shape (the selection's, dropped dimensions gone). */
  valueShape: number[];
  /** Two numbers per element (complex). */
  complex?: boolean;
}

const CASES: Case[] = [
  { name: "whole array, interior and edge chunks", dtype: "<f4", shape: [100, 70], chunks: [32, 16], selection: null, valueShape: [100, 70] },
  { name: "unaligned region: partial chunks merged", dtype: "<i4", shape: [90, 90], chunks: [20, 20], selection: "5:83, 13:77", valueShape: [78, 64] },
  { name: "backward steps", dtype: "<f8", shape: [64, 48], chunks: [16, 16], selection: "63::-1, ::-2", valueShape: [64, 24] },
  { name: "a dropped dimension", dtype: "<u2", shape: [6, 64, 64], chunks: [2, 16, 32], selection: "3, :, 4:60", valueShape: [64, 56] },
  { name: "an integer array selection", dtype: "<f4", shape: [80, 80], chunks: [16, 16], selection: [[70, 3, 41, 42, 17], slice(null, null)], valueShape: [5, 80] },
  { name: "complex elements", dtype: "<c8", shape: [40, 40], chunks: [16, 16], selection: "2:39, :", valueShape: [37, 40], complex: true },
];

function valueFor(c: Case): NDArray {
  const n = c.valueShape.reduce((a, b) => a * b, 1) * (c.complex ? 2 : 1);
  const make = { "<f4": Float32Array, "<i4": Int32Array, "<f8": Float64Array, "<u2": Uint16Array, "<c8": Float32Array }[c.dtype]!;
  const data = new make(n);
  for (let i = 0; i < n; i++) data[i] = ((i * 7919) % 1000) + 1;
  return { data, shape: c.valueShape } as NDArray;
}

for (const c of CASES) {
  test(`pool write of an unshared value equals the inline write: ${c.name}`, async () => {
    const root = scratchDir();
    const stored: Map<string, Buffer>[] = [];
    for (const threads of [0, 2]) {
      const dir = join(root, `t${threads}.zarr`);
      const a = await createArray(dir, { shape: c.shape, chunks: c.chunks, dtype: c.dtype, fillValue: 0, zarrFormat: 2, compressor: BLOSC });
      // Something stored first, so that partial chunks merge with old values.
      await a.set(null, 9, { threads: 0 });
      const value = valueFor(c);
      assert.ok(!((value.data as Float32Array).buffer instanceof SharedArrayBuffer));
      await a.set(c.selection, value, { threads, pool });
      stored.push(storedFiles(dir));
      const back = (await (await openArray(dir)).get(c.selection, { threads: 0 })) as NDArray;
      assert.deepEqual(Array.from(back.data as Float32Array), Array.from(value.data as Float32Array));
    }
    assert.deepEqual([...stored[1].keys()], [...stored[0].keys()]);
    for (const [name, bytes] of stored[0]) assert.ok(bytes.equals(stored[1].get(name)!), `${c.name}: ${name} differs`);
  });
}

test("staging buffers are reused from one task to the next and across writes", async () => {
  const dir = join(scratchDir(), "a.zarr");
  // 64 chunks of 256 KiB, 64 tasks at most 4 in flight; then the same again.
  const a = await createArray(dir, { shape: [2048, 2048], chunks: [256, 256], dtype: "<f4", fillValue: 0, zarrFormat: 2, compressor: BLOSC });
  const value = new Float32Array(2048 * 2048).map((_, i) => i % 977);
  const before = sharedScratchAllocations();
  await a.set(null, { data: value, shape: [2048, 2048] }, { threads: 2, pool });
  const first = sharedScratchAllocations() - before;
  assert.ok(first >= 1 && first <= 8, `one staging buffer per task in flight, not per task (${first} made for 64 chunks)`);
  await a.set(null, { data: value, shape: [2048, 2048] }, { threads: 2, pool });
  assert.equal(sharedScratchAllocations() - before, first, "a second write makes no new staging buffers");
  const back = (await a.get(null, { threads: 0 })) as NDArray;
  assert.deepEqual(back.data, value);
});
