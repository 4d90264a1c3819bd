/**
 * The worker pool: reads and writes on workers (piscina and comlink executors) give exactly the
 * bytes the inline path gives, for random shapes, chunks, selections and every numeric type;
 * abort and corrupt chunks stop the call cleanly; progress, close, and the default pool's exit.
 */
import { after, test } from "node:test";
import { platform } from "../src/platform/current.js";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import {
  CorruptChunkError,
  MemoryStore,
  WorkerPool,
  ZarrError,
  createArray,
  openArray,
  slice,
  workerCanOpen,
  type CodecConfig,
  type DimSelection,
  type NDArray,
  type NumericTypeName,
  type Store,
  type TypedArray,
  type ZarrArray,
} from "../src/index.js";
import { batchSize, inBatches, placeOperation, TASK_TARGET_NS } from "../src/parallel/execution/coordinator.js";
import { toShared } from "../src/parallel/execution/shared.js";
import { scratchDir } from "./helpers/paths.js";
import { randomData, rng } from "./helpers/random.js";

const pools = {
  piscina: new WorkerPool({ threads: 2, executor: "piscina" }),
  comlink: new WorkerPool({ threads: 2, executor: "comlink" }),
  // As on a browser page that is not cross-origin isolated: reads send chunks back, writes run inline.
  "comlink without shared memory": new WorkerPool({ threads: 2, executor: "comlink", sharedMemory: false }),
};
after(async () => {
  await Promise.all(Object.values(pools).map((p) => p.close()));
});

const DTYPES: NumericTypeName[] = [
  "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
  "float16", "float32", "float64", "complex64", "complex128",
];

/** Values as large as the types allow without losing exactness in float16. */
const VALUES = { half: 1000, bigScale: 1234567n, floatDivisor: 8 };
const randomValues = (a: ZarrArray, count: number, r: (n: number) => number): TypedArray => randomData(a.dtype as NumericTypeName, count, r, VALUES);

function chainFor(k: number): CodecConfig[] {
  switch (k) {
    case 0: return [{ name: "bytes", configuration: { endian: "little" } }];
    case 1: return [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle" } }];
    case 2: return [{ name: "bytes", configuration: { endian: "big" } }, { name: "gzip", configuration: { level: 1 } }];
    default: return [{ name: "transpose", configuration: { order: [...Array(k - 3).keys()].reverse() } }, { name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }];
  }
}

interface Case {
  shape: number[];
  chunks: number[];
  selection: DimSelection[];
  codecs: CodecConfig[];
}

function randomCase(r: (n: number) => number): Case {
  const ndim = 1 + r(3);
  const shape = Array.from({ length: ndim }, () => 1 + r(11));
  const chunks = shape.map((s) => 1 + r(s + 2));
  const selection = shape.map((s): DimSelection => {
    const pick = r(5);
    if (pick === 0) return r(s);
    if (pick === 1) return null;
    const start = r(s);
    return slice(start, start + 1 + r(s - start), 1 + r(3));
  });
  const k = r(4);
  return { shape, chunks, selection, codecs: chainFor(k === 3 ? 3 + ndim : k) };
}

async function makeArray(store: string | Store, dtype: NumericTypeName, c: Case, seed: number): Promise<ZarrArray> {
  const a = await createArray(store, { shape: c.shape, chunks: c.chunks, dtype, codecs: c.codecs, fillValue: dtype === "bool" ? false : 0 });
  const r = rng(seed);
  // Leave some chunks missing (they read as the fill value) by writing only part of the array.
  const sel = c.shape.map((s) => slice(0, Math.max(1, s - r(2))));
  const counts = c.shape.map((s, d) => (sel[d].stop as number));
  await a.set(sel, { data: randomValues(a, counts.reduce((x, y) => x * y, 1), r), shape: counts }, { threads: 0 });
  return a;
}

function bytesOf(x: NDArray | unknown): Buffer {
  const d = (x as NDArray<TypedArray>).data ?? null;
  assert.ok(d, "expected an NDArray");
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
}

function filesOf(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p).toString("hex"));
    }
  };
  walk(dir);
  return out;
}

