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
import { WorkerClient } from "../../src/parallel/execution/worker-rpc.js";
import { now, profileOf, setTracing, takeSpans, traceFetch, type ReadProfile, type Span } from "./trace.js";

// Before any store is made: the profiled run records the page's fetches too.
traceFetch("main");

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
  /**
   * Longest task the main thread ran meanwhile (Long Tasks API; 0: none over 50 ms). A timer gap
   * without a long task is the timer waiting behind other work (network tasks go first) or the
   * loaded machine, not one piece of work blocking the page.
   */
  longestTaskMs: number;
  /**
   * CPU time the whole machine spent meanwhile (every process: the page, its workers, the
   * browser's network process, the benchmark's server), from the host's /proc/stat; null where
   * the host cannot tell. Over the read's time it says how many cores the read kept busy.
   */
  machineCpuMs: number | null;
  checksum: number;
}

/** The host's busy CPU time so far (ms), exposed to the page by bench/browser.ts. */
async function machineCpu(): Promise<number | null> {
  const f = (globalThis as { machineCpuMs?: () => Promise<number | null> }).machineCpuMs;
  return f ? f() : null;
}

/** Runs `fn` with a 5 ms timer going; returns its time and the timer's longest gap. */
async function timed(fn: () => Promise<number>): Promise<{ ms: number; maxGapMs: number; longestTaskMs: number; machineCpuMs: number | null; checksum: number }> {
  let longestTask = 0;
  let counting = false;
  const longTasks = new PerformanceObserver((list) => {
    if (counting) for (const e of list.getEntries()) longestTask = Math.max(longestTask, e.duration);
  });
  longTasks.observe({ type: "longtask" });
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
  counting = true;
  const cpu0 = await machineCpu();
  const t0 = performance.now();
  const checksum = await fn();
  const ms = performance.now() - t0;
  const cpu1 = await machineCpu();
  const end = performance.now();
  maxGap = Math.max(maxGap, end - last);
  clearInterval(timer);
  // Entries arrive after their task: let the last ones in before counting stops.
  await new Promise((r) => setTimeout(r, 0));
  for (const e of longTasks.takeRecords()) longestTask = Math.max(longestTask, e.duration);
  counting = false;
  longTasks.disconnect();
  return { ms, maxGapMs: maxGap, longestTaskMs: longestTask, machineCpuMs: cpu0 === null || cpu1 === null ? null : cpu1 - cpu0, checksum };
}

/** A cheap checksum of a float32 result (every 997th value), to see that readers agree. */
function sumOf(data: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < data.length; i += 997) s += data[i];
  return Math.round(s * 1000) / 1000;
}

export interface BenchOptions {
  arrays: BenchArray[];
  parzarrWorker: string;
  /** parzarr's worker with tracing (trace-worker.ts), for the profiled run. */
  traceWorker: string;
  fizWorker: string;
  reps: number;
  threads: number;
  /** Only the readers whose names contain one of these (all when empty). */
  only: string[];
}

export interface Profile {
  array: string;
  reader: string;
  profile: ReadProfile;
}

/**
 * One more read per array by parzarr on workers that trace (trace-worker.ts), with the page's
 * fetches traced too: where the time went.
 */
async function profiledRead(a: BenchArray, opts: BenchOptions, fetchOnCaller: boolean): Promise<ReadProfile> {
  const spansOf: (() => Promise<Span[]>)[] = [];
  const pool = new WorkerPool({
    threads: opts.threads,
    fetchOnCaller,
    createWorker: () => {
      const w = new Worker(`${opts.traceWorker}#worker ${spansOf.length + 1}`, { type: "module" });
      const { api } = new WorkerClient<{ takeSpans(): Span[] }>(w, ["takeSpans"]);
      spansOf.push(() => api.takeSpans());
      return w;
    },
  });
  const arr = await openArray(a.url, { mode: "r" });
  await arr.get(null, { pool, threads: opts.threads }); // warm: workers started, modules compiled
  for (const take of spansOf) await take();
  setTracing(true);
  takeSpans();
  const start = now();
  await arr.get(null, { pool, threads: opts.threads });
  const end = now();
  setTracing(false);
  const spans = [...takeSpans(), ...(await Promise.all(spansOf.map((take) => take()))).flat()];
  await pool.close();
  return profileOf(spans, start, end);
}

export async function runBench(opts: BenchOptions): Promise<{ isolated: boolean; timings: Timing[]; profiles: Profile[] }> {
  const { threads } = opts;
  const pool = new WorkerPool({ threads, workerUrl: opts.parzarrWorker });
  // The other way to keep fetches open while workers decode: the page fetches, workers decode.
  const pageFetches = new WorkerPool({ threads, workerUrl: opts.parzarrWorker, fetchOnCaller: true });
  const fiz = new FizPool(threads);
  const timings: Timing[] = [];
  const allReaders: [string, (a: BenchArray) => Promise<number>][] = [
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
    [
      `parzarr ${threads} Web Workers, page fetches`,
      async (a) => sumOf(((await (await openArray(a.url, { mode: "r" })).get(null, { pool: pageFetches, threads })) as { data: Float32Array }).data),
    ],
  ];
  const readers = allReaders.filter(([name]) => opts.only.length === 0 || opts.only.some((o) => name.includes(o)));
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
        const cpu = t.machineCpuMs === null ? "" : `, machine CPU ${t.machineCpuMs.toFixed(0)} ms`;
        console.log(`${a.name} ${reader}: ${t.ms.toFixed(0)} ms, longest gap ${t.maxGapMs.toFixed(0)} ms, longest task ${t.longestTaskMs.toFixed(0)} ms${cpu}`);
      }
    }
  }
  await pool.close();
  await pageFetches.close();
  fiz.terminateWorkers();
  const profiles: Profile[] = [];
  for (const a of opts.arrays) {
    profiles.push({ array: a.name, reader: `parzarr ${threads} Web Workers`, profile: await profiledRead(a, opts, false) });
    profiles.push({ array: a.name, reader: `parzarr ${threads} Web Workers, page fetches`, profile: await profiledRead(a, opts, true) });
  }
  return { isolated: crossOriginIsolated, timings, profiles };
}

(globalThis as { runBench?: typeof runBench }).runBench = runBench;
