/**
 * Spawned by test/pool.test.ts: reads and writes through the process-wide default pool (and reads
 * on a comlink pool it never closes), then simply ends. If an idle worker kept the event loop
 * alive, this process would never exit.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WorkerPool, createArray } from "../../src/index.js";
import { sharedScratchAllocations } from "../../src/scratch.js";

const dir = mkdtempSync(join(tmpdir(), "parzarr-default-pool-"));
const a = await createArray(join(dir, "a.zarr"), { shape: [32, 32], chunks: [8, 8], dtype: "int32" });
// threads without a pool: the default pool, made here on first need.
// The value is shared memory, which workers read in place: the write takes no staging buffer.
const value = new Int32Array(new SharedArrayBuffer(1024 * 4));
for (let i = 0; i < value.length; i++) value[i] = i * 3;
await a.set(null, { data: value, shape: [32, 32] }, { threads: 2 });
const before = sharedScratchAllocations();
const r = await a.get(null, { threads: 2 });
// The result is ordinary memory: the workers read into shared buffers taken here for the read
// (staged-output.ts), which an inline read would not take.
const workersRan = sharedScratchAllocations() > before;
if (typeof r !== "object" || !("data" in r)) throw new Error("expected an array");
const shared = ArrayBuffer.isView(r.data) && r.data.buffer instanceof SharedArrayBuffer;
// A comlink pool that is never closed must not keep the process alive either.
const forgotten = new WorkerPool({ threads: 2, executor: "comlink" });
await a.get(null, { pool: forgotten, threads: 2 });
rmSync(dir, { recursive: true, force: true });
console.log(JSON.stringify({ shared, workersRan, last: Number(r.data[1023]) }));
