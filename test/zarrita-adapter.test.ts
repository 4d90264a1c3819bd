/**
 * `parzarr/zarrita` (issue 28 item 2): `get` and `set` on a zarrita Array, run on parzarr's pool,
 * against zarrita's own `zarr.get` and `zarr.set` on random selections (seeded: a failure names
 * its seed and case). Arrays v2 and v3, several dtypes, sharded; zarrita opens them on a Map store
 * answering null, on @zarrita/storage's FileSystemStore and through its FetchStore over 127.0.0.1.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as zarr from "zarrita";
import ZarritaFileSystemStore from "@zarrita/storage/fs";
import { get, set } from "../src/zarrita.js";
import { createArray, slice, type CreateArrayOptions, type NumericTypeName } from "../src/index.js";
import { startStaticServer, type StaticServer } from "../src/cli/static-server.js";
import { recordingPool } from "./helpers/recording-pool.js";
import { randomData, rng } from "./helpers/random.js";
import { scratchDir } from "./helpers/paths.js";
import { elements, randomSelection } from "./helpers/zarrita-cases.js";
import { ZARRITA_README_SNIPPET, runSnippet } from "./helpers/readme-snippets.js";

const { pool, ran } = recordingPool();
const ON_POOL = { pool, threads: 2 };

/** The Icechunk-style store: a Map, `null` for a missing key, keys as zarrita gives them. */
function mapStore() {
  const files = new Map<string, Uint8Array>();
  const store = {
    files,
    get: async (key: string) => files.get(key) ?? null,
    set: async (key: string, value: Uint8Array) => void files.set(key, new Uint8Array(value)),
    delete: async (key: string) => files.delete(key),
    // zarrita reads sharded arrays only through getRange.
    getRange: async (key: string, range: { offset: number; length: number } | { suffixLength: number }) => {
      const b = files.get(key);
      if (!b) return null;
      return "suffixLength" in range ? b.slice(b.length - range.suffixLength) : b.slice(range.offset, range.offset + range.length);
    },
  };
  // zarrita's types say undefined for a missing key; this store answers null, as Icechunk's does.
  return store as typeof store & zarr.AsyncMutable;
}

/** JSON with bigints, for failure messages. */
const show = (v: unknown) => JSON.stringify(v, (_, x) => (typeof x === "bigint" ? `${x}n` : x));

const ZSTD: CreateArrayOptions["codecs"] = [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1, checksum: false } }];
const LAYOUTS: Record<string, { dtype: NumericTypeName; options: CreateArrayOptions }> = {
  "v2 float32 blosc": { dtype: "float32", options: { zarrFormat: 2, shape: [37, 29], chunks: [8, 7], dtype: "<f4", fillValue: 0, compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 } } },
  "v2 int16 zlib 3-d": { dtype: "int16", options: { zarrFormat: 2, shape: [9, 11, 6], chunks: [4, 3, 5], dtype: "<i2", fillValue: -7, compressor: { id: "zlib", level: 1 } } },
  "v2 uint8 raw": { dtype: "uint8", options: { zarrFormat: 2, shape: [50], chunks: [9], dtype: "|u1", fillValue: 3, compressor: null } },
  "v3 int64 zstd": { dtype: "int64", options: { shape: [23, 17], chunks: [5, 6], dtype: "int64", fillValue: 0, codecs: ZSTD } },
  "v3 float64 gzip": { dtype: "float64", options: { shape: [19, 24], chunks: [7, 8], dtype: "float64", fillValue: 0.5, codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }] } },
  "v3 bool": { dtype: "bool", options: { shape: [21, 13], chunks: [4, 5], dtype: "bool", fillValue: false, codecs: ZSTD } },
  "v3 uint16 sharded": {
    dtype: "uint16",
    options: { shape: [40, 30], chunks: [4, 7], shards: [16, 14], dtype: "uint16", fillValue: 9, codecs: ZSTD },
  },
  "v3 int32 sharded 3-d": { dtype: "int32", options: { shape: [10, 12, 9], chunks: [3, 4, 3], shards: [6, 8, 9], dtype: "int32", fillValue: -1, codecs: ZSTD } },
};

const VALUES = { half: 1000, bigScale: 3n ** 30n, floatDivisor: 8 };

/** What zarrita does, or the error code/name it throws. */
async function outcome<T>(f: () => Promise<T>): Promise<{ ok: T } | { error: string }> {
  try {
    return { ok: await f() };
  } catch (e) {
    return { error: (e as Error).name };
  }
}

