/**
 * Codecs of the zarr-extensions registry and of zarrs that other implementations write (issue 29):
 * reshape, cast_value, scale_offset, zarrs.squeeze, packbits over datetimes, and vlen-utf8 /
 * vlen-bytes over the other variable-length type, and v2 object arrays of JSON values (numcodecs'
 * json2, cross-checked with zarr-python 2 and zarrita.js). Chunks are checked byte for byte against what
 * the specifications define (hand-made bytes), and read back through parzarr.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as zarrita from "zarrita";
import ZarritaFileSystemStore from "@zarrita/storage/fs";
import { MemoryStore, createArray, openArray, type CodecConfig, type NDArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

const NAT = -(2n ** 63n);

/** A one-chunk v3 array of `dtype` through `codecs`, holding `values`; its stored chunk and what reads back. */
async function roundTrip(dtype: unknown, shape: number[], codecs: CodecConfig[], values: unknown, fillValue: unknown = 0) {
  const store = new MemoryStore();
  const a = await createArray(store, { shape, chunks: shape, dtype: dtype as string, codecs, fillValue: fillValue as number, writeEmptyChunks: true });
  await a.set(null, values as Float64Array);
  const chunk = (await store.get(`c/${shape.map(() => 0).join("/")}`))!;
  const again = await openArray(store);
  return { store, a, chunk, back: (await again.get()) as NDArray };
}

const le16 = (xs: number[]) => new Uint8Array(Int16Array.from(xs).buffer);
const f64 = (xs: number[]) => Float64Array.from(xs);

test("reshape: merged dims, -1 and explicit sizes keep C order; transpose after it sees the new shape", async () => {
  const values = Int16Array.from({ length: 24 }, (_, i) => i);
  // [2, 3, 4] -> [6, 4] -> transposed [4, 6]: bytes are the 6x4 matrix read down its columns.
  const codecs: CodecConfig[] = [
    { name: "reshape", configuration: { shape: [[0, 1], -1] } },
    { name: "transpose", configuration: { order: [1, 0] } },
    { name: "bytes", configuration: { endian: "little" } },
  ];
  const { chunk, back, a } = await roundTrip("int16", [2, 3, 4], codecs, values);
  const want = Array.from({ length: 24 }, (_, k) => (k % 6) * 4 + Math.floor(k / 6));
  assert.deepEqual(chunk, le16(want));
  assert.deepEqual(Array.from(back.data as Int16Array), Array.from(values));
  assert.deepEqual(a.metadata.codecs?.[0], { name: "reshape", configuration: { shape: [[0, 1], -1] } });
  // The spec's example form: [[0, 1], [2], 3] over [100, 50, 64, 3] is [5000, 64, 3]; here [2, 3, 4, 1].
  const ex = await roundTrip("int16", [2, 3, 4, 1], [{ name: "reshape", configuration: { shape: [[0, 1], [2], 1] } }, { name: "transpose", configuration: { order: [1, 0, 2] } }, { name: "bytes" }], values);
  assert.deepEqual(ex.chunk, le16(want));
  assert.deepEqual(Array.from(ex.back.data as Int16Array), Array.from(values));
  // Explicit sizes: [24] flat, no copy of meaning.
  const flat = await roundTrip("int16", [2, 3, 4], [{ name: "reshape", configuration: { shape: [24] } }, { name: "bytes" }], values);
  assert.deepEqual(flat.chunk, le16(Array.from(values)));
});

test("reshape: the spec's invalid shapes are refused as INVALID_METADATA", async () => {
  const bad = [[[1], [0]], [[1, 0], 4], [5, -1], [-1, -1], [[1], -1], [0, 24], "24", [[0, 1], 5]];
  for (const shape of bad) {
    await assert.rejects(
      () => createArray(new MemoryStore(), { shape: [2, 3, 4], chunks: [2, 3, 4], dtype: "int16", codecs: [{ name: "reshape", configuration: { shape } as never }, { name: "bytes" }] }),
      { code: "INVALID_METADATA" },
      JSON.stringify(shape),
    );
  }
});

