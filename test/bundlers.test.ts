/**
 * The README's bundler recipes, built as a user builds them: the package is built as `npm run
 * build` builds it into a temporary node_modules/parzarr, and a tiny app beside it that imports
 * "parzarr" is built, minified, by esbuild (its JS `build()`, the worker files copied beside), by
 * Vite (its JS `build()`) and by webpack 5 (its Node API). Each app's output is served with
 * COOP/COEP on 127.0.0.1 beside two small arrays, and headless Chromium reads them inline and on
 * 2-thread pools made as the README says (and on the default worker URL). Every read must equal
 * Node's, and the pool reads must have run on Web Workers whose scripts the bundler emitted. That
 * page writes too (createArray, OPFSStore from `parzarr/stores`) and reads one array again through
 * a kerchunk document (openArray("….json") imports ReferenceStore on first use); the budgets of test/helpers/bundle-budgets.ts hold a
 * second app per bundler, the page issue 30 is about: it names only openArray and WorkerPool and
 * reads both arrays on workers, and what it loaded must be within them.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import type { Browser } from "puppeteer-core";
import { createArray, openArray, slice, type NDArray, type TypedArray } from "../src/index.js";
import { startStaticServer, type StaticServer } from "../src/cli/static-server.js";
import { buildBrowser } from "../tools/build-browser.js";
import { chromiumSkip, launchChromium } from "./helpers/browser.js";
import { MAIN_THREAD_BUDGET, WORKER_BUDGET } from "./helpers/bundle-budgets.js";
import { scratchDir } from "./helpers/paths.js";

const skip = chromiumSkip();
const ROOT = new URL("../", import.meta.url).pathname;
const ARRAYS = ["v2-blosc", "v3-zstd"];
/** A kerchunk document beside the arrays whose references are v3-zstd's files (writeArrays). */
const REFERENCES = "v3-zstd.json";

/** The package as a user installs it: package.json, dist/src from tsc, dist/browser from esbuild. */
async function buildPackage(pkg: string): Promise<void> {
  mkdirSync(pkg, { recursive: true });
  copyFileSync(join(ROOT, "package.json"), join(pkg, "package.json"));
  symlinkSync(join(ROOT, "node_modules"), join(pkg, "node_modules"));
  const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
  const args = [tsc, "-p", join(ROOT, "tsconfig.build.json"), "--outDir", join(pkg, "dist"), "--declaration", "false", "--sourceMap", "false"];
  await Promise.all([
    promisify(execFile)(process.execPath, args, { maxBuffer: 64 * 2 ** 20 }),
    buildBrowser(join(pkg, "dist/browser"), { minify: true }),
  ]);
}

