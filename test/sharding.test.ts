/**
 * sharding_indexed: shards parzarr writes read back exactly (index at the start and at the end,
 * nested shards, empty inner chunks), partial reads fetch only the index and the inner
 * chunks they need, and damaged shards fail with a CorruptChunkError naming the key.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as zarrita from "zarrita";
import ZarritaFileSystemStore from "@zarrita/storage/fs";
import {
  CorruptChunkError,
  FileSystemStore,
  InvalidMetadataError,
  MemoryStore,
  UnsupportedError,
  ZipStore,
  createArray,
  openArray,
  registerCodec,
  slice,
  type NDArray,
  type RangeRequest,
  type ReadableStore,
} from "../src/index.js";
import { crc32c } from "../src/codecs/crc32c.js";
import { coalesceRanges } from "../src/stores/ranges.js";
import { FIXTURES, assertValues, loadManifest } from "./helpers/manifest.js";
import { scratchDir } from "./helpers/paths.js";
import { ForwardingStore } from "./helpers/forwarding-store.js";

/** A memory store that records every get and getRange, to check what partial reads fetch. */
class CountingStore extends ForwardingStore<MemoryStore> {
  calls: string[] = [];
  constructor() {
    super(new MemoryStore());
  }
  override get(key: string) {
    this.calls.push(`get ${key}`);
    return super.get(key);
  }
  override getRange(key: string, range: RangeRequest) {
    this.calls.push(`range ${key} ${range.offset}${range.length === undefined ? "" : `+${range.length}`}`);
    return super.getRange(key, range);
  }
  /** The calls for chunk keys since the last take (metadata reads left out). */
  take(): string[] {
    const out = this.calls.filter((c) => !c.endsWith("zarr.json"));
    this.calls = [];
    return out;
  }
}

/** Values for a 2-d array: distinct, with runs of the fill value 0 so some inner chunks are empty. */
function pattern(rows: number, cols: number, emptyBlock?: [number, number, number, number]): Int32Array {
  const out = new Int32Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const inEmpty = emptyBlock && i >= emptyBlock[0] && i < emptyBlock[1] && j >= emptyBlock[2] && j < emptyBlock[3];
      out[i * cols + j] = inEmpty ? 0 : i * 1000 + j + 1;
    }
  }
  return out;
}

/** The C-order values of rows r0:r1:rs and columns c0:c1:cs of a row-major matrix. */
function pick(src: Int32Array, cols: number, r: [number, number, number], c: [number, number, number]): number[] {
  const out: number[] = [];
  for (let i = r[0]; i < r[1]; i += r[2]) for (let j = c[0]; j < c[1]; j += c[2]) out.push(src[i * cols + j]);
  return out;
}

/** Offsets and lengths of a bytes+crc32c shard index (uint64 pairs, little-endian), checked. */
function rawIndex(bytes: Uint8Array, n: number, at: "start" | "end"): bigint[][] {
  const size = 16 * n + 4;
  const start = at === "start" ? 0 : bytes.length - size;
  const body = bytes.subarray(start, start + size - 4);
  const dv = new DataView(bytes.buffer, bytes.byteOffset + start, size);
  assert.equal(dv.getUint32(size - 4, true), crc32c(body), "index checksum");
  return Array.from({ length: n }, (_, i) => [dv.getBigUint64(16 * i, true), dv.getBigUint64(16 * i + 8, true)]);
}

const EMPTY = 2n ** 64n - 1n;
const BYTES_LE = { name: "bytes", configuration: { endian: "little" } };