async function memoryFiles(store: MemoryStore): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const k of await store.list("")) out.set(k, Buffer.from((await store.get(k))!).toString("hex"));
  return out;
}

for (const [executor, pool] of Object.entries(pools)) {
  test(`${executor}: random reads on the pool equal inline reads byte for byte`, async () => {
    let seed = executor === "piscina" ? 11 : 7001;
    for (const dtype of DTYPES) {
      for (let rep = 0; rep < 2; rep++, seed++) {
        const r = rng(seed);
        const c = randomCase(r);
        const where = `seed ${seed} ${dtype} ${JSON.stringify(c)}`;
        const a = await makeArray(scratchDir(), dtype, c, seed);
        const inline = await a.get(c.selection, { threads: 0 });
        const progress: [number, number][] = [];
        const onPool = await a.get(c.selection, { pool, threads: 2, onProgress: (d, t) => progress.push([d, t]) });
        if (typeof inline !== "object" || !("data" in inline)) {
          assert.deepEqual(onPool, inline, where);
          continue;
        }
        const buffer = (onPool as NDArray<TypedArray>).data.buffer;
        // Ordinary memory either way: staged through shared buffers (staged-output.ts), or sent back.
        assert.ok(!(buffer instanceof SharedArrayBuffer), `${where}: a result V8 collects when dropped`);
        assert.deepEqual((onPool as NDArray).shape, inline.shape, where);
        assert.ok(bytesOf(onPool).equals(bytesOf(inline)), where);
        const last = progress.at(-1);
        assert.ok(last && last[0] === last[1], `${where}: progress reaches the total`);
        assert.ok(progress.every(([d], i) => i === 0 || d > progress[i - 1][0]), `${where}: progress grows`);
      }
    }
  });

  test(`${executor}: random writes on the pool store exactly what inline writes store`, async () => {
    let seed = executor === "piscina" ? 501 : 9001;
    for (const dtype of DTYPES) {
      for (let rep = 0; rep < 2; rep++, seed++) {
        const c = randomCase(rng(seed));
        const where = `seed ${seed} ${dtype} ${JSON.stringify(c)}`;
        const dirs = [scratchDir(), scratchDir()];
        const [inlineArr, poolArr] = await Promise.all(dirs.map((d) => makeArray(d, dtype, c, seed)));
        const probe = await inlineArr.get(c.selection, { threads: 0 });
        const r = rng(seed * 31);
        const value = typeof probe === "object" && "data" in probe && rep === 0
          ? { data: randomValues(inlineArr, probe.shape.reduce((x, y) => x * y, 1), r), shape: probe.shape }
          : dtype === "bool" ? true : dtype.startsWith("complex") ? ([1.5, -2] as [number, number]) : 3;
        await inlineArr.set(c.selection, value, { threads: 0 });
        await poolArr.set(c.selection, value, { pool, threads: 2 });
        assert.deepEqual(filesOf(dirs[1]), filesOf(dirs[0]), where);
      }
    }
  });
}

test("without shared memory reads go to the workers and writes run inline; the pool says which", async () => {
  const pool = pools["comlink without shared memory"];
  assert.equal(pool.sharedMemory, false);
  assert.equal(pools.comlink.sharedMemory, true);
  const store = { descriptor: () => ({ kind: "filesystem", root: "/x", readOnly: false }) } as unknown as Store;
  const req = { store, chunkCount: 8, chunkBytes: 1 << 20, decodeCost: 1, data: null };
  const read = placeOperation({ ...req, op: "read", data: new Float32Array(0) }, { pool });
  assert.equal(read.where, "pool");
  assert.equal(read.where === "pool" && read.shared, false);
  assert.deepEqual(placeOperation({ ...req, op: "write" }, { pool, threads: 2 }), { where: "inline" });
  // A read of whole and partial chunks, missing ones among them, equals the inline read, and its
  // chunks were counted on the pool.
  const a = await createArray(scratchDir(), { shape: [40, 30], chunks: [8, 7], dtype: "float32", fillValue: -1 });
  await a.set([slice(0, 33), null], { data: Float32Array.from({ length: 33 * 30 }, (_, i) => i / 3), shape: [33, 30] }, { threads: 0 });
  let peak = 0;
  const progress = (): void => void (peak = Math.max(peak, pool.busy));
  const got = (await a.get([slice(3, 40, 2), slice(1, 29)], { pool, threads: 2, onProgress: progress })) as NDArray<Float32Array>;
  const want = (await a.get([slice(3, 40, 2), slice(1, 29)], { threads: 0 })) as NDArray<Float32Array>;
  assert.deepEqual(got.shape, want.shape);
  assert.deepEqual(Array.from(got.data), Array.from(want.data));
  assert.ok(peak > 0, "tasks ran on the pool");
});