async function writeArrays(dir: string): Promise<void> {
  const v2 = await createArray(join(dir, "v2-blosc"), { shape: [70, 50], chunks: [16, 16], dtype: "<f4", zarrFormat: 2, compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 } });
  await v2.set(null, { data: Float32Array.from({ length: 70 * 50 }, (_, i) => Math.sin(i / 31) * 1000), shape: [70, 50] }, { threads: 0 });
  const v3 = await createArray(join(dir, "v3-zstd"), {
    shape: [40, 60],
    chunks: [16, 20],
    dtype: "int32",
    fillValue: -9,
    codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }],
  });
  // Rows 0..29 only: the chunks below them are missing and read as the fill value.
  await v3.set([slice(0, 30), null], { data: Int32Array.from({ length: 30 * 60 }, (_, i) => (i * 7919) % 100003), shape: [30, 60] }, { threads: 0 });
  // Its metadata inline, each chunk a whole file relative to the document's folder.
  const files = readdirSync(join(dir, "v3-zstd"), { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
  const refs = Object.fromEntries(
    files.map((e) => {
      const key = relative(join(dir, "v3-zstd"), join(e.parentPath, e.name));
      return [key, key === "zarr.json" ? readFileSync(join(dir, "v3-zstd", key), "utf8") : [`v3-zstd/${key}`]];
    }),
  );
  writeFileSync(join(dir, REFERENCES), JSON.stringify({ version: 1, refs }));
}

/**
 * The app's reads, after the lines each bundler's recipe needs: `pools()` gives the pools to read
 * on. Exposed as globalThis.parzarrRead for the test to call.
 */
const READS = `
globalThis.parzarrRead = async (urls, inline = true) => {
  const made = pools();
  const results = [];
  for (const url of urls) {
    const a = await openArray(url, { mode: "r" });
    if (inline) {
      const r = await a.get(null, { threads: 0 });
      results.push({ url, mode: "inline", shape: r.shape, values: Array.from(r.data), peak: 0 });
    }
    for (const [mode, pool] of Object.entries(made)) {
      let peak = 0;
      const r = await a.get(null, { pool, threads: 2, onProgress: () => void (peak = Math.max(peak, pool.busy)) });
      results.push({ url, mode, shape: r.shape, values: Array.from(r.data), peak });
    }
  }
  const shared = Object.values(made).map((p) => p.sharedMemory);
  for (const pool of Object.values(made)) await pool.close();
  return { isolated: self.crossOriginIsolated, shared, results };
};
`;

/** And parzarrWrite: a zstd write on each pool, whose workers encode with what they load on first use (numcodecs' zstd). */
const WRITES = `
globalThis.parzarrWrite = async () => {
  const made = pools();
  // A zstd write on each pool: the workers encode, with what they load on first use.
  const writes = [];
  for (const [mode, pool] of Object.entries(made)) {
    const store = new OPFSStore("parzarr-bundlers/" + mode);
    await store.deletePrefix("");
    const codecs = [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }];
    const w = await createArray(store, { shape: [64, 64], chunks: [16, 16], dtype: "int32", codecs });
    const data = Int32Array.from({ length: 64 * 64 }, (_, i) => (i * 7) % 1000);
    let peak = 0;
    const outcome = await w.set(null, { data, shape: [64, 64] }, { pool, threads: 2, onProgress: () => void (peak = Math.max(peak, pool.busy)) }).then(
      async () => ((await w.get(null, { threads: 0 })).data.every((v, i) => v === data[i]) ? "written" : "read back other values"),
      (e) => "failed: " + (e.code ?? "") + " " + e.message,
    );
    writes.push({ mode, outcome, peak });
  }
  for (const pool of Object.values(made)) await pool.close();
  return writes;
};
`;

/**
 * The app: the page that reads and writes (a functional test), or the page issue 30's budgets are
 * for, which only reads over HTTP on workers and names nothing of parzarr's but openArray and WorkerPool.
 */
type Page = "reads and writes" | "only reads";

const imports = (page: Page): string =>
  page === "only reads" ? `import { openArray, WorkerPool } from "parzarr";` : `import { createArray, openArray, WorkerPool } from "parzarr";\nimport { OPFSStore } from "parzarr/stores";`;
const body = (page: Page): string => (page === "only reads" ? READS : READS + WRITES);

/**
 * The line for Vite and webpack 5 (both build `parzarr/worker` again as a worker of the app's, its
 * lazy parts included), and the default worker URL. (`parzarr/worker?url` copies the one file:
 * enough to read, but a zstd write on its workers cannot load the encoder beside it.)
 */
const bundlerMain = (page: Page): string => `${imports(page)}
const pools = () => ({
  recipe: new WorkerPool({ threads: 2, createWorker: () => new Worker(new URL("parzarr/worker", import.meta.url), { type: "module" }) }),
  default: new WorkerPool({ threads: 2 }),
});
${body(page)}`;

/**
 * The README's esbuild recipe: esbuild leaves `new URL(..., import.meta.url)` as it is, so the one
 * step is copying parzarr-worker*.js beside the bundle; the default worker URL then finds it.
 */
const esbuildMain = (page: Page): string => `${imports(page)}
const pools = () => ({
  recipe: new WorkerPool({ threads: 2, workerUrl: new URL("./parzarr-worker.js", import.meta.url) }),
  default: new WorkerPool({ threads: 2 }),
});
${body(page)}`;

async function esbuildApp(app: string, page: Page = "reads and writes"): Promise<string> {
  const { build } = await import("esbuild");
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, "main.js"), esbuildMain(page));
  const out = join(app, "dist");
  // As `esbuild main.js --bundle --splitting --platform=browser --format=esm --minify --outdir=dist`
  // (--splitting keeps what loads on first use, numcodecs' zstd WASM for encoding, out of main.js).
  await build({ absWorkingDir: app, entryPoints: ["main.js"], bundle: true, splitting: true, platform: "browser", format: "esm", minify: true, outdir: out, logLevel: "silent" });
  // As `cp node_modules/parzarr/dist/browser/parzarr-worker*.js dist/`: the worker and its lazy parts.
  const lib = join(app, "../node_modules/parzarr/dist/browser");
  for (const f of readdirSync(lib).filter((f) => /^parzarr-worker.*\.js$/.test(f))) copyFileSync(join(lib, f), join(out, f));
  writeFileSync(join(out, "index.html"), `<!doctype html><html><head><link rel="icon" href="data:,"><script type="module" src="./main.js"></script></head><body></body></html>`);
  return out;
}