test("zarrs.squeeze drops length-1 dims (all of them: [1]); transpose after it sees the squeezed shape", async () => {
  const values = Int16Array.from({ length: 6 }, (_, i) => i);
  const codecs: CodecConfig[] = [{ name: "zarrs.squeeze" }, { name: "transpose", configuration: { order: [1, 0] } }, { name: "bytes" }];
  const { chunk, back } = await roundTrip("int16", [1, 2, 1, 3], codecs, values);
  assert.deepEqual(chunk, le16([0, 3, 1, 4, 2, 5]));
  assert.deepEqual(Array.from(back.data as Int16Array), Array.from(values));
  const one = await roundTrip("int16", [1, 1], [{ name: "zarrs.squeeze" }, { name: "transpose", configuration: { order: [0] } }, { name: "bytes" }], Int16Array.of(9));
  assert.deepEqual(one.chunk, le16([9]));
  await assert.rejects(
    () => createArray(new MemoryStore(), { shape: [2], chunks: [2], dtype: "int16", codecs: [{ name: "zarrs.squeeze", configuration: { axes: [0] } }, { name: "bytes" }] }),
    { code: "INVALID_METADATA" },
  );
});

const cast = (configuration: object): CodecConfig[] => [{ name: "cast_value", configuration: configuration as never }, { name: "bytes" }];

test("cast_value: each rounding mode, as the spec's table defines it", async () => {
  const xs = [2.5, 3.5, -2.5, 1.2, -1.7, 0];
  const want: Record<string, number[]> = {
    "nearest-even": [2, 4, -2, 1, -2, 0],
    "towards-zero": [2, 3, -2, 1, -1, 0],
    "towards-positive": [3, 4, -2, 2, -1, 0],
    "towards-negative": [2, 3, -3, 1, -2, 0],
    "nearest-away": [3, 4, -3, 1, -2, 0],
  };
  for (const [rounding, codes] of Object.entries(want)) {
    const { chunk, back } = await roundTrip("float64", [6], cast({ data_type: "int16", rounding }), f64(xs));
    assert.deepEqual(chunk, le16(codes), rounding);
    assert.deepEqual(Array.from(back.data as Float64Array), codes, rounding);
  }
  // No rounding given: nearest-even.
  assert.deepEqual((await roundTrip("float64", [6], cast({ data_type: "int16" }), f64(xs))).chunk, le16(want["nearest-even"]));
});

test("cast_value: out_of_range error / clamp / wrap, and NaN is always an error for integers", async () => {
  const xs = f64([300, -5, 255.4, 256.6, Infinity]);
  // The spec's example: uint8, towards-zero, clamp.
  const clamp = await roundTrip("float64", [5], cast({ data_type: "uint8", rounding: "towards-zero", out_of_range: "clamp" }), xs);
  assert.deepEqual(Array.from(clamp.chunk), [255, 0, 255, 255, 255]);
  const wrap = await roundTrip("float64", [4], cast({ data_type: "uint8", out_of_range: "wrap" }), f64([300, -5, 255.4, 256.6]));
  assert.deepEqual(Array.from(wrap.chunk), [44, 251, 255, 1]);
  const swrap = await roundTrip("int32", [3], cast({ data_type: "int8", out_of_range: "wrap" }), Int32Array.of(128, -129, 1000));
  assert.deepEqual(Array.from(new Int8Array(swrap.chunk.buffer, swrap.chunk.byteOffset, 3)), [-128, 127, -24]);
  for (const out_of_range of [undefined, "error"]) {
    await assert.rejects(() => roundTrip("float64", [1], cast({ data_type: "uint8", out_of_range }), f64([256])), { code: "INVALID_ARGUMENT" });
  }
  for (const out_of_range of ["clamp", "wrap"]) {
    await assert.rejects(() => roundTrip("float64", [1], cast({ data_type: "uint8", out_of_range }), f64([NaN])), { code: "INVALID_ARGUMENT" }, out_of_range);
  }
  await assert.rejects(() => roundTrip("float64", [1], cast({ data_type: "uint8", out_of_range: "wrap" }), f64([Infinity])), { code: "INVALID_ARGUMENT" });
  // Float targets: overflow clamps to the largest finite value or is an error; NaN and infinities stay.
  const f32 = await roundTrip("float64", [4], cast({ data_type: "float32", out_of_range: "clamp" }), f64([1e300, -1e300, NaN, -Infinity]));
  assert.deepEqual(Array.from(new Float32Array(f32.chunk.buffer, f32.chunk.byteOffset, 4)), [3.4028234663852886e38, -3.4028234663852886e38, NaN, -Infinity]);
  await assert.rejects(() => roundTrip("float64", [1], cast({ data_type: "float32" }), f64([1e300])), { code: "INVALID_ARGUMENT" });
  // wrap needs an integer target; unknown fields and modes are invalid metadata.
  for (const conf of [{ data_type: "float32", out_of_range: "wrap" }, { data_type: "uint8", range: "clamp" }, { data_type: "uint8", rounding: "up" }, {}]) {
    await assert.rejects(() => roundTrip("float64", [1], cast(conf), f64([1])), { code: "INVALID_METADATA" }, JSON.stringify(conf));
  }
});