test("MemoryStore works with a pool: its chunks run inline (workers cannot reach it), same results", async () => {
  assert.equal(workerCanOpen(new MemoryStore().descriptor()), false);
  assert.equal(workerCanOpen({ kind: "filesystem", root: "/x", readOnly: true }), true);
  let seed = 3;
  for (const dtype of DTYPES) {
    const c = randomCase(rng(seed));
    const stores = [new MemoryStore(), new MemoryStore()];
    const arrays = await Promise.all(stores.map((s) => makeArray(s, dtype, c, seed)));
    const inline = await arrays[0].get(c.selection, { threads: 0 });
    const onPool = await arrays[1].get(c.selection, { pool: pools.piscina, threads: 2 });
    assert.deepEqual(onPool, inline, `seed ${seed} ${dtype}`);
    const v = dtype === "bool" ? false : dtype.startsWith("complex") ? ([0.25, 4] as [number, number]) : 5;
    await arrays[0].set(c.selection, v, { threads: 0 });
    await arrays[1].set(c.selection, v, { pool: pools.piscina, threads: 2 });
    assert.deepEqual(await memoryFiles(stores[1]), await memoryFiles(stores[0]), `seed ${seed} ${dtype}`);
    seed++;
  }
  assert.equal(pools.piscina.busy, 0);
});

test("whole chunks decode straight into the shared output: raw and blosc, v2 and v3", async () => {
  const data = Float64Array.from({ length: 16 * 12 }, (_, i) => Math.sqrt(i));
  for (const codecs of [chainFor(0), chainFor(1)]) {
    for (const zarrFormat of [2, 3] as const) {
      const dir = scratchDir();
      const opts = zarrFormat === 3
        ? { shape: [16, 12], chunks: [4, 12], dtype: "float64", codecs }
        : { shape: [16, 12], chunks: [4, 12], dtype: "<f8", zarrFormat, compressor: codecs.length > 1 ? { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 } : null };
      const a = await createArray(dir, opts);
      await a.set(null, { data, shape: [16, 12] }, { threads: 0 });
      for (const executor of Object.values(pools)) {
        const whole = (await a.get(null, { pool: executor, threads: 2 })) as NDArray;
        assert.deepEqual(Array.from(whole.data as Float64Array), Array.from(data));
        // Rows 3..13 cover chunks 1 and 2 whole, and part of chunks 0 and 3.
        const rows = (await a.get([slice(3, 14), null], { pool: executor, threads: 2 })) as NDArray;
        assert.deepEqual(Array.from(rows.data as Float64Array), Array.from(data.subarray(36, 168)));
      }
    }
  }
});

test("an aborted read or write rejects with ABORTED and leaves no worker busy", async () => {
  const dir = scratchDir();
  const a = await createArray(dir, { shape: [64, 64], chunks: [4, 4], dtype: "float32", codecs: chainFor(1) });
  await a.set(null, 1.5, { threads: 0 });
  for (const pool of Object.values(pools)) {
    const ac = new AbortController();
    let calls = 0;
    const read = a.get(null, { pool, threads: 2, signal: ac.signal, onProgress: () => void (++calls === 1 && ac.abort()) });
    await assert.rejects(read, (e: unknown) => e instanceof ZarrError && e.code === "ABORTED");
    assert.equal(pool.busy, 0, `${pool.executorKind}: nothing left running after the abort`);
    assert.ok(calls < 256, "the abort stopped the remaining chunks");

    const ac2 = new AbortController();
    const write = a.set(null, 2.5, { pool, threads: 2, signal: ac2.signal, onProgress: () => ac2.abort() });
    await assert.rejects(write, (e: unknown) => e instanceof ZarrError && e.code === "ABORTED");
    assert.equal(pool.busy, 0);

    const pre = new AbortController();
    pre.abort();
    await assert.rejects(a.get(null, { pool, threads: 2, signal: pre.signal }), (e: unknown) => e instanceof ZarrError && e.code === "ABORTED");
    // The pool still works after an abort.
    await a.set(null, 1.5, { pool, threads: 2 });
    const back = (await a.get(null, { pool, threads: 2 })) as NDArray;
    assert.ok((back.data as Float32Array).every((x) => x === 1.5));
  }
});