async function viteApp(app: string, workerFormat?: "es", page: Page = "reads and writes"): Promise<string> {
  const { build } = await import("vite");
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, "main.js"), bundlerMain(page));
  writeFileSync(join(app, "index.html"), `<!doctype html><html><head><link rel="icon" href="data:,"><script type="module" src="./main.js"></script></head><body></body></html>`);
  const out = join(app, "dist");
  // Vite's default worker format, iife, cannot split: it inlines the worker's lazy parts
  // (numcodecs' zstd encoder, 240 KB gzip) into the worker every read loads; "es" keeps them apart.
  await build({ root: app, configFile: false, logLevel: "error", build: { outDir: out }, worker: workerFormat && { format: workerFormat } });
  return out;
}

async function webpackApp(app: string, page: Page = "reads and writes"): Promise<string> {
  const webpack = (await import("webpack")).default;
  mkdirSync(app, { recursive: true });
  writeFileSync(join(app, "main.js"), bundlerMain(page));
  const out = join(app, "dist");
  const stats = await new Promise<import("webpack").Stats>((resolve, reject) => {
    webpack(
      { mode: "production", context: app, entry: "./main.js", output: { path: out, filename: "main.js" }, performance: { hints: false } },
      (err, s) => (err || !s ? reject(err ?? new Error("webpack gave no stats")) : resolve(s)),
    );
  });
  assert.ok(!stats.hasErrors() && !stats.hasWarnings(), stats.toString({ all: false, errors: true, warnings: true }));
  writeFileSync(join(out, "index.html"), `<!doctype html><html><head><link rel="icon" href="data:,"><script src="./main.js"></script></head><body></body></html>`);
  return out;
}

interface PageRead {
  isolated: boolean;
  shared: boolean[];
  results: { url: string; mode: string; shape: number[]; values: number[]; peak: number }[];
}

type PageWrite = { mode: string; outcome: string; peak: number }[];