async function makeArray(store: zarr.Mutable & object, layout: string | (typeof LAYOUTS)[string], seed: number) {
  const { dtype, options } = typeof layout === "string" ? LAYOUTS[layout] : layout;
  const a = await createArray(store as never, options);
  const r = rng(seed);
  // Rows from 1 on are written; the first row's chunks stay missing (the fill value).
  const written = [...options.shape];
  written[0] -= 1;
  const n = written.reduce((x, y) => x * y, 1);
  await a.set([slice(1, null)], { data: randomData(dtype, n, r, VALUES), shape: written }, { threads: 0 });
  return zarr.open(store, { kind: "array" });
}

for (const [name, layout] of Object.entries(LAYOUTS)) {
  test(`${name}: get equals zarr.get on random selections, on the pool`, async () => {
    const seed = 1 + name.length * 7919;
    const arr = await makeArray(mapStore(), name, seed);
    const r = rng(seed);
    let onPool = 0;
    for (let i = 0; i < 40; i++) {
      const sel = randomSelection(arr.shape, r, true);
      const where = `${name} seed ${seed} case ${i}: ${show(sel)}`;
      ran.length = 0;
      const want = await outcome(() => zarr.get(arr, sel));
      const got = await outcome(() => get(arr, sel, ON_POOL));
      if ("error" in want) {
        // zarrita refuses it: an index out of bounds, which parzarr refuses too, or an empty
        // slice (stop before start), which parzarr reads as an empty array, as numpy does.
        if ("ok" in got) assert.ok((got.ok as zarr.Chunk<zarr.DataType>).shape.includes(0), `${where}: zarrita threw ${want.error}, parzarr answered`);
        continue;
      }
      assert.ok("ok" in got, `${where}: ${show(got)}`);
      const [w, g] = [want.ok as unknown, got.ok as unknown];
      if (typeof w === "object" && w !== null) {
        const [wc, gc] = [w as zarr.Chunk<zarr.DataType>, g as zarr.Chunk<zarr.DataType>];
        assert.deepEqual(gc.shape, wc.shape, where);
        assert.deepEqual(gc.stride, wc.stride, where);
        assert.equal(gc.data.constructor, wc.data.constructor, `${where}: zarrita's array type`);
      } else {
        assert.equal(typeof g, typeof w, where);
      }
      assert.deepEqual(elements(g), elements(w), where);
      onPool += ran.length;
    }
    assert.ok(onPool > 0, "reads ran on the pool");
    assert.equal(
      ran.every((x) => x.outcome.status === "done"),
      true,
    );
  });

  test(`${name}: set equals zarr.set on random selections and values`, async () => {
    const seed = 3 + name.length * 104729;
    const arr = await makeArray(mapStore(), name, seed);
    // zarrita's twin holds the same values unsharded and uncompressed: zarrita writes no sharded
    // arrays, and its zlib and gzip encoders need Node's CompressionStream.
    const { shards: _s, compressor: _c, codecs: _k, ...plain } = layout.options;
    const twin = await makeArray(mapStore(), { dtype: layout.dtype, options: { ...plain, ...(plain.zarrFormat === 2 ? { compressor: null } : {}) } }, seed);
    const r = rng(seed);
    const values = rng(seed + 1);
    let onPool = 0;
    for (let i = 0; i < 25; i++) {
      const sel = randomSelection(arr.shape, r, true);
      const where = `${name} seed ${seed} case ${i}: ${show(sel)}`;
      // The value: a scalar, or an ndarray of the selection's shape (as zarr.get gives one).
      const region = await outcome(() => zarr.get(twin, sel));
      if ("error" in region) continue;
      let value: unknown;
      if (r(3) === 0 || typeof region.ok !== "object") {
        value = randomData(layout.dtype, 1, values, VALUES)[0];
        if (layout.dtype === "bool") value = value === 1;
      } else {
        const chunk = region.ok as zarr.Chunk<zarr.DataType>;
        const n = chunk.shape.reduce((x, y) => x * y, 1);
        const data = randomData(layout.dtype, n, values, VALUES);
        value = { data: layout.dtype === "bool" ? new zarr.BoolArray(data.buffer) : data, shape: chunk.shape, stride: chunk.stride };
      }
      ran.length = 0;
      await zarr.set(twin as never, sel, value as never);
      await set(arr, sel, value as never, ON_POOL);
      onPool += ran.filter((x) => x.message.task.kind === "write").length;
      // Read back by a new zarrita handle: zarrita keeps each shard's index for good, and would
      // read the inner chunks where they were before parzarr's write.
      const fresh = await zarr.open(arr.store, { kind: "array" });
      assert.deepEqual(elements(await zarr.get(fresh)), elements(await zarr.get(twin)), where);
    }
    assert.ok(onPool > 0, "writes ran on the pool");
  });
}