test("a corrupt chunk fails the whole call with its key and leaves the store as it was", async () => {
  for (const pool of Object.values(pools)) {
    const dir = scratchDir();
    const a = await createArray(dir, { shape: [32, 32], chunks: [8, 8], dtype: "int16", codecs: chainFor(1), path: "arr" });
    await a.set(null, { data: Int16Array.from({ length: 1024 }, (_, i) => i), shape: [32, 32] }, { threads: 0 });
    // The first chunk in C order, so that with one task in flight it is the first thing touched.
    const bad = join(dir, "arr", "c", "0", "0");
    writeFileSync(bad, readFileSync(bad).subarray(0, 20));
    const before = filesOf(dir);
    const isCorrupt = (e: unknown): boolean => {
      assert.ok(e instanceof CorruptChunkError, `expected CorruptChunkError, got ${String(e)}`);
      assert.match(e.message, /"arr\/c\/0\/0"/);
      return true;
    };
    await assert.rejects(a.get(null, { pool, threads: 2 }), isCorrupt);
    // Without shared memory writes run inline, several chunks at a time: the rest is about the pool.
    if (!pool.sharedMemory) continue;
    // Partial writes read the corrupt chunk first; one task in flight stops at it.
    await assert.rejects(a.set([slice(1, 31), slice(1, 31)], 7, { pool, threads: 1 }), isCorrupt);
    assert.equal(pool.busy, 0);
    assert.deepEqual(filesOf(dir), before, `${pool.executorKind}: nothing written`);
    // With both workers busy, the chunk itself is still never overwritten.
    await assert.rejects(a.set([slice(1, 31), slice(1, 31)], 7, { pool, threads: 2 }), isCorrupt);
    assert.equal(filesOf(dir).get(join("arr", "c", "0", "0")), before.get(join("arr", "c", "0", "0")));
  }
});

test("a raw chunk of the wrong size, read straight into place, fails with its key", async () => {
  const dir = scratchDir();
  // Chunks span whole rows, so each is one run of the output and is read from the file in place.
  const a = await createArray(dir, { shape: [8, 6], chunks: [2, 6], dtype: "<u2", zarrFormat: 2, compressor: null });
  await a.set(null, { data: Uint16Array.from({ length: 48 }, (_, i) => i), shape: [8, 6] }, { threads: 0 });
  for (const pool of [undefined, ...Object.values(pools)]) {
    for (const [how, bytes] of [["short", 20], ["long", 28]] as const) {
      writeFileSync(join(dir, "2.0"), new Uint8Array(bytes));
      const options = pool ? { pool, threads: 2 } : { threads: 0 };
      await assert.rejects(a.get(null, options), (e: unknown) => e instanceof CorruptChunkError && e.message.includes('"2.0"'), how);
    }
    writeFileSync(join(dir, "2.0"), new Uint8Array(new Uint16Array([24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35]).buffer));
    const whole = (await a.get(null, pool ? { pool, threads: 2 } : { threads: 0 })) as NDArray;
    assert.deepEqual(Array.from(whole.data as Uint16Array), Array.from({ length: 48 }, (_, i) => i));
  }
});

