/**
 * Stores no worker can reopen (issue 27): a user's store class, and a plain object with only
 * `get` (and `set` for writes), keyed zarrita-style ("/zarr.json"). They read and write on a
 * 2-thread pool: the calling thread moves the bytes (fetches chunks with each task, stores what
 * the workers encoded) and the workers decode and encode. Each test records the messages the pool
 * ran to show that, and compares values and stored bytes with an inline run.
 */
import { test } from "node:test";
import { readmeBlock, runSnippet } from "./helpers/readme-snippets.js";
import assert from "node:assert/strict";
import { WorkerPool, createArray, openArray, resolveStore, slice, type CreateArrayOptions, type NDArray } from "../src/index.js";
import { runTaskMessage } from "../src/parallel/execution/worker-task.js";
import { recordingPool } from "./helpers/recording-pool.js";
import { scratchDir } from "./helpers/paths.js";
import type { WritableStore } from "../src/stores/types.js";

/** Every message the pool ran, with its outcome. */
const { pool, ran } = recordingPool();

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

for (const [name, layout] of Object.entries(LAYOUTS)) {
  for (const kind of ["plain object", "store class"] as const) {
    const make = () => (kind === "plain object" ? plainStore() : new UserStore());

    test(`${name}, ${kind}: reads on the pool decode on the workers from bytes this thread fetched`, async () => {
      const store = make();
      const a = await createArray(store, layout);
      await a.set([slice(0, 33), null], { data: VALUES.subarray(0, 33 * 30), shape: [33, 30] }, { threads: 0 });
      for (const sel of [null, [slice(3, 40, 2), slice(1, 29)]] as const) {
        ran.length = 0;
        const got = (await a.get(sel, SETTINGS)) as NDArray<Float32Array>;
        const want = (await a.get(sel, { threads: 0 })) as NDArray<Float32Array>;
        assert.deepEqual(got.shape, want.shape);
        assert.deepEqual(Array.from(got.data), Array.from(want.data));
        assert.ok(ran.length >= 2, `tasks on the pool: ${ran.length}`);
        for (const { message, outcome } of ran) {
          assert.equal(message.task.kind, "read");
          assert.equal(message.fetched?.length, message.task.items.length, "every chunk came with the task");
          assert.equal(outcome.status, "done", JSON.stringify(outcome));
        }
        const chunks = ran.reduce((n, r) => n + r.outcome.chunks, 0);
        assert.equal(chunks, ran.reduce((n, r) => n + r.message.task.items.length, 0));
      }
    });

    test(`${name}, ${kind}: writes on the pool encode on the workers; this thread stores what they return`, async () => {
      const [inline, onPool] = [make(), make()];
      const arrays = await Promise.all([inline, onPool].map((s) => createArray(s, layout)));
      const steps: [Parameters<typeof arrays[0]["set"]>[0], Parameters<typeof arrays[0]["set"]>[1]][] = [
        // Whole chunks (and the edge chunks' in-bounds parts), then a partial region, then the
        // fill value over whole chunks (deleted where the store can delete).
        [null, { data: VALUES, shape: [40, 30] }],
        [[slice(3, 17), slice(2, 29, 3)], 7.5],
        [[slice(16, 32), slice(0, 28)], -1],
      ];
      for (const [sel, value] of steps) {
        ran.length = 0;
        await arrays[0].set(sel, value, { threads: 0 });
        await arrays[1].set(sel, value, SETTINGS);
        assert.ok(ran.length >= 2, `tasks on the pool: ${ran.length}`);
        for (const { message, outcome } of ran) {
          assert.equal(message.task.kind, "write");
          assert.equal(outcome.status, "done", JSON.stringify(outcome));
        }
        assert.deepEqual([...onPool.files.keys()].sort(), [...inline.files.keys()].sort());
        for (const [key, bytes] of inline.files) assert.deepEqual(onPool.files.get(key), bytes, key);
        const got = (await arrays[1].get(null, { threads: 0 })) as NDArray<Float32Array>;
        const want = (await arrays[0].get(null, { threads: 0 })) as NDArray<Float32Array>;
        assert.deepEqual(Array.from(got.data), Array.from(want.data));
      }
    });
  }
}

test("a worker never reads a user's store: a key the caller did not send is an internal fault, not missing or corrupt", async () => {
  const a = await createArray(plainStore(), LAYOUTS["v3 zstd"]);
  await a.set(null, 1, { threads: 0 });
  const store = resolveStore(plainStore());
  assert.equal(store.descriptor().kind, "caller");
  const item = { key: "c/0/0", origin: [0, 0], chunkSel: [{ start: 0, step: 1, count: 8 }, { start: 0, step: 1, count: 7 }], outStart: [0, 0] };
  const task = { kind: "read" as const, store: store.descriptor(), meta: a.metadata, items: [item], out: { data: new Float32Array(56), strides: [7, 1] } };
  const outcome = await runTaskMessage({ task, cancel: new Int32Array(1) });
  assert.equal(outcome.status, "failed");
  assert.ok(outcome.status === "failed" && outcome.error.name === "InternalFault" && outcome.error.code === "INTERNAL", JSON.stringify(outcome));
});

