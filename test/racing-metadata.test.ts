/**
 * Handles whose idea of the metadata went stale while another writer (another handle, another
 * process) changed it: a write into an edge chunk that grew under it, an attribute update after an
 * append, and appends racing from several processes and from worker threads. Nothing another
 * writer stored may be lost, nor an old shape written back.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { BadSelectionError, MemoryStore, ProcessSynchronizer, createArray, createGroup, openArray, openGroup, slice, type NDArray, type ZarrArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

const values = (x: unknown) => Array.from((x as NDArray).data as ArrayLike<number>, Number);
const APPENDER = new URL("./helpers/append-writer.ts", import.meta.url).pathname;

const LAYOUTS = [
  { name: "v2", options: { zarrFormat: 2 as const, chunks: [4] } },
  { name: "v3", options: { zarrFormat: 3 as const, chunks: [4] } },
  { name: "v3 sharded", options: { zarrFormat: 3 as const, chunks: [2], shards: [4] } },
];

for (const { name, options } of LAYOUTS) {
  test(`a write through a handle that missed a resize keeps what another writer put in the grown edge chunk (${name})`, async () => {
    const dir = scratchDir();
    const sync = new ProcessSynchronizer(join(dir, "locks"));
    const path = join(dir, "a");
    await createArray(path, { shape: [6], dtype: "int32", fillValue: 0, ...options });
    const h1 = await openArray(path, { mode: "r+", synchronizer: sync });
    const h2 = await openArray(path, { mode: "r+", synchronizer: sync });
    await h2.resize([8]);
    await h2.set([slice(6, 8)], 9);
    // h1 still thinks the shape is [6]: [4:6] is all of chunk 1 that lies inside that shape.
    await h1.set([slice(4, 6)], { data: Int32Array.of(5, 5), shape: [2] });
    assert.deepEqual(values(await (await openArray(path)).get()), [0, 0, 0, 0, 5, 5, 9, 9]);
    // A scalar write takes the same path.
    await h2.set([slice(6, 8)], 7);
    await h1.set([slice(4, 6)], 3);
    assert.deepEqual(values(await (await openArray(path)).get()), [0, 0, 0, 0, 3, 3, 7, 7]);
    // Beyond h1's shape but inside the stored one: judged on h1's shape, as zarr-python does (an
    // index is refused, a slice is clipped to nothing); nothing is lost.
    await assert.rejects(h1.set([6], 1), BadSelectionError);
    await h1.set([slice(6, 8)], 1);
    assert.deepEqual(values(await (await openArray(path)).get()), [0, 0, 0, 0, 3, 3, 7, 7]);
  });
}

for (const zarrFormat of [2, 3] as const) {
  for (const synchronized of [false, true]) {
    test(`attribute updates after another handle appended keep the stored shape and attributes (v${zarrFormat}, ${synchronized ? "with" : "without"} a synchronizer)`, async () => {
      const dir = scratchDir();
      const synchronizer = synchronized ? new ProcessSynchronizer(join(dir, "locks")) : undefined;
      const path = join(dir, "a");
      await createArray(path, { shape: [4], chunks: [4], dtype: "int32", fillValue: 0, zarrFormat, attributes: { units: "m" } });
      const h1 = await openArray(path, { mode: "r+", synchronizer });
      const h2 = await openArray(path, { mode: "r+", synchronizer });
      await h2.append([1, 2, 3, 4]);
      await h2.updateAttrs({ by: "h2" });
      await h1.updateAttrs({ seen: true });
      let stored = await openArray(path);
      assert.deepEqual(stored.shape, [8], "updateAttrs wrote an old shape back");
      assert.deepEqual(stored.attrs, { units: "m", by: "h2", seen: true });
      await h2.append([5, 6]);
      await h1.setAttrs({ replaced: 1 });
      stored = await openArray(path);
      assert.deepEqual(stored.shape, [10], "setAttrs wrote an old shape back");
      assert.deepEqual(stored.attrs, { replaced: 1 });
      // The next append goes after every stored row, overwriting none.
      await h1.append([7]);
      assert.deepEqual(values(await (await openArray(path)).get()), [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7]);
    });
  }
}

/** Every block of 2 rows `id * 1000 + k` (k < times) stored exactly once, whole, and nothing else. */
function checkAppended(a: ZarrArray, got: number[], ids: number[], times: number): void {
  const cols = a.shape[1];
  assert.deepEqual(a.shape, [ids.length * times * 2, cols]);
  const rows = new Map<number, number>();
  for (let r = 0; r < got.length / cols; r++) {
    const row = got.slice(r * cols, (r + 1) * cols);
    assert.equal(new Set(row).size, 1, `row ${r} is mixed: ${row}`);
    rows.set(row[0], (rows.get(row[0]) ?? 0) + 1);
  }
  const missing = ids.flatMap((id) => Array.from({ length: times }, (_, k) => id * 1000 + k)).filter((v) => rows.get(v) !== 2);
  assert.deepEqual(missing, [], `blocks lost; ${rows.get(0) ?? 0} rows read as zeros`);
}