test("a closed pool refuses work with POOL_CLOSED; threads must be a non-negative integer", async () => {
  const pool = new WorkerPool({ threads: 1 });
  const dir = scratchDir();
  const a = await createArray(dir, { shape: [8], chunks: [2], dtype: "uint8" });
  await a.set(null, 9, { pool, threads: 1 });
  assert.deepEqual(Array.from(((await a.get(null, { pool, threads: 1 })) as NDArray).data as Uint8Array), new Array(8).fill(9));
  await pool.close();
  assert.equal(pool.closed, true);
  const closed = (e: unknown): boolean => e instanceof ZarrError && e.code === "POOL_CLOSED" && /closed/.test(e.message);
  await assert.rejects(a.get(null, { pool, threads: 1 }), closed);
  await assert.rejects(a.set(null, 1, { pool }), closed);
  await pool.close(); // closing twice is fine
  await assert.rejects(a.get(null, { threads: -1 }), (e: unknown) => e instanceof ZarrError && e.code === "INVALID_ARGUMENT");
  assert.throws(() => new WorkerPool({ threads: 0 }), (e: unknown) => e instanceof ZarrError && e.code === "INVALID_ARGUMENT");
  // Reopened read-only, the pool path reads the same bytes.
  const ro = await openArray(dir, { mode: "r" });
  assert.deepEqual(Array.from(((await ro.get(null, { pool: pools.comlink, threads: 2 })) as NDArray).data as Uint8Array), new Array(8).fill(9));
});

test("close() lets an operation in flight finish, on both executors", async () => {
  const dir = scratchDir();
  const a = await createArray(dir, { shape: [64, 64], chunks: [8, 8], dtype: "int32", codecs: chainFor(1) });
  const data = Int32Array.from({ length: 4096 }, (_, i) => i ^ 0x55);
  await a.set(null, { data, shape: [64, 64] }, { threads: 0 });
  for (const executor of ["piscina", "comlink"] as const) {
    const pool = new WorkerPool({ threads: 2, executor });
    const reading = a.get(null, { pool, threads: 2 });
    const closing = pool.close();
    await assert.rejects(a.get(null, { pool, threads: 2 }), (e: unknown) => e instanceof ZarrError && e.code === "POOL_CLOSED");
    const got = (await reading) as NDArray;
    await closing;
    assert.deepEqual(Array.from(got.data as Int32Array), Array.from(data), executor);
    assert.equal(pool.busy, 0);
  }
});

test("placement: tiny requests, memory stores, non-typed data and threads 0 run inline", () => {
  const fs = { descriptor: () => ({ kind: "filesystem", root: "/x", readOnly: false }) } as unknown as Store;
  const pool = pools.piscina;
  const typed = new Float32Array(0);
  const place = (chunkCount: number, over: Partial<Parameters<typeof placeOperation>[0]> = {}, options = {}) =>
    placeOperation({ store: fs, chunkCount, chunkBytes: 1 << 20, decodeCost: 1, op: "read", data: typed, ...over }, { pool, ...options }).where;
  // Placement by cost is test/placement.test.ts's; here, the cases around it.
  assert.equal(place(2), "inline", "2 MiB of decoding is too little to share");
  assert.equal(place(100), "pool");
  const http = { descriptor: () => ({ kind: "fetch", url: "http://127.0.0.1/" }) } as unknown as Store;
  assert.equal(place(100000, { decodeCost: 0, store: http }), "inline", "raw chunks from elsewhere than files have nothing to decode");
  // Raw reads of files: workers copy faster than the one thread driving an inline read (on 2 cores or more).
  assert.equal(place(100000, { decodeCost: 0 }), platform().availableParallelism() >= 2 ? "pool" : "inline");
  assert.equal(place(1, { decodeCost: 0 }, { threads: 2 }), "pool");
  assert.equal(place(100000, { decodeCost: 0, op: "write" }), "inline", "raw writes have nothing to share out");
  assert.equal(place(1, { decodeCost: 0, op: "write" }, { threads: 1 }), "pool");
  assert.equal(place(1, {}, { threads: 2 }), "pool", "asking for threads gets workers");
  assert.equal(place(1000, {}, { threads: 0 }), "inline");
  assert.equal(place(1000, { store: new MemoryStore() }), "inline");
  assert.equal(place(1000, { data: ["a", "b"] }, { threads: 2 }), "inline", "a JS array cannot be shared");
  assert.equal(place(1000, { data: null }), "pool", "a scalar write");
  // Batches: at least one task per lane; small chunks share a message.
  const items = Array.from({ length: 100 }, (_, i) => ({ key: String(i), origin: [i], chunkSel: [], outStart: [i] }));
  const batches = (chunkBytes: number, lanes: number) => [...inBatches(items, batchSize(items.length, chunkBytes, lanes))];
  assert.equal(batches(1024, 4).length, 4);
  assert.equal(batches(4 << 20, 4).length, 100);
  assert.deepEqual(batches(1024, 4).flat(), items, "every item once, in order");
  assert.deepEqual(batches(1024, 3).map((b) => b.length), [34, 34, 32]);
  // Sized by decoding (reads of local files): 4 MiB blosc-lz4 chunks (0.32 ns/B, 1.3 ms each) go
  // four to a task of about TASK_TARGET_NS; zlib's (3.2 ns/B) are long enough alone.
  const byCost = (cost: number, lanes = 4) => [...inBatches(items, batchSize(items.length, 4 << 20, lanes, cost))];
  assert.equal(TASK_TARGET_NS, 5e6);
  assert.deepEqual(new Set(byCost(0.32).map((b) => b.length)), new Set([4]));
  assert.equal(byCost(3.2).length, 100);
  assert.equal(byCost(0.32, 50).length, 50, "still a task per lane");
  assert.deepEqual(byCost(0.32).flat(), items, "every item once, in order");
});

