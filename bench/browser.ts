/**
 * The browser benchmark (issue 15, item 6): a 64 MiB v2 array (4096 x 4096 float32, 512 x 512
 * chunks; blosc-lz4, zstd and zlib) served from 127.0.0.1 with COOP/COEP, read whole in one headless
 * Chromium page by zarrita.js (main thread), fizarrita (2 Web Workers), parzarr inline, parzarr
 * on 2 Web Workers (each fetching its own chunks, the default) and on 2 Web Workers fed by the
 * page's fetches (`fetchOnCaller`); beside them the fetch-only floor (every chunk fetched at once, no decode) and
 * the decode-only cost (parzarr inline from chunks already in memory), which show where the
 * browser's time goes. Each reader runs once to warm up, then --reps times; medians are printed, with
 * the main thread's longest timer gap and longest task (Long Tasks API), and the whole machine's
 * CPU time during the read (every process; Linux /proc/stat), which bounds a read that must both
 * fetch and decode: (fetch CPU + decode CPU) / cores.
 * Then one profiled read per array by parzarr on workers that trace (bench/browser/trace.ts):
 * how many fetches were open at once, how long the network idled, how busy each thread was.
 *
 *   npx tsx bench/browser.ts [--reps 3] [--threads 2] [--size 4096] [--chunk 512] [--only parzarr,fetch]
 *
 * Needs Debian's chromium (or PARZARR_CHROMIUM). Results also go to .bench-data/browser-results.json.
 */
import { build } from "esbuild";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import puppeteer from "puppeteer-core";
import { createArray } from "../src/index.js";
import { startStaticServer } from "../src/cli/static-server.js";
import { buildBrowser } from "../tools/build-browser.js";
import { median, randomWalk, scratchFolder } from "./pool-data.js";
import type { BenchArray, BenchOptions, Profile, Timing } from "./browser/page.js";