describe("sharding_indexed", () => {
  test("createArray({ shards }) makes a sharding codec around the chain, as zarr-python 3 does", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, {
      shape: [20, 30],
      chunks: [5, 5],
      shards: [10, 15],
      dtype: "float32",
      codecs: [BYTES_LE, { name: "gzip", configuration: { level: 1 } }],
    });
    assert.deepEqual(a.chunks, [5, 5]);
    assert.deepEqual(a.shards, [10, 15]);
    const doc = JSON.parse(new TextDecoder().decode(await store.get("zarr.json")));
    assert.deepEqual(doc.chunk_grid.configuration.chunk_shape, [10, 15]);
    assert.deepEqual(doc.codecs, [
      {
        name: "sharding_indexed",
        configuration: {
          chunk_shape: [5, 5],
          codecs: [BYTES_LE, { name: "gzip", configuration: { level: 1 } }],
          index_codecs: [BYTES_LE, { name: "crc32c", configuration: {} }],
          index_location: "end",
        },
      },
    ]);
    const plain = await createArray(new MemoryStore(), { shape: [4], chunks: [2], dtype: "int8" });
    assert.equal(plain.shards, null);
    assert.deepEqual(plain.chunks, [2]);
    await assert.rejects(createArray(new MemoryStore(), { shape: [20], chunks: [6], shards: [10], dtype: "int8" }), (e: unknown) => {
      assert.ok(e instanceof InvalidMetadataError);
      assert.match(e.message, /multiple of the inner chunk shape/);
      return true;
    });
    await assert.rejects(createArray(new MemoryStore(), { shape: [20], chunks: [5], shards: [10], dtype: "int8", zarrFormat: 2 }), InvalidMetadataError);
    const gzipIndex = { name: "sharding_indexed", configuration: { chunk_shape: [5], codecs: ["bytes"], index_codecs: [BYTES_LE, { name: "gzip" }] } };
    await assert.rejects(createArray(new MemoryStore(), { shape: [20], chunks: [10], dtype: "int8", codecs: [gzipIndex] }), (e: unknown) => {
      assert.ok(e instanceof UnsupportedError);
      assert.match(e.message, /fixed-size codecs.*"gzip"/);
      return true;
    });
  });

  for (const location of ["start", "end"] as const) {
    test(`index at the ${location}: whole and partial reads give back what was written`, async () => {
      const store = new MemoryStore();
      const a = await createArray(store, {
        shape: [23, 31],
        chunks: [3, 4],
        shards: [6, 8],
        dtype: "int32",
        shardIndexLocation: location,
        codecs: [BYTES_LE, { name: "zstd", configuration: { level: 1, checksum: false } }],
      });
      const data = pattern(23, 31, [0, 6, 0, 4]);
      await a.set(null, { data, shape: [23, 31] });
      assert.deepEqual(Array.from(((await a.get()) as NDArray).data as Int32Array), Array.from(data));
      const cases: [[number, number, number], [number, number, number]][] = [
        [[2, 9, 1], [4, 13, 2]],
        [[0, 23, 5], [30, 31, 1]],
        [[7, 8, 1], [0, 31, 3]],
        [[18, 23, 1], [24, 31, 1]], // the ragged corner shard
      ];
      for (const [r, c] of cases) {
        const got = (await a.get([slice(r[0], r[1], r[2]), slice(c[0], c[1], c[2])])) as NDArray;
        assert.deepEqual(Array.from(got.data as Int32Array), pick(data, 31, r, c), `rows ${r} cols ${c}`);
      }
      assert.equal(await a.get([11, 17]), data[11 * 31 + 17]);
      // The all-zero block [0:6, 0:4] is inner chunks 0 and 2 of shard 0/0: left out of it.
      const index = rawIndex((await store.get("c/0/0"))!, 4, location);
      assert.deepEqual([index[0], index[2]], [[EMPTY, EMPTY], [EMPTY, EMPTY]]);
      const stored = [index[1], index[3]];
      assert.ok(stored.every(([o, l]) => o !== EMPTY && l > 0n));
      if (location === "start") assert.ok(stored.every(([o]) => o >= 16n * 4n + 4n), "data after the index");
    });
  }

  test("the shard layout follows the spec: inner chunks at the offsets the index gives, in C order bytes", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [4, 4], chunks: [2, 2], shards: [4, 4], dtype: "uint16", shardIndexLocation: "start", codecs: [BYTES_LE] });
    const data = new Uint16Array(16).map((_, i) => 100 + i);
    await a.set(null, { data, shape: [4, 4] });
    const shard = (await store.get("c/0/0"))!;
    const index = rawIndex(shard, 4, "start");
    for (let k = 0; k < 4; k++) {
      const [off, len] = index[k].map(Number);
      assert.equal(len, 8);
      const dv = new DataView(shard.buffer, shard.byteOffset + off, len);
      const r0 = Math.floor(k / 2) * 2;
      const c0 = (k % 2) * 2;
      const want = [data[r0 * 4 + c0], data[r0 * 4 + c0 + 1], data[(r0 + 1) * 4 + c0], data[(r0 + 1) * 4 + c0 + 1]];
      assert.deepEqual([0, 1, 2, 3].map((i) => dv.getUint16(2 * i, true)), want, `inner chunk ${k}`);
    }
  });

  test("a shard whose values all equal the fill value is deleted; a partial write keeps the other inner chunks", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [8, 8], chunks: [2, 2], shards: [4, 4], dtype: "float64", fillValue: -1 });
    await a.set(null, 5);
    assert.deepEqual(await store.list("c/"), ["c/0/0", "c/0/1", "c/1/0", "c/1/1"]);
    await a.set([slice(0, 4), slice(0, 4)], -1);
    assert.equal(await store.has("c/0/0"), false);
    await a.set([slice(4, 6), slice(4, 6)], -1); // one inner chunk of shard 1/1 becomes empty
    const index = rawIndex((await store.get("c/1/1"))!, 4, "end");
    assert.deepEqual(index[0], [EMPTY, EMPTY]);
    assert.ok(index.slice(1).every(([o]) => o !== EMPTY));
    await a.set([5, 7], 9);
    const all = Array.from(((await a.get()) as NDArray).data as Float64Array);
    const want = Array.from({ length: 64 }, (_, i) => {
      const [r, c] = [Math.floor(i / 8), i % 8];
      if (r === 5 && c === 7) return 9;
      if ((r < 4 && c < 4) || (r >= 4 && r < 6 && c >= 4 && c < 6)) return -1;
      return 5;
    });
    assert.deepEqual(all, want);
  });

  test("nested sharding: shards of shards read back whole and in part", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, {
      shape: [16, 12],
      chunks: [8, 6],
      dtype: "int32",
      codecs: [
        {
          name: "sharding_indexed",
          configuration: {
            chunk_shape: [4, 3],
            codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [2, 3], codecs: [BYTES_LE, { name: "gzip", configuration: { level: 1 } }] } }],
            index_codecs: [BYTES_LE, { name: "crc32c" }],
            index_location: "start",
          },
        },
      ],
    });
    const data = pattern(16, 12, [8, 16, 0, 6]);
    await a.set(null, { data, shape: [16, 12] });
    const again = await openArray(store, { mode: "r" });
    assert.deepEqual(Array.from(((await again.get()) as NDArray).data as Int32Array), Array.from(data));
    const part = (await again.get([slice(1, 7, 2), slice(2, 11)])) as NDArray;
    assert.deepEqual(Array.from(part.data as Int32Array), pick(data, 12, [1, 7, 2], [2, 11, 1]));
    assert.equal(await store.has("c/1/0"), false, "the all-fill shard is not stored");
  });

  test("partial reads: the index (afresh each read), inner chunks by coalesced ranges", async () => {
    const store = new CountingStore();
    // 8 x 8 inner chunks of 64 x 64 int32 = 16 KiB each, stored in C order, uncompressed.
    const a = await createArray(store, { shape: [512, 512], chunks: [64, 64], shards: [512, 512], dtype: "int32", codecs: [BYTES_LE] });
    const data = pattern(512, 512);
    await a.set(null, { data, shape: [512, 512] });
    const reader = await openArray(store, { mode: "r" });
    store.take();
    const K16 = 16 * 1024;
    const indexSize = 64 * 16 + 4;
    const read = async (r: [number, number, number], c: [number, number, number]): Promise<string[]> => {
      const got = (await reader.get([slice(...r), slice(...c)])) as NDArray;
      assert.deepEqual(Array.from(got.data as Int32Array), pick(data, 512, r, c), `rows ${r} cols ${c}`);
      return store.take();
    };
    // First read: the index (a suffix request), then inner chunk 0.
    assert.deepEqual(await read([0, 10, 1], [0, 10, 1]), [`range c/0/0 -${indexSize}`, `range c/0/0 0+${K16}`]);
    // No index outlives its read (another process may rewrite the shard): each read fetches it.
    const index = `range c/0/0 -${indexSize}`;
    // Inner chunks 0 and 1 are adjacent: one request.
    assert.deepEqual(await read([0, 1, 1], [0, 128, 1]), [index, `range c/0/0 0+${2 * K16}`]);
    // Inner chunks 0 and 5: a gap of 4 x 16 KiB = 64 KiB, at the threshold: still one request.
    assert.deepEqual(await read([0, 1, 1], [0, 321, 320]), [index, `range c/0/0 0+${6 * K16}`]);
    // Inner chunks 0 and 6: an 80 KiB gap, two requests.
    assert.deepEqual(await read([0, 1, 1], [0, 385, 384]), [index, `range c/0/0 0+${K16}`, `range c/0/0 ${6 * K16}+${K16}`]);
    // Inner chunks (0,0), (0,7), (1,0), (1,7) lie at 0, 7, 8 and 15 x 16 KiB: three requests, the
    // middle one covering the two adjacent inner chunks.
    assert.deepEqual(await read([0, 65, 64], [0, 449, 448]), [
      index,
      `range c/0/0 0+${K16}`,
      `range c/0/0 ${7 * K16}+${2 * K16}`,
      `range c/0/0 ${15 * K16}+${K16}`,
    ]);
    // A whole-shard read is one get.
    await reader.get();
    assert.deepEqual(store.take(), ["get c/0/0"]);
    // After a write, the next partial read sees the new layout.
    await a.set([3, 3], -7);
    store.take();
    assert.equal(await reader.get([3, 3]), -7);
    assert.deepEqual(store.take(), [`range c/0/0 -${indexSize}`, `range c/0/0 0+${K16}`]);
  });

  test("coalesceRanges merges ranges whose gap is at most the threshold, whatever their order", () => {
    const got = coalesceRanges(
      [
        { offset: 300, length: 10 },
        { offset: 0, length: 100 },
        { offset: 150, length: 50 },
        { offset: 100, length: 10 },
      ],
      50,
    );
    assert.deepEqual(got, [
      { offset: 0, length: 200, members: [1, 3, 2] },
      { offset: 300, length: 10, members: [0] },
    ]);
  });

  test("a damaged shard gives a CorruptChunkError that names its key, in whole and partial reads", async () => {
    const named = (e: unknown, why?: RegExp) => {
      assert.ok(e instanceof CorruptChunkError, `expected CorruptChunkError, got ${String(e)}`);
      assert.match(e.message, /chunk "c\/0\/0"/);
      if (why) assert.match(e.message, why);
      return true;
    };
    for (const location of ["start", "end"] as const) {
      /** A fresh array whose only shard is replaced by `damage` of its good bytes. */
      const damaged = async (damage: (good: Uint8Array) => Uint8Array) => {
        const store = new MemoryStore();
        const a = await createArray(store, { shape: [8, 8], chunks: [4, 4], shards: [8, 8], dtype: "int16", shardIndexLocation: location, codecs: [BYTES_LE] });
        await a.set(null, { data: new Int16Array(64).map((_, i) => i + 1), shape: [8, 8] });
        await store.set("c/0/0", damage((await store.get("c/0/0"))!));
        return openArray(store, { mode: "r" });
      };
      // A flipped bit in the index fails its checksum.
      const flipped = await damaged((good) => {
        const b = new Uint8Array(good);
        b[location === "start" ? 3 : good.length - 10] ^= 4;
        return b;
      });
      await assert.rejects(flipped.get(), (e) => named(e, /checksum/));
      await assert.rejects(flipped.get([slice(0, 2), slice(0, 2)]), (e) => named(e, /checksum/));
      // A shard cut short: with the index at the start, the index survives and names bytes past the end.
      const cut = (good: Uint8Array) => good.subarray(0, good.length - 20);
      await assert.rejects((await damaged(cut)).get(), (e) => named(e, location === "start" ? /outside the bytes/ : /checksum/));
      await assert.rejects((await damaged(cut)).get([slice(5, 6), slice(5, 6)]), (e) => named(e, location === "start" ? /outside the bytes/ : /checksum/));
      // Shorter than its own index.
      const stub = await damaged((good) => good.subarray(0, 10));
      await assert.rejects(stub.get([slice(0, 1), slice(0, 1)]), (e) => named(e, /too short to hold its/));
      await assert.rejects(stub.get(), (e) => named(e, /too short to hold its/));
    }
  });

  test("the zarrs fixture (inner chunks out of order) reads in part as its manifest says", async () => {
    const dir = join(FIXTURES, "zarrs");
    const entry = loadManifest(dir).find((e) => e.path === "sharded_array_write_read.zarr/group/array")!;
    const arr = await openArray(new FileSystemStore(dir, { readOnly: true }), { path: entry.path, mode: "r" });
    assert.deepEqual(arr.chunks, [4, 4]);
    assert.deepEqual(arr.shards, [4, 8]);
    const values = entry.values as number[];
    const got = (await arr.get([slice(1, 7), slice(3, 6)])) as NDArray;
    assert.deepEqual(Array.from(got.data as Uint16Array), pick(Int32Array.from(values), 8, [1, 7, 1], [3, 6, 1]));
    assertValues(arr, await arr.get(), entry);
  });

  test("zarrita reads the sharded arrays parzarr writes (index at the end, gzip and crc32c inside)", async () => {
    const dir = scratchDir();
    for (const dtype of ["int16", "float32", "uint8"] as const) {
      const a = await createArray(dir, {
        path: dtype,
        shape: [13, 17],
        chunks: [3, 4],
        shards: [6, 8],
        dtype,
        fillValue: 0,
        codecs: [dtype === "uint8" ? { name: "bytes" } : BYTES_LE, { name: "gzip", configuration: { level: 1 } }, { name: "crc32c" }],
      });
      const n = 13 * 17;
      const values = Array.from({ length: n }, (_, i) => (i % 5 === 0 || (i > 30 && i < 60) ? 0 : (i * 7) % 200));
      await a.set(null, { data: values as never, shape: [13, 17] });
      await a.set("6:12, 8:16", 0); // a whole shard of fill: not stored
      const mine = Array.from(((await a.get()) as NDArray).data as ArrayLike<number>);
      const arr = await zarrita.open(zarrita.root(new ZarritaFileSystemStore(dir)).resolve(dtype), { kind: "array" });
      const theirs = await zarrita.get(arr);
      assert.deepEqual(theirs.shape, [13, 17]);
      const flat: number[] = [];
      for (let i = 0; i < 13; i++) for (let j = 0; j < 17; j++) flat.push(Number((theirs.data as ArrayLike<number>)[i * theirs.stride[0] + j * theirs.stride[1]]));
      assert.deepEqual(flat, mine, dtype);
      assert.ok(mine.some((v) => v !== 0));
    }
  });
});

