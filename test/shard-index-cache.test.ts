/**
 * Shard indexes and other writers: a partial read of a shard never reads through an index that
 * another process (or a handle this process knows nothing of) has made stale, and an index that
 * does not fit its shard is corrupt data, never values. Shards with huge indexes: a missing
 * shard reads as fill without building an index, a present one is refused before allocating.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  CorruptChunkError,
  FetchStore,
  FileSystemStore,
  MemoryStore,
  TooLargeError,
  createArray,
  openArray,
  slice,
  type NDArray,
  type RangeRequest,
} from "../src/index.js";
import { crc32c } from "../src/codecs/crc32c.js";
import { scratchDir } from "./helpers/paths.js";
import { ForwardingStore } from "./helpers/forwarding-store.js";

const WRITER = new URL("./helpers/shard-writer.ts", import.meta.url).pathname;
const BYTES_LE = { name: "bytes", configuration: { endian: "little" } };
const INLINE = { threads: 0 };

/** The layout: shard [8] of inner chunks [2], raw int8 bytes, fill value 0. */
const LAYOUT = { shape: [8], chunks: [2], shards: [8], dtype: "int8", fillValue: 0, codecs: [BYTES_LE] } as const;
const BEFORE = [1, 2, 3, 4, 5, 6, 7, 8];
// Inner chunks 0 and 1 become empty: chunks 2 and 3 move to offsets 0 and 2, the index to 4.
const AFTER = [0, 0, 0, 0, 5, 5, 6, 6];

function runWriter(root: string, values: number[]): Promise<void> {
  const child = spawn(process.execPath, ["--import", "tsx", WRITER, root, JSON.stringify(values)], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (b: Buffer) => (stderr += b.toString()));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`writer exited with ${code}: ${stderr}`))));
  });
}

/** The encoded shard of `values` in the LAYOUT, as any other writer would store it. */
async function shardBytes(values: number[], shardIndexLocation: "start" | "end" = "end"): Promise<Uint8Array> {
  const store = new MemoryStore();
  const a = await createArray(store, { ...LAYOUT, shardIndexLocation });
  await a.set(null, { data: Int8Array.from(values), shape: [8] });
  return (await store.get("c/0"))!;
}

/** Elements 2 and 6, each by its own partial read (one inner chunk of the shard). */
async function twoElements(a: Awaited<ReturnType<typeof openArray>>): Promise<number[]> {
  return [Number(await a.get([2], INLINE)), Number(await a.get([6], INLINE))];
}