test("cast_value: a stored value that does not cast back is a corrupt chunk; fill values cast both ways", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [2], chunks: [2], dtype: "uint8", codecs: cast({ data_type: "int16" }), fillValue: 7 });
  assert.deepEqual(Array.from(((await a.get()) as NDArray).data as Uint8Array), [7, 7]);
  await store.set("c/0", le16([3, 300]));
  await assert.rejects(() => a.get(), { code: "CORRUPT_CHUNK" });
  await store.set("c/0", le16([3, 200]));
  assert.deepEqual(Array.from(((await a.get()) as NDArray).data as Uint8Array), [3, 200]);
  await assert.rejects(
    () => createArray(new MemoryStore(), { shape: [2], chunks: [2], dtype: "float64", codecs: cast({ data_type: "uint8" }), fillValue: "NaN" as never }),
    { code: "INVALID_METADATA" },
  );
});

test("cast_value: scalar_map maps exact values first, per direction (zarrs' form)", async () => {
  const conf = { data_type: "uint8", out_of_range: "clamp", scalar_map: { encode: [["NaN", 0], ["-Infinity", 1]], decode: [[0, "NaN"]] } };
  const { chunk, back } = await roundTrip("float32", [4], cast(conf), Float32Array.of(NaN, -Infinity, 2.5, 1000), "NaN");
  assert.deepEqual(Array.from(chunk), [0, 1, 2, 255]);
  assert.deepEqual(Array.from(back.data as Float32Array), [NaN, 1, 2, 255]);
});

test("cast_value: datetimes cast as int64 counts with NaT as NaN", async () => {
  const dt = { name: "numpy.datetime64", configuration: { unit: "s", scale_factor: 1 } };
  const { chunk, back } = await roundTrip(dt, [3], cast({ data_type: "float64" }), { data: BigInt64Array.of(5n, NAT, -3n), shape: [3] }, "NaT");
  assert.deepEqual(Array.from(new Float64Array(chunk.buffer, chunk.byteOffset, 3)), [5, NaN, -3]);
  assert.deepEqual(Array.from(back.data as BigInt64Array), [5n, NAT, -3n]);
  await assert.rejects(() => roundTrip(dt, [1], cast({ data_type: "int32", out_of_range: "clamp" }), { data: BigInt64Array.of(NAT), shape: [1] }, 0), { code: "INVALID_ARGUMENT" });
});

test("scale_offset: (x - offset) * scale in the array's type, then cast_value: the same bytes as numcodecs.fixedscaleoffset", async () => {
  const xs = f64([1000, 1000.04, 1000.05, 1000.25, 999.5, 1012.7]);
  const chain: CodecConfig[] = [
    { name: "scale_offset", configuration: { offset: 1000, scale: 10 } },
    { name: "cast_value", configuration: { data_type: "int16", out_of_range: "wrap" } },
    { name: "bytes" },
  ];
  const v3 = await roundTrip("float64", [6], chain, xs, 1000);
  const legacy = await roundTrip("float64", [6], [{ name: "numcodecs.fixedscaleoffset", configuration: { offset: 1000, scale: 10, dtype: "<f8", astype: "<i2" } }, { name: "bytes" }], xs);
  assert.deepEqual(v3.chunk, legacy.chunk);
  assert.deepEqual(v3.chunk, le16([0, 0, 0, 2, -5, 127]));
  assert.deepEqual(Array.from(v3.back.data as Float64Array), [1000, 1000, 1000, 1000.2, 999.5, 1012.7]);
  // float32 arithmetic stays float32; integers are exact and divide back toward zero.
  const f32 = await roundTrip("float32", [2], [{ name: "scale_offset", configuration: { offset: 5, scale: 0.1 } }, { name: "bytes" }], Float32Array.of(15, 5));
  const stored = new Float32Array(f32.chunk.buffer, f32.chunk.byteOffset, 2);
  assert.deepEqual(Array.from(stored), [Math.fround(Math.fround(10) * Math.fround(0.1)), 0]);
  const ints = await roundTrip("int16", [3], [{ name: "scale_offset", configuration: { offset: -3, scale: 4 } }, { name: "bytes" }], Int16Array.of(0, 7, -3));
  assert.deepEqual(ints.chunk, le16([12, 40, 0]));
  assert.deepEqual(Array.from(ints.back.data as Int16Array), [0, 7, -3]);
  for (const conf of [{ offset: 1 }, { offset: 1, scale: 0 }, { offset: 1, scale: 2, dtype: "<f8" }, { offset: "x", scale: 2 }]) {
    await assert.rejects(() => roundTrip("float64", [1], [{ name: "scale_offset", configuration: conf as never }, { name: "bytes" }], f64([1])), { code: "INVALID_METADATA" }, JSON.stringify(conf));
  }
});

