/**
 * ChunkCache over a 127.0.0.1 HTTP server that counts requests and answers If-None-Match with
 * 304: a repeated read with `recheckCachedData: false` makes no chunk request, with `true` only
 * 304s, inline and on the pool; a changed chunk is read again; writes through the handle drop
 * what they change; files revalidate by size, mtime and inode; the LRU keeps to maxBytes.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ChunkCache, MemoryStore, S3Store, WorkerPool, ZarrError, createArray, openArray, openGroup, type NDArray } from "../src/index.js";
import { startS3 } from "./helpers/s3.js";
import { startEtagServer, type EtagServer } from "./helpers/etag-server.js";
import { scratchDir } from "./helpers/paths.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

const skip = zarrPythonSkip();
const pool = new WorkerPool({ threads: 2 });
const root = scratchDir("parzarr-chunk-cache-");
const dir = join(root, "a.zarr");
let server: EtagServer;
let url = "";

function python(script: string): string {
  const r = runPython(`import sys, zarr, numpy as np\n${script}`, dir);
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

/** zarr-python's values of the whole array. */
const truth = () => Float64Array.from(python(`print(",".join(repr(float(v)) for v in zarr.open(sys.argv[1], mode="r")[:].ravel()))`).split(","), Number);

before(async () => {
  if (skip) return;
  // 64 x 64 float64 in 16 x 16 chunks (16 chunks of 2 KiB), zlib-compressed; one chunk never written.
  python(`a = zarr.open(sys.argv[1], mode="w", shape=(64, 64), chunks=(16, 16), dtype="<f8", compressor=zarr.Zlib(1), fill_value=-1, write_empty_chunks=False)
a[:] = np.arange(4096, dtype="<f8").reshape(64, 64) / 7
a[48:64, 48:64] = -1`);
  server = await startEtagServer(root);
  url = `${server.base}/a.zarr`;
});

