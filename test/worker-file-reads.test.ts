/**
 * Chunk files read on pool workers (issue 31): a worker thread runs nothing but tasks, so it reads
 * a local file with blocking positioned reads instead of handing each read to libuv's thread pool
 * (a third runnable thread, a wakeup and a promise per read). The calling thread keeps its
 * asynchronous reads: it is the user's event loop. Missing, damaged and vanishing chunks read on a
 * worker as they do inline.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { closeSync, constants, openSync, rmSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { createServer } from "node:net";
import { ChunkCache, createArray, openArray, FileSystemStore, WorkerPool, ZarrError } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";
import { MemoryStore } from "../src/stores/memory.js";
import { runTaskMessage } from "../src/parallel/execution/worker-task.js";
import { CONCURRENCY } from "../src/parallel/execution/concurrency.js";

const pool = new WorkerPool({ threads: 2, executor: "piscina" });
after(() => pool.close());

/** A folder store that counts the reads made on this thread (a worker opens its own store). */
class CountingStore extends FileSystemStore {
  reads = 0;
  override async readInto(key: string, dest: Uint8Array | readonly Uint8Array[]): Promise<number | undefined> {
    this.reads++;
    return super.readInto(key, dest);
  }
  override async get(key: string): Promise<Uint8Array | undefined> {
    this.reads++;
    return super.get(key);
  }
}

const SHAPE = [64, 512];
const CHUNKS = [16, 256];
const CODECS: Record<string, { id: string; cname: string; clevel: number; shuffle: number } | null> = { raw: null, "blosc-lz4": { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 } };

async function array(compressor: (typeof CODECS)[string]): Promise<{ dir: string; data: Float32Array }> {
  const dir = scratchDir();
  const a = await createArray(dir, { shape: SHAPE, chunks: CHUNKS, dtype: "<f4", zarrFormat: 2, compressor, fillValue: -1 });
  const data = Float32Array.from({ length: SHAPE[0] * SHAPE[1] }, (_, i) => Math.sin(i / 7));
  await a.set(null, { data, shape: SHAPE }, { threads: 0 });
  return { dir, data };
}

/**
 * Occupies every thread of libuv's pool (shared by all of this process's threads, workers too)
 * with an open of a named pipe that waits for a writer; `release` opens the writers, which lets
 * the opens finish. Meanwhile no asynchronous file read anywhere in the process can run.
 */
async function blockLibuvPool(): Promise<{ release: () => Promise<void> }> {
  const dir = scratchDir();
  const size = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
  const { open } = await import("node:fs/promises");
  const pending: Promise<unknown>[] = [];
  const fifos: string[] = [];
  for (let i = 0; i < size; i++) {
    const fifo = join(dir, `fifo${i}`);
    execFileSync("mkfifo", [fifo]);
    fifos.push(fifo);
    pending.push(open(fifo, "r").then((fh) => fh.close()));
  }
  // Let the opens reach the pool's threads before anything else is queued behind them.
  await new Promise((r) => setTimeout(r, 100));
  return {
    release: async () => {
      // A non-blocking open for writing succeeds once a reader waits in its open (ENXIO before:
      // that reader's open has not reached a thread yet, so try again, never blocking this one).
      for (let left = [...fifos]; left.length > 0; await new Promise((r) => setTimeout(r, 10))) {
        left = left.filter((fifo) => {
          try {
            closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
            return false;
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== "ENXIO") throw err;
            return true;
          }
        });
      }
      await Promise.all(pending);
    },
  };
}

for (const [name, compressor] of Object.entries(CODECS)) {
  test(`${name}: a worker reads chunk files with blocking reads, not on libuv's pool; the caller keeps its own reads asynchronous`, async () => {
    const { dir, data } = await array(compressor);
    const store = new CountingStore(dir);
    const a = await openArray(store);
    const out = new Float32Array(new SharedArrayBuffer(data.byteLength));
    // Warm: both workers start and load the codecs (module loading may use libuv's pool).
    await a.get(null, { out, pool, threads: 2 });
    out.fill(0);
    store.reads = 0;
    const blocked = await blockLibuvPool();
    let done = false;
    try {
      const read = a.get(null, { out, pool, threads: 2 }).then(() => (done = true));
      // A generous bound: a read of 128 KiB that needs libuv's pool never finishes while it is held.
      await Promise.race([read, new Promise((r) => setTimeout(r, 10_000))]);
      assert.ok(done, "the pool read waited for libuv's thread pool: workers read files asynchronously");
      assert.deepEqual(out, data);
      assert.equal(store.reads, 0, "every chunk was read on a worker");
    } finally {
      await blocked.release();
    }
    // Inline, the calling thread's reads go through libuv's pool as before.
    const inline = await a.get(null, { threads: 0 });
    assert.deepEqual(inline.data, data);
    assert.equal(store.reads, 8);
  });
}

