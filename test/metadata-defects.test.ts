/**
 * Metadata defects of issue 26 (items 5, 6, 7 and part of 10): exact 64-bit fill values, groups
 * that list every child though one cannot be opened, stores that answer null for a missing key,
 * and typed, bounded refusals of huge raw types and huge attribute documents.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Group,
  MemoryStore,
  ZarrArray,
  consolidateMetadata,
  createArray,
  createGroup,
  open,
  openArray,
  openGroup,
  slice,
  type WritableStore,
} from "../src/index.js";

const enc = (s: string) => new TextEncoder().encode(s);

/**
 * A store as other libraries write them (Icechunk's answers null for a missing key): a plain
 * object over a MemoryStore's data, without the optional methods parzarr's own stores have.
 * `gets` counts the reads of chunk keys, to show reads went through it.
 */
function nullStore(mem: MemoryStore): WritableStore & { gets: number } {
  const s = {
    readOnly: false,
    gets: 0,
    get: async (k: string) => {
      if (!/(zarr\.json|\.z\w+)$/.test(k)) s.gets++;
      return (await mem.get(k)) ?? null;
    },
    getRange: async (k: string, r: { offset: number; length?: number }) => (await mem.getRange(k, r)) ?? null,
    has: (k: string) => mem.has(k),
    list: (p: string) => mem.list(p),
    listDir: (p: string) => mem.listDir(p),
    set: (k: string, v: Uint8Array) => mem.set(k, v),
    delete: (k: string) => mem.delete(k),
    deletePrefix: (p: string) => mem.deletePrefix(p),
    descriptor: () => mem.descriptor(),
  };
  return s;
}

test("a store that answers null for a missing key: v2 and v3 nodes open, missing chunks read as fill, partial writes and consolidation work", async () => {
  for (const zarrFormat of [2, 3] as const) {
    const mem = new MemoryStore();
    const g = await createGroup(mem, { zarrFormat, attributes: { v: zarrFormat } });
    const a = await g.createArray("a", { shape: [4], chunks: [2], dtype: "int32", fillValue: 7 });
    await a.set([slice(0, 2)], Int32Array.from([1, 2]));
    const store = nullStore(mem);
    const group = (await openGroup(store, { mode: "r+" })) as Group;
    assert.deepEqual(group.attrs, { v: zarrFormat }, `v${zarrFormat} group`);
    const arr = (await group.get("a")) as ZarrArray;
    assert.deepEqual(Array.from((await arr.get()).data as Int32Array), [1, 2, 7, 7], `v${zarrFormat} read`);
    // A partial write into a chunk that is not stored: its old value is "missing", not bytes.
    await arr.set([slice(2, 3)], Int32Array.from([5]));
    assert.deepEqual(Array.from((await arr.get()).data as Int32Array), [1, 2, 5, 7], `v${zarrFormat} partial write`);
    assert.ok(store.gets > 0, "chunk reads went through the null-answering store");
    assert.equal(await group.contains("nothing"), false);
    await consolidateMetadata(store);
    assert.deepEqual(Array.from((await openArray(store, { path: "a", mode: "r" }).then((x) => x.get())).data as Int32Array), [1, 2, 5, 7]);
  }
});

test("a raw type too large for one element is refused at open and create with TOO_LARGE, though its chunk fits the cap", async () => {
  const store = new MemoryStore();
  const zarray = { zarr_format: 2, shape: [10], chunks: [1], dtype: "|V150000000", fill_value: null, order: "C", compressor: null, filters: null };
  await store.set("v2/.zarray", enc(JSON.stringify(zarray)));
  const zarrJson = {
    zarr_format: 3, node_type: "array", shape: [10], data_type: "r1200000000", fill_value: [],
    chunk_grid: { name: "regular", configuration: { chunk_shape: [1] } },
    chunk_key_encoding: { name: "default" }, codecs: [{ name: "bytes" }],
  };
  await store.set("v3/zarr.json", enc(JSON.stringify(zarrJson)));
  for (const path of ["v2", "v3"]) {
    await assert.rejects(openArray(store, { path, mode: "r" }), (e: Error & { code?: string }) => e.code === "TOO_LARGE" && /150000000/.test(e.message), path);
  }
  await assert.rejects(createArray(new MemoryStore(), { shape: [2], chunks: [1], dtype: "|V150000000", zarrFormat: 2 }), { code: "TOO_LARGE" });
  // The bound is 16 MiB an element: that much is still created, and a 1 MiB element reads.
  await assert.rejects(createArray(new MemoryStore(), { shape: [1], dtype: `|V${2 ** 24 + 1}`, zarrFormat: 2 }), { code: "TOO_LARGE" });
  await createArray(new MemoryStore(), { shape: [1], dtype: `|V${2 ** 24}`, zarrFormat: 2 });
  const ok = await createArray(new MemoryStore(), { shape: [2], chunks: [1], dtype: `|V${2 ** 20}`, zarrFormat: 2 });
  assert.deepEqual((await ok.get()).shape, [2]);
});
