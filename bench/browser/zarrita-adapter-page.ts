/**
 * The page side of bench/zarrita-adapter.ts: each array read whole by fizarrita (its Web Workers
 * decode) and by parzarr/zarrita's `get` (parzarr's Web Workers decode), both on the same zarrita
 * Array over zarrita's FetchStore. One warm-up each, then `reps` alternating timed reads.
 */
import * as zarr from "zarrita";
import { getWorker } from "@fideus-labs/fizarrita";
import { WorkerPool as FizPool } from "@fideus-labs/worker-pool";
import { get } from "../../src/zarrita-browser.js";
import { WorkerPool } from "../../src/browser.js";

const sumOf = (data: Float32Array): number => {
  let s = 0;
  for (let i = 0; i < data.length; i += 4099) s += data[i];
  return s;
};

export async function runAdapterBench(opts: { urls: string[]; parzarrWorker: string; fizWorker: string; threads: number; reps: number }) {
  const pool = new WorkerPool({ threads: opts.threads, workerUrl: opts.parzarrWorker });
  const fiz = new FizPool(opts.threads);
  const timings: { url: string; reader: string; ms: number; checksum: number }[] = [];
  try {
    for (const url of opts.urls) {
      const arr = await zarr.open(new zarr.FetchStore(url), { kind: "array" });
      const readers: [string, () => Promise<{ data: unknown }>][] = [
        [`fizarrita ${opts.threads} workers`, () => getWorker(arr, null, { pool: fiz, workerUrl: opts.fizWorker }) as Promise<{ data: unknown }>],
        [`parzarr/zarrita ${opts.threads} Web Workers`, () => get(arr, null, { pool, threads: opts.threads })],
      ];
      for (const [, read] of readers) await read();
      for (let rep = 0; rep < opts.reps; rep++) {
        for (const [reader, read] of readers) {
          const t0 = performance.now();
          const r = await read();
          const ms = performance.now() - t0;
          timings.push({ url, reader, ms, checksum: sumOf(r.data as Float32Array) });
          console.log(`${url} ${reader}: ${ms.toFixed(0)} ms`);
        }
      }
    }
  } finally {
    await pool.close();
    fiz.terminateWorkers();
  }
  return { isolated: self.crossOriginIsolated, timings };
}
