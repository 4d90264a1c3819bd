/**
 * zarrita's stores everywhere parzarr takes a store (issue 28 item 1): zarrita's FetchStore over a
 * real 127.0.0.1 HTTP server, @zarrita/storage's FileSystemStore, and a plain Map-backed object
 * whose `get` answers `null` for a missing key (as Icechunk's session store does). Each is passed
 * as it is to openArray, openGroup, open, createArray, createGroup, copy (both ways) and through
 * a ChunkCache, reading on a 2-thread pool; values are checked against parzarr's own stores.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { FetchStore as ZarritaFetchStore } from "zarrita";
import ZarritaFileSystemStore from "@zarrita/storage/fs";
import { ChunkCache, FileSystemStore, WorkerPool, copy, createArray, createGroup, open, openArray, openGroup, slice, ZarrArray, type NDArray } from "../src/index.js";
import { startStaticServer, type StaticServer } from "../src/cli/static-server.js";
import { scratchDir } from "./helpers/paths.js";

const pool = new WorkerPool({ threads: 2 });
after(() => pool.close());
const ON_POOL = { pool, threads: 2 };

/** The Icechunk-style store: a Map, `null` for a missing key, keys as zarrita gives them. */
function nullStore() {
  const files = new Map<string, Uint8Array>();
  return {
    files,
    get: async (key: string) => files.get(key) ?? null,
    set: async (key: string, value: Uint8Array) => void files.set(key, new Uint8Array(value)),
    delete: async (key: string) => files.delete(key),
  };
}

const VALUES = Float32Array.from({ length: 20 * 12 }, (_, i) => i - 100.5);
const LAYOUT = { shape: [20, 12], chunks: [6, 5], dtype: "float32", fillValue: 0 } as const;

/** A folder holding group "g" with array "g/a" (v3) and "v2" (v2), written by parzarr. */
const source = scratchDir("parzarr-zarrita-stores-");
let server: StaticServer;
before(async () => {
  const g = await createGroup(source, { path: "g", attributes: { title: "from parzarr" } });
  await (await g.createArray("a", LAYOUT)).set(null, { data: VALUES, shape: [20, 12] });
  await (await createArray(source, { ...LAYOUT, path: "v2", zarrFormat: 2 })).set(null, { data: VALUES, shape: [20, 12] });
  server = await startStaticServer({ mounts: { "/": source } });
});
after(() => server?.close());

async function values(a: ZarrArray, sel: Parameters<ZarrArray["get"]>[0] = null): Promise<number[]> {
  return Array.from(((await a.get(sel, ON_POOL)) as NDArray<Float32Array>).data);
}

/** The zarrita stores over `source`, read-only or writable. */
const readers = {
  "zarrita FetchStore": () => new ZarritaFetchStore(server.origin),
  "@zarrita/storage FileSystemStore": () => new ZarritaFileSystemStore(source),
};

for (const [name, make] of Object.entries(readers)) {
  test(`${name}: openArray, openGroup and open read on the pool`, async () => {
    const store = make();
    const a = await openArray(store, { path: "g/a", mode: "r" });
    assert.deepEqual(await values(a), Array.from(VALUES));
    assert.deepEqual(await values(await openArray(store, { path: "v2", mode: "r" }), [slice(2, 19, 3), 4]), [2, 5, 8, 11, 14, 17].map((r) => VALUES[r * 12 + 4]));
    const g = await openGroup(store, { path: "g", mode: "r" });
    assert.equal(g.attrs.title, "from parzarr");
    assert.deepEqual(await values((await g.get("a")) as ZarrArray, [3, null]), Array.from(VALUES.subarray(36, 48)));
    const node = await open(store, { path: "g/a", mode: "r" });
    assert.ok(node instanceof ZarrArray);
    assert.deepEqual(await values(node, [slice(5, 7)]), Array.from(VALUES.subarray(60, 84)));
  });

  test(`${name}: a ChunkCache serves the second read`, async () => {
    const cache = new ChunkCache({ maxBytes: 1 << 20 });
    const a = await openArray(make(), { path: "g/a", mode: "r", cache, recheckCachedData: false });
    assert.deepEqual(await values(a), Array.from(VALUES));
    const misses = cache.stats().misses;
    assert.deepEqual(await values(a, [slice(1, 19), slice(2, 11)]), await values(await openArray(source, { path: "g/a", mode: "r" }), [slice(1, 19), slice(2, 11)]));
    assert.equal(cache.stats().misses, misses, "no chunk read again");
    assert.ok(cache.stats().hits > 0);
  });

  test(`${name}: copy from it into a parzarr folder`, async () => {
    const dest = scratchDir("parzarr-zarrita-copy-");
    await copy({ store: make(), path: "g/a" }, { store: new FileSystemStore(dest) }, { threads: 2 });
    assert.deepEqual(await values(await openArray(dest, { path: "a", mode: "r" })), Array.from(VALUES));
  });
}