test("placement: only reads of local files on workers size their tasks by decoding", async () => {
  const fs = { descriptor: () => ({ kind: "filesystem", root: "/x", readOnly: false }) } as unknown as Store;
  const http = { descriptor: () => ({ kind: "fetch", url: "http://127.0.0.1/" }) } as unknown as Store;
  const place = (over: Partial<Parameters<typeof placeOperation>[0]>, pool = pools.piscina) => {
    // threads: 2, so that a 1-core machine places them on the pool too.
    const p = placeOperation({ store: fs, chunkCount: 64, chunkBytes: 4 << 20, decodeCost: 0.32, op: "read", data: new Float32Array(0), ...over }, { pool, threads: 2 });
    return p.where === "pool" ? p.taskCost : "inline";
  };
  assert.equal(place({}), 0.32);
  // Over HTTP a longer task would open more fetches at once; writes run their chunks one by one.
  assert.equal(place({ store: http }), 0);
  assert.equal(place({ op: "write", data: new Float32Array(1) }), 0);
  // Raw chunks were no faster in longer tasks: sized by bytes.
  assert.equal(place({ decodeCost: 0 }), 0);
  // Staged reads and chunk-cache fills hold a buffer per chunk until their task ends.
  assert.equal(place({ holdsChunkBuffers: true }), 0);
  // Without shared memory each chunk comes back with the task's outcome: a longer task holds more.
  const unshared = new WorkerPool({ threads: 2, sharedMemory: false });
  try {
    assert.equal(place({}, unshared), 0);
  } finally {
    await unshared.close();
  }
});

test("a write value on a SharedArrayBuffer is used as it is; others are copied once", () => {
  const shared = new Int16Array(new SharedArrayBuffer(8)).fill(3);
  assert.equal(toShared(shared), shared);
  const plain = Int16Array.from([1, 2, 3]);
  const copy = toShared(plain);
  assert.ok(copy.buffer instanceof SharedArrayBuffer);
  assert.deepEqual(Array.from(copy), [1, 2, 3]);
});

test("a script that reads and writes with the default pool exits by itself", () => {
  const script = new URL("./helpers/default-pool-script.ts", import.meta.url).pathname;
  const res = spawnSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8", timeout: 30_000 });
  assert.equal(res.error, undefined, `the script did not exit by itself: ${String(res.error)}`);
  assert.equal(res.status, 0, res.stderr);
  assert.deepEqual(JSON.parse(res.stdout.trim()), { shared: false, workersRan: true, last: 1023 * 3 });
});
