/**
 * The browser benchmark's page side (bundled by bench/browser.ts): one page run reads each array
 * whole with zarrita.js on the main thread, fizarrita on 2 Web Workers, parzarr inline and on 2
 * Web Workers, and also fetches every chunk at once without decoding (the floor set by the
 * browser's loopback fetch) and decodes the fetched chunks inline from memory (the decode cost).
 * A 5 ms timer runs throughout; its longest gap is how long the main thread was blocked.
 */
import * as zarr from "zarrita";
import { getWorker } from "@fideus-labs/fizarrita";
import { WorkerPool as FizPool } from "@fideus-labs/worker-pool";
import { MemoryStore, WorkerPool, openArray } from "../../src/browser.js";

export interface BenchArray {
  name: string;
  /** The array's URL (a v2 array at the root of its folder). */
  url: string;
  /** Its chunk keys, relative to the URL. */
  keys: string[];
  /** Decoded bytes, to check each reader read everything. */
  bytes: number;
}

export interface Timing {
  array: string;
  reader: string;
  ms: number;
  /** Longest gap of the 5 ms timer while this ran (main-thread blocking). */
  maxGapMs: number;
  checksum: number;
}

/** Runs `fn` with a 5 ms timer going; returns its time and the timer's longest gap. */
async function timed(fn: () => Promise<number>): Promise<{ ms: number; maxGapMs: number; checksum: number }> {
  let last = performance.now();
  let maxGap = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    maxGap = Math.max(maxGap, now - last);
    last = now;
  }, 5);
  // Let the timer tick once first, so the gap before the work starts is not counted.
  await new Promise((r) => setTimeout(r, 20));
  last = performance.now();
  maxGap = 0;
  const t0 = performance.now();
  const checksum = await fn();
  const ms = performance.now() - t0;
  const end = performance.now();
  maxGap = Math.max(maxGap, end - last);
  clearInterval(timer);
  return { ms, maxGapMs: maxGap, checksum };
}

/** A cheap checksum of a float32 result (every 997th value), to see that readers agree. */
function sumOf(data: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < data.length; i += 997) s += data[i];
  return Math.round(s * 1000) / 1000;
}

export async function runBench(opts: { arrays: BenchArray[]; parzarrWorker: string; fizWorker: string; reps: number; threads: number }): Promise<{ isolated: boolean; timings: Timing[] }> {
  const { threads } = opts;
  const pool = new WorkerPool({ threads, workerUrl: opts.parzarrWorker });
  const fiz = new FizPool(threads);
  const timings: Timing[] = [];
  const readers: [string, (a: BenchArray) => Promise<number>][] = [
    [
      "fetch only (all chunks at once)",
      async (a) => {
        const bufs = await Promise.all(a.keys.map(async (k) => new Uint8Array(await (await fetch(`${a.url}/${k}`)).arrayBuffer())));
        return bufs.reduce((n, b) => n + b.length, 0);
      },
    ],
    [
      "decode only (parzarr inline, chunks in memory)",
      async (a) => {
        // Fetched first, outside the timing: see decodeOnly below.
        return sumOf((((await decodeOnly.get(a.name)!()) as { data: Float32Array }).data));
      },
    ],
    ["zarrita.js main thread", async (a) => sumOf(((await zarr.get(await zarr.open(new zarr.FetchStore(a.url), { kind: "array" }))) as { data: Float32Array }).data)],
    [
      `fizarrita ${threads} workers`,
      async (a) => sumOf(((await getWorker(await zarr.open(new zarr.FetchStore(a.url), { kind: "array" }), null, { pool: fiz, workerUrl: opts.fizWorker })) as { data: Float32Array }).data),
    ],
    ["parzarr inline", async (a) => sumOf(((await (await openArray(a.url, { mode: "r" })).get(null, { threads: 0 })) as { data: Float32Array }).data)],
    [`parzarr ${threads} Web Workers`, async (a) => sumOf(((await (await openArray(a.url, { mode: "r" })).get(null, { pool, threads })) as { data: Float32Array }).data)],
  ];
  // The decode-only reader works on a MemoryStore holding the array's fetched objects.
  const decodeOnly = new Map<string, () => Promise<unknown>>();
  for (const a of opts.arrays) {
    const mem = new MemoryStore();
    for (const k of [".zarray", ...a.keys]) {
      const res = await fetch(`${a.url}/${k}`);
      if (res.ok) await mem.set(k, new Uint8Array(await res.arrayBuffer()));
    }
    const arr = await openArray(mem, { mode: "r" });
    decodeOnly.set(a.name, () => arr.get(null, { threads: 0 }));
  }
  // Warm-up: workers started, modules compiled, for every reader once.
  for (const a of opts.arrays) for (const [, fn] of readers) await fn(a);
  for (let rep = 0; rep < opts.reps; rep++) {
    for (const a of opts.arrays) {
      for (const [reader, fn] of readers) {
        const t = await timed(() => fn(a));
        timings.push({ array: a.name, reader, ...t });
        console.log(`${a.name} ${reader}: ${t.ms.toFixed(0)} ms, longest gap ${t.maxGapMs.toFixed(0)} ms`);
      }
    }
  }
  await pool.close();
  fiz.terminateWorkers();
  return { isolated: crossOriginIsolated, timings };
}

(globalThis as { runBench?: typeof runBench }).runBench = runBench;