describe("sharding_indexed partial writes", () => {
  // A pass-through bytes->bytes codec that counts encodes, to see which inner chunks a write re-encodes.
  let encodes = 0;
  registerCodec("test.count-encodes", () => ({
    codec: {
      kind: "bytes_to_bytes",
      name: "test.count-encodes",
      encode: (b: Uint8Array) => {
        encodes++;
        return b;
      },
      decode: (b: Uint8Array) => b,
    },
    configuration: {},
  }));

  test("a partial write re-encodes only the inner chunks it touches and keeps the others' bytes", async () => {
    const store = new MemoryStore();
    const a = await createArray(store, {
      shape: [8, 12],
      chunks: [4, 4],
      shards: [8, 12],
      dtype: "int32",
      codecs: [BYTES_LE, { name: "test.count-encodes" }],
    });
    const data = pattern(8, 12);
    await a.set(null, { data, shape: [8, 12] });
    assert.equal(encodes, 6, "a whole-shard write encodes every inner chunk");
    const before = (await store.get("c/0/0"))!;
    encodes = 0;
    await a.set([slice(1, 6), 6], -5); // inner chunks (0,1) and (1,1)
    assert.equal(encodes, 2);
    for (let i = 1; i < 6; i++) data[i * 12 + 6] = -5;
    assert.deepEqual(Array.from(((await a.get()) as NDArray).data as Int32Array), Array.from(data));
    const after = (await store.get("c/0/0"))!;
    const [oldIx, newIx] = [rawIndex(before, 6, "end"), rawIndex(after, 6, "end")];
    for (const k of [0, 2, 3, 5]) {
      const slab = (b: Uint8Array, [o, l]: bigint[]) => Array.from(b.subarray(Number(o), Number(o + l)));
      assert.deepEqual(slab(after, newIx[k]), slab(before, oldIx[k]), `inner chunk ${k} kept its bytes`);
    }
    // Writing the fill value over a whole inner chunk empties it without re-encoding anything.
    encodes = 0;
    await a.set([slice(4, 8), slice(8, 12)], 0);
    assert.equal(encodes, 0);
    assert.deepEqual(rawIndex((await store.get("c/0/0"))!, 6, "end")[5], [EMPTY, EMPTY]);
  });
});

