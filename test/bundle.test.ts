/**
 * parzarr as bundlers ship it: minified bundles keep the error classes' names (callers and the
 * worker protocol read `err.name`), and a page that reads on workers stays within its size budgets
 * (test/bundlers.test.ts checks the same budgets on what Chromium loads from Vite's and webpack's
 * builds).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Metafile } from "esbuild";
import { buildBrowser } from "../tools/build-browser.js";
import { MAIN_THREAD_BUDGET, MAIN_THREAD_FILES, WORKER_BUDGET } from "./helpers/bundle-budgets.js";
import { scratchDir } from "./helpers/paths.js";

const ROOT = new URL("../", import.meta.url).pathname;

test("error classes keep their names in a minified bundle, and across the worker protocol", async () => {
  const dir = scratchDir("parzarr-bundle-");
  const entry = join(dir, "entry.ts");
  writeFileSync(
    entry,
    `export * from ${JSON.stringify(join(ROOT, "src/errors.ts"))};\n` +
      `export { serialiseError, reviveError } from ${JSON.stringify(join(ROOT, "src/parallel/execution/task-outcome.ts"))};\n`,
  );
  const outfile = join(dir, "errors.min.js");
  await build({ entryPoints: [entry], outfile, bundle: true, minify: true, format: "esm", platform: "node", logLevel: "silent" });
  const mod = (await import(pathToFileURL(outfile).href)) as Record<string, unknown>;
  const classes = Object.entries(mod).filter(([name]) => /^[A-Z]\w*Error$/.test(name));
  assert.ok(classes.length >= 20, `error classes exported: ${classes.map(([n]) => n).join(", ")}`);
  for (const [name, Ctor] of classes) {
    const err = name === "ZarrError" ? new (Ctor as new (c: string, m: string) => Error)("NOT_FOUND", "m") : new (Ctor as new (...a: unknown[]) => Error)("m", "k", "u", "missing");
    assert.equal(err.name, name, `${name}'s name after minification`);
    assert.match(String(err), new RegExp(`^${name}: m`));
  }
  // A reference error crosses back from a worker as its own class, which travels by name.
  const { InvalidReferenceError, serialiseError, reviveError } = mod as {
    InvalidReferenceError: new (m: string, k: string) => Error & { code: string; key: string };
    serialiseError(e: unknown): unknown;
    reviveError(e: unknown): Error & { code?: string; key?: string };
  };
  const back = reviveError(serialiseError(new InvalidReferenceError("bad ref", "a/0")));
  assert.ok(back instanceof InvalidReferenceError, `revived as ${back.name}`);
  assert.equal(back.name, "InvalidReferenceError");
  assert.equal(back.code, "INVALID_METADATA");
  assert.equal(back.key, "a/0");
});

/** The files `entries` and every file they import statically: what a browser loads for them. */
function loadedFiles(meta: Metafile, entries: string[]): string[] {
  const seen = new Set<string>();
  const visit = (out: string): void => {
    if (seen.has(out)) return;
    seen.add(out);
    for (const i of meta.outputs[out].imports) if (i.kind === "import-statement") visit(i.path);
  };
  entries.forEach(visit);
  return [...seen];
}

/** The gzip bytes of `entries` and every file they import statically, as a browser loads them. */
function loadedGzip(meta: Metafile, entries: string[]): number {
  return loadedFiles(meta, entries).reduce((n, out) => n + gzipSync(readFileSync(join(ROOT, out)), { level: 9 }).length, 0);
}