test("on a worker, a missing chunk reads as the fill value, a damaged one is CORRUPT_CHUNK, one removed after a read is the fill value", async () => {
  for (const [name, compressor] of Object.entries(CODECS)) {
    const { dir, data } = await array(compressor);
    const a = await openArray(new CountingStore(dir));
    rmSync(join(dir, "1.1"));
    const out = new Float32Array(new SharedArrayBuffer(data.byteLength));
    await a.get(null, { out, pool, threads: 2 });
    const inline = await a.get(null, { threads: 0 });
    assert.deepEqual(out, inline.data, name);
    assert.equal(out[16 * 512 + 256], -1, `${name}: chunk 1.1 is the fill value`);
    // Truncated (a raw chunk of the wrong size, a blosc frame cut short): the chunk's bytes are bad.
    truncateSync(join(dir, "2.0"), 100);
    for (const where of [{ pool, threads: 2 }, { threads: 0 }]) {
      await assert.rejects(a.get(null, { out, ...where }), (e: unknown) => e instanceof ZarrError && e.code === "CORRUPT_CHUNK", `${name} ${where.threads}`);
    }
    // Removed after it was read once (a read lists nothing: it asks for each key, and a key gone is the fill value).
    rmSync(join(dir, "2.0"));
    await a.get(null, { out, pool, threads: 2 });
    assert.equal(out[32 * 512], -1, name);
  }
});

test("on a worker, a chunk that is a folder reads as missing, a link out of the store is INVALID_KEY, one that cannot be opened is a StoreError", async () => {
  const { dir } = await array(CODECS["blosc-lz4"]);
  const a = await openArray(new CountingStore(dir));
  const out = new Float32Array(new SharedArrayBuffer(SHAPE[0] * SHAPE[1] * 4));
  rmSync(join(dir, "0.0"));
  execFileSync("mkdir", [join(dir, "0.0")]);
  await a.get(null, { out, pool, threads: 2 });
  assert.equal(out[0], -1);
  // A chunk that is a link leading out of the store: INVALID_KEY, on a worker as inline.
  const outside = join(scratchDir(), "elsewhere");
  writeFileSync(outside, new Uint8Array(64));
  rmSync(join(dir, "1.0"), { force: true });
  symlinkSync(outside, join(dir, "1.0"));
  const refused: string[] = [];
  for (const where of [{ pool, threads: 2 }, { threads: 0 }]) {
    await a.get(null, { out, ...where }).catch((e: unknown) => refused.push(e instanceof ZarrError ? e.code : String(e)));
  }
  assert.deepEqual(refused, ["INVALID_KEY", "INVALID_KEY"]);
  rmSync(join(dir, "1.0"));
  // A chunk that cannot be opened: unreadable to a user; to root (which reads any file) a Unix
  // socket, which open(2) refuses with ENXIO.
  const blocked = join(dir, "0.1");
  rmSync(blocked, { force: true });
  const socket = process.getuid?.() === 0 ? createServer() : undefined;
  if (socket) await new Promise<void>((resolve, reject) => socket.once("error", reject).listen(blocked, resolve));
  else writeFileSync(blocked, "x", { mode: 0 });
  try {
    const codes: string[] = [];
    for (const where of [{ pool, threads: 2 }, { threads: 0 }]) {
      await a.get(null, { out, ...where }).catch((e: unknown) => codes.push(e instanceof ZarrError ? e.code : String(e)));
    }
    assert.deepEqual(codes, ["STORE_ERROR", "STORE_ERROR"], "the same typed error on a worker as inline");
  } finally {
    socket?.close();
  }
});

