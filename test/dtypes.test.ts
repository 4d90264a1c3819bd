/**
 * Strings, byte strings, UTF-32, datetimes, records, bfloat16 and raw bits through get/set with
 * every kind of selection, written by parzarr and read back by zarr-python 2 (v2) and zarrita.js
 * (v3 strings, delta, shuffle, bitround).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as zarrita from "zarrita";
import ZarritaFileSystemStore from "@zarrita/storage/fs";
import { MemoryStore, NAT, createArray, fieldView, openArray, slice, type JsonValue, type NDArray, type StructuredDataType } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

const skip = zarrPythonSkip();
const enc = (s: string) => new TextEncoder().encode(s);

test("string arrays: get and set with ints, stepped slices, ellipsis and a broadcast string", async () => {
  for (const zarrFormat of [2, 3] as const) {
    const a = await createArray(new MemoryStore(), { shape: [5, 7], chunks: [2, 3], dtype: "string", zarrFormat });
    assert.equal(await a.get([4, 6]), "");
    const values = Array.from({ length: 35 }, (_, i) => (i % 4 === 0 ? "" : `s${i}-${"é".repeat(i % 3)}`));
    await a.set(null, values);
    assert.deepEqual((await a.get()) as NDArray<string[]>, { data: values, shape: [5, 7], stride: [7, 1] });
    assert.equal(await a.get([3, 2]), values[23]);
    const sub = (await a.get([slice(1, 5, 2), "..."])) as NDArray<string[]>;
    assert.deepEqual(sub.data, [...values.slice(7, 14), ...values.slice(21, 28)]);
    await a.set([slice(0, 5, 2), slice(1, 7, 3)], "x");
    await a.set([1, slice(null)], { data: ["a", "b", "c", "d", "e", "f", "g"], shape: [7] });
    const all = ((await a.get()) as NDArray<string[]>).data;
    for (let i = 0; i < 5; i++) {
      for (let j = 0; j < 7; j++) {
        const want = i === 1 ? "abcdefg"[j] : i % 2 === 0 && j % 3 === 1 ? "x" : values[i * 7 + j];
        assert.equal(all[i * 7 + j], want, `v${zarrFormat} [${i}, ${j}]`);
      }
    }
    await assert.rejects(() => a.set([0, 0], 5), { code: "INVALID_ARGUMENT" });
  }
});

test("fixed UTF-32, |S bytes, raw bits and variable-length bytes keep their values and padding rules", async () => {
  const u = await createArray(new MemoryStore(), { shape: [6], chunks: [4], dtype: ">U3", zarrFormat: 2, fillValue: "zz" });
  await u.set([slice(1, 6, 2)], ["a", "🎉b", "xyz"]);
  assert.deepEqual(((await u.get()) as NDArray<string[]>).data, ["zz", "a", "zz", "🎉b", "zz", "xyz"]);
  await assert.rejects(() => u.set([0], "long"), /longer than 3/);
  const s = await createArray(new MemoryStore(), { shape: [4], chunks: [3], dtype: "|S4", zarrFormat: 2 });
  await s.set(null, [enc("ab"), enc(""), enc("abcd"), new Uint8Array([0, 1])]);
  // numpy drops trailing NULs of |S values: b"\0\1" stays, b"ab\0\0" reads as b"ab".
  assert.deepEqual(((await s.get()) as NDArray<Uint8Array[]>).data, [enc("ab"), enc(""), enc("abcd"), new Uint8Array([0, 1])]);
  const r = await createArray(new MemoryStore(), { shape: [3], chunks: [2], dtype: "r16", fillValue: [1, 2] });
  assert.deepEqual(await r.get([2]), new Uint8Array([1, 2]));
  await r.set([0], new Uint8Array([9, 0]));
  assert.deepEqual(((await r.get()) as NDArray<Uint8Array[]>).data, [new Uint8Array([9, 0]), new Uint8Array([1, 2]), new Uint8Array([1, 2])]);
  const b = await createArray(new MemoryStore(), { shape: [5], chunks: [2], dtype: "variable_length_bytes" });
  await b.set([slice(0, 5, 2)], new Uint8Array([7, 7, 7]));
  assert.deepEqual(((await b.get()) as NDArray<Uint8Array[]>).data.map((x) => x.length), [3, 0, 3, 0, 3]);
});

test("datetimes in multiples of a unit are int64 counts with the unit on the type; NaT fills", async () => {
  const a = await createArray(new MemoryStore(), {
    shape: [4],
    chunks: [3],
    dtype: { name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 10 } },
    fillValue: "NaT",
  });
  assert.deepEqual(a.dataType, { kind: "datetime", name: "numpy.datetime64", unit: "ms", scaleFactor: 10, itemSize: 8, endian: "little" });
  assert.equal(a.numpyDtype, "<M8[10ms]");
  await a.set([slice(0, 4, 3)], { data: new BigInt64Array([5n, -7n]), shape: [2] });
  assert.deepEqual(Array.from(((await a.get()) as NDArray<BigInt64Array>).data), [5n, NAT, NAT, -7n]);
});

test("records: raw bytes per record, one field through fieldView or get({ field })", async () => {
  const a = await createArray(new MemoryStore(), {
    shape: [3],
    chunks: [2],
    dtype: [["a", "<i4"], ["b", ">f8", [2]], ["tag", "|S2"]],
    zarrFormat: 2,
  });
  const rec = (a0: number, b0: number, b1: number, tag: string) => {
    const out = new Uint8Array(22);
    const v = new DataView(out.buffer);
    v.setInt32(0, a0, true);
    v.setFloat64(4, b0, false);
    v.setFloat64(12, b1, false);
    out.set(enc(tag), 20);
    return out;
  };
  await a.set(null, [rec(1, 0.5, 1.5, "x"), rec(-2, 2.5, 3.5, "yz"), rec(3, -1, -2, "")]);
  const records = (await a.get()) as NDArray<Uint8Array[]>;
  const dt = a.dataType as StructuredDataType;
  assert.deepEqual(Array.from(fieldView(records, dt, "a").data as Int32Array), [1, -2, 3]);
  const b = (await a.get([slice(1, 3)], { field: "b" })) as NDArray<Float64Array>;
  assert.deepEqual({ data: Array.from(b.data), shape: b.shape }, { data: [2.5, 3.5, -1, -2], shape: [2, 2] });
  assert.deepEqual((fieldView(records, dt, "tag").data as Uint8Array[]).map((x) => new TextDecoder().decode(x)), ["x", "yz", ""]);
  assert.throws(() => fieldView(records, dt, "nope"), { code: "BAD_SELECTION" });
});

test("bfloat16 rounds to nearest even and reads back as float32 values", async () => {
  const a = await createArray(new MemoryStore(), { shape: [4], chunks: [4], dtype: "bfloat16", fillValue: "NaN" });
  await a.set(null, new Float32Array([1, 1.00390625, 1.01171875, -3.14159]));
  // 1 + 2^-8 is a tie that goes to 1; 1 + 3*2^-8 goes up to 1 + 2^-6.
  assert.deepEqual(Array.from(((await a.get()) as NDArray<Float32Array>).data), [1, 1, 1.015625, -3.140625]);
});

test("v2 arrays of every new type and filter read back exactly in zarr-python 2", { skip }, async () => {
  const dir = scratchDir();
  const n = 23;
  const strings = Array.from({ length: n }, (_, i) => (i % 5 === 0 ? "" : `v${i}·${"ü".repeat(i % 4)}`));
  const floats = new Float64Array(Array.from({ length: n }, (_, i) => 100 + Math.sin(i) * 10));
  const cases: { path: string; dtype: unknown; filters?: object[]; compressor?: object | null; value: unknown; fillValue?: unknown; check: string }[] = [
    { path: "str", dtype: "str", value: strings, check: `[${strings.map((s) => JSON.stringify(s)).join(",")}]` },
    { path: "bytes", dtype: "|O", filters: [{ id: "vlen-bytes" }], value: strings.map(enc), check: `[${strings.map((s) => `${JSON.stringify(s)}.encode()`).join(",")}]` },
    { path: "u", dtype: "<U4", value: strings.map((s) => s.slice(0, 4)), fillValue: "", check: `[${strings.map((s) => JSON.stringify(s.slice(0, 4))).join(",")}]` },
    { path: "s", dtype: "|S5", value: strings.map((s) => enc(s.slice(0, 2))), fillValue: "", check: `[${strings.map((s) => `${JSON.stringify(s.slice(0, 2))}.encode()`).join(",")}]` },
    { path: "m8", dtype: "<m8[10us]", value: new BigInt64Array(n).map((_, i) => BigInt(i * 1000 - 3)), check: `np.array([${Array.from({ length: n }, (_, i) => i * 1000 - 3)}], dtype="<m8[10us]")` },
    { path: "cat", dtype: "|O", filters: [{ id: "categorize", labels: ["v1·ü", "v2·üü"], dtype: "|O", astype: "|u1" }], value: strings, check: `[s if s in ("v1·ü","v2·üü") else "" for s in ${`[${strings.map((s) => JSON.stringify(s)).join(",")}]`}]` },
    { path: "chain", dtype: "<f8", filters: [{ id: "quantize", digits: 2, dtype: "<f8", astype: "<f8" }, { id: "delta", dtype: "<f8", astype: "<f8" }, { id: "shuffle", elementsize: 8 }], compressor: { id: "bz2", level: 3 }, value: floats, check: "None" },
    { path: "fso", dtype: "<f8", filters: [{ id: "fixedscaleoffset", offset: 100, scale: 10, dtype: "<f8", astype: "<i2" }], compressor: { id: "lzma", format: 1, check: -1, preset: 2, filters: null }, value: floats, check: "None" },
    { path: "bits", dtype: "|b1", filters: [{ id: "packbits" }], compressor: { id: "adler32" }, value: Uint8Array.from({ length: n }, (_, i) => (i % 3 ? 1 : 0)), check: `[${Array.from({ length: n }, (_, i) => (i % 3 ? "True" : "False"))}]` },
  ];
  for (const c of cases) {
    const a = await createArray(dir, {
      path: c.path,
      zarrFormat: 2,
      shape: [n],
      chunks: [5],
      dtype: c.dtype as string,
      filters: c.filters as never,
      compressor: (c.compressor ?? { id: "zlib", level: 1 }) as never,
      fillValue: c.fillValue,
    });
    await a.set(null, c.value as never);
    // parzarr reads its own writing back first: the same values it was given.
    const back = (await (await openArray(dir, { path: c.path, mode: "r" })).get()) as NDArray;
    if (c.check !== "None" && c.path !== "cat") assert.deepEqual(Array.from(back.data as ArrayLike<unknown>), Array.from(c.value as ArrayLike<unknown>), c.path);
  }
  // zarr-python reads each array and compares with the expected Python values; lossy float
  // chains are compared with numcodecs applied to the same input in Python.
  const script = `
import sys, zarr, numpy as np, numcodecs
root = sys.argv[1]
floats = np.array([${Array.from(floats).join(",")}])
def lossy(filters):
    # Chunk by chunk (5 elements), as zarr applies them: delta restarts in every chunk.
    out = []
    for k in range(0, len(floats), 5):
        x = floats[k:k+5]
        enc = [x]
        for f in filters: enc.append(f.encode(enc[-1]))
        y = enc[-1]
        for f in reversed(filters): y = f.decode(y)
        out.append(np.frombuffer(np.ascontiguousarray(y).tobytes(), dtype="<f8"))
    return np.concatenate(out)
${cases
  .map((c) =>
    c.check === "None"
      ? `a = zarr.open(root + "/${c.path}", mode="r"); assert np.array_equal(a[:], lossy(a.filters)), "${c.path}"`
      : `a = zarr.open(root + "/${c.path}", mode="r"); want = ${c.check}; got = a[:]; assert list(got) == list(want), ("${c.path}", list(got)[:5], list(want)[:5])`,
  )
  .join("\n")}
print("ok")
`;
  const r = runPython(script, dir);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), "ok");
});

test("v3 strings and numcodecs filters parzarr writes read back exactly in zarrita.js", async () => {
  const dir = scratchDir();
  const strings = Array.from({ length: 31 }, (_, i) => (i % 7 === 0 ? "" : `zarrita-${i}-${"ß".repeat(i % 3)}`));
  const s = await createArray(join(dir, "s.zarr"), { shape: [31], chunks: [8], dtype: "string", codecs: [{ name: "vlen-utf8" }, { name: "gzip", configuration: { level: 3 } }] });
  await s.set(null, strings);
  const floats = new Float32Array(Array.from({ length: 31 }, (_, i) => i * 1.25 - 7));
  const f = await createArray(join(dir, "f.zarr"), {
    shape: [31],
    chunks: [8],
    dtype: "float32",
    codecs: [
      { name: "numcodecs.delta", configuration: { dtype: "<f4" } },
      { name: "bytes", configuration: { endian: "little" } },
      { name: "numcodecs.shuffle", configuration: { elementsize: 4 } },
    ],
  });
  await f.set(null, floats);
  const store = new ZarritaFileSystemStore(dir);
  const zs = await zarrita.open(zarrita.root(store).resolve("s.zarr"), { kind: "array" });
  assert.deepEqual(Array.from((await zarrita.get(zs)).data as ArrayLike<string>), strings);
  const zf = await zarrita.open(zarrita.root(store).resolve("f.zarr"), { kind: "array" });
  assert.deepEqual(Array.from((await zarrita.get(zf)).data as Float32Array), Array.from(floats));
});

test("new types round-trip through v3 zarr.json and v2 .zarray; types a version cannot spell are refused", async () => {
  const v3: JsonValue[] = [
    { name: "numpy.timedelta64", configuration: { unit: "ps", scale_factor: 3 } },
    { name: "fixed_length_utf32", configuration: { length_bytes: 12 } },
    { name: "null_terminated_bytes", configuration: { length_bytes: 5 } },
    "r24",
    "bfloat16",
    "string",
    "variable_length_bytes",
  ];
  for (const dtype of v3) {
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [2], chunks: [2], dtype });
    const doc = JSON.parse(new TextDecoder().decode(await store.get("zarr.json")));
    assert.deepEqual(doc.data_type, dtype);
    assert.deepEqual((await openArray(store, { mode: "r" })).dataType, a.dataType);
  }
  for (const dtype of [">U3", "|S4", "<M8[5D]", ">m8[ns]", "|V3", [["a", "<i2"], ["b", ">f4", [3]]]]) {
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [2], chunks: [2], dtype, zarrFormat: 2 });
    assert.deepEqual(JSON.parse(new TextDecoder().decode(await store.get(".zarray"))).dtype, dtype);
    assert.deepEqual((await openArray(store, { mode: "r" })).dataType, a.dataType);
  }
  await assert.rejects(() => createArray(new MemoryStore(), { shape: [2], dtype: "bfloat16", zarrFormat: 2 }), { code: "UNSUPPORTED" });
  // Records go to v3 as the zarr-extensions struct (test/struct.test.ts), except forms it cannot hold.
  await assert.rejects(() => createArray(new MemoryStore(), { shape: [2], dtype: [["a", ">i2"]] }), { code: "UNSUPPORTED" });
  const zarray = (filters: unknown) => new TextEncoder().encode(JSON.stringify({ zarr_format: 2, shape: [2], chunks: [2], dtype: "|O", fill_value: 0, order: "C", compressor: null, filters }));
  const store = new MemoryStore();
  // json2 reads (test/registry-codecs.test.ts); msgpack2 and pickle stay refused by name.
  await store.set("a/.zarray", zarray([{ id: "msgpack2" }]));
  await store.set("b/.zarray", zarray(null));
  await assert.rejects(() => openArray(store, { path: "a", mode: "r" }), (e: Error & { code?: string }) => e.code === "UNSUPPORTED" && /msgpack2/.test(e.message));
  await assert.rejects(() => openArray(store, { path: "b", mode: "r" }), (e: Error & { code?: string }) => e.code === "INVALID_METADATA" && /object codec/.test(e.message));
});
