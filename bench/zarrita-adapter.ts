/**
 * parzarr/zarrita against zarrita.js (issue 28): the 256 MiB benchmark array of bench:compare
 * (8192 x 8192 float32 random walks, 1024 x 1024 chunks, Zarr v2, blosc-lz4 and blosc-zstd; its
 * generator and cache in .bench-data) read whole through one zarrita Array:
 * - Node: zarrita's own `zarr.get` against parzarr/zarrita's `get` on 2 worker threads
 *   (@zarrita/storage's FileSystemStore; target >= 1.7x);
 * - Chromium: fizarrita's `getWorker` against parzarr/zarrita's `get`, each on 2 Web Workers,
 *   over zarrita's FetchStore from 127.0.0.1 with COOP/COEP (target >= 1.5x).
 * Warm (one read each first), then --reps alternating reads; medians and ratios are printed.
 *
 *   npm run bench:zarrita -- [--reps 5] [--threads 2] [--only node|browser]
 *
 * The machine's load matters (`uptime` is printed): rerun on a quiet machine for the numbers.
 */
import { execSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import puppeteer from "puppeteer-core";
import * as zarr from "zarrita";
import FileSystemStore from "@zarrita/storage/fs";
import { WorkerPool } from "../src/index.js";
import { get } from "../src/zarrita.js";
import { startStaticServer } from "../src/cli/static-server.js";
import { buildBrowser } from "../tools/build-browser.js";
import { ensureDataset, makeData } from "./compare/compare.js";
import { median } from "./compare/measure.js";

const { values } = parseArgs({
  options: { reps: { type: "string", default: "5" }, threads: { type: "string", default: "2" }, only: { type: "string", default: "" } },
});
const reps = Number(values.reps);
const threads = Number(values.threads);
const [rows, cols, chunk] = [8192, 8192, 1024];
const root = new URL("../", import.meta.url).pathname;
const CODECS = ["blosc-lz4", "blosc-zstd"] as const;

console.log(`uptime: ${execSync("uptime").toString().trim()}`);
const paths = await ensureDataset(resolve(".bench-data"), rows, cols, chunk, () => makeData(rows, cols), (s) => console.log(s));

const sumOf = (data: Float32Array): number => {
  let s = 0;
  for (let i = 0; i < data.length; i += 4099) s += data[i];
  return s;
};

function report(codec: string, times: Map<string, number[]>, base: string, ours: string, target: number): void {
  const med = (r: string) => median(times.get(r)!);
  for (const [reader, ts] of times) console.log(`  ${codec} ${reader.padEnd(34)} median ${med(reader).toFixed(0)} ms of ${ts.map((t) => t.toFixed(0)).join(", ")}`);
  console.log(`  ${codec}: parzarr/zarrita is ${(med(base) / med(ours)).toFixed(2)}x ${base} (target >= ${target})`);
}

if (values.only !== "browser") {
  console.log(`\nNode ${process.version}: zarr.get against parzarr/zarrita get on ${threads} threads, median of ${reps}`);
  const pool = new WorkerPool({ threads });
  for (const codec of CODECS) {
    const arr = await zarr.open(new FileSystemStore(paths.get(codec)!), { kind: "array" });
    const readers: [string, () => Promise<{ data: unknown }>][] = [
      ["zarrita zarr.get", () => zarr.get(arr)],
      [`parzarr/zarrita get, ${threads} threads`, () => get(arr, null, { pool, threads })],
    ];
    const times = new Map<string, number[]>(readers.map(([r]) => [r, []]));
    const sums = new Set<number>();
    for (const [, read] of readers) sums.add(sumOf((await read()).data as Float32Array));
    for (let rep = 0; rep < reps; rep++) {
      for (const [reader, read] of readers) {
        const t0 = performance.now();
        const r = await read();
        times.get(reader)!.push(performance.now() - t0);
        sums.add(sumOf(r.data as Float32Array));
      }
    }
    if (sums.size !== 1) throw new Error(`${codec}: the readers read different values (${[...sums]})`);
    report(codec, times, readers[0][0], readers[1][0], 1.7);
  }
  await pool.close();
}

if (values.only !== "node") {
  const CHROMIUM = process.env.PARZARR_CHROMIUM ?? "/usr/bin/chromium";
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}`);
  const site = resolve(".bench-data", "zarrita-adapter-site");
  mkdirSync(site, { recursive: true });
  await buildBrowser(join(site, "lib"), { minify: true, sourcemap: false });
  const common = { bundle: true, platform: "browser" as const, format: "esm" as const, target: "es2022", minify: true, absWorkingDir: root, logLevel: "silent" as const };
  await build({ ...common, entryPoints: [join(root, "bench/browser/zarrita-adapter-page.ts")], outfile: join(site, "page.js") });
  await build({ ...common, entryPoints: [join(root, "node_modules/@fideus-labs/fizarrita/dist/codec-worker.js")], outfile: join(site, "fiz-worker.js") });
  writeFileSync(join(site, "index.html"), `<!doctype html><meta charset="utf-8"><title>parzarr/zarrita bench</title><script type="module" src="./page.js"></script>`);
  const mounts: Record<string, string> = { "/": site };
  for (const codec of CODECS) mounts[`/data/${codec}/`] = paths.get(codec)!;
  const server = await startStaticServer({ mounts, isolated: () => true });
  const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"], protocolTimeout: 0 });
  try {
    const page = await browser.newPage();
    page.on("console", (m) => console.error(`  page: ${m.text()}`));
    await page.goto(`${server.origin}/index.html`);
    const opts = { urls: CODECS.map((c) => `${server.origin}/data/${c}`), parzarrWorker: `${server.origin}/lib/parzarr-worker.js`, fizWorker: `${server.origin}/fiz-worker.js`, threads, reps };
    const result = (await page.evaluate(`import("/page.js").then((m) => m.runAdapterBench(${JSON.stringify(opts)}))`)) as {
      isolated: boolean;
      timings: { url: string; reader: string; ms: number; checksum: number }[];
    };
    console.log(`\n${await browser.version()}, cross-origin isolated: ${result.isolated}: fizarrita against parzarr/zarrita get, ${threads} Web Workers each, median of ${reps}`);
    CODECS.forEach((codec, i) => {
      const ts = result.timings.filter((t) => t.url === opts.urls[i]);
      if (new Set(ts.map((t) => t.checksum)).size !== 1) throw new Error(`${codec}: the readers read different values`);
      const times = new Map<string, number[]>();
      for (const t of ts) times.set(t.reader, [...(times.get(t.reader) ?? []), t.ms]);
      const [fiz, ours] = [...times.keys()];
      report(codec, times, fiz, ours, 1.5);
    });
  } finally {
    await browser.close();
    await server.close();
  }
}
console.log(`uptime: ${execSync("uptime").toString().trim()}`);