const { values } = parseArgs({
  options: {
    reps: { type: "string", default: "3" },
    threads: { type: "string", default: "2" },
    size: { type: "string", default: "4096" },
    chunk: { type: "string", default: "512" },
    only: { type: "string", default: "" },
  },
});
const reps = Number(values.reps);
const threads = Number(values.threads);
const size = Number(values.size);
const chunk = Number(values.chunk);
const CHROMIUM = process.env.PARZARR_CHROMIUM ?? "/usr/bin/chromium";
if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}`);

const root = new URL("../", import.meta.url).pathname;
const work = scratchFolder("browser");
const data = join(work, "data");
const site = join(work, "site");
mkdirSync(site, { recursive: true });

// The data: random walks along rows (compressible like measurements), two compressors.
const shape = [size, size];
const values32 = randomWalk(shape, 7);
const compressors = {
  "blosc-lz4": { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 },
  zstd: { id: "zstd", level: 1 },
  zlib: { id: "zlib", level: 1 },
} as const;
const arrays: BenchArray[] = [];
const grid = Math.ceil(size / chunk);
for (const [name, compressor] of Object.entries(compressors)) {
  const a = await createArray(join(data, `${name}.zarr`), { shape, chunks: [chunk, chunk], dtype: "<f4", zarrFormat: 2, compressor });
  await a.set(null, { data: values32, shape }, { threads: 0 });
  const keys: string[] = [];
  for (let i = 0; i < grid; i++) for (let j = 0; j < grid; j++) keys.push(`${i}.${j}`);
  arrays.push({ name, url: `/data/${name}.zarr`, keys, bytes: size * size * 4 });
}

// The page: parzarr's build (library and worker), the bench page with zarrita and fizarrita, and
// fizarrita's own codec worker, each one self-contained file.
await buildBrowser(join(site, "lib"), { minify: true });
const common = { bundle: true, platform: "browser" as const, format: "esm" as const, target: "es2022", minify: true, absWorkingDir: root, logLevel: "silent" as const };
await build({ ...common, entryPoints: [join(root, "bench/browser/page.ts")], outfile: join(site, "page.js") });
await build({ ...common, entryPoints: [join(root, "bench/browser/trace-worker.ts")], outfile: join(site, "trace-worker.js") });
await build({ ...common, entryPoints: [join(root, "node_modules/@fideus-labs/fizarrita/dist/codec-worker.js")], outfile: join(site, "fiz-worker.js") });
writeFileSync(join(site, "index.html"), `<!doctype html><meta charset="utf-8"><title>parzarr browser bench</title><script type="module" src="./page.js"></script>`);

/** Busy CPU time of the whole machine so far, in ms, from /proc/stat; null off Linux. */
function machineCpuMs(): number | null {
  try {
    // user nice system idle iowait irq softirq steal ...: busy is user, nice, system, irq and
    // softirq (guest time is inside user already; steal is the hypervisor's), in USER_HZ (100/s).
    const f = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    return ((f[0] + f[1] + f[2] + f[5] + f[6]) * 1000) / 100;
  } catch {
    return null;
  }
}

const server = await startStaticServer({ mounts: { "/": site, "/data/": data }, isolated: () => true });
const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"], protocolTimeout: 0 });
try {
  const page = await browser.newPage();
  page.on("console", (m) => console.error(`  page: ${m.text()}`));
  // The machine's busy CPU time (every process), so each read can say how many cores it kept
  // busy: on a 2-core VM the browser's fetching and the server take CPU the decode also needs.
  await page.exposeFunction("machineCpuMs", machineCpuMs);
  await page.goto(`${server.origin}/index.html`);
  await page.waitForFunction(() => "runBench" in globalThis);
  const opts: BenchOptions = {
    arrays: arrays.map((a) => ({ ...a, url: server.origin + a.url })),
    parzarrWorker: `${server.origin}/lib/parzarr-worker.js`,
    traceWorker: `${server.origin}/trace-worker.js`,
    fizWorker: `${server.origin}/fiz-worker.js`,
    reps,
    threads,
    only: values.only ? values.only.split(",") : [],
  };
  const result = (await page.evaluate(`globalThis.runBench(${JSON.stringify(opts)})`)) as { isolated: boolean; timings: Timing[]; profiles: Profile[] };
  const version = await browser.version();
  writeFileSync(join(root, ".bench-data", "browser-results.json"), JSON.stringify({ version, size, chunk, threads, reps, ...result }, null, 1));
  console.log(`${version}, page cross-origin isolated: ${result.isolated}; ${size}x${size} float32, ${chunk}x${chunk} chunks (${arrays[0].keys.length}), ${threads} workers, median of ${reps}`);
  for (const a of arrays) {
    const rows = new Map<string, Timing[]>();
    for (const t of result.timings.filter((t) => t.array === a.name)) rows.set(t.reader, [...(rows.get(t.reader) ?? []), t]);
    const med = (r: string): number => median(rows.get(r)!.map((t) => t.ms));
    console.log(`\n${a.name}`);
    console.log(`  ${"reader".padEnd(52)} ${"ms".padStart(8)} ${"max gap ms".padStart(11)} ${"long task ms".padStart(13)} ${"CPU ms".padStart(7)} ${"cores".padStart(6)}  checksum`);
    for (const [reader, ts] of rows) {
      const gap = median(ts.map((t) => t.maxGapMs)).toFixed(0).padStart(11);
      const task = median(ts.map((t) => t.longestTaskMs)).toFixed(0).padStart(13);
      // Machine CPU: the median over the reads, and cores busy as the median of each read's own.
      const cpus = ts.filter((t) => t.machineCpuMs !== null);
      const cpu = cpus.length ? median(cpus.map((t) => t.machineCpuMs!)).toFixed(0) : "-";
      const cores = cpus.length ? median(cpus.map((t) => t.machineCpuMs! / t.ms)).toFixed(2) : "-";
      console.log(`  ${reader.padEnd(52)} ${med(reader).toFixed(0).padStart(8)} ${gap} ${task} ${cpu.padStart(7)} ${cores.padStart(6)}  ${ts[0].checksum}`);
    }
    const ratio = (label: string, a: string, b: string, target = ""): void => {
      if (rows.has(a) && rows.has(b)) console.log(`  ${label}: ${(med(a) / med(b)).toFixed(2)}${target}`);
    };
    const pz = `parzarr ${threads} Web Workers`;
    ratio("parzarr workers vs fizarrita (x faster)", `fizarrita ${threads} workers`, pz, " (target >= 1.5)");
    ratio("parzarr workers vs zarrita main thread (x faster)", "zarrita.js main thread", pz);
    ratio("parzarr workers / fetch only", pz, "fetch only (all chunks at once)", " (target <= 1.3)");
    const byPage = `${pz}, page fetches`;
    ratio("parzarr workers, page fetches (fetchOnCaller) vs fizarrita (x faster)", `fizarrita ${threads} workers`, byPage);
    ratio("parzarr workers, page fetches (fetchOnCaller) / fetch only", byPage, "fetch only (all chunks at once)");
    for (const { profile: p, reader } of result.profiles.filter((p) => p.array === a.name)) {
      console.log(`  profile of one ${reader} read (traced workers): ${p.wallMs.toFixed(0)} ms, ${p.fetches} fetches`);
      console.log(
        `    fetches open at once: ${p.meanFetchesOpen.toFixed(1)} on average; no fetch open ${(100 * p.noFetchShare).toFixed(0)}% of the time` +
          ` (first fetch after ${p.firstFetchMs.toFixed(0)} ms, last one ended ${p.tailMs.toFixed(0)} ms before the end)`,
      );
      for (const t of p.threads) {
        console.log(
          `    ${t.thread.padEnd(9)} ${String(t.fetches).padStart(3)} fetches open ${((100 * t.fetchOpenMs) / p.wallMs).toFixed(0).padStart(3)}% of the time;` +
            ` ${String(t.tasks).padStart(3)} chunk tasks running ${((100 * t.taskBusyMs) / p.wallMs).toFixed(0).padStart(3)}%`,
        );
      }
    }
  }
} finally {
  await browser.close();
  await server.close();
  // The arrays are made afresh each run (126 MB): do not leave them behind.
  rmSync(work, { recursive: true, force: true });
}