test("a worker's task of local files reads its chunks one at a time; other stores keep several reads open", async () => {
  /** A memory store that counts the reads open at once (a store a task names reaches it in this thread). */
  class OpenReads extends MemoryStore {
    open = 0;
    most = 0;
    override async get(key: string): Promise<Uint8Array | undefined> {
      this.most = Math.max(this.most, ++this.open);
      await new Promise((r) => setTimeout(r, 5));
      try {
        return await super.get(key);
      } finally {
        this.open--;
      }
    }
  }
  /** The same, with the hook through which a worker makes a folder store read blocking. */
  class BlockingReads extends OpenReads {
    dedicated = false;
    dedicateThread(): void {
      this.dedicated = true;
    }
  }
  const data = Float32Array.from({ length: 64 }, (_, i) => i);
  for (const store of [new OpenReads(), new BlockingReads()]) {
    const a = await createArray(store, { shape: [8, 8], chunks: [2, 8], dtype: "float32" });
    await a.set(null, { data, shape: [8, 8] }, { threads: 0 });
    const out = new Float32Array(64);
    const items = [0, 1, 2, 3].map((i) => ({ key: `c/${i}/0`, origin: [2 * i, 0], chunkSel: [{ start: 0, step: 1, count: 2 }, { start: 0, step: 1, count: 8 }], outStart: [2 * i, 0] }));
    const task = { kind: "read" as const, store: store.descriptor(), meta: a.metadata, items, out: { data: out, strides: [8, 1] } };
    store.most = 0;
    const outcome = await runTaskMessage({ task, cancel: new Int32Array(1) });
    assert.equal(outcome.status, "done", JSON.stringify(outcome));
    assert.deepEqual(Array.from(out), Array.from(data));
    const blocking = store instanceof BlockingReads;
    assert.equal(blocking && store.dedicated, blocking);
    assert.equal(store.most, blocking ? 1 : Math.min(4, CONCURRENCY.workerReadInFlight), store.constructor.name);
  }
});

test("a pool read of local files into a shared out goes in tasks of several ms of decoding; a fresh (staged) one keeps 1 MiB tasks", async () => {
  // 64 chunks of 256 KiB, blosc-lz4 (0.32 ns/B): 1 MiB tasks are 4 chunks; by TASK_TARGET_NS one
  // task per lane (6 on 2 threads) is 11.
  const dir = scratchDir();
  const a = await createArray(dir, { shape: [2048, 2048], chunks: [256, 256], dtype: "<f4", zarrFormat: 2, compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 } });
  const data = Float32Array.from({ length: 2048 * 2048 }, (_, i) => i % 1000);
  await a.set(null, { data, shape: [2048, 2048] }, { threads: 0 });
  const b = await openArray(dir, { mode: "r" });
  const steps = async (out?: Float32Array): Promise<number[]> => {
    const dones: number[] = [];
    const got = await b.get(null, { pool, threads: 2, ...(out && { out }), onProgress: (done) => dones.push(done) });
    assert.deepEqual(Array.from((got as { data: Float32Array }).data.subarray(0, 5000)), Array.from(data.subarray(0, 5000)));
    return dones.map((d, i) => d - (i === 0 ? 0 : dones[i - 1]));
  };
  const inPlace = await steps(new Float32Array(new SharedArrayBuffer(2048 * 2048 * 4)));
  assert.ok(Math.max(...inPlace) > 4, `tasks into a shared out: ${inPlace}`);
  assert.deepEqual(new Set(await steps()), new Set([4]), "staged tasks hold a chunk-sized slot per chunk: 1 MiB each");
  // A chunk cache's fill tasks hold a fresh chunk-sized slot per chunk too.
  const cached = await openArray(dir, { mode: "r", cache: new ChunkCache({ maxBytes: 64 << 20 }) });
  const fills: number[] = [];
  await cached.get(null, { pool, threads: 2, out: new Float32Array(new SharedArrayBuffer(2048 * 2048 * 4)), onProgress: (done) => fills.push(done) });
  assert.deepEqual(new Set(fills.map((d, i) => d - (i === 0 ? 0 : fills[i - 1]))), new Set([4]), `cache fill tasks: ${fills}`);
});
