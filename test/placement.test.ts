/**
 * Placement by decoding cost (issue 31): the chain reports its decoding CPU per byte, and the
 * rule turns it, the chunk count and their size into inline, some of the pool's threads or all.
 */
import "../src/platform/node.js";
import { test } from "node:test";
import assert from "node:assert/strict";
import { CodecPipeline } from "../src/codecs/pipeline.js";
import { codecsReady } from "../src/codecs/registry.js";
import { parseDataType } from "../src/metadata/dtype-names.js";
import type { CodecConfig } from "../src/metadata/array-metadata.js";
import { MIN_WORK_PER_THREAD_NS, placeOperation, POOL_NS_PER_BYTE, threadsByCost } from "../src/parallel/execution/coordinator.js";
import { copyThreads } from "../src/parallel/execution/concurrency.js";
import { FILE_COPY_NS_PER_BYTE, INLINE_FILE_COPIERS } from "../src/codecs/decode-cost.js";
import { platform } from "../src/platform/current.js";
import type { WorkerPool } from "../src/parallel/execution/worker-pool.js";
import type { Store } from "../src/stores/types.js";

const MiB = 2 ** 20;
const spec = { shape: [1024, 1024], dtype: parseDataType("<f4"), fillValue: 0 };
// Chains built directly: the modules of the codecs that load on first use are loaded first.
await codecsReady([{ name: "sharding_indexed" }, { name: "numcodecs.bz2" }]);
const costOf = (configs: CodecConfig[]): number => CodecPipeline.create(configs, spec).decodeCost;
const LE = { name: "bytes", configuration: { endian: "little" } };
const blosc = (cname: string, shuffle = "shuffle"): CodecConfig => ({ name: "blosc", configuration: { cname, clevel: 5, shuffle, typesize: 4, blocksize: 0 } });

test("a chain's decoding cost orders raw < blosc-lz4 < blosc-zstd < blosc-zlib < zlib", () => {
  const raw = costOf([LE]);
  const lz4 = costOf([LE, blosc("lz4")]);
  const zstd = costOf([LE, blosc("zstd")]);
  const bzlib = costOf([LE, blosc("zlib")]);
  const zlib = costOf([LE, { name: "numcodecs.zlib", configuration: { level: 1 } }]);
  assert.equal(raw, 0, "raw chunks are read into place: nothing to decode");
  assert.ok(0 < lz4 && lz4 < zstd && zstd < bzlib && bzlib < zlib, `${[raw, lz4, zstd, bzlib, zlib]}`);
  assert.ok(costOf([{ name: "bytes", configuration: { endian: "big" } }]) > 0, "a byte swap is work");
  assert.ok(costOf([LE, blosc("lz4", "bitshuffle")]) > lz4, "the bit shuffle costs more than the byte shuffle");
  const sharded = costOf([{ name: "sharding_indexed", configuration: { chunk_shape: [256, 256], codecs: [LE, { name: "zstd", configuration: { level: 3 } }] } }]);
  assert.equal(sharded, costOf([LE, { name: "zstd", configuration: { level: 3 } }]), "a shard costs what its inner chain does");
  assert.ok(costOf([LE, { name: "numcodecs.bz2", configuration: { level: 1 } }]) > lz4, "an unmeasured codec is priced as a compressor");
});

test("threadsByCost: raw never, cheap codecs only when large, costly ones on as many threads as they keep busy", () => {
  const raw = costOf([LE]);
  const lz4 = costOf([LE, blosc("lz4")]);
  const zlib = costOf([LE, { name: "numcodecs.zlib", configuration: { level: 1 } }]);
  // 1 MiB chunks.
  assert.equal(threadsByCost(raw, 100000, MiB, 16), 0, "raw: a file read into place, the pool only adds its own cost");
  assert.equal(threadsByCost(lz4, 16, MiB, 2), 0, "16 MiB of blosc-lz4 is too little work to share");
  assert.equal(threadsByCost(lz4, 256, MiB, 2), 2);
  assert.equal(threadsByCost(lz4, 256, MiB, 16), 16);
  const some = threadsByCost(lz4, 64, MiB, 16);
  assert.ok(some >= 2 && some < 16, `64 MiB of blosc-lz4 keeps some threads busy, not 16: ${some}`);
  assert.equal(threadsByCost(zlib, 2, MiB, 2), 2, "two zlib chunks are worth two threads");
  assert.equal(threadsByCost(zlib, 4, MiB, 16), 4, "at most one thread per chunk");
  assert.equal(threadsByCost(zlib, 1, 64 * MiB, 16), 0, "one chunk runs on one thread: inline");
  assert.equal(threadsByCost(zlib, 0, MiB, 16), 0);
});

