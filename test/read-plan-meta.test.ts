/**
 * A get's plan uses one version of the handle's metadata: the first `get` given `out` waits for
 * indexing/read-into.ts to load, and metadata replaced meanwhile (a resize, a recheck) must not be
 * mixed with the version the selection's layout came from. Runs alone in its process: read-into.ts
 * must not be loaded yet.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore, openArray } from "../src/index.js";

test("a get given out keeps the metadata it started with while read-into.ts loads", async () => {
  // Written by hand: createArray and set would load the first-use module, read-into.ts with it.
  const store = new MemoryStore();
  const doc = {
    zarr_format: 3, node_type: "array", shape: [4], data_type: "int32", fill_value: 0,
    chunk_grid: { name: "regular", configuration: { chunk_shape: [2] } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    codecs: [{ name: "bytes", configuration: { endian: "little" } }],
  };
  await store.set("zarr.json", new TextEncoder().encode(JSON.stringify(doc)));
  await store.set("c/0", new Uint8Array(new Int32Array([1, 2]).buffer));
  await store.set("c/1", new Uint8Array(new Int32Array([3, 4]).buffer));
  const a = await openArray(store, { mode: "r" });
  const before = a.meta;
  const out = new Int32Array(4);
  const reading = a.get(null, { out });
  // As a recheck finding the array rewritten with other chunks would, while the module loads.
  a.meta = { ...before, chunks: [4] } as typeof before;
  const result = await reading;
  a.meta = before;
  assert.deepEqual(Array.from((result as { data: Int32Array }).data), [1, 2, 3, 4]);
});
