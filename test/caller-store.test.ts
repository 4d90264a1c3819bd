/**
 * Stores no worker can reopen (issue 27): a user's store class, and a plain object with only
 * `get` (and `set` for writes), keyed zarrita-style ("/zarr.json"). They read and write on a
 * 2-thread pool: the calling thread moves the bytes (fetches chunks with each task, stores what
 * the workers encoded) and the workers decode and encode. Each test records the messages the pool
 * ran to show that, and compares values and stored bytes with an inline run.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { WorkerPool, createArray, openArray, slice, type CreateArrayOptions, type NDArray } from "../src/index.js";
import type { TaskMessage, TaskOutcome } from "../src/parallel/task-outcome.js";

const pool = new WorkerPool({ threads: 2 });
after(() => pool.close());

/** Every message the pool ran, with its outcome. */
const ran: { message: TaskMessage; outcome: TaskOutcome }[] = [];
const run = pool.run.bind(pool);
pool.run = async (message) => {
  const outcome = await run(message);
  ran.push({ message, outcome });
  return outcome;
};

/** The simplest store: a plain object with `get` and `set` over a Map, keyed "/a/zarr.json". */
function plainStore(files = new Map<string, Uint8Array>()) {
  return {
    files,
    get: async (key: string) => files.get(key),
    set: async (key: string, value: Uint8Array) => void files.set(key, new Uint8Array(value)),
  };
}

/** A user's store class, zarrita-style: ranges as { offset, length } or { suffixLength }, and delete. */
class UserStore {
  readonly files = new Map<string, Uint8Array>();
  readonly ranges: string[] = [];
  async get(key: string, opts?: { signal?: AbortSignal }): Promise<Uint8Array | undefined> {
    opts?.signal?.throwIfAborted();
    return this.files.get(key);
  }
  async getRange(key: string, range: { offset: number; length: number } | { suffixLength: number }): Promise<Uint8Array | undefined> {
    this.ranges.push(key);
    const b = this.files.get(key);
    if (!b) return undefined;
    return "suffixLength" in range ? b.slice(b.length - range.suffixLength) : b.slice(range.offset, range.offset + range.length);
  }
  async set(key: string, value: Uint8Array): Promise<void> {
    this.files.set(key, new Uint8Array(value));
  }
  async delete(key: string): Promise<void> {
    this.files.delete(key);
  }
}

const ZSTD: CreateArrayOptions["codecs"] = [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }];
const LAYOUTS: Record<string, CreateArrayOptions> = {
  "v2 blosc": { zarrFormat: 2, shape: [40, 30], chunks: [8, 7], dtype: "<f4", fillValue: -1, compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 } },
  "v3 zstd": { shape: [40, 30], chunks: [8, 7], dtype: "float32", fillValue: -1, codecs: ZSTD },
  "v3 sharded": { shape: [40, 30], chunks: [4, 7], shards: [8, 14], dtype: "float32", fillValue: -1, codecs: ZSTD },
};

const VALUES = Float32Array.from({ length: 40 * 30 }, (_, i) => i / 4);
const SETTINGS = { pool, threads: 2 };

test("get(null, { threads: 2 }) on a plain object store reads, with keys as zarrita gives them", async () => {
  const store = plainStore();
  const a = await createArray(store, { shape: [40, 30], chunks: [8, 7], dtype: "float32", fillValue: -1, codecs: ZSTD });
  await a.set(null, { data: VALUES, shape: [40, 30] }, { threads: 0 });
  assert.ok(store.files.has("/zarr.json"), `keys: ${[...store.files.keys()].slice(0, 3)}`);
  assert.ok(store.files.has("/c/0/0"));
  const got = (await a.get(null, SETTINGS)) as NDArray<Float32Array>;
  assert.deepEqual(Array.from(got.data), Array.from(VALUES));
  // Opened again from the object: the same store.
  const again = await openArray(store, { mode: "r" });
  assert.deepEqual(Array.from(((await again.get(null, { threads: 0 })) as NDArray<Float32Array>).data), Array.from(VALUES));
});
