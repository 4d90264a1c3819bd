/**
 * Chunk planning is lazy and bounded: a selection's plan counts its chunks without making them,
 * yields them in C order one at a time, and an operation over 10^12 chunks starts at once, runs
 * in bounded memory and stops on abort (before, every chunk's plan object was built up front:
 * such a call died out of memory, and a 1000 x 1000 read of [1, 1] chunks held 670 MB).
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore, WorkerPool, createArray, slice, ZarrError, type NDArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

const pool = new WorkerPool({ threads: 2 });
after(() => pool.close());
import { planSelection } from "../src/indexing/projection.js";
import { normaliseSelection } from "../src/indexing/selection.js";

test("a plan counts chunks without making them and yields them in C order", () => {
  const huge = planSelection(normaliseSelection(null, [1e6, 1e6, 10]), [1, 1, 3]);
  assert.equal(huge.count, 1e12 * 4);
  const first: number[][] = [];
  for (const p of huge) {
    first.push(p.coords);
    if (first.length === 5) break;
  }
  assert.deepEqual(first, [[0, 0, 0], [0, 0, 1], [0, 0, 2], [0, 0, 3], [0, 1, 0]]);
  // The last chunk along the last axis holds one element (index 9 of 10).
  const sel = normaliseSelection([2, slice(1, 8, 3)], [5, 10]);
  const plan = planSelection(sel, [2, 4]);
  const all = [...plan];
  assert.equal(plan.count, all.length);
  assert.deepEqual(all.map((p) => p.coords), [[1, 0], [1, 1]]);
  assert.deepEqual(all.map((p) => p.chunkSel), [
    [{ start: 0, step: 1, count: 1 }, { start: 1, step: 3, count: 1 }],
    [{ start: 0, step: 1, count: 1 }, { start: 0, step: 3, count: 2 }],
  ]);
  assert.deepEqual(all.map((p) => p.outStart), [[0, 0], [0, 1]]);
  assert.deepEqual([...plan], all, "a plan can be walked again");
  assert.equal(planSelection(normaliseSelection([slice(3, 3)], [10]), [2]).count, 0);
});

test("a write over 10^12 chunks starts at once and stops on abort, inline", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [1_000_000, 1_000_000], chunks: [1, 1], dtype: "uint8", fillValue: 0 });
  const controller = new AbortController();
  let done = 0;
  let total = 0;
  const err = await a
    .set(null, 5, {
      signal: controller.signal,
      onProgress: (d, t) => {
        done = d;
        total = t;
        if (d >= 500) controller.abort();
      },
    })
    .then(() => null, (e: unknown) => e);
  assert.ok(err instanceof ZarrError && err.code === "ABORTED", `expected ABORTED, got ${String(err)}`);
  assert.equal(total, 1e12);
  const chunks = (await store.list("")).filter((k) => k !== "zarr.json");
  // The runners in flight finish their chunk after the abort; nothing starts after it.
  assert.ok(chunks.length >= 500 && chunks.length <= done + 8, `${chunks.length} chunks written, ${done} reported`);
  const corner = (await a.get([slice(0, 1), slice(0, 600)])) as NDArray;
  assert.deepEqual([...new Set(corner.data as Uint8Array)].sort(), chunks.length >= 600 ? [5] : [0, 5]);
});

test("many tiny chunks read the same inline and on the pool", async () => {
  const a = await createArray(scratchDir(), { shape: [300, 70], chunks: [1, 3], dtype: "int16", fillValue: -1 });
  const value = Int16Array.from({ length: 200 * 50 }, (_, i) => i % 3000);
  await a.set([slice(50, 250), slice(10, 60)], value, { threads: 2, pool });
  for (const options of [{ threads: 0 }, { threads: 2, pool }]) {
    const got = (await a.get([slice(50, 250), slice(10, 60)], options)) as NDArray;
    assert.deepEqual(Array.from(got.data as Int16Array), Array.from(value));
  }
  const edge = (await a.get([slice(249, 251), slice(58, 62)])) as NDArray;
  assert.deepEqual(Array.from(edge.data as Int16Array), [value[199 * 50 + 48], value[199 * 50 + 49], -1, -1, -1, -1, -1, -1]);
});