test("zarrita's stores: FileSystemStore and FetchStore over 127.0.0.1; a 0-d array reads as zarrita's scalar", async () => {
  const dir = scratchDir("parzarr-zarrita-adapter-");
  const fs = new ZarritaFileSystemStore(dir);
  const a = await createArray(fs as never, { ...LAYOUTS["v3 int64 zstd"].options, path: "a" });
  await a.set(null, { data: randomData("int64", 23 * 17, rng(5), VALUES), shape: [23, 17] });
  const scalar = await createArray(fs as never, { path: "s", shape: [], chunks: [], dtype: "float32", fillValue: 2.5, codecs: ZSTD });
  await scalar.set(null, 4.25);
  let server: StaticServer | undefined;
  try {
    server = await startStaticServer({ mounts: { "/": dir } });
    for (const store of [fs, new zarr.FetchStore(server.origin)]) {
      const arr = await zarr.open(zarr.root(store).resolve("a"), { kind: "array" });
      const sel = [zarr.slice(2, 21, 3), zarr.slice(null, null, 2)];
      const got = await get(arr, sel, ON_POOL);
      assert.deepEqual(elements(got), elements(await zarr.get(arr, sel)));
      assert.ok(got.data instanceof BigInt64Array);
      const s = await zarr.open(zarr.root(store).resolve("s"), { kind: "array" });
      assert.equal(await get(s), await zarr.get(s));
      assert.equal(await get(s), 4.25);
    }
    // A write through FileSystemStore, read back by zarrita.
    const arr = await zarr.open(zarr.root(fs).resolve("a"), { kind: "array" });
    await set(arr, [zarr.slice(0, 2), null], 5n, ON_POOL);
    assert.deepEqual(elements(await zarr.get(arr, [zarr.slice(0, 2), null])), Array(34).fill(5n));
  } finally {
    await server?.close();
  }
});

test("bad input: zarrita's own options and a read-only store are typed errors", async () => {
  const arr = await makeArray(mapStore(), "v2 uint8 raw", 2);
  await assert.rejects(get(arr, null, { useSharedArrayBuffer: true } as never), (e: unknown) => (e as { code?: string }).code === "INVALID_ARGUMENT");
  await assert.rejects(get(arr, [60]), (e: unknown) => (e as { code?: string }).code === "BAD_SELECTION");
  const store = mapStore();
  await makeArray(store, "v2 uint8 raw", 2);
  const readOnly = await zarr.open({ get: store.get } as zarr.AsyncReadable, { kind: "array" });
  await assert.rejects(set(readOnly as never, null, 1), (e: unknown) => (e as { code?: string }).code === "READ_ONLY");
});

test("README's parzarr/zarrita snippet runs as written and prints what its comment says", () => {
  const modules = { zarrita: import.meta.resolve("zarrita"), "parzarr/zarrita": new URL("../src/zarrita.ts", import.meta.url).href };
  const r = runSnippet(ZARRITA_README_SNIPPET, modules, scratchDir("parzarr-zarrita-readme-"));
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), "[ 512, 256 ] [ 256, 1 ] 1.5 0");
});

test("strings read as zarrita's: v2 '<U' as its UnicodeStringArray, v3 string as a list; a negative step reads backwards", async () => {
  const store = mapStore();
  const words = ["a", "bé", "ccc", "dddd", "", "fffff", "g"];
  const u = await createArray(store as never, { path: "u", zarrFormat: 2, shape: [7], chunks: [3], dtype: "<U5", compressor: null, fillValue: "" });
  await u.set(null, words);
  const v = await createArray(store as never, { path: "v", shape: [7], chunks: [3], dtype: "string" });
  await v.set(null, words);
  for (const path of ["u", "v"]) {
    const arr = await zarr.open(zarr.root(store).resolve(path), { kind: "array" });
    const [want, got] = [await zarr.get(arr, [zarr.slice(1, 6)]), await get(arr, [zarr.slice(1, 6)], ON_POOL)];
    assert.equal(got.data.constructor, want.data.constructor, path);
    assert.deepEqual(elements(got), elements(want), path);
    assert.deepEqual(elements(got), words.slice(1, 6));
    assert.deepEqual(elements(await get(arr, [zarr.slice(null, null, -2)])), [words[6], words[4], words[2], words[0]]);
  }
});
