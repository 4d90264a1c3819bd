/**
 * Where the pool starts paying off: whole reads of small float32 arrays (square chunks of EDGE,
 * 64 by default: 16 KiB decoded) with threads 0 against a warm 2-thread pool, for growing chunk
 * counts. Where the pool wins is threadsByCost in coordinator.ts (MIN_WORK_PER_THREAD_NS).
 *   node --import tsx bench/pool-crossover.ts [EDGE] [MAX_CHUNKS]
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createArray, WorkerPool } from "../src/index.js";
import { scratchFolder, randomWalk } from "./pool-data.js";

const root = scratchFolder("crossover");
const pool = new WorkerPool({ threads: 2 });
const edge = Number(process.argv[2] ?? 64);
const maxChunks = Number(process.argv[3] ?? 256);
const counts = [2, 4, 8, 16, 32, 64, 128, 256, 512].filter((n) => n <= maxChunks);
const rows: string[] = [`chunks ${edge} x ${edge} float32`, "codec   chunks  KiB    inline ms  pool ms  pool/inline  (best of 22 each)"];
for (const codec of ["raw", "lz4"] as const) {
  for (const nChunks of counts) {
    const shape = [edge * nChunks, edge];
    const a = await createArray(join(root, `${codec}-${nChunks}.zarr`), {
      shape, chunks: [edge, edge], dtype: "float32", zarrFormat: 2,
      compressor: codec === "raw" ? null : { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 },
    });
    await a.set(null, { data: randomWalk(shape), shape }, { threads: 0 });
    // Turns and best-of, as in pool-scaling.ts: both settings meet the same load.
    const best = [Infinity, Infinity];
    for (let i = 0; i < 25; i++) {
      for (const [k, options] of [{ threads: 0 }, { pool, threads: 2 }].entries()) {
        const t = performance.now();
        await a.get(null, options);
        if (i >= 3) best[k] = Math.min(best[k], performance.now() - t);
      }
    }
    const [inline, onPool] = best;
    rows.push(`${codec.padEnd(7)} ${String(nChunks).padStart(6)}  ${String((nChunks * edge * edge * 4) / 1024).padStart(5)}  ${inline.toFixed(2).padStart(9)}  ${onPool.toFixed(2).padStart(7)}  ${(onPool / inline).toFixed(2).padStart(11)}`);
  }
}
await pool.close();
rmSync(root, { recursive: true, force: true });
console.log(rows.join("\n"));
