// After `npm run build`: plain Node (no tsx) imports the built package, and reads and writes on
// the default pool (workers load dist/workers/node-worker.js) and on a comlink pool, then exits
// by itself.   npm run build && node examples/dist-pool-check.mjs
import { createArray, WorkerPool } from "../dist/src/index.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const dir = mkdtempSync(join(tmpdir(), "parzarr-dist-"));
const a = await createArray(dir + "/a.zarr", { shape: [64, 64], chunks: [16, 16], dtype: "int32" });
await a.set(null, { data: new Int32Array(4096).map((_, i) => i), shape: [64, 64] }, { threads: 2 });
const r = await a.get(null, { threads: 2 });
const pool = new WorkerPool({ threads: 2, executor: "comlink" });
const r2 = await a.get("::3, 5:", { pool, threads: 2 });
await pool.close();
rmSync(dir, { recursive: true, force: true });
console.log("dist ok", r.data.buffer.constructor.name, r.data[4095], r2.data[0], r2.shape);