describe("shard indexes against other writers", () => {
  test("a partial read after another process rewrote the shard reads the new values", async () => {
    const root = join(scratchDir(), "a.zarr");
    const w = await createArray(root, LAYOUT);
    await w.set(null, { data: Int8Array.from(BEFORE), shape: [8] });
    const reader = await openArray(root, { mode: "r" });
    assert.deepEqual(await twoElements(reader), [3, 7]);
    await runWriter(root, AFTER);
    assert.deepEqual(await twoElements(reader), [0, 6], "the handle that read before the write");
    assert.deepEqual(await twoElements(await openArray(root, { mode: "r" })), [0, 6], "a handle opened after the write");
  });

  test("a partial read after a write this process never saw (a second handle, the store itself) reads the new values", async () => {
    const dir = scratchDir();
    const store = new FileSystemStore(dir);
    const w = await createArray(store, LAYOUT);
    await w.set(null, { data: Int8Array.from(BEFORE), shape: [8] });
    const first = await openArray(new FileSystemStore(dir), { mode: "r" });
    assert.deepEqual(await twoElements(first), [3, 7]);
    // Stored by the store alone: no parzarr write path runs, as with any other program.
    await store.set("c/0", await shardBytes(AFTER));
    assert.deepEqual(await twoElements(await openArray(new FileSystemStore(dir), { mode: "r" })), [0, 6], "a second handle");
    assert.deepEqual(await twoElements(first), [0, 6], "the first handle");
    await store.set("c/0", await shardBytes(BEFORE));
    assert.deepEqual(await twoElements(first), [3, 7], "and back");
  });

  test("an index kept from an earlier read is used only for ranges of the version it came from", async () => {
    /** A memory store (it reports versions) that counts range reads. */
    class Counting extends MemoryStore {
      ranges = 0;
      override async getRange(key: string, range: RangeRequest) {
        this.ranges++;
        return super.getRange(key, range);
      }
      override async getRangeVersioned(key: string, range: RangeRequest) {
        this.ranges++;
        return super.getRangeVersioned(key, range);
      }
    }
    const store = new Counting();
    const a = await createArray(store, LAYOUT);
    await a.set(null, { data: Int8Array.from(BEFORE), shape: [8] });
    const reader = await openArray(store, { mode: "r" });
    const read = async (i: number): Promise<[number, number]> => {
      store.ranges = 0;
      const v = Number(await reader.get([i], INLINE));
      return [v, store.ranges];
    };
    assert.deepEqual(await read(2), [3, 2], "the index, then the inner chunk");
    assert.deepEqual(await read(6), [7, 1], "the inner chunk alone, from the index's version");
    await store.set("c/0", await shardBytes(AFTER)); // another writer: nothing in parzarr hears of it
    assert.deepEqual(await read(6), [6, 3], "a range of another version, then a fresh index and the inner chunk");
    assert.deepEqual(await read(4), [5, 1], "the fresh index, kept");
    // An empty inner chunk reads no range through which a kept index could be checked.
    await store.set("c/0", await shardBytes(BEFORE));
    assert.deepEqual(await read(2), [3, 2], "an empty inner chunk in the kept index: a fresh index");
  });

  test("a shard rewritten between its index and its inner chunks is read again, whole, from one version", async () => {
    /** A store that, once a range has been read, has the shard rewritten by someone else. */
    class RewrittenAfterIndex extends MemoryStore {
      next: Uint8Array | undefined;
      private after(key: string): Promise<void> {
        const next = this.next;
        this.next = undefined;
        return next ? super.set(key, next) : Promise.resolve();
      }
      override async getRange(key: string, range: RangeRequest) {
        const got = await super.getRange(key, range);
        await this.after(key);
        return got;
      }
      override async getRangeVersioned(key: string, range: RangeRequest) {
        const got = await super.getRangeVersioned(key, range);
        await this.after(key);
        return got;
      }
    }
    for (const location of ["start", "end"] as const) {
      const store = new RewrittenAfterIndex();
      const a = await createArray(store, { ...LAYOUT, shardIndexLocation: location });
      await a.set(null, { data: Int8Array.from(BEFORE), shape: [8] });
      store.next = await shardBytes(AFTER, location);
      assert.equal(await a.get([6], INLINE), 6, location);
    }
  });

  test("index entries that overlap the index or run past the shard are corrupt, never values", async () => {
    for (const location of ["start", "end"] as const) {
      const store = new MemoryStore();
      const a = await createArray(store, { ...LAYOUT, shardIndexLocation: location });
      await a.set(null, { data: Int8Array.from(BEFORE), shape: [8] });
      const indexSize = 4 * 16 + 4;
      const good = (await store.get("c/0"))!;
      const indexAt = location === "start" ? 0 : good.length - indexSize;
      /** The good shard with inner chunk 3's entry pointing at `offset`, the checksum redone. */
      const pointing = (offset: number): Uint8Array => {
        const b = new Uint8Array(good);
        const dv = new DataView(b.buffer, indexAt, indexSize);
        dv.setBigUint64(16 * 3, BigInt(offset), true);
        dv.setUint32(indexSize - 4, crc32c(b.subarray(indexAt, indexAt + indexSize - 4)), true);
        return b;
      };
      for (const [what, offset] of [
        ["into the index", location === "start" ? 0 : indexAt],
        ["past the end", good.length - 1],
      ] as const) {
        await store.set("c/0", pointing(offset));
        const r = await openArray(store, { mode: "r" });
        const corrupt = (e: unknown) => e instanceof CorruptChunkError || assert.fail(`${location}, ${what}: ${String(e)}`);
        await assert.rejects(r.get([6], INLINE), corrupt, `${location}, ${what}: partial read`);
        await assert.rejects(r.get(null, INLINE), corrupt, `${location}, ${what}: whole read`);
      }
    }
  });
});

/**
 * An HTTP server on 127.0.0.1 of the keys of a store, with an ETag per write and Range answered
 * by 206 and Content-Range; `afterRange` runs once, after the next range has been answered.
 */