test("a page reading on workers: main thread and worker within their gzip budgets (esbuild, minified)", async () => {
  const dir = scratchDir("parzarr-bundle-");
  const built = await buildBrowser(join(dir, "lib"), { minify: true, sourcemap: false });
  // The worker's file, and the codecs a blosc or zstd read imports on its first chunk.
  const outputs = Object.entries(built.metafiles.worker.outputs);
  const firstUse = outputs.filter(([, o]) => o.entryPoint === "src/codecs/blosc/blosc.ts" || o.entryPoint === "src/codecs/zstd.ts").map(([out]) => out);
  assert.equal(firstUse.length, 2, "the worker imports blosc and zstd on first use");
  const worker = loadedGzip(built.metafiles.worker, [outputs.find(([out]) => out.endsWith("/parzarr-worker.js"))![0], ...firstUse]);
  writeFileSync(
    join(dir, "main.js"),
    `import { openArray } from ${JSON.stringify(join(ROOT, "src/browser.ts"))};\n` +
      `globalThis.read = async (url) => (await openArray(url, { mode: "r" })).get(null, { threads: 2 });\n`,
  );
  const page = await build({ absWorkingDir: ROOT, entryPoints: [join(dir, "main.js")], outdir: join(dir, "app"), bundle: true, splitting: true, minify: true, format: "esm", platform: "browser", target: "es2022", metafile: true, logLevel: "silent" });
  const pageFile = Object.keys(page.metafile.outputs).find((o) => o.endsWith("/main.js"))!;
  const main = loadedGzip(page.metafile, [pageFile]);
  const files = loadedFiles(page.metafile, [pageFile]);
  console.log(`gzip bytes: main thread ${main} in ${files.length} files, worker ${worker}`);
  // Each module loaded on first use that shares different page code makes esbuild cut that code
  // into one more chunk file, each compressed alone (bundle-budgets.ts).
  assert.ok(files.length <= MAIN_THREAD_FILES, `the page loads ${files.length} files up front, at most ${MAIN_THREAD_FILES}: ${files.join(", ")}`);
  assert.ok(worker <= WORKER_BUDGET, `the worker a read loads: ${worker} gzip bytes, budget ${WORKER_BUDGET}`);
  assert.ok(main <= MAIN_THREAD_BUDGET, `the page's main-thread JavaScript: ${main} gzip bytes, budget ${MAIN_THREAD_BUDGET}`);
});

/** The modules with code in `entry` and every file it imports statically (tree-shaken ones are listed with none). */
function loadedModules(meta: Metafile, entry: string): string[] {
  return loadedFiles(meta, [entry]).flatMap((out) => Object.entries(meta.outputs[out].inputs).filter(([, i]) => i.bytesInOutput > 0).map(([m]) => m));
}