test("scale_offset and cast_value: zarrita.js reads parzarr's arrays equal", async () => {
  const dir = scratchDir();
  const xs = f64([1000, 1000.25, 999.5, 1012.7, 1003.3, 998]);
  const a = await createArray(join(dir, "so.zarr"), {
    shape: [6],
    chunks: [4],
    dtype: "float64",
    fillValue: 1000,
    codecs: [
      { name: "scale_offset", configuration: { offset: 1000, scale: 10 } },
      { name: "cast_value", configuration: { data_type: "int16", out_of_range: "wrap" } },
      { name: "bytes", configuration: { endian: "little" } },
    ],
  });
  await a.set(null, xs);
  const ours = Array.from(((await a.get()) as NDArray).data as Float64Array);
  const b = await createArray(join(dir, "cv.zarr"), {
    shape: [4],
    chunks: [4],
    dtype: "float32",
    fillValue: "NaN" as never,
    codecs: [{ name: "cast_value", configuration: { data_type: "uint8", rounding: "towards-zero", out_of_range: "clamp", scalar_map: { encode: [["NaN", 0]], decode: [[0, "NaN"]] } } }, { name: "bytes" }],
  });
  await b.set(null, Float32Array.of(NaN, 2.9, 300, 7));
  const root = zarrita.root(new ZarritaFileSystemStore(dir));
  const zso = await zarrita.get(await zarrita.open(root.resolve("so.zarr"), { kind: "array" }));
  assert.deepEqual(Array.from(zso.data as Float64Array), ours);
  assert.deepEqual(ours, [1000, 1000.2, 999.5, 1012.7, 1003.3, 998]);
  const zcv = await zarrita.get(await zarrita.open(root.resolve("cv.zarr"), { kind: "array" }));
  assert.deepEqual(Array.from(zcv.data as Float32Array), [NaN, 2, 255, 7]);
  assert.deepEqual(Array.from(((await b.get()) as NDArray).data as Float32Array), [NaN, 2, 255, 7]);
});

test("packbits over numpy.datetime64 and numpy.timedelta64: the int64 counts' bits, low bit first", async () => {
  for (const name of ["numpy.datetime64", "numpy.timedelta64"]) {
    const dt = { name, configuration: { unit: "ms", scale_factor: 1 } };
    const values = BigInt64Array.of(1n, -2n, NAT, 2n ** 40n);
    const full = await roundTrip(dt, [4], [{ name: "packbits" }], { data: values, shape: [4] }, "NaT");
    assert.deepEqual(full.chunk, new Uint8Array(values.buffer), name);
    assert.deepEqual(Array.from(full.back.data as BigInt64Array), Array.from(values), name);
    // 12 kept bits each (0..11), sign-extended on read: 1, -2 and 5 fit.
    const part = await roundTrip(dt, [3], [{ name: "packbits", configuration: { last_bit: 11, padding_encoding: "last_byte" } }], { data: BigInt64Array.of(1n, -2n, 5n), shape: [3] });
    assert.deepEqual(Array.from(part.chunk), [0x01, 0xe0, 0xff, 0x05, 0x00, 4], name);
    assert.deepEqual(Array.from(part.back.data as BigInt64Array), [1n, -2n, 5n], name);
  }
});