async function rangeServer(source: MemoryStore) {
  const files = new Map<string, { body: Uint8Array; etag: string }>();
  let writes = 0;
  const put = (key: string, body: Uint8Array) => files.set(`/${key}`, { body, etag: `"w${++writes}"` });
  for (const key of await source.list("")) put(key, (await source.get(key))!);
  const state = { afterRange: undefined as (() => void) | undefined };
  const server = createServer((req, res) => {
    const f = files.get(new URL(req.url ?? "/", "http://x").pathname);
    if (!f) return void res.writeHead(404).end();
    const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    if (!m) return void res.writeHead(200, { ETag: f.etag }).end(f.body);
    const n = f.body.length;
    const start = m[1] === "" ? Math.max(0, n - Number(m[2])) : Number(m[1]);
    const end = m[1] === "" || m[2] === "" ? n - 1 : Math.min(n - 1, Number(m[2]));
    res.writeHead(206, { ETag: f.etag, "Content-Range": `bytes ${start}-${end}/${n}` }).end(f.body.subarray(start, end + 1));
    const hook = state.afterRange;
    state.afterRange = undefined;
    hook?.();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, put, state, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe("shard indexes over HTTP (ETag and Content-Range versions)", () => {
  test("a kept index is checked by the ETag; a shard rewritten between index and inner chunk is read again", async () => {
    const source = new MemoryStore();
    const w = await createArray(source, LAYOUT);
    await w.set(null, { data: Int8Array.from(BEFORE), shape: [8] });
    const server = await rangeServer(source);
    try {
      const a = await openArray(new FetchStore(server.base), { mode: "r" });
      const after = await shardBytes(AFTER);
      server.state.afterRange = () => server.put("c/0", after);
      assert.equal(await a.get([6], INLINE), 6, "rewritten between the index and the inner chunk");
      assert.deepEqual(await twoElements(a), [0, 6]);
      server.put("c/0", await shardBytes(BEFORE));
      assert.deepEqual(await twoElements(a), [3, 7], "after another writer");
    } finally {
      await server.close();
    }
  });
});

/** A memory store that records the ranges read and their sizes. */
class RangeLog extends ForwardingStore<MemoryStore> {
  ranges: RangeRequest[] = [];
  constructor() {
    super(new MemoryStore());
  }
  override getRange(key: string, range: RangeRequest) {
    this.ranges.push(range);
    return super.getRange(key, range);
  }
}

describe("shards of 2^26 one-byte inner chunks (a 1 GiB index)", () => {
  const HUGE = { shape: [2 ** 26], chunks: [1], shards: [2 ** 26], dtype: "uint8", fillValue: 7, codecs: [BYTES_LE] } as const;

  test("a missing shard reads as the fill value without building its index", { timeout: 60_000 }, async () => {
    const store = new RangeLog();
    const a = await createArray(store, HUGE);
    global.gc?.();
    const before = process.memoryUsage();
    assert.equal(await a.get([12345], INLINE), 7);
    assert.deepEqual(Array.from(((await a.get([slice(5, 9)], INLINE)) as NDArray).data as Uint8Array), [7, 7, 7, 7]);
    const after = process.memoryUsage();
    const grown = Math.max(after.rss - before.rss, after.arrayBuffers - before.arrayBuffers);
    assert.ok(grown < 128 * 2 ** 20, `memory grew by ${grown} bytes`);
  });

  test("a present shard is refused with TOO_LARGE before its index is read or allocated", { timeout: 60_000 }, async () => {
    const store = new RangeLog();
    const a = await createArray(store, HUGE);
    // Any bytes will do: the shard's size is all that should be looked at.
    await store.set("c/0", new Uint8Array(64));
    global.gc?.();
    const before = process.memoryUsage();
    await assert.rejects(a.get([12345], INLINE), (e: unknown) => e instanceof TooLargeError && /index/.test(e.message));
    const after = process.memoryUsage();
    const grown = Math.max(after.rss - before.rss, after.arrayBuffers - before.arrayBuffers);
    assert.ok(grown < 128 * 2 ** 20, `memory grew by ${grown} bytes`);
    assert.ok(store.ranges.every((r) => (r.length ?? Infinity) <= 1), `ranges read: ${JSON.stringify(store.ranges)}`);
  });
});