test("placeOperation follows the cost when threads are not given, and the caller when they are", () => {
  const fs = { descriptor: () => ({ kind: "filesystem", root: "/x", readOnly: false }) } as unknown as Store;
  // A 16-thread pool that is never asked to run anything.
  const pool = { threads: 16, tasksPerWorker: 2, closed: false, sharedMemory: true, fetchesOnCaller: false } as unknown as WorkerPool;
  const place = (decodeCost: number, chunkCount: number, threads?: number) =>
    placeOperation({ store: fs, chunkCount, chunkBytes: MiB, decodeCost, op: "read", data: new Float32Array(0) }, { pool, threads });
  const lanes = (p: ReturnType<typeof place>) => (p.where === "pool" ? p.lanes : 0);
  const lz4 = costOf([LE, blosc("lz4")]);
  // Raw chunks from a store that is no folder have nothing to decode (raw reads of files: copyThreads, below).
  const http = { descriptor: () => ({ kind: "fetch", url: "http://127.0.0.1/" }) } as unknown as Store;
  assert.deepEqual(placeOperation({ store: http, chunkCount: 4096, chunkBytes: MiB, decodeCost: 0, op: "read", data: new Float32Array(0) }, { pool }), { where: "inline" });
  assert.equal(lanes(place(0, 4096, 4)), 4, "threads asked for are given, raw or not");
  assert.equal(lanes(place(lz4, 256)), 16 * 3, "the whole pool: one task running per worker slot and one waiting");
  assert.equal(lanes(place(lz4, 64)), threadsByCost(lz4, 64, MiB, 16), "part of the pool: that many tasks in flight");
  assert.deepEqual(place(lz4, 64, 0), { where: "inline" });
  // Writes encode, which costs more than decoding: fewer chunks already pay.
  const write = (chunkCount: number) =>
    placeOperation({ store: fs, chunkCount, chunkBytes: MiB, decodeCost: lz4, op: "write", data: new Float32Array(0) }, { pool }).where;
  assert.equal(place(lz4, 16).where, "inline");
  assert.equal(write(16), "pool", "16 MiB of blosc-lz4 is worth encoding on 2 or more threads");
  assert.equal(placeOperation({ store: fs, chunkCount: 4096, chunkBytes: MiB, decodeCost: 0, op: "write", data: null }, { pool }).where, "inline", "raw writes too");
});

test("copyThreads: a raw read of files takes the pool from 2 threads on (one thread drives an inline read)", () => {
  const ns = { copyPerByte: FILE_COPY_NS_PER_BYTE, poolPerByte: POOL_NS_PER_BYTE, minWork: MIN_WORK_PER_THREAD_NS };
  const on = (cores: number, bytes = 256 * MiB, inlineCopiers = INLINE_FILE_COPIERS) => copyThreads(bytes, bytes / (4 * MiB), { pool: cores, cores, inlineCopiers }, ns);
  assert.equal(on(2), 2, "2 cores: two workers copy more than the one thread that drives an inline read");
  assert.equal(on(4), 4);
  assert.equal(on(16), 16);
  assert.equal(on(16, 16 * MiB), 0, "16 MiB is too little copying to share");
  assert.equal(on(2, 256 * MiB, 2), 0, "were two threads copying inline, two workers paying the pool's cost would not win");
  assert.equal(copyThreads(256 * MiB, 64, { pool: 16, cores: 2, inlineCopiers: 1 }, ns), 2, "a pool larger than the machine adds no cores");
});

test("placeOperation: raw reads of files go to the pool, other raw operations stay inline", () => {
  const store = (kind: string) => ({ descriptor: () => ({ kind, root: "/x", readOnly: false }) }) as unknown as Store;
  const pool = { threads: 16, tasksPerWorker: 2, closed: false, sharedMemory: true, fetchesOnCaller: false } as unknown as WorkerPool;
  const where = (kind: string, op: "read" | "write", cores: number, on = pool) => {
    const p = platform();
    const saved = p.availableParallelism;
    p.availableParallelism = () => cores;
    try {
      const placed = placeOperation({ store: store(kind), chunkCount: 64, chunkBytes: 4 * MiB, decodeCost: 0, op, data: new Float32Array(0) }, { pool: on });
      return placed.where === "pool" ? placed.lanes : placed.where;
    } finally {
      p.availableParallelism = saved;
    }
  };
  assert.equal(where("filesystem", "read", 2), 2, "2 cores: both threads");
  assert.equal(where("filesystem", "read", 16), 16 * 3, "16 cores: the whole pool");
  assert.equal(where("fetch", "read", 16), "inline", "a raw read over HTTP is not a copy from the page cache");
  assert.equal(where("filesystem", "write", 16), "inline", "raw writes are not measured: inline as before");
  // A pool that fetches on the caller reads the files here, as inline does, and then copies them again on workers.
  assert.equal(where("filesystem", "read", 16, { ...pool, fetchesOnCaller: true } as WorkerPool), "inline", "fetchOnCaller: the workers copy no file");
});
