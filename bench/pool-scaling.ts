/**
 * Whole reads (and writes) of a 4096 x 4096 float32 random walk, chunks 1024 x 1024, v2, blosc
 * lz4 (clevel 5, shuffle) and raw, with threads 0 (inline), 1 and 2 on a 2-thread pool. The
 * settings take turns run by run, so that all of them meet the same load, and the best of RUNS
 * is reported (on a shared, oversubscribed machine the best run is the one that got the cores;
 * the median is printed too), with the ratio to threads 0. Last, the same lz4 read from a MemoryStore, whose chunks
 * always run inline (workers cannot reach it): what keeping memory stores off the pool costs.
 *   node --import tsx bench/pool-scaling.ts [RUNS=5] [SIDE=4096]
 */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { createArray, MemoryStore, WorkerPool, type ZarrArray } from "../src/index.js";
import { median, randomWalk, scratchFolder } from "./pool-data.js";

const runs = Number(process.argv[2] ?? 5);
const side = Number(process.argv[3] ?? 4096);
const shape = [side, side];
const root = scratchFolder("scaling");
const data = randomWalk(shape);
const pool = new WorkerPool({ threads: 2 });
const compressors = { lz4: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 }, raw: null };
const threadsList = [0, 1, 2];

/** Runs the variants in turns; returns each one's [best, median] in ms. */
async function timeTurns(fns: (() => Promise<unknown>)[]): Promise<[number, number][]> {
  for (const fn of fns) await fn(); // warm: JIT, workers, page cache
  const xs: number[][] = fns.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (let k = 0; k < fns.length; k++) {
      const t = performance.now();
      await fns[k]();
      xs[k].push(performance.now() - t);
    }
  }
  return xs.map((x) => [Math.min(...x), median(x)]);
}

const opts = (threads: number) => (threads === 0 ? { threads: 0 } : { pool, threads });
const lines = [`${side} x ${side} float32, chunks 1024 x 1024, best (median) of ${runs}, ms; ratio of bests to threads 0`];
for (const [name, compressor] of Object.entries(compressors)) {
  const a: ZarrArray = await createArray(join(root, `${name}.zarr`), { shape, chunks: [1024, 1024], dtype: "<f4", zarrFormat: 2, compressor });
  await a.set(null, { data, shape }, opts(2));
  for (const op of ["read", "write"] as const) {
    const ms = await timeTurns(
      threadsList.map((threads) => () => (op === "read" ? a.get(null, opts(threads)) : a.set(null, { data, shape }, opts(threads)))),
    );
    lines.push(
      `${op.padEnd(5)} ${name.padEnd(4)} ` +
        threadsList.map((t, i) => `t${t} ${ms[i][0].toFixed(0).padStart(5)} (${ms[i][1].toFixed(0)}) x${(ms[i][0] / ms[0][0]).toFixed(2)}`).join("  "),
    );
  }
}
const mem = await createArray(new MemoryStore(), { shape, chunks: [1024, 1024], dtype: "<f4", zarrFormat: 2, compressor: compressors.lz4 });
await mem.set(null, { data, shape }, opts(0));
const [[memBest, memMedian]] = await timeTurns([() => mem.get(null, opts(2))]);
lines.push(`read  lz4  MemoryStore (inline even with threads 2): ${memBest.toFixed(0)} (${memMedian.toFixed(0)}) ms`);
await pool.close();
rmSync(root, { recursive: true, force: true });
console.log(lines.join("\n"));
