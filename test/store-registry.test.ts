/**
 * Store kinds users register (issue 27): a user's store class whose `descriptor()` is plain data,
 * and a module (test/helpers/dir-store.mjs) whose function opens such a descriptor. Registered
 * with `registerStoreKind`, the store reads and writes on a 2-thread pool where the WORKERS open
 * it, do its I/O and decode: the module logs each open, get and set with its thread id, and the
 * pool's messages show that no chunk bytes travelled with the tasks.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createArray, openArray, registerStoreKind, slice, type NDArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";
import { recordingPool } from "./helpers/recording-pool.js";

const MODULE = new URL("./helpers/dir-store.mjs", import.meta.url).href;
const { DirStore } = (await import(MODULE)) as { DirStore: new (root: string, log: string) => { get(key: string): Promise<Uint8Array | undefined> } };

const { pool, ran } = recordingPool();

const hasCode = (code: string) => (e: unknown) => (e as { code?: string }).code === code;

/** The log's lines as [what, thread id, key]. */
function logOf(path: string): [string, number, string][] {
  return readFileSync(path, "utf8")
    .trim()
    .split("\n")
    .map((line) => line.split(" "))
    .map(([what, thread, key]) => [what, Number(thread), key]);
}

test("a registered store class reads and writes on a 2-thread pool: the workers open it, do its I/O, and decode", async () => {
  registerStoreKind("test-dir", MODULE);
  const dir = scratchDir();
  const log = join(dir, "log");
  const store = new DirStore(join(dir, "a.zarr"), log);
  const values = Float32Array.from({ length: 40 * 30 }, (_, i) => i / 4);
  const a = await createArray(store, { shape: [40, 30], chunks: [8, 7], dtype: "float32", fillValue: -1, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }] });
  const settings = { pool, threads: 2 };
  await a.set(null, { data: values, shape: [40, 30] }, settings);
  await a.set([slice(3, 17), slice(2, 29, 3)], 7.5, settings);
  const writes = ran.splice(0);
  const got = (await (await openArray(store, { mode: "r" })).get(null, settings)) as NDArray<Float32Array>;
  const reads = ran.splice(0);
  const lines = logOf(log);
  const want = (await a.get(null, { threads: 0 })) as NDArray<Float32Array>;
  assert.deepEqual(Array.from(got.data), Array.from(want.data));
  assert.equal(want.data[3 * 30 + 2], 7.5);
  assert.equal(want.data[0], 0);
  for (const [kind, messages] of [["write", writes], ["read", reads]] as const) {
    assert.ok(messages.length >= 2, `${kind} tasks on the pool: ${messages.length}`);
    for (const { message, outcome } of messages) {
      assert.equal(message.task.kind, kind);
      assert.equal(message.task.store.kind, "test-dir");
      assert.equal(message.fetched, undefined, "no chunk bytes came with the task");
      assert.equal(outcome.status, "done", JSON.stringify(outcome));
      assert.equal(outcome.stored, undefined, "the worker stored its chunks itself");
    }
    assert.equal(messages.reduce((n, r) => n + r.outcome.chunks, 0), messages.reduce((n, r) => n + r.message.task.items.length, 0));
  }
  // Chunk keys are "/c/i/j": every one was read and written by a worker thread, never this one.
  const chunkIo = lines.filter(([what, , key]) => what !== "open" && key.startsWith("/c/"));
  assert.ok(chunkIo.some(([what]) => what === "set") && chunkIo.some(([what]) => what === "get"), lines.join("; "));
  assert.deepEqual(chunkIo.filter(([, thread]) => thread === 0), [], "no chunk I/O on the calling thread");
  const workers = new Set(lines.filter(([what, thread]) => what === "open" && thread !== 0).map(([, thread]) => thread));
  assert.ok(workers.size >= 1 && workers.size <= 2, `worker threads that opened the store: ${[...workers]}`);
  assert.deepEqual(new Set(chunkIo.map(([, thread]) => thread)), workers, "the threads that opened it did its I/O");
});

test("registerStoreKind refuses built-in kinds, relative module URLs, and a second module for a kind", () => {
  for (const kind of ["memory", "filesystem", "fetch", "opfs", "caller", ""]) {
    assert.throws(() => registerStoreKind(kind, MODULE), hasCode("INVALID_ARGUMENT"), kind);
  }
  assert.throws(() => registerStoreKind("test-relative", "./helpers/dir-store.mjs"), hasCode("INVALID_ARGUMENT"));
  registerStoreKind("test-dir", MODULE);
  assert.throws(() => registerStoreKind("test-dir", "data:text/javascript,export default () => ({})"), hasCode("INVALID_ARGUMENT"));
});

test("a module that exports no opener fails the operation with a STORE_ERROR naming it, not a corrupt chunk", async () => {
  const url = "data:text/javascript,export const nothing = 1;";
  registerStoreKind("test-no-opener", url);
  const dir = scratchDir();
  const inner = new DirStore(join(dir, "b.zarr"), join(dir, "log"));
  const store = { get: (key: string) => inner.get(key), set: (key: string, v: Uint8Array) => (inner as unknown as { set(k: string, v: Uint8Array): Promise<void> }).set(key, v), descriptor: () => ({ kind: "test-no-opener" }) };
  const a = await createArray(store, { shape: [20, 20], chunks: [5, 5], dtype: "int32", fillValue: 0 });
  await a.set(null, 3, { threads: 0 });
  await assert.rejects(a.get(null, { pool, threads: 2 }), (e: unknown) => hasCode("STORE_ERROR")(e) && String((e as Error).message).includes("test-no-opener"));
});
