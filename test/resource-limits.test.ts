/**
 * Resource limits on shapes of input that are valid but extreme: arrays of very many dimensions,
 * reads of very many tiny chunks, long codec chains. Each either works in memory and time that grow
 * linearly with it, or is refused early with a typed error. Memory is checked through sizes (the
 * process's peak resident size), never through timing.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileSystemStore, MemoryStore, WorkerPool, ZarrError, createArray, openArray, type CodecConfig } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

const MB = 1024 * 1024;

/** The process's peak resident size so far, in bytes (maxRSS is in KiB). */
function peakRss(): number {
  return process.resourceUsage().maxRSS * 1024;
}

function v3Array(dir: string, meta: Record<string, unknown>): void {
  const doc = { zarr_format: 3, node_type: "array", data_type: "uint8", fill_value: 7, codecs: [{ name: "bytes" }], ...meta };
  writeFileSync(join(dir, "zarr.json"), JSON.stringify(doc));
}

// First in the file: the peak resident size only shows growth above what earlier tests reached.
test("a one-element read and write of a 20,000-dimension array stay in bounded memory", async () => {
  const rank = 20_000;
  for (const separator of ["/", "."]) {
    const dir = scratchDir();
    const ones = Array<number>(rank).fill(1);
    v3Array(dir, {
      shape: ones,
      chunk_grid: { name: "regular", configuration: { chunk_shape: ones } },
      chunk_key_encoding: { name: "default", configuration: { separator } },
    });
    const before = peakRss();
    const a = await openArray(new FileSystemStore(dir));
    // No chunk is stored (none can be: its path is longer than any file system allows): the fill value.
    assert.equal(await a.get(Array<number>(rank).fill(0)), 7, separator);
    // Writing it cannot work on this file system; it must say so with a typed error.
    await assert.rejects(a.set(Array<number>(rank).fill(0), 1), (err: unknown) => err instanceof ZarrError, separator);
    // Each missing folder of the chunk's 20,000 used to hold its own copy of the path: ~500 MB.
    const grew = peakRss() - before;
    assert.ok(grew < 120 * MB, `${separator}: the peak resident size grew by ${Math.round(grew / MB)} MB`);
  }
});

test("a read of 2^20 one-byte chunks on 2 threads keeps the event loop turning and stops soon after an abort", async () => {
  const dir = scratchDir();
  // Metadata only: every chunk is missing, so each costs a worker one failed open.
  v3Array(dir, {
    shape: [1024, 1024],
    chunk_grid: { name: "regular", configuration: { chunk_shape: [1, 1] } },
    codecs: [{ name: "bytes" }, { name: "gzip", configuration: { level: 1 } }],
  });
  const total = 1024 * 1024;
  const a = await openArray(new FileSystemStore(dir));
  const pool = new WorkerPool({ threads: 2 });
  let ticks = 0;
  const ticker = setInterval(() => ticks++, 1);
  const controller = new AbortController();
  const progress: { done: number; ticks: number }[] = [];
  const before = peakRss();
  try {
    await assert.rejects(
      a.get(null, {
        pool,
        threads: 2,
        signal: controller.signal,
        onProgress: (done) => {
          progress.push({ done, ticks });
          controller.abort();
        },
      }),
      (err: unknown) => err instanceof ZarrError && err.code === "ABORTED",
    );
  } finally {
    clearInterval(ticker);
    await pool.close();
  }
  assert.ok(progress.length > 0, "some chunks were read before the abort");
  // The calling thread was free while the first chunks were planned and read (it used to plan
  // half a million chunks in one go, the loop standing still for seconds)...
  assert.ok(progress[0].ticks >= 2, `the event loop ticked ${progress[0].ticks} times before the first chunks were done`);
  // ...work went out in small pieces, so the first report came early and the abort stopped the
  // rest: a task of half the array's chunks used to be one message, finished or cancelled whole.
  const last = progress[progress.length - 1].done;
  assert.ok(progress[0].done <= total / 64, `the first progress report came after ${progress[0].done} chunks`);
  assert.ok(last <= total / 16, `${last} of ${total} chunks were read after the abort`);
  const grew = peakRss() - before;
  assert.ok(grew < 400 * MB, `the peak resident size grew by ${Math.round(grew / MB)} MB`);
});

test("a codec chain of more than 64 codecs, nested chains counted, is refused as INVALID_METADATA", async () => {
  const invalid = (err: unknown) => err instanceof ZarrError && err.code === "INVALID_METADATA" && /64 codecs/.test(err.message);
  const gzips = (n: number): CodecConfig[] => Array.from({ length: n }, () => ({ name: "gzip", configuration: { level: 1 } }));
  const chunkGrid = { name: "regular", configuration: { chunk_shape: [10] } };
  const open = (meta: Record<string, unknown>, v2 = false) => {
    const dir = scratchDir();
    if (v2) {
      const doc = { zarr_format: 2, shape: [10], chunks: [10], dtype: "|u1", fill_value: 0, order: "C", compressor: null, ...meta };
      writeFileSync(join(dir, ".zarray"), JSON.stringify(doc));
    } else v3Array(dir, { shape: [10], chunk_grid: chunkGrid, ...meta });
    return openArray(new FileSystemStore(dir));
  };
  // 10^4 gzip codecs once took over 3 GB and 100 s to write and read 10 elements.
  await assert.rejects(open({ codecs: [{ name: "bytes" }, ...gzips(10_000)] }), invalid, "v3");
  await assert.rejects(open({ filters: gzips(100).map(() => ({ id: "zlib", level: 1 })) }, true), invalid, "v2 filters");
  // Sharding nests chains: 40 codecs inside and 40 outside are 81 in all.
  const shard = { name: "sharding_indexed", configuration: { chunk_shape: [5], codecs: [{ name: "bytes" }, ...gzips(39)] } };
  await assert.rejects(open({ codecs: [shard, ...gzips(40)] }), invalid, "nested");
  await assert.rejects(createArray(new MemoryStore(), { shape: [10], chunks: [10], dtype: "uint8", codecs: [{ name: "bytes" }, ...gzips(64)] }), invalid, "create");
  // 64 in all still works.
  const ok = await open({ codecs: [{ name: "bytes" }, ...gzips(63)] });
  assert.equal(await ok.get([3]), 7);
  await ok.set(null, 5);
  assert.equal(await (await openArray(ok.store)).get([3]), 5);
});
