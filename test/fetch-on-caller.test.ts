/**
 * Reads whose chunks the calling thread fetches and the workers only decode (WorkerPool's
 * `fetchOnCaller`; parallel/execution/fetched-chunks.ts): an array
 * zarr-python wrote, served over HTTP from 127.0.0.1, reads the same on both executors as inline,
 * with every chunk fetched on this thread (and none when workers fetch their own); missing chunks
 * read as the fill value; a failing chunk stops the read with its typed error, and an abort with
 * an AbortError, leaving the pool idle. The caller fetches the chunks that items cover whole: a
 * shard too, while a read of part of a shard reads only the index and inner chunks it needs, on a
 * worker. Also the comlink executor's several tasks per worker.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { AbortError, FetchStore, FileSystemStore, StoreError, WorkerPool, createArray, openArray, slice, type NDArray } from "../src/index.js";
import { startStaticServer, type StaticServer } from "../src/cli/static-server.js";
import { ComlinkExecutor, type ComlinkWorker } from "../src/parallel/execution/comlink-executor.js";
import type { TaskMessage, TaskOutcome } from "../src/parallel/execution/task-outcome.js";
import { startFaultServer, type FaultServer } from "./helpers/fault-server.js";
import { scratchDir } from "./helpers/paths.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

const skip = zarrPythonSkip();
const SHAPE = [96, 80];
const CHUNKS = [32, 16];
const GRID = (SHAPE[0] / CHUNKS[0]) * (SHAPE[1] / CHUNKS[1]);
/** Chunks zarr-python leaves unwritten (all fill value): row block 1, column block 2. */
const MISSING = "1.2";

let dir: string;
let server: StaticServer;
let faults: FaultServer;
/** Chunk requests the server saw, by key. */
const served: string[] = [];
const pools = {
  piscina: new WorkerPool({ threads: 2, executor: "piscina", fetchOnCaller: true }),
  comlink: new WorkerPool({ threads: 2, executor: "comlink", fetchOnCaller: true }),
};
const ownFetches = new WorkerPool({ threads: 2, executor: "comlink" });

/** The values zarr-python wrote: i * 80 + j as float32, except the missing chunk's (fill -1). */
function expected(): Float32Array {
  const out = new Float32Array(SHAPE[0] * SHAPE[1]);
  for (let i = 0; i < SHAPE[0]; i++) {
    for (let j = 0; j < SHAPE[1]; j++) {
      const inMissing = Math.floor(i / CHUNKS[0]) === 1 && Math.floor(j / CHUNKS[1]) === 2;
      out[i * SHAPE[1] + j] = inMissing ? -1 : i * SHAPE[1] + j;
    }
  }
  return out;
}

before(async () => {
  if (skip) return;
  dir = scratchDir();
  const r = runPython(
    `
import sys, numpy as np, zarr, numcodecs
z = zarr.open(sys.argv[1], mode="w", shape=(96, 80), chunks=(32, 16), dtype="<f4", fill_value=-1,
              compressor=numcodecs.Blosc(cname="lz4", clevel=5, shuffle=1))
v = np.arange(96 * 80, dtype="<f4").reshape(96, 80)
for bi in range(3):
    for bj in range(5):
        if (bi, bj) != (1, 2):
            z[bi*32:(bi+1)*32, bj*16:(bj+1)*16] = v[bi*32:(bi+1)*32, bj*16:(bj+1)*16]
`,
    join(dir, "a.zarr"),
  );
  assert.equal(r.status, 0, r.stderr);
  server = await startStaticServer({ mounts: { "/": dir }, onRequest: (p) => void (/\/\d+\.\d+$/.test(p) && served.push(p)) });
  faults = await startFaultServer();
});