test("a page reading on workers loads on first use only what a read there does not need: codec implementations, the codecs its arrays do not name, WebAssembly kernels, pako, the S3 signer", async () => {
  const dir = scratchDir("parzarr-bundle-");
  const built = await buildBrowser(join(dir, "lib"), { minify: true, sourcemap: false });
  writeFileSync(join(dir, "main.js"), `import { openArray } from ${JSON.stringify(join(ROOT, "src/browser.ts"))};\nglobalThis.read = (url) => openArray(url, { mode: "r" });\n`);
  const page = await build({ absWorkingDir: ROOT, entryPoints: [join(dir, "main.js")], outdir: join(dir, "app"), bundle: true, splitting: true, format: "esm", platform: "browser", metafile: true, logLevel: "silent" });
  const main = loadedModules(page.metafile, Object.keys(page.metafile.outputs).find((o) => o.endsWith("/main.js"))!);
  const worker = loadedModules(built.metafiles.worker, Object.keys(built.metafiles.worker.outputs).find((o) => o.endsWith("/parzarr-worker.js"))!);
  assert.ok(main.some((m) => m.endsWith("src/stores/fetch.ts")) && main.some((m) => m.endsWith("src/codecs/compressors.ts")), "the graph was read");
  // On the main thread workers decode: the codecs' implementations (and the kernels' 45 KB of
  // base64) stay behind import(). Neither thread loads aws4fetch (signs S3 requests with
  // credentials) or pako (encodes zlib/gzip; WebAssembly decodes) up front.
  const implementations = ["src/codecs/blosc/", "src/codecs/zstd.ts", "src/codecs/deflate.ts", "src/codecs/wasm/", "src/codecs/bzip2-", "src/codecs/xz-container.ts"];
  // Nor the codecs a zstd or blosc array does not name (registry.ts).
  const unnamed = ["src/codecs/sharding/", "src/codecs/filters/", "src/codecs/vlen.ts", "src/codecs/zarrs-vlen.ts", "src/codecs/optional.ts", "src/codecs/json2.ts"];
  // crc32c loads with sharding (a shard index names it), lz4 and gdeflate with the rest.
  const others = [...unnamed, "src/codecs/checksums.ts", "src/codecs/crc32c.ts", "src/codecs/rare-compressors.ts", "src/codecs/packbits.ts", "src/codecs/reshape.ts", "src/codecs/lzma.ts"];
  for (const lazy of [...implementations, ...others, "node_modules/aws4fetch/", "node_modules/pako/"]) {
    assert.deepEqual(main.filter((m) => m.includes(lazy)), [], `the main thread loads ${lazy} up front`);
  }
  for (const lazy of ["node_modules/aws4fetch/", "node_modules/pako/"]) {
    assert.deepEqual(worker.filter((m) => m.includes(lazy)), [], `the worker loads ${lazy} up front`);
  }
  // Tasks carry parsed metadata of any data type, so the worker has the rare types' code from the
  // start (workers/worker-api.ts imports it); without it a datetime chunk there is INTERNAL.
  assert.ok(worker.some((m) => m.endsWith("src/metadata/rare-types.ts")), "the worker holds the rare data types up front");
  // A page that opens arrays holds no group code and no ZEP 6 issue formatter (tree-shaken, not
  // loaded later). esbuild's splitting loads up front any module the entry reaches that a chunk
  // loaded on first use imports too: the lazy ZEP 6 model must not re-export the formatter.
  for (const unused of ["src/hierarchy/group.ts", "src/metadata/zom-issues.ts"]) {
    assert.deepEqual(main.filter((m) => m.endsWith(unused)), [], `openArray brings ${unused}`);
  }
  // Nor a store the page never makes: a store class lets its descriptors open in a thread once it
  // is made there (a worker, which only has descriptors, lets them all).
  for (const unused of ["src/stores/opfs.ts"]) {
    assert.deepEqual(main.filter((m) => m.endsWith(unused)), [], `openArray brings ${unused}`);
  }
  // Nor what turns createArray's options into metadata: it loads with the first array made (or
  // opened with assumed metadata).
  assert.deepEqual(main.filter((m) => m.endsWith("src/hierarchy/create-options.ts")), [], "openArray brings create-options.ts");
  // Nor openArray's options on metadata (open-options.ts: expect, assumeMetadata and
  // assumeCachedMetadata), which load with the first open that gives one.
  assert.deepEqual(main.filter((m) => m.endsWith("src/hierarchy/open-options.ts")), [], "openArray brings open-options.ts");
  // Nor the read through a chunk cache (cached-read.ts), loaded with the first read that has one.
  assert.deepEqual(main.filter((m) => m.endsWith("src/parallel/chunk-io/cached-read.ts")), [], "openArray brings cached-read.ts");
  // Nor the write operation (write-operation.ts, with the value stager): it loads with the first write.
  for (const writeOnly of ["src/parallel/execution/write-operation.ts", "src/parallel/execution/staged-value.ts"]) {
    assert.deepEqual(main.filter((m) => m.endsWith(writeOnly)), [], `openArray brings ${writeOnly}`);
  }
  // Nor the chunk iteration (chunk-iter.ts: chunkCoords, iterChunks), loaded with its first use.
  assert.deepEqual(main.filter((m) => m.endsWith("src/hierarchy/chunk-iter.ts")), [], "openArray brings chunk-iter.ts");
  // Nor the chunk locks (lock-table.ts): the first write loads them; a pool holds only what frees
  // a dead worker's slots (lock-owners.ts).
  assert.deepEqual(main.filter((m) => m.endsWith("src/parallel/sync/lock-table.ts")), [], "openArray brings lock-table.ts");
  // Nor point, mask and block selections (fancy.ts): they load with the first one.
  assert.deepEqual(main.filter((m) => m.endsWith("src/indexing/fancy.ts")), [], "openArray brings fancy.ts");
  // Nor how write tasks write chunks (chunk-writes.ts), with the compare-and-swap loop: they load
  // with a thread's first write task.
  const mainText = loadedFiles(page.metafile, [Object.keys(page.metafile.outputs).find((o) => o.endsWith("/main.js"))!]).map((out) => readFileSync(join(ROOT, out), "utf8")).join("\n");
  // (the stored metadata a rewrite starts from: array-writes.ts).
  for (const writeOnly of ["other writers kept winning", "conditional writes were asked for", "does not honour conditional writes", "conditionalWrites must be true, false", "so its stored metadata is never read or written"]) assert.ok(!mainText.includes(writeOnly), `the page loads the write path ("${writeOnly}") up front`);
  // Nor the factories of compressors few arrays name (numcodecs.lz4, zarrs.gdeflate: rare-compressors.ts).
  assert.ok(!mainText.includes("too short for the size header"), "the page loads the numcodecs.lz4 factory up front");
});