test("vlen-utf8 over a bytes array and vlen-bytes over a string array, as zarrs writes them", async () => {
  const enc = new TextEncoder();
  const frame = (items: Uint8Array[]) => {
    const parts: Uint8Array[] = [Uint8Array.of(items.length, 0, 0, 0)];
    for (const b of items) parts.push(Uint8Array.of(b.length, 0, 0, 0), b);
    return Uint8Array.from(parts.flatMap((p) => Array.from(p)));
  };
  const bytes = [Uint8Array.of(0xff, 0), new Uint8Array(0), enc.encode("ok")];
  const b = await roundTrip("variable_length_bytes", [3], [{ name: "vlen-utf8" }], bytes);
  assert.deepEqual(b.chunk, frame(bytes));
  assert.deepEqual(b.back.data, bytes);
  const strings = ["é", "", "zarr 🎉"];
  const s = await roundTrip("string", [3], [{ name: "vlen-bytes" }], strings, "");
  assert.deepEqual(s.chunk, frame(strings.map((x) => enc.encode(x))));
  assert.deepEqual(s.back.data, strings);
  await s.store.set("c/0", frame([Uint8Array.of(0xc3), enc.encode("a"), enc.encode("b")]));
  await assert.rejects(() => s.a.get(), { code: "CORRUPT_CHUNK" });
  await assert.rejects(
    () => createArray(new MemoryStore(), { shape: [1], chunks: [1], dtype: "int8", codecs: [{ name: "vlen-bytes" }] }),
    { code: "INVALID_METADATA" },
  );
});

/** numcodecs' JSON() defaults, as zarr-python 2 writes them into .zarray. */
const JSON2 = {
  id: "json2", allow_nan: true, check_circular: true, encoding: "utf-8", ensure_ascii: true, indent: null,
  separators: [",", ":"], skipkeys: false, sort_keys: true, strict: true,
};
const dec = new TextDecoder();

test("json2: object arrays of JSON values write numcodecs' text (nested by shape, dtype, shape) and read back as JS values", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { zarrFormat: 2, shape: [2, 3], chunks: [2, 2], dtype: "|O", filters: [JSON2] as never, compressor: null, fillValue: 0 });
  assert.equal(a.dataType.kind, "json");
  const values = [1, "a", null, { k: [1, 2], b: "é" }, 2.5, true];
  await a.set(null, values as never);
  // What zarr-python 2.13 + numcodecs 0.11 write for these values (edge chunk padded with the fill, 0).
  assert.equal(dec.decode((await store.get("0.0"))!), '[[1,"a"],[{"b":"\\u00e9","k":[1,2]},2.5],"|O",[2,2]]');
  assert.equal(dec.decode((await store.get("0.1"))!), '[[null,0],[true,0],"|O",[2,2]]');
  const again = await openArray(store);
  assert.deepEqual(((await again.get()) as NDArray).data, values);
  assert.deepEqual(await again.get([1, 0]), { k: [1, 2], b: "é" });
  // One object value broadcasts; lists are lists of values; NaN uses Python's literal.
  await a.set([0, 0], { x: NaN } as never);
  assert.equal(dec.decode((await store.get("0.0"))!), '[[{"x":NaN},"a"],[{"b":"\\u00e9","k":[1,2]},2.5],"|O",[2,2]]');
  assert.ok(Number.isNaN(((await a.get([0, 0])) as unknown as { x: number }).x));
  // Values JSON cannot hold are refused before anything is written.
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  for (const bad of [10n, new Date(0), cyclic, [undefined]]) {
    await assert.rejects(() => a.set([0], { data: [bad, 1, 2], shape: [3] } as never), { code: "INVALID_ARGUMENT" }, String(bad));
  }
  // Bytes that are not a json2 chunk are corrupt, not an internal fault.
  for (const text of ["[1,2", '[[1,2],[3,4],"|O",[3,2]]', '[[1,2],[3],"|O",[2,2]]', '[1,2,3,"|O",[2,2]]', '{"a":1}', "\xff"]) {
    await store.set("0.0", new TextEncoder().encode(text));
    await assert.rejects(() => a.get(), { code: "CORRUPT_CHUNK" }, text);
  }
});