after(async () => {
  await Promise.all([...Object.values(pools), ownFetches].map((p) => p.close()));
  await server?.close();
  await faults?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A FetchStore over the served array whose fetches on this thread are counted (chunks only). */
function countingStore(url: string): { store: FetchStore; chunkFetches: () => number } {
  let n = 0;
  const store = new FetchStore(url, {
    fetch: (input, init) => {
      if (/\/\d+\.\d+$/.test(String(input))) n++;
      return fetch(input, init);
    },
  });
  return { store, chunkFetches: () => n };
}

for (const [name, pool] of Object.entries(pools)) {
  test(`${name}: chunks fetched on the calling thread and decoded on workers read as zarr-python wrote them`, { skip }, async () => {
    const { store, chunkFetches } = countingStore(`${server.origin}/a.zarr`);
    const a = await openArray(store, { mode: "r" });
    served.length = 0;
    const got = (await a.get(null, { pool, threads: 2 })) as NDArray;
    assert.deepEqual(got.data, expected());
    // Every chunk was asked for once, here: the missing one too (a 404, read as the fill value).
    assert.equal(chunkFetches(), GRID);
    assert.equal(served.length, GRID);
    assert.ok(served.some((p) => p.endsWith(`/${MISSING}`)));
    // A selection across chunks: the same values as inline.
    const sel = [slice(5, 90, 3), slice(7, 71)];
    const inline = (await a.get(sel, { threads: 0 })) as NDArray;
    assert.deepEqual(((await a.get(sel, { pool, threads: 2 })) as NDArray).data, inline.data);
    assert.equal(pool.busy, 0);
  });
}

test("by default the workers fetch their own chunks: none is fetched on the calling thread", { skip }, async () => {
  const { store, chunkFetches } = countingStore(`${server.origin}/a.zarr`);
  const a = await openArray(store, { mode: "r" });
  assert.equal(ownFetches.fetchesOnCaller, false);
  served.length = 0;
  assert.deepEqual(((await a.get(null, { pool: ownFetches, threads: 2 })) as NDArray).data, expected());
  assert.equal(chunkFetches(), 0);
  assert.equal(served.length, GRID);
});

test("a chunk that fails to fetch on the calling thread stops the read with its StoreError", { skip }, async () => {
  const zarray = JSON.stringify({ zarr_format: 2, shape: [64], chunks: [8], dtype: "<i4", compressor: null, fill_value: 0, order: "C", filters: null });
  faults.script("/b/.zarray", [{ status: 200, body: zarray }]);
  for (let i = 0; i < 8; i++) faults.script(`/b/${i}`, [{ status: 200, body: new Uint8Array(new Int32Array(8).fill(i).buffer) }]);
  faults.script("/b/5", [{ status: 500, body: "broken" }]);
  const a = await openArray(new FetchStore(`${faults.base}/b`, { http: { retries: 0 } }), { mode: "r" });
  for (const pool of Object.values(pools)) {
    await assert.rejects(a.get(null, { pool, threads: 2 }), (err: unknown) => err instanceof StoreError && /\/b\/5 answered 500/.test(err.message));
    assert.equal(pool.busy, 0);
  }
});

test("an abort while the calling thread's fetches hang ends them with an AbortError", { skip }, async () => {
  const zarray = JSON.stringify({ zarr_format: 2, shape: [64], chunks: [8], dtype: "<i4", compressor: null, fill_value: 0, order: "C", filters: null });
  faults.script("/c/.zarray", [{ status: 200, body: zarray }]);
  for (let i = 0; i < 8; i++) faults.script(`/c/${i}`, [{ hang: true }]);
  const a = await openArray(new FetchStore(`${faults.base}/c`, { http: { retries: 0, timeoutMs: 0 } }), { mode: "r" });
  for (const pool of Object.values(pools)) {
    const controller = new AbortController();
    const reading = a.get(null, { pool, threads: 2, signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(reading, (err: unknown) => err instanceof AbortError);
    assert.equal(pool.busy, 0);
  }
});

test("the comlink executor runs up to tasksPerWorker tasks on each worker at once, no more", async () => {
  const running = new Map<number, number>();
  const most = new Map<number, number>();
  const release: (() => void)[] = [];
  let made = 0;
  const executor = new ComlinkExecutor(
    2,
    (): ComlinkWorker => {
      const id = made++;
      running.set(id, 0);
      most.set(id, 0);
      return {
        api: {
          runChunkTask: async (): Promise<TaskOutcome> => {
            running.set(id, running.get(id)! + 1);
            most.set(id, Math.max(most.get(id)!, running.get(id)!));
            await new Promise<void>((resolve) => release.push(resolve));
            running.set(id, running.get(id)! - 1);
            return { status: "done", chunks: 1 };
          },
        } as unknown as ComlinkWorker["api"],
        onFailure: () => {},
        terminate: () => {},
      };
    },
    3,
  );
  const message = { task: { kind: "read", items: [] }, cancel: new Int32Array(1) } as unknown as TaskMessage;
  const runs = Array.from({ length: 10 }, () => executor.run(message));
  await new Promise((r) => setTimeout(r, 20));
  // Two workers, three tasks each; the other four wait.
  assert.equal(made, 2);
  assert.deepEqual([...running.values()], [3, 3]);
  let settled = false;
  const all = Promise.all(runs).finally(() => void (settled = true));
  while (!settled) {
    release.splice(0).forEach((go) => go());
    await new Promise((r) => setTimeout(r, 1));
  }
  const outcomes = await all;
  assert.equal(outcomes.length, 10);
  assert.deepEqual([...most.values()], [3, 3]);
  await executor.close();
});

test("fetchOnCaller: whole shards are fetched on the calling thread; part of a shard is read by its index and inner chunks on a worker", async () => {
  const root = scratchDir();
  const shape = [64, 64];
  const values = Int32Array.from({ length: 64 * 64 }, (_, i) => i);
  const w = await createArray(new FileSystemStore(root), { shape, chunks: [8, 8], shards: [32, 32], dtype: "int32", codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }] });
  await w.set(null, values);
  const requests: { path: string; range: string | undefined }[] = [];
  const shards = await startStaticServer({ mounts: { "/": root }, onRequest: (path, range) => void (/\/c\/\d+\/\d+$/.test(path) && requests.push({ path, range })) });
  let onCaller = 0;
  const store = new FetchStore(shards.origin, {
    fetch: (input, init) => {
      if (/\/c\/\d+\/\d+$/.test(String(input))) onCaller++;
      return fetch(input, init);
    },
  });
  try {
    const a = await openArray(store, { mode: "r" });
    const pool = pools.piscina;
    assert.deepEqual(((await a.get(null, { pool, threads: 2 })) as NDArray).data, values);
    // Each read item covers its shard: fetched here, once, whole.
    assert.equal(onCaller, 4);
    assert.deepEqual(requests.map((r) => r.range).filter((r) => r !== undefined), []);

    onCaller = 0;
    requests.length = 0;
    const part = (await a.get([slice(1, 5), slice(34, 38)], { pool, threads: 2 })) as NDArray;
    const expected = Int32Array.from({ length: 16 }, (_, k) => (1 + Math.floor(k / 4)) * 64 + 34 + (k % 4));
    assert.deepEqual(part.data, expected);
    // Not here: on a worker, by ranges of shard c/0/1 only (its index, one inner chunk), never the whole shard.
    assert.equal(onCaller, 0);
    assert.ok(requests.length > 0 && requests.every((r) => r.path.endsWith("/c/0/1") && r.range !== undefined), JSON.stringify(requests));
    assert.equal(pool.busy, 0);
  } finally {
    await shards.close();
    rmSync(root, { recursive: true, force: true });
  }
});