describe("the README's bundler recipes in headless Chromium", { skip, timeout: 180_000 }, () => {
  let browser: Browser;
  const servers: StaticServer[] = [];
  const expected = new Map<string, { shape: number[]; values: number[] }>();
  let tmp = "";
  let dataDir = "";

  before(async () => {
    tmp = scratchDir("parzarr-bundlers-");
    dataDir = join(tmp, "data");
    await writeArrays(dataDir);
    for (const name of ARRAYS) {
      const r = (await (await openArray(join(dataDir, name), { mode: "r" })).get(null, { threads: 0 })) as NDArray<TypedArray>;
      expected.set(name, { shape: r.shape, values: Array.from(r.data as ArrayLike<number>) });
    }
    expected.set(REFERENCES, expected.get("v3-zstd")!);
    await buildPackage(join(tmp, "node_modules", "parzarr"));
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    for (const s of servers) await s.close();
  });

  /** Serves the app's output at / with /data/ beside it (isolated) and reads every array there. */
  async function readInPage(out: string, page: Page = "reads and writes"): Promise<{ got: PageRead; writes: PageWrite; workerScripts: string[]; scripts: string[]; mainScripts: string[] }> {
    const server = await startStaticServer({ mounts: { "/": out, "/data/": dataDir }, isolated: () => true });
    servers.push(server);
    const tab = await browser.newPage();
    const errors: string[] = [];
    const workerScripts: string[] = [];
    const scripts = new Set<string>();
    tab.on("pageerror", (e) => errors.push(String(e)));
    // Missing chunks and metadata documents answer 404 under /data/ as they should; the console
    // reports each of those, so failed requests elsewhere are taken from the responses instead.
    tab.on("console", (m) => void (m.type() === "error" && !m.text().startsWith("Failed to load resource") && errors.push(m.text())));
    tab.on("response", (r) => void (!r.ok() && !r.url().startsWith(`${server.origin}/data/`) && errors.push(`${r.status()} ${r.url()}`)));
    tab.on("response", (r) => void (r.ok() && new URL(r.url()).pathname.endsWith(".js") && scripts.add(new URL(r.url()).pathname)));
    tab.on("workercreated", (w) => workerScripts.push(w.url()));
    try {
      await tab.goto(`${server.origin}/index.html`);
      await tab.waitForFunction("typeof globalThis.parzarrRead === 'function'", { timeout: 10_000 }).catch((e: Error) => {
        throw new Error(`the app did not start (${e.message}): ${errors.join("; ")}`);
      });
      const urls = [...ARRAYS, ...(page === "only reads" ? [] : [REFERENCES])].map((n) => `${server.origin}/data/${n}`);
      // First the reads on workers alone: what they load is what the budgets hold. The window's
      // resource timing lists what it fetched: its own scripts, and the module workers' scripts
      // (the worker entries and the chunks they import statically, all named parzarr-worker*);
      // what a worker imports later (on first use) is the worker's alone.
      const onWorkers = (await tab.evaluate(`globalThis.parzarrRead(${JSON.stringify(urls)}, false)`)) as PageRead;
      const fetched = (await tab.evaluate(`performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname)`)) as string[];
      const workerFiles = workerScripts.map((u) => u.slice(server.origin.length));
      const mainScripts = [...new Set(["/main.js", ...fetched])].filter((p) => scripts.has(p) && !workerFiles.includes(p) && !/\/parzarr-worker[^/]*\.js$/.test(p));
      const read = { workerScripts: workerFiles, scripts: [...scripts], mainScripts };
      assert.deepEqual(errors, []);
      if (page === "only reads") return { got: onWorkers, writes: [], ...read };
      // Then inline too (the main thread imports the codecs it decodes with), and the writes.
      const got = (await tab.evaluate(`globalThis.parzarrRead(${JSON.stringify(urls)})`)) as PageRead;
      assert.deepEqual(errors, []);
      const writes = (await tab.evaluate("globalThis.parzarrWrite()")) as PageWrite;
      assert.deepEqual(errors, []);
      return { got, writes, ...read };
    } finally {
      await tab.close();
    }
  }

  function check(out: string, got: PageRead, writes: PageWrite, workerScripts: string[], page: Page = "reads and writes"): void {
    assert.equal(got.isolated, true);
    assert.deepEqual(got.shared, [true, true], "the pools share memory with the page");
    // Each array on both pools, and inline and through the kerchunk document where the page writes too.
    assert.equal(got.results.length, page === "only reads" ? ARRAYS.length * 2 : (ARRAYS.length + 1) * 3);
    for (const r of got.results) {
      const name = r.url.slice(r.url.lastIndexOf("/") + 1);
      const want = expected.get(name)!;
      assert.deepEqual(r.shape, want.shape, `${name} ${r.mode}`);
      assert.deepEqual(r.values, want.values, `${name} ${r.mode}: the page read what Node reads`);
      if (r.mode !== "inline") assert.ok(r.peak > 0, `${name} ${r.mode}: tasks ran on the Web Workers`);
    }
    for (const w of writes) {
      assert.equal(w.outcome, "written", `a zstd write on the ${w.mode} pool`);
      assert.ok(w.peak > 0, `the ${w.mode} pool's write ran on the Web Workers`);
    }
    assert.equal(writes.length, page === "only reads" ? 0 : 2);
    // 2 workers per pool, each loaded from a script the bundler wrote.
    assert.equal(workerScripts.length, 4, `worker scripts: ${workerScripts.join(", ")}`);
    for (const s of workerScripts) assert.ok(existsSync(join(out, s)), `${s} is in the bundler's output`);
  }

  /**
   * The gzip sizes of what reads on workers loaded: main-thread JavaScript (the scripts the window
   * fetched), and in a worker the largest worker script with every other script the workers
   * fetched, which they import on first use (WebAssembly is inlined in the scripts).
   */
  function shipped(out: string, scripts: string[], workerScripts: string[], mainScripts: string[]): { main: number; worker: number } {
    const gz = (path: string): number => gzipSync(readFileSync(join(out, path)), { level: 9 }).length;
    const workers = new Set(workerScripts);
    const main = mainScripts.reduce((n, p) => n + gz(p), 0);
    const lazy = scripts.filter((p) => !workers.has(p) && !mainScripts.includes(p)).reduce((n, p) => n + gz(p), 0);
    const worker = Math.max(...[...workers].map(gz)) + lazy;
    console.log(`${out}: main thread ${main} gzip bytes (${mainScripts.map((p) => `${p} ${gz(p)}`).join(", ")}), worker ${worker}`);
    return { main, worker };
  }

  /** The budgets hold the page that only reads; the worker's holds on the page that writes too. */
  function withinBudgets(out: string, scripts: string[], workerScripts: string[], mainScripts: string[], page: Page): void {
    const { main, worker } = shipped(out, scripts, workerScripts, mainScripts);
    assert.ok(worker <= WORKER_BUDGET, `the worker: ${worker} gzip bytes, budget ${WORKER_BUDGET}`);
    if (page === "only reads") assert.ok(main <= MAIN_THREAD_BUDGET, `main-thread JavaScript (${mainScripts.join(", ")}): ${main} gzip bytes, budget ${MAIN_THREAD_BUDGET}`);
  }

  /** Builds the app that only reads, reads both arrays on workers from it, and holds it to the budgets. */
  async function onlyReads(out: string): Promise<void> {
    const { got, writes, workerScripts, scripts, mainScripts } = await readInPage(out, "only reads");
    check(out, got, writes, workerScripts, "only reads");
    withinBudgets(out, scripts, workerScripts, mainScripts, "only reads");
  }

  test("esbuild --bundle --splitting --minify: parzarr-worker*.js copied beside the bundle, and the default worker URL", async () => {
    const out = await esbuildApp(join(tmp, "esbuild-app"));
    const { got, writes, workerScripts, scripts, mainScripts } = await readInPage(out);
    check(out, got, writes, workerScripts);
    withinBudgets(out, scripts, workerScripts, mainScripts, "reads and writes");
  });

  test("Vite build() with worker.format \"es\": createWorker with new Worker(new URL(\"parzarr/worker\", import.meta.url)), and the default worker URL", async () => {
    const out = await viteApp(join(tmp, "vite-app"), "es");
    const { got, writes, workerScripts, scripts, mainScripts } = await readInPage(out);
    check(out, got, writes, workerScripts);
    withinBudgets(out, scripts, workerScripts, mainScripts, "reads and writes");
  });

  test("Vite build() unconfigured: the same, with the worker's lazy parts inlined (over the worker's budget)", async () => {
    const out = await viteApp(join(tmp, "vite-iife-app"));
    const { got, writes, workerScripts, scripts, mainScripts } = await readInPage(out);
    check(out, got, writes, workerScripts);
    shipped(out, scripts, workerScripts, mainScripts);
  });

  test("webpack 5: createWorker with new Worker(new URL(\"parzarr/worker\", import.meta.url)), and the default worker URL", async () => {
    const out = await webpackApp(join(tmp, "webpack-app"));
    const { got, writes, workerScripts, scripts, mainScripts } = await readInPage(out);
    check(out, got, writes, workerScripts);
    withinBudgets(out, scripts, workerScripts, mainScripts, "reads and writes");
  });

  test("a page that only reads over HTTP on workers, built by esbuild --splitting: the arrays read, within the budgets", async () => {
    await onlyReads(await esbuildApp(join(tmp, "esbuild-reads"), "only reads"));
  });

  test("the same page built by Vite with worker.format \"es\": within the budgets", async () => {
    await onlyReads(await viteApp(join(tmp, "vite-reads"), "es", "only reads"));
  });

  test("the same page built by webpack 5: within the budgets", async () => {
    await onlyReads(await webpackApp(join(tmp, "webpack-reads"), "only reads"));
  });
});