test("an aborted partial write on the pool lets go of its chunk locks; the next write of the chunk goes through", async () => {
  const store = new UserStore();
  const a = await createArray(store, LAYOUTS["v3 zstd"]);
  await a.set(null, 2, { threads: 0 });
  const controller = new AbortController();
  // The old chunk's read (on this thread, under the lock) waits until the operation is aborted.
  const get = store.get.bind(store);
  store.get = (key, opts) => (key.startsWith("/c/") && opts?.signal ? new Promise((_, reject) => opts.signal!.addEventListener("abort", () => reject(opts.signal!.reason))) : get(key, opts));
  const write = a.set([slice(1, 3), slice(1, 3)], 9, { ...SETTINGS, signal: controller.signal });
  setTimeout(() => controller.abort(), 50);
  await assert.rejects(write, (e: unknown) => (e as { code?: string }).code === "ABORTED");
  store.get = get;
  ran.length = 0;
  await a.set([slice(1, 3), slice(1, 3)], 9, SETTINGS);
  assert.equal(ran.length, 1, "the merge ran on a worker");
  const got = (await a.get([slice(0, 4), slice(0, 4)], { threads: 0 })) as NDArray<Float32Array>;
  assert.deepEqual(Array.from(got.data), [2, 2, 2, 2, 2, 9, 9, 2, 2, 9, 9, 2, 2, 2, 2, 2]);
  assert.equal(pool.busy, 0);
});

test("the wrapper translates zarrita's contract: ranges, listing, missing delete, and answers that are not bytes", async () => {
  const files = new Map<string, Uint8Array>([["/a/zarr.json", new Uint8Array([1, 2, 3, 4, 5])], ["/a/c/0", new Uint8Array([9])], ["/b", new Uint8Array([7])]]);
  const ranges: unknown[] = [];
  const user = {
    get: (key: string) => files.get(key),
    getRange: (key: string, range: { offset: number; length: number } | { suffixLength: number }) => {
      ranges.push(range);
      const b = files.get(key)!;
      return "suffixLength" in range ? b.slice(-range.suffixLength) : b.slice(range.offset, range.offset + range.length);
    },
    list: () => files.keys(),
  };
  const store = resolveStore(user);
  assert.equal(resolveStore(user), store, "one wrapper per object");
  assert.equal(store.readOnly, true);
  assert.deepEqual(await store.getRange("a/zarr.json", { offset: -2 }), new Uint8Array([4, 5]));
  assert.deepEqual(await store.getRange("a/zarr.json", { offset: 1, length: 2 }), new Uint8Array([2, 3]));
  assert.deepEqual(await store.getRange("a/zarr.json", { offset: 3 }), new Uint8Array([4, 5]));
  assert.deepEqual(ranges, [{ suffixLength: 2 }, { offset: 1, length: 2 }]);
  assert.equal(await store.get("missing"), undefined);
  assert.deepEqual(await store.list("a/"), ["a/c/0", "a/zarr.json"]);
  assert.deepEqual(await store.listDir(""), { keys: ["b"], prefixes: ["a"] });
  await assert.rejects(store.get("/b"), (e: unknown) => (e as { code?: string }).code === "INVALID_KEY");
  // Without delete, a key that is not there is deleted; one that is cannot be.
  const writable = resolveStore(plainStore(new Map([["/x", new Uint8Array(1)]]))) as WritableStore;
  await writable.delete("y");
  await assert.rejects(writable.delete("x"), (e: unknown) => (e as { code?: string }).code === "UNSUPPORTED");
  // A get that answers something other than bytes is the store's failure, not a corrupt chunk.
  const odd = resolveStore({ get: async () => "not bytes" as unknown as Uint8Array });
  await assert.rejects(odd.get("c/0"), (e: unknown) => (e as { code?: string }).code === "STORE_ERROR");
  assert.throws(() => resolveStore({ nothing: true } as never), (e: unknown) => (e as { code?: string }).code === "INVALID_ARGUMENT");
});

test("comlink workers, with and without shared memory: reads equal inline, and the user's buffers are not transferred away", async () => {
  const pools = [new WorkerPool({ threads: 2, executor: "comlink" }), new WorkerPool({ threads: 2, executor: "comlink", sharedMemory: false })];
  try {
    const store = plainStore();
    const a = await createArray(store, LAYOUTS["v3 sharded"]);
    await a.set(null, { data: VALUES, shape: [40, 30] }, { threads: 0 });
    const sizes = new Map([...store.files].map(([k, v]) => [k, v.byteLength]));
    for (const p of pools) {
      let peak = 0;
      const got = (await a.get([slice(1, 39), slice(2, 30)], { pool: p, threads: 2, onProgress: () => void (peak = Math.max(peak, p.busy)) })) as NDArray<Float32Array>;
      const want = (await a.get([slice(1, 39), slice(2, 30)], { threads: 0 })) as NDArray<Float32Array>;
      assert.deepEqual(Array.from(got.data), Array.from(want.data));
      assert.ok(peak > 0, "tasks ran on the pool");
    }
    assert.deepEqual(new Map([...store.files].map(([k, v]) => [k, v.byteLength])), sizes);
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
});

test("README's own-store snippet (a plain object with zarrita's keys, on a 2-thread pool) runs as written", () => {
  const snippet = readmeBlock("keys as zarrita gives them");
  const r = runSnippet(snippet, { parzarr: new URL("../src/index.ts", import.meta.url).href }, scratchDir("parzarr-own-store-readme-"));
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), "Float32Array(8) [\n  0, 1, 2, 3,\n  4, 5, 6, 0\n]");
});