for (const zarrFormat of [2, 3] as const) {
  test(`appends from eight processes under one ProcessSynchronizer keep every row (v${zarrFormat})`, { timeout: 240_000 }, async () => {
    const dir = scratchDir();
    const path = join(dir, "a");
    const lockDir = join(dir, "locks");
    const writers = 8;
    const times = 10;
    // Ids from 1, so that a lost row (zeros) never passes for writer 0's.
    await createArray(path, { shape: [0, 3], chunks: [8, 3], dtype: "int32", fillValue: 0, zarrFormat });
    await Promise.all(
      Array.from({ length: writers }, (_, i) => {
        const child = spawn(process.execPath, ["--import", "tsx", APPENDER, path, lockDir, String(i + 1), String(times)], { stdio: ["ignore", "ignore", "pipe"] });
        let stderr = "";
        child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
        return new Promise<void>((resolve, reject) => {
          child.on("error", reject);
          child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`appender ${i + 1} exited with ${code}: ${stderr}`))));
        });
      }),
    );
    const a = await openArray(path);
    checkAppended(a, values(await a.get()), Array.from({ length: writers }, (_, i) => i + 1), times);
  });
}

test("appends from eight handles in one process on 2 worker threads keep every row", { timeout: 120_000 }, async () => {
  const path = join(scratchDir(), "a");
  const times = 10;
  const ids = Array.from({ length: 8 }, (_, i) => i + 1);
  await createArray(path, { shape: [0, 3], chunks: [8, 3], dtype: "int32", fillValue: 0 });
  const handles = await Promise.all(ids.map(() => openArray(path, { mode: "r+" })));
  await Promise.all(
    handles.map(async (h, i) => {
      for (let k = 0; k < times; k++) await h.append({ data: new Int32Array(6).fill(ids[i] * 1000 + k), shape: [2, 3] }, 0, { threads: 2 });
    }),
  );
  const a = await openArray(path);
  checkAppended(a, values(await a.get()), ids, times);
});

test("metadata rewrites keep the separator given at open for v2 metadata that names none", async () => {
  const store = new MemoryStore();
  await store.set(".zarray", new TextEncoder().encode(JSON.stringify({ zarr_format: 2, shape: [2, 2], chunks: [2, 2], dtype: "|i1", compressor: null, fill_value: 0, order: "C", filters: null })));
  const a = await openArray(store, { mode: "r+", dimensionSeparator: "/" });
  await a.updateAttrs({ a: 1 });
  await a.append({ data: Int8Array.of(1, 1, 1, 1), shape: [2, 2] });
  assert.deepEqual((await store.list("")).filter((k) => !k.startsWith(".z")), ["1/0"]);
});

for (const zarrFormat of [2, 3] as const) {
  test(`a group's updateAttrs merges into the attributes stored now, not this handle's old copy (v${zarrFormat})`, async () => {
    const path = join(scratchDir(), "g");
    await createGroup(path, { zarrFormat, attributes: { title: "t" } });
    const g1 = await openGroup(path, { mode: "r+" });
    const g2 = await openGroup(path, { mode: "r+" });
    await g2.updateAttrs({ by: "g2" });
    await g1.updateAttrs({ seen: true });
    assert.deepEqual((await openGroup(path)).attrs, { title: "t", by: "g2", seen: true });
    assert.deepEqual(g1.attrs, { title: "t", by: "g2", seen: true });
  });
}