after(async () => {
  await pool.close();
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

const values = async (a: Awaited<ReturnType<typeof openArray>>, options = {}) => [...((await a.get(null, options)) as NDArray<Float64Array>).data];

for (const [name, options] of [
  ["inline", { threads: 0 }],
  ["on the pool", { threads: 2, pool }],
] as const) {
  test(`a repeated read: no chunk request with recheckCachedData false, only 304s with true (${name})`, { skip }, async () => {
    const expected = [...truth()];
    const cache = new ChunkCache({ maxBytes: 1 << 20 });
    server.reset();
    const a = await openArray(url, { mode: "r", cache, recheckCachedData: false });
    assert.deepEqual(await values(a, options), expected);
    // 15 chunks stored and one missing (404), each asked for once.
    assert.deepEqual(server.chunks, { 200: 15, 404: 1 });
    assert.deepEqual([cache.stats().misses, cache.stats().entries, cache.size], [16, 16, 15 * 2048]);
    server.reset();
    assert.deepEqual(await values(a, options), expected);
    assert.deepEqual(server.chunks, {});
    assert.equal(cache.stats().hits, 16);
    // Another handle sharing the cache, revalidating on every read (the default).
    const b = await openArray(url, { mode: "r", cache });
    server.reset();
    assert.deepEqual(await values(b, options), expected);
    assert.deepEqual(server.chunks, { 304: 15, 404: 1 });
    assert.equal(cache.stats().revalidated, 16);
    // A part of the array touches only its chunks.
    server.reset();
    const part = (await b.get("0:16, 16:40", options)) as NDArray<Float64Array>;
    assert.deepEqual([...part.data], expected.filter((_, i) => i < 16 * 64 && i % 64 >= 16 && i % 64 < 40));
    assert.deepEqual(server.chunks, { 304: 2 });
  });
}

test("a chunk another writer changed is read again; recheck \"open\" checks once per handle", { skip }, async () => {
  const cache = new ChunkCache({ maxBytes: 1 << 20 });
  const a = await openArray(url, { mode: "r", cache });
  await values(a);
  python(`zarr.open(sys.argv[1], mode="r+")[0:16, 0:16] = 7`);
  server.reset();
  assert.deepEqual(await values(a), [...truth()]);
  assert.deepEqual(server.chunks, { 200: 1, 304: 14, 404: 1 });
  // Stale under false: the cache serves what it holds (TensorStore's contract, as documented).
  const stale = await openArray(url, { mode: "r", cache, recheckCachedData: false });
  python(`zarr.open(sys.argv[1], mode="r+")[0:16, 0:16] = 8`);
  assert.equal((await stale.get([0, 0])) as number, 7);
  const once = await openArray(url, { mode: "r", cache, recheckCachedData: "open" });
  server.reset();
  assert.equal((await once.get([0, 0])) as number, 8);
  assert.equal((await once.get([0, 0])) as number, 8);
  assert.deepEqual(server.chunks, { 200: 1 });
  const hour = await openArray(url, { mode: "r", cache, recheckCachedData: 3600 });
  server.reset();
  await values(hour);
  assert.deepEqual(server.chunks, {});
});

test("writes through a handle drop their cached chunks; files revalidate by size, mtime and inode", { skip }, async () => {
  const cache = new ChunkCache({ maxBytes: 1 << 20 });
  const a = await openArray(dir, { mode: "r+", cache, recheckCachedData: false });
  await values(a);
  await a.set("0:4, 0:4", 3.5);
  await a.set([20, 20], 9);
  const got = await values(a);
  assert.equal(got[0], 3.5);
  assert.equal(got[20 * 64 + 20], 9);
  assert.deepEqual(got, [...truth()]);
  // A group's arrays share the group's cache.
  writeFileSync(join(root, ".zgroup"), JSON.stringify({ zarr_format: 2 }));
  const g = await openGroup(root, { mode: "r", cache, recheckCachedData: true, consolidated: false });
  const child = (await g.get("a.zarr")) as Awaited<ReturnType<typeof openArray>>;
  await values(child);
  const before = cache.stats();
  python(`zarr.open(sys.argv[1], mode="r+")[16:32, 0:16] = 5`);
  assert.deepEqual(await values(child), [...truth()]);
  const after = cache.stats();
  assert.equal(after.misses - before.misses, 1);
  assert.equal(after.revalidated - before.revalidated, 15);
  // A MemoryStore, through the pool-less path, and a write of the fill value (the chunk deleted).
  const store = new MemoryStore();
  const m = await createArray(store, { shape: [8], chunks: [4], dtype: "int16", cache, recheckCachedData: false } as never);
  await m.set(null, 2);
  const cached = await openArray(store, { mode: "r+", cache, recheckCachedData: false });
  assert.deepEqual([...((await cached.get()) as NDArray<Int16Array>).data], [2, 2, 2, 2, 2, 2, 2, 2]);
  await cached.set("0:4", 0);
  assert.deepEqual([...((await cached.get()) as NDArray<Int16Array>).data], [0, 0, 0, 0, 2, 2, 2, 2]);
});

test("the cache keeps to maxBytes, least recently used out first; clear() empties it; bad options are refused", { skip }, async () => {
  const cache = new ChunkCache({ maxBytes: 3 * 2048 });
  const a = await openArray(url, { mode: "r", cache, recheckCachedData: false });
  await a.get("0:16, 0:48");
  assert.deepEqual([cache.stats().entries, cache.size], [3, 3 * 2048]);
  await a.get("0:16, 0:16");
  await a.get("16:32, 0:16");
  // The chunk at (0, 0) was used most recently after the new one's neighbours: (0, 1) left first.
  server.reset();
  await a.get("0:16, 0:16");
  assert.deepEqual(server.chunks, {});
  await a.get("0:16, 16:32");
  assert.deepEqual(server.chunks, { 200: 1 });
  assert.ok(cache.size <= cache.maxBytes);
  cache.clear();
  assert.deepEqual([cache.stats().entries, cache.size], [0, 0]);
  const invalid = (e: unknown) => e instanceof ZarrError && e.code === "INVALID_ARGUMENT";
  assert.throws(() => new ChunkCache({} as never), invalid);
  await assert.rejects(openArray(url, { mode: "r", cache: {} as never }), invalid);
  await assert.rejects(openArray(url, { mode: "r", cache, recheckCachedData: "sometimes" as never }), invalid);
});

test("recheckCachedMetadata: true revalidates the document before each operation (a 304 when unchanged); \"open\" keeps what was read", { skip }, async () => {
  const m = join(root, "m.zarr");
  const make = runPython(`import sys, zarr; zarr.open(sys.argv[1], mode="w", shape=(10,), chunks=(5,), dtype="<i2", fill_value=3)`, m);
  assert.equal(make.status, 0, make.stderr);
  const checked = await openArray(`${url.replace(/a\.zarr$/, "m.zarr")}`, { mode: "r", recheckCachedMetadata: true });
  const once = await openArray(`${url.replace(/a\.zarr$/, "m.zarr")}`, { mode: "r" });
  await checked.get([0]);
  server.reset();
  await checked.get([0]);
  assert.deepEqual(server.metadata, { 304: 1 });
  const grow = runPython(`import sys, zarr; zarr.open(sys.argv[1], mode="r+").resize(12)`, m);
  assert.equal(grow.status, 0, grow.stderr);
  assert.equal(await checked.get([11]), 3);
  assert.deepEqual(checked.shape, [12]);
  server.reset();
  await once.get([0]);
  assert.deepEqual([once.shape, server.metadata], [[10], {}]);
  await assert.rejects(once.get([11]), (e: unknown) => e instanceof ZarrError && e.code === "BAD_SELECTION");
  await assert.rejects(openArray(url, { mode: "r", recheckCachedMetadata: -1 }), (e: unknown) => e instanceof ZarrError && e.code === "INVALID_ARGUMENT");
});

test("over S3 (s3rver): unchanged chunks revalidate by ETag without a decode, a rewritten one is read again", async (t) => {
  const s3 = await startS3();
  t.after(() => s3.close());
  const store = new S3Store(`s3://${s3.bucket}/c.zarr`, s3.options);
  const w = await createArray(store, { shape: [12], chunks: [4], dtype: "uint16" });
  await w.set(null, { data: Uint16Array.from({ length: 12 }, (_, i) => i * 11), shape: [12] });
  const cache = new ChunkCache({ maxBytes: 1 << 20 });
  const a = await openArray(new S3Store(`s3://${s3.bucket}/c.zarr`, s3.options), { mode: "r", cache, recheckCachedData: true });
  await a.get(null, { threads: 0 });
  assert.deepEqual([cache.stats().misses, cache.stats().revalidated], [3, 0]);
  await w.set("4:8", 500);
  const got = (await a.get(null, { threads: 0 })) as NDArray<Uint16Array>;
  assert.deepEqual([...got.data], [0, 11, 22, 33, 500, 500, 500, 500, 88, 99, 110, 121]);
  assert.deepEqual([cache.stats().misses, cache.stats().revalidated, cache.stats().hits], [4, 2, 2]);
});
