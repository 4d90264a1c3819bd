/**
 * Whole reads (and writes) of a 4096 x 4096 float32 random walk, chunks 1024 x 1024, v2, blosc
 * lz4 (clevel 5, shuffle) and raw, with threads 0 (inline), 1 and 2 on a 2-thread pool: median
 * of RUNS, and the ratio to threads 0.
 *   node --import tsx bench/pool-scaling.ts [RUNS=5] [SIDE=4096]
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createArray, WorkerPool, type ZarrArray } from "../src/index.js";
import { median, randomWalk, scratchFolder } from "./pool-data.js";

const runs = Number(process.argv[2] ?? 5);
const side = Number(process.argv[3] ?? 4096);
const shape = [side, side];
const root = scratchFolder("scaling");
const data = randomWalk(shape);
const pool = new WorkerPool({ threads: 2 });
const compressors = { lz4: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 }, raw: null };
const threadsList = [0, 1, 2];

async function time(fn: () => Promise<unknown>): Promise<number> {
  await fn(); // warm: JIT, workers, page cache
  const xs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await fn();
    xs.push(performance.now() - t);
  }
  return median(xs);
}

const opts = (threads: number) => (threads === 0 ? { threads: 0 } : { pool, threads });
const lines = [`${side} x ${side} float32, chunks 1024 x 1024, median of ${runs} (ms; ratio to threads 0)`];
for (const [name, compressor] of Object.entries(compressors)) {
  const a: ZarrArray = await createArray(join(root, `${name}.zarr`), { shape, chunks: [1024, 1024], dtype: "<f4", zarrFormat: 2, compressor });
  await a.set(null, { data, shape }, opts(2));
  for (const op of ["read", "write"] as const) {
    const ms: number[] = [];
    for (const threads of threadsList) {
      ms.push(await time(() => (op === "read" ? a.get(null, opts(threads)) : a.set(null, { data, shape }, opts(threads)))));
    }
    lines.push(`${op.padEnd(5)} ${name.padEnd(4)} ` + threadsList.map((t, i) => `t${t} ${ms[i].toFixed(0).padStart(5)} (${(ms[i] / ms[0]).toFixed(2)})`).join("  "));
  }
}
await pool.close();
rmSync(root, { recursive: true, force: true });
console.log(lines.join("\n"));