test("a shard rewritten behind parzarr's back is read through a fresh index, not the stale cached one", async () => {
  const dir = scratchDir();
  const make = async (path: string, offset: number) => {
    const a = await createArray(join(dir, path), { shape: [16, 16], chunks: [4, 4], shards: [16, 16], dtype: "int32", codecs: [BYTES_LE, { name: "gzip", configuration: { level: 1 } }] });
    const data = pattern(16, 16).map((v, i) => (i % 3 === 0 ? 0 : v + offset)); // uneven inner chunk sizes
    await a.set(null, { data, shape: [16, 16] });
    return data;
  };
  await make("a", 0);
  const other = await make("b", 12345);
  const reader = await openArray(join(dir, "a"), { mode: "r" });
  await reader.get([slice(0, 2), slice(0, 2)]); // caches the index of a/c/0/0
  // Another process replaces the shard: parzarr in this process never hears of it.
  writeFileSync(join(dir, "a", "c", "0", "0"), readFileSync(join(dir, "b", "c", "0", "0")));
  const got = (await reader.get([slice(9, 14), slice(5, 11)])) as NDArray;
  assert.deepEqual(Array.from(got.data as Int32Array), pick(other, 16, [9, 14, 1], [5, 11, 1]));
});

test("a sharded array in a zip archive reads in part through ranged reads of its stored members", async () => {
  const path = join(scratchDir(), "sharded.zip");
  const w = new ZipStore(path, { mode: "w" });
  const a = await createArray(w, { shape: [40, 40], chunks: [5, 5], shards: [20, 20], dtype: "uint16", codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }] });
  const data = Uint16Array.from({ length: 1600 }, (_, i) => (i * 7919) % 65536);
  await a.set(null, { data, shape: [40, 40] });
  await w.close();
  const r = new ZipStore(path);
  let ranges = 0;
  let gets = 0;
  const counted: ReadableStore = {
    readOnly: true,
    getRange: (key, range) => (ranges++, r.getRange(key, range)),
    get: (key) => (gets++, r.get(key)),
    has: (key) => r.has(key),
    list: (prefix) => r.list(prefix),
    listDir: (prefix) => r.listDir(prefix),
    descriptor: () => r.descriptor(),
  };
  const b = await openArray(counted, { mode: "r" });
  gets = 0;
  const got = (await b.get([slice(21, 24), slice(3, 9)])) as NDArray;
  assert.deepEqual(Array.from(got.data as Uint16Array), pick(Int32Array.from(data), 40, [21, 24, 1], [3, 9, 1]));
  assert.deepEqual([gets, ranges], [0, 2], "the index, then both inner chunks in one coalesced range");
  await r.close();
});