test("json2: zarr-python 2 reads parzarr's arrays equal, and parzarr reads zarr-python's", { skip: zarrPythonSkip() }, async () => {
  const dir = scratchDir();
  const values = [1, "a", null, { k: [1, 2] }, 2.5, true, [1, [2]], "🎉"];
  const a = await createArray(join(dir, "p.zarr"), { zarrFormat: 2, shape: [8], chunks: [3], dtype: "|O", filters: [{ id: "json2" }] as never });
  await a.set(null, values as never);
  const script = `
import sys, json, zarr, numcodecs, numpy as np
root = sys.argv[1]
a = zarr.open(root + "/p.zarr", mode="r")
assert a[:].tolist() == json.loads(${JSON.stringify(JSON.stringify(values))}), a[:].tolist()
z = zarr.open(root + "/z.zarr", mode="w", shape=(2, 3), chunks=(2, 2), dtype=object, object_codec=numcodecs.JSON())
z[:] = np.array([[1, "a", None], [{"k": [1, 2]}, 2.5, True]], dtype=object)
print("ok")
`;
  const r = runPython(script, dir);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), "ok");
  const z = await openArray(join(dir, "z.zarr"));
  assert.deepEqual(((await z.get()) as NDArray).data, [1, "a", null, { k: [1, 2] }, 2.5, true]);
});

test("json2: zarrita.js reads parzarr's v2 JSON object array equal; parzarr reads zarrita's flat n-d chunks", async () => {
  const dir = scratchDir();
  const values = [1, "a", null, { k: [1, 2] }, 2.5, true];
  // 1-d: zarrita reads numcodecs' form. (For n-d zarrita expects values flat, where numpy nests them.)
  const a = await createArray(join(dir, "j.zarr"), { zarrFormat: 2, shape: [6], chunks: [4], dtype: "|O", filters: [JSON2] as never });
  await a.set(null, values as never);
  const arr = await zarrita.open.v2(zarrita.root(new ZarritaFileSystemStore(dir)).resolve("j.zarr"), { kind: "array" });
  const got = await zarrita.get(arr);
  assert.deepEqual(got.shape, [6]);
  assert.deepEqual(Array.from(got.data as ArrayLike<unknown>), values);
  // zarrita's encoder writes an n-d chunk's values flat: `[v0, v1, v2, v3, "|O", [2, 2]]`.
  const store = new MemoryStore();
  const b = await createArray(store, { zarrFormat: 2, shape: [2, 2], chunks: [2, 2], dtype: "|O", filters: [JSON2] as never, compressor: null });
  await store.set("0.0", new TextEncoder().encode('[1,"a",null,{"k":2},"|O",[2,2]]'));
  assert.deepEqual(((await b.get()) as NDArray).data, [1, "a", null, { k: 2 }]);
});

test("codecs outside the core load on first use: a chain is built only once codecsReady has loaded them, nested chains included", async () => {
  // In a process of its own, where nothing has opened a sharded array yet.
  const script = `
    import { codecsReady, getCodecFactory } from ${JSON.stringify(new URL("../src/codecs/registry.ts", import.meta.url).href)};
    const out = {};
    try { getCodecFactory("numcodecs.delta"); } catch (e) { out.before = e.code; }
    const chain = [{ name: "sharding_indexed", configuration: { codecs: [{ name: "numcodecs.delta", configuration: { dtype: "<i4" } }, { name: "bytes" }] } }];
    out.loading = codecsReady(chain) instanceof Promise;
    await codecsReady(chain);
    // The chain leaves out sharding's index_codecs, whose default (bytes, crc32c) names crc32c.
    out.after = [typeof getCodecFactory("sharding_indexed"), typeof getCodecFactory("numcodecs.delta"), typeof getCodecFactory("crc32c")];
    out.again = codecsReady(chain) === undefined;
    try { getCodecFactory("no-such-codec"); } catch (e) { out.unknown = e.code; }
    console.log(JSON.stringify(out));
  `;
  const { execFile } = await import("node:child_process");
  const { promisify } = await import("node:util");
  const { stdout } = await promisify(execFile)(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]);
  // Before: an internal fault (never UNKNOWN_CODEC, which would blame the array's metadata).
  assert.deepEqual(JSON.parse(stdout), { before: "INTERNAL", loading: true, after: ["function", "function", "function"], again: true, unknown: "UNKNOWN_CODEC" });
});