const writers = {
  "@zarrita/storage FileSystemStore": () => new ZarritaFileSystemStore(scratchDir("parzarr-zarrita-fs-")),
  "a Map store answering null": () => nullStore(),
};

for (const [name, make] of Object.entries(writers)) {
  test(`${name}: createGroup, createArray, set and get on the pool, then open`, async () => {
    const store = make();
    const g = await createGroup(store, { path: "top", attributes: { n: 1 } });
    const a = await g.createArray("x", LAYOUT);
    await a.set(null, { data: VALUES, shape: [20, 12] }, ON_POOL);
    await a.set([slice(3, 9), slice(1, 4)], 7, ON_POOL);
    const direct = await createArray(store, { ...LAYOUT, path: "y", zarrFormat: 2 });
    await direct.set([slice(0, 10)], 1, ON_POOL);
    const want = Array.from(VALUES);
    for (let r = 3; r < 9; r++) for (let c = 1; c < 4; c++) want[r * 12 + c] = 7;
    assert.deepEqual(await values(await openArray(store, { path: "top/x", mode: "r" })), want);
    assert.deepEqual(await values(await openArray(store, { path: "y", mode: "r" })), [...Array(120).fill(1), ...Array(120).fill(0)]);
    const again = await openGroup(store, { path: "top", mode: "r" });
    assert.equal(again.attrs.n, 1);
    const node = await open(store, { path: "top", mode: "r" });
    assert.ok(!(node instanceof ZarrArray));
    // A missing node is NOT_FOUND, whether the store answers undefined or null.
    await assert.rejects(openArray(store, { path: "nope", mode: "r" }), (e: unknown) => (e as { code?: string }).code === "NOT_FOUND");
    await assert.rejects(openGroup(store, { path: "nope", mode: "r" }), (e: unknown) => (e as { code?: string }).code === "NOT_FOUND");
  });

  test(`${name}: a ChunkCache over an array written there serves the second read`, async () => {
    const store = make();
    await (await createArray(store, LAYOUT)).set(null, { data: VALUES, shape: [20, 12] }, ON_POOL);
    const cache = new ChunkCache({ maxBytes: 1 << 20 });
    const a = await openArray(store, { mode: "r", cache, recheckCachedData: false });
    assert.deepEqual(await values(a), Array.from(VALUES));
    const misses = cache.stats().misses;
    assert.deepEqual(await values(a, [slice(2, 17), 3]), [...Array(15).keys()].map((r) => VALUES[(r + 2) * 12 + 3]));
    assert.equal(cache.stats().misses, misses, "no chunk read again");
  });

  test(`${name}: copy into it from a parzarr folder, and back`, async () => {
    const store = make();
    await createGroup(store, { path: "into" });
    await copy({ store: new FileSystemStore(source), path: "g/a" }, { store, path: "into" }, { threads: 2 });
    assert.deepEqual(await values(await openArray(store, { path: "into/a", mode: "r" })), Array.from(VALUES));
    const back = scratchDir("parzarr-zarrita-back-");
    await copy({ store, path: "into/a" }, { store: new FileSystemStore(back) }, { threads: 2 });
    assert.deepEqual(await values(await openArray(back, { path: "a", mode: "r" })), Array.from(VALUES));
  });
}
