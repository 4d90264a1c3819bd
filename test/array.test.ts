/**
 * The array and group API as a user meets it: create, open with modes, read and write
 * selections, fill values, empty chunks, edge chunks, 0-d and zero-length arrays, attributes.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  MemoryStore,
  Group,
  ZarrArray,
  createArray,
  createGroup,
  open,
  openArray,
  openGroup,
  slice,
  type NDArray,
  type CreateArrayOptions,
} from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

const asND = (x: unknown) => x as NDArray<Float64Array>;

test("create, write and read back a 2-d array (v3 default)", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [10, 12], chunks: [4, 5], dtype: "int32", fillValue: -1 });
  assert.equal(a.zarrFormat, 3);
  assert.deepEqual(a.codecs.map((c) => c.name), ["bytes", "zstd"]);
  const data = Int32Array.from({ length: 120 }, (_, i) => i);
  await a.set(null, { data, shape: [10, 12] });
  const all = asND(await a.get());
  assert.deepEqual(all.shape, [10, 12]);
  assert.deepEqual(all.stride, [12, 1]);
  assert.deepEqual(Array.from(all.data), Array.from(data));
  assert.equal(await a.get([3, -1]), 3 * 12 + 11);
  const part = asND(await a.get("1:9:3, ::4"));
  assert.deepEqual(part.shape, [3, 3]);
  assert.deepEqual(Array.from(part.data), [12, 16, 20, 48, 52, 56, 84, 88, 92]);
  const col = asND(await a.get([null, 7]));
  assert.deepEqual(Array.from(col.data), Array.from({ length: 10 }, (_, i) => i * 12 + 7));
});

test("missing chunks read as the fill value; all-fill chunks are not stored", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [8, 8], chunks: [4, 4], dtype: "float64", fillValue: "NaN" });
  await a.set([slice(0, 2), slice(0, 2)], 1.5);
  const v = asND(await a.get());
  assert.equal(v.data[0], 1.5);
  assert.ok(Number.isNaN(v.data[63] as number));
  assert.deepEqual((await store.list("")).filter((k) => k.startsWith("c/")), ["c/0/0"]);
  await a.set(null, NaN);
  assert.deepEqual((await store.list("")).filter((k) => k.startsWith("c/")), [], "an all-fill write deletes chunks");
  const kept = await openArray(store, { mode: "r+", writeEmptyChunks: true });
  await kept.set([0, 0], NaN);
  assert.deepEqual((await store.list("")).filter((k) => k.startsWith("c/")), ["c/0/0"]);
});

test("partial writes keep the rest of the chunk; edge chunks and steps", async () => {
  const a = await createArray(new MemoryStore(), { shape: [7, 9], chunks: [3, 4], dtype: "uint16", fillValue: 5 });
  await a.set(["1:6:2", "2:9:3"].join(","), 9);
  const ref = new Uint16Array(63).fill(5);
  for (let i = 1; i < 6; i += 2) for (let j = 2; j < 9; j += 3) ref[i * 9 + j] = 9;
  assert.deepEqual(Array.from(asND(await a.get()).data), Array.from(ref));
  const block = Uint16Array.from({ length: 6 }, (_, i) => 100 + i);
  await a.set([slice(5, 7), slice(6, 9)], { data: block, shape: [2, 3] });
  for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++) ref[(5 + i) * 9 + 6 + j] = 100 + i * 3 + j;
  assert.deepEqual(Array.from(asND(await a.get()).data), Array.from(ref));
});

test("every numeric type, both v2 byte orders and v3 endians round-trip", async () => {
  const numpy: Record<string, string> = {
    bool: "b1", int8: "i1", int16: "i2", int32: "i4", int64: "i8", uint8: "u1", uint16: "u2", uint32: "u4",
    uint64: "u8", float16: "f2", float32: "f4", float64: "f8", complex64: "c8", complex128: "c16",
  };
  for (const zarrFormat of [2, 3] as const) {
    for (const [t, code] of Object.entries(numpy)) {
      for (const endian of ["little", "big"] as const) {
        const store = new MemoryStore();
        const single = code.endsWith("1");
        const options: CreateArrayOptions =
          zarrFormat === 3
            ? { shape: [5, 3], chunks: [2, 2], dtype: t, codecs: [{ name: "bytes", configuration: single ? {} : { endian } }] }
            : { shape: [5, 3], chunks: [2, 2], dtype: `${single ? "|" : endian === "big" ? ">" : "<"}${code}`, compressor: null, zarrFormat };
        const a = await createArray(store, options);
        const template = asND(await a.get()).data as unknown as { constructor: new (n: number) => { [i: number]: number | bigint; length: number } };
        const n = t.startsWith("complex") ? 30 : 15;
        const data = new template.constructor(n);
        const big = t.endsWith("int64");
        for (let i = 0; i < n; i++) {
          const v = t === "bool" ? i % 2 : i - (t.startsWith("u") ? 0 : 4);
          data[i] = big ? BigInt(v) * 1234567891011n : v;
        }
        await a.set(null, { data: data as never, shape: [5, 3] });
        const b = await openArray(store, { mode: "r" });
        assert.deepEqual(Array.from(asND(await b.get()).data), Array.from(data as unknown as Float64Array), `${t} v${zarrFormat} ${endian}`);
      }
    }
  }
});

test("0-d arrays and zero-length dimensions", async () => {
  const store = new MemoryStore();
  const s = await createArray(store, { shape: [], dtype: "float64", fillValue: 0, path: "scalar" });
  // get([]) is numpy's a[()], the scalar; get() is a[...], a 0-d array.
  assert.equal(await s.get([]), 0);
  await s.set(null, 3.25);
  assert.equal(await s.get([]), 3.25);
  assert.deepEqual(await s.get(), { data: Float64Array.from([3.25]), shape: [], stride: [] });
  assert.ok(await store.has("scalar/c"));
  const s2 = await createArray(store, { shape: [], dtype: "<f8", zarrFormat: 2, path: "scalar2" });
  await s2.set(null, 2.5);
  assert.ok(await store.has("scalar2/0"));
  const e = await createArray(store, { shape: [0, 5], chunks: [4, 4], dtype: "int32", path: "empty" });
  const r = asND(await e.get());
  assert.deepEqual(r.shape, [0, 5]);
  assert.equal(r.data.length, 0);
  await e.set(null, 1);
});

test("key encodings: v3 default with '.' and '/', v3 'v2', v2 separators", async () => {
  const cases = [
    { zarrFormat: 3 as const, chunkKeyEncoding: { name: "default" as const, separator: "." as const }, key: "c.1.0" },
    { zarrFormat: 3 as const, chunkKeyEncoding: { name: "default" as const, separator: "/" as const }, key: "c/1/0" },
    { zarrFormat: 3 as const, chunkKeyEncoding: { name: "v2" as const, separator: "." as const }, key: "1.0" },
    { zarrFormat: 2 as const, dimensionSeparator: "/" as const, key: "1/0" },
    { zarrFormat: 2 as const, key: "1.0" },
  ];
  for (const { key, ...opts } of cases) {
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [4, 4], chunks: [2, 2], dtype: "int8", ...opts });
    await a.set([2, 0], 1);
    assert.ok(await store.has(key), `${JSON.stringify(opts)} -> ${key}: ${await store.list("")}`);
  }
});

test("modes: r, r+, a, w, w- and their typed errors", async () => {
  const dir = scratchDir();
  const path = join(dir, "m.zarr");
  await assert.rejects(openArray(path, { mode: "r" }), { code: "NOT_FOUND" });
  const a = await openArray(path, { mode: "a", shape: [4], chunks: [2], dtype: "int16" });
  await a.set(null, 7);
  await assert.rejects(createArray(path, { shape: [4], dtype: "int16" }), { code: "ALREADY_EXISTS" });
  await assert.rejects(openArray(path, { mode: "w-", shape: [4], dtype: "int16" }), { code: "ALREADY_EXISTS" });
  const ro = await openArray(path, { mode: "r" });
  await assert.rejects(ro.set(null, 1), { code: "READ_ONLY" });
  await assert.rejects(ro.setAttrs({ x: 1 }), { code: "READ_ONLY" });
  await assert.rejects(openGroup(path, { mode: "r" }), { code: "NODE_TYPE_MISMATCH" });
  const rw = await openArray(path, { mode: "r+" });
  await rw.set([0], 1);
  assert.deepEqual(Array.from(asND(await rw.get()).data), [1, 7, 7, 7]);
  const w = await openArray(path, { mode: "w", shape: [2], dtype: "uint8" });
  assert.deepEqual(w.shape, [2]);
  assert.equal(existsSync(join(path, "c", "1")), false, "mode w removed the old chunks");
  const again = await createArray(path, { shape: [3], dtype: "float32", overwrite: true });
  assert.equal(again.dtype, "float32");
});

test("groups: ancestors created, get by path, members, attributes", async () => {
  const dir = scratchDir();
  const root = join(dir, "g.zarr");
  const g = await createGroup(root, { attributes: { title: "t" } });
  const a = await g.createArray("x/y/data", { shape: [3], dtype: "int8", attributes: { units: "m" } });
  assert.ok(existsSync(join(root, "x", "zarr.json")) && existsSync(join(root, "x", "y", "zarr.json")));
  await g.createGroup("other");
  const got = await g.get("x/y/data");
  assert.ok(got instanceof ZarrArray);
  assert.deepEqual(got.attrs, { units: "m" });
  assert.deepEqual((await g.members()).map(([n, node]) => [n, node instanceof Group ? "group" : "array"]), [["other", "group"], ["x", "group"]]);
  await a.updateAttrs({ scale: 2 });
  assert.deepEqual((await openArray(root, { path: "x/y/data" })).attrs, { units: "m", scale: 2 });
  await assert.rejects(g.createGroup("x/y/data/inner"), { code: "NODE_TYPE_MISMATCH" });
  await assert.rejects(g.createArray("x/y/data/inner", { shape: [1], dtype: "int8" }), { code: "NODE_TYPE_MISMATCH" });
  await assert.rejects(g.get("nope"), { code: "NOT_FOUND" });
  const opened = await open(root);
  assert.ok(opened instanceof Group);
  assert.deepEqual(opened.attrs, { title: "t" });

  // v2: ancestors get .zgroup, attributes live in .zattrs
  const g2 = await createGroup(join(dir, "g2.zarr"), { zarrFormat: 2 });
  await g2.createArray("p/q", { shape: [2], dtype: "<i4", attributes: { a: 1 } });
  assert.ok(existsSync(join(dir, "g2.zarr", "p", ".zgroup")));
  assert.deepEqual(JSON.parse(readFileSync(join(dir, "g2.zarr", "p", "q", ".zattrs"), "utf8")), { a: 1 });
});

test("set checks the value's shape and broadcasts scalars", async () => {
  const a = await createArray(new MemoryStore(), { shape: [4, 4], chunks: [2, 2], dtype: "float32" });
  await assert.rejects(a.set("0:2, 0:2", { data: new Float32Array(6), shape: [2, 3] }), { code: "SHAPE_MISMATCH" });
  await assert.rejects(a.set("0:2, 0:2", new Float32Array(3)), { code: "SHAPE_MISMATCH" });
  await a.set("0:2, 0:2", [1, 2, 3, 4]);
  await a.set([3, null], 8);
  const v = asND(await a.get());
  assert.deepEqual(Array.from(v.data.slice(0, 2)), [1, 2]);
  assert.deepEqual(Array.from(v.data.slice(12)), [8, 8, 8, 8]);
  // a strided (transposed) value
  await a.set(null, { data: Float32Array.from({ length: 16 }, (_, i) => i), shape: [4, 4], stride: [1, 4] });
  assert.equal(await a.get([1, 0]), 1);
  assert.equal(await a.get([0, 1]), 4);
});

test("a whole write of an edge chunk stores the fill value beyond the array's edge, as zarr-python does", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [3], chunks: [2], dtype: "int16", fillValue: 7, codecs: [{ name: "bytes" }] });
  await a.set(null, { data: Int16Array.from([1, 2, 3]), shape: [3] });
  const edge = await store.get("c/1");
  assert.deepEqual(Array.from(new Int16Array(edge!.slice().buffer)), [3, 7]);
  const inner = await store.get("c/0");
  assert.deepEqual(Array.from(new Int16Array(inner!.slice().buffer)), [1, 2]);
});
