/**
 * src/lazy-features.ts: what a page that only reads never uses (ZarrArray's writes, S3Store's
 * requests, ReferenceStore's reads, createArray's options made metadata, openArray's options on
 * metadata, how write tasks write chunks, point, mask and block selections) loads on first use. Each case runs in a fresh process, where nothing has loaded it yet.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createArray, WorkerPool } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";
import { resolvedInChild } from "./helpers/resolved-in-child.js";

const LAZY = [
  "src/lazy-features.ts",
  "src/hierarchy/array-writes.ts",
  "src/stores/s3-requests.ts",
  "src/stores/reference-reads.ts",
  "src/hierarchy/create-options.ts",
  "src/hierarchy/open-options.ts",
  "src/hierarchy/chunk-iter.ts",
  "src/hierarchy/array-info.ts",
  "src/parallel/chunk-io/cached-read.ts",
  "src/parallel/chunk-io/chunk-writes.ts",
  "src/indexing/fancy.ts",
  "src/indexing/read-into.ts",
  "src/hierarchy/node-writes.ts",
  "src/hierarchy/revalidate.ts",
];

test("opening, reading and naming S3Store load none of it; the first array made and written loads it", async () => {
  // Made here: the child only opens it.
  const dir = scratchDir("parzarr-lazy-");
  await createArray(dir, { shape: [4], chunks: [2], dtype: "int32" });
  const { stdout, resolved } = resolvedInChild(
    `const { openArray, S3Store } = await import("./src/index.ts");
    const a = await openArray(${JSON.stringify(dir)}, { mode: "r" });
    const got = await a.get(null, { threads: 0 });
    new S3Store("s3://bucket/prefix", { region: "us-east-1", useEnvironment: false });
    console.log(Array.from(got.data).join(","));`,
    /\/(src\/[^?]+)$/,
  );
  assert.equal(stdout, "0,0,0,0");
  assert.deepEqual(LAZY.filter((f) => resolved.has(f)), []);
  const wrote = resolvedInChild(
    `const { createArray, MemoryStore } = await import("./src/index.ts");
    const a = await createArray(new MemoryStore(), { shape: [4], chunks: [2], dtype: "int32" });
    await a.set(null, 7);
    console.log(Array.from((await a.get(null, { threads: 0 })).data).join(","));`,
    /\/(src\/[^?]+)$/,
  );
  assert.equal(wrote.stdout, "7,7,7,7");
  assert.deepEqual(LAZY.filter((f) => !wrote.resolved.has(f)), []);
});

test("openArray's options on metadata and conditionalWrites, reads through a cache, info and chunk listing, first in a process, load their module and answer as before", async () => {
  const dir = scratchDir("parzarr-lazy-");
  await createArray(dir, { shape: [4], chunks: [2], dtype: "int32" });
  // Each line in a fresh process, where the module is not loaded yet.
  const first = (line: string) =>
    resolvedInChild(
      `const { openArray, createArray, MemoryStore, ChunkCache } = await import("./src/index.ts");
      const dir = ${JSON.stringify(dir)};
      const outcome = await (async () => { ${line} })().then((v) => "ok " + v, (e) => e.name + " " + e.code);
      console.log(outcome);`,
      /\/(src\/[^?]+)$/,
    ).stdout;
  assert.equal(first(`return (await openArray(dir, { mode: "r", expect: { shape: [4], dtype: "<i4" } })).shape;`), "ok 4");
  assert.equal(first(`await openArray(dir, { mode: "r", expect: { shape: [5] } });`), "MetadataMismatchError METADATA_MISMATCH");
  assert.equal(first(`await openArray(dir, { mode: "r", expect: { size: 4 } });`), "InvalidArgumentError INVALID_ARGUMENT");
  assert.equal(first(`return (await openArray(dir, { mode: "r", assumeCachedMetadata: { shape: [4], chunks: [2], dtype: "int32" } })).shape;`), "ok 4");
  // The assumed layout checked against the stored one when an operation rewrites the metadata.
  assert.equal(first(`await (await openArray(dir, { mode: "r+", assumeCachedMetadata: { shape: [4], chunks: [4], dtype: "int32" } })).resize([6]);`), "MetadataMismatchError METADATA_MISMATCH");
  // A read through a chunk cache, and an array's info and chunk listing, first in a process.
  const cached = `const a = await openArray(dir, { mode: "r", cache: new ChunkCache({ maxBytes: 1e6 }) }); return [...(await a.get(null, { threads: 0 })).data, ...(await a.get(null, { threads: 0 })).data];`;
  assert.equal(first(cached), "ok 0,0,0,0,0,0,0,0");
  assert.equal(first(`const a = await openArray(dir, { mode: "r" }); return [(await a.info()).chunksTotal, (await a.chunkCoords()).length];`), "ok 2,0");
  assert.equal(first(`await openArray(dir, { conditionalWrites: { maxAttempts: 0 } });`), "InvalidArgumentError INVALID_ARGUMENT");
  assert.equal(first(`await openArray(dir, { conditionalWrites: true });`), "UnsupportedError UNSUPPORTED");
  assert.equal(first(`return (await openArray(dir, { mode: "r", conditionalWrites: false })).shape;`), "ok 4");
});

test("the first setAttrs and updateAttrs write the attributes as they were at the call, not after the module loaded", () => {
  const { stdout } = resolvedInChild(
    `const { createArray, openArray, MemoryStore } = await import("./src/index.ts");
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [4], chunks: [2], dtype: "int32" });
    const attrs = { units: "m" };
    const setting = a.setAttrs(attrs);
    attrs.units = "changed after the call";
    await setting;
    const update = { scale: 2 };
    const updating = a.updateAttrs(update);
    update.scale = 3;
    await updating;
    console.log(JSON.stringify((await openArray(store, { mode: "r" })).attrs));`,
    /\/(src\/[^?]+)$/,
  );
  assert.equal(stdout, JSON.stringify({ units: "m", scale: 2 }));
});

test("a get or set whose selection resolves at once starts in its caller's turn: a pool closed right after the call still runs it", async () => {
  const dir = scratchDir("parzarr-lazy-");
  const a = await createArray(dir, { shape: [64, 64], chunks: [8, 8], dtype: "int32", codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: {} }] });
  await a.set(null, 1, { threads: 0 });
  // Each call on a fresh pool closed right after it: one that yielded before its placement is
  // refused (POOL_CLOSED), one that reached it in the caller's turn still runs.
  const closedRightAfter = async (run: (o: { pool: WorkerPool; threads: number }) => Promise<unknown>): Promise<string> => {
    const pool = new WorkerPool({ threads: 1 });
    const running = run({ pool, threads: 1 });
    const closing = pool.close();
    const outcome = await running.then(() => "ran", (e: { code?: string }) => String(e.code));
    await closing;
    return outcome;
  };
  // Where neither fancy.ts nor the writes have loaded (a page that only reads): reads of slices.
  // A file rather than node -e: workers take the process's flags, and --input-type stops them.
  const script = join(scratchDir("parzarr-lazy-"), "child.mjs");
  writeFileSync(
    script,
    `const { openArray, slice, WorkerPool } = await import(${JSON.stringify(new URL("../src/index.ts", import.meta.url).pathname)});
    const r = await openArray(${JSON.stringify(dir)}, { mode: "r" });
    const closedRightAfter = async (run) => {
      const pool = new WorkerPool({ threads: 1 });
      const running = run({ pool, threads: 1 });
      const closing = pool.close();
      const outcome = await running.then(() => "ran", (e) => String(e.code));
      await closing;
      return outcome;
    };
    console.log(await closedRightAfter((o) => r.get(null, o)));
    console.log(await closedRightAfter((o) => r.get([1, slice(0, 9)], o)));
    console.log(await closedRightAfter((o) => r.oindex.get([[1, 5, 9], null], o)));`,
  );
  const child = spawnSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8" });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(child.stdout.trim().split("\n"), ["ran", "ran", "ran"]);
  // Once loaded (here: createArray and set loaded them), every accessor's get and set.
  const calls: ((o: { pool: WorkerPool; threads: number }) => Promise<unknown>)[] = [
    (o) => a.get([[1, 5], [2, 6]], o),
    (o) => a.vindex.get([[1, 5], [2, 6]], o),
    (o) => a.blocks.get([0, null], o),
    (o) => a.oindex.get([[1, 5], null], o),
    (o) => a.set(null, 2, o),
    (o) => a.set([[1, 5], [2, 6]], 3, o),
    (o) => a.oindex.set([[1, 5], null], 4, o),
    (o) => a.vindex.set([[1, 5], [2, 6]], 5, o),
    (o) => a.blocks.set([0, 1], 6, o),
  ];
  const outcomes: string[] = [];
  for (const call of calls) outcomes.push(await closedRightAfter(call));
  assert.deepEqual(outcomes, calls.map(() => "ran"));
});
