/**
 * The zarr-extensions numeric types TensorStore and zarrs read and write: int2/int4/uint2/uint4,
 * the float8_* family, float6_*, float4_e2m1fn and the complex_* types. Decoding of every code
 * and rounding of every value, midpoint and overflow are checked against tables written by
 * ml_dtypes, the implementation the specifications point to (test/fixtures/ml-dtypes, made by
 * test/peers/ml_dtypes_tables.py); special codes against the specifications' own statements.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MemoryStore, WorkerPool, createArray, openArray, type NDArray, type CodecConfig } from "../src/index.js";
import { FIXTURES, scratchDir } from "./helpers/paths.js";
import { cliInProcess } from "./helpers/cli-in-process.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

interface FloatTable {
  bits: number;
  decode: string[];
  encode: { inputs: string[]; codes: number[] };
}
interface IntTable {
  min: number;
  max: number;
  decode: number[];
  encode: { values: number[]; codes: number[] };
}
const tables = JSON.parse(readFileSync(join(FIXTURES, "ml-dtypes", "tables.json"), "utf8")) as Record<string, FloatTable | IntTable | string>;
const FLOATS = Object.keys(tables).filter((k) => k.startsWith("float")) as string[];
const INTS = ["int2", "int4", "uint2", "uint4"];
const floatTable = (name: string) => tables[name] as FloatTable;
const intTable = (name: string) => tables[name] as IntTable;

const BYTES: CodecConfig[] = [{ name: "bytes" }];
const pool = new WorkerPool({ threads: 2 });
after(() => pool.close());

/** An array of one chunk holding `codes` as stored bytes, read back through the bytes codec. */
async function readCodes(dtype: string, codes: Uint8Array): Promise<NDArray> {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [codes.length], chunks: [codes.length], dtype, codecs: BYTES, fillValue: 0 });
  await store.set("c/0", codes);
  return (await a.get()) as NDArray;
}

/** What `set` stores for `values`, as the chunk's bytes. */
async function storedCodes(dtype: string, values: ArrayLike<number>): Promise<Uint8Array> {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [values.length], chunks: [values.length], dtype, codecs: BYTES, fillValue: 0, writeEmptyChunks: true });
  await a.set(null, Float64Array.from(values));
  return (await store.get("c/0"))!;
}

test("the tables are ml_dtypes' own, for every type this project reads", () => {
  assert.equal(FLOATS.length, 11);
  assert.equal(typeof tables.ml_dtypes, "string");
});

test("every code of each 8-bit-or-smaller float decodes to ml_dtypes' value; upper bits above the code are ignored", async () => {
  for (const name of FLOATS) {
    const t = floatTable(name);
    const n = 1 << t.bits;
    const codes = Uint8Array.from({ length: n }, (_, c) => c);
    const got = await readCodes(name, codes);
    assert.ok(got.data instanceof Float32Array, name);
    const want = t.decode.map((s) => Math.fround(Number(s)));
    for (let c = 0; c < n; c++) assert.ok(Object.is(got.data[c], want[c]), `${name} code 0x${c.toString(16)}: ${got.data[c]} != ${want[c]}`);
    if (t.bits < 8) {
      // float6/float4: `0bXXSEEMMM`, "the upper bits are ignored".
      const noisy = codes.map((c, i) => c | ((0xff << t.bits) & (i * 37)));
      assert.deepEqual(Array.from((await readCodes(name, noisy)).data as Float32Array), Array.from(got.data as Float32Array), name);
    }
  }
});

test("set rounds every value, midpoint, neighbour of a midpoint and overflow to ml_dtypes' code", async () => {
  for (const name of FLOATS) {
    const t = floatTable(name);
    const inputs = t.encode.inputs.map(Number);
    const stored = await storedCodes(name, inputs);
    const nanCodes = new Set(t.decode.flatMap((s, c) => (s === "NaN" ? [c] : [])));
    for (let i = 0; i < inputs.length; i++) {
      const want = t.encode.codes[i];
      // A NaN's sign is not kept in JS numbers: any NaN code of the type is that NaN.
      if (nanCodes.has(want)) assert.ok(nanCodes.has(stored[i]), `${name}(${t.encode.inputs[i]}) -> 0x${stored[i].toString(16)}, want NaN`);
      else assert.equal(stored[i], want, `${name}(${t.encode.inputs[i]}) -> 0x${stored[i].toString(16)}, want 0x${want.toString(16)}`);
    }
  }
});

test("ties round to even: worked cases from the bit layouts", async () => {
  // float8_e4m3 around 1: 1, 1.125, 1.25; 1.0625 is halfway 1|1.125 -> 1 (even), 1.1875 -> 1.25.
  assert.deepEqual(Array.from(await storedCodes("float8_e4m3", [1, 1.0625, 1.1875, 1.125])), [0x38, 0x38, 0x3a, 0x39]);
  // float4_e2m1fn: 0, 0.5, 1, 1.5, 2, 3, 4, 6; 2.5 -> 2 (0b0100), 3.5 -> 4 (0b0110), 5 -> 4, 7 saturates to 6.
  assert.deepEqual(Array.from(await storedCodes("float4_e2m1fn", [2.5, 3.5, 5, 7, -0.25])), [0x4, 0x6, 0x6, 0x7, 0x8]);
  // float8_e5m2 largest 57344; 61440 is the halfway point to the next binade: overflows to infinity.
  assert.deepEqual(Array.from(await storedCodes("float8_e5m2", [57344, 61439, 61440])), [0x7b, 0x7b, 0x7c]);
});

test("NaN is the code each specification names; no infinity and no NaN where a format has none", async () => {
  const nanCode: Record<string, number> = {
    float8_e3m4: 0x78,
    float8_e4m3: 0x7c,
    float8_e4m3fn: 0x7f,
    float8_e4m3fnuz: 0x80,
    float8_e4m3b11fnuz: 0x80,
    float8_e5m2: 0x7e,
    float8_e5m2fnuz: 0x80,
    float8_e8m0fnu: 0xff,
  };
  for (const [name, code] of Object.entries(nanCode)) {
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [3], chunks: [3], dtype: name, codecs: BYTES, fillValue: "NaN", writeEmptyChunks: true });
    const doc = JSON.parse(new TextDecoder().decode(await store.get("zarr.json")));
    assert.equal(doc.fill_value, "NaN", name);
    assert.ok(Number.isNaN((await a.get([0])) as number), name);
    await a.set(null, NaN);
    assert.deepEqual(Array.from((await store.get("c/0"))!), [code, code, code], name);
    // The hex form names the same code.
    const hex = await createArray(new MemoryStore(), { shape: [1], dtype: name, fillValue: `0x${code.toString(16).padStart(2, "0")}` });
    assert.ok(Number.isNaN(hex.fillValue as number), name);
  }
  for (const name of ["float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "float6_e2m3fn", "float4_e2m1fn"]) {
    await assert.rejects(() => createArray(new MemoryStore(), { shape: [1], dtype: name, fillValue: "Infinity" }), { code: "INVALID_METADATA" }, name);
  }
  for (const name of ["float6_e2m3fn", "float6_e3m2fn", "float4_e2m1fn"]) {
    await assert.rejects(() => createArray(new MemoryStore(), { shape: [1], dtype: name, fillValue: "NaN" }), { code: "INVALID_METADATA" }, name);
  }
  const inf = await createArray(new MemoryStore(), { shape: [2], dtype: "float8_e5m2", fillValue: "-Infinity" });
  assert.deepEqual(Array.from(((await inf.get()) as NDArray).data as Float32Array), [-Infinity, -Infinity]);
});

test("fill values: numbers, hex codes, complex pairs; bad ones are typed metadata errors", async () => {
  const store = new MemoryStore();
  await createArray(store, { shape: [2], dtype: "float8_e4m3", fillValue: "0x38" });
  let a = await openArray(store, { mode: "r" });
  assert.equal(a.fillValue, 1);
  assert.deepEqual(Array.from(((await a.get()) as NDArray).data as Float32Array), [1, 1]);
  await createArray(store, { shape: [2], dtype: "float6_e3m2fn", fillValue: -0.1875, overwrite: true });
  a = await openArray(store, { mode: "r" });
  assert.equal(JSON.parse(new TextDecoder().decode(await store.get("zarr.json"))).fill_value, -0.1875);
  assert.deepEqual(Array.from(((await a.get()) as NDArray).data as Float32Array), [-0.1875, -0.1875]);
  const c = await createArray(new MemoryStore(), { shape: [2], dtype: "complex_float8_e5m2", fillValue: ["NaN", "0x3c"] });
  const cv = (await c.get([1])) as [number, number];
  assert.ok(Number.isNaN(cv[0]));
  assert.equal(cv[1], 1);
  for (const [dtype, fillValue] of [
    ["float8_e4m3", "0x7"], // one byte is two hex digits
    ["float8_e4m3", "0x0038"],
    ["float4_e2m1fn", "0x10"], // not a 4-bit code
    ["float8_e5m2", "one"],
    ["int4", 8],
    ["int2", -3],
    ["uint4", 16],
    ["uint2", -1],
    ["complex_float16", [1, 2, 3]],
  ] as const) {
    await assert.rejects(() => createArray(new MemoryStore(), { shape: [1], dtype, fillValue }), { code: "INVALID_METADATA" }, `${dtype} ${JSON.stringify(fillValue)}`);
  }
  await assert.rejects(() => createArray(new MemoryStore(), { shape: [1], dtype: "float8_e9m9" }), { code: "INVALID_METADATA" });
  await assert.rejects(() => createArray(new MemoryStore(), { shape: [1], dtype: "complex_int4" }), { code: "INVALID_METADATA" });
});

test("int2/int4/uint2/uint4: every stored byte decodes as ml_dtypes does (upper bits ignored), every value stores its low bits", async () => {
  for (const name of INTS) {
    const t = intTable(name);
    const got = await readCodes(name, Uint8Array.from({ length: 256 }, (_, c) => c));
    assert.ok(got.data instanceof (name.startsWith("u") ? Uint8Array : Int8Array), name);
    assert.deepEqual(Array.from(got.data as Int8Array), t.decode, name);
    assert.deepEqual(Array.from(await storedCodes(name, t.encode.values)), t.encode.codes, name);
    // Out of range is refused, as for every integer type, from lists and from typed arrays alike.
    const a = await createArray(new MemoryStore(), { shape: [2], dtype: name, fillValue: t.min });
    await assert.rejects(() => a.set(null, [t.max + 1, 0]), { code: "INVALID_ARGUMENT" }, name);
    await assert.rejects(() => a.set(null, Int8Array.from([0, t.min - 1])), { code: "INVALID_ARGUMENT" }, name);
    await assert.rejects(() => a.set([0], t.max + 1), { code: "INVALID_ARGUMENT" }, name);
    await a.set([1], t.max);
    assert.deepEqual(Array.from(((await a.get()) as NDArray).data as Int8Array), [t.min, t.max], name);
  }
});

test("metadata: each name round-trips in zarr.json, needs no endian where components are one byte, and has no v2 form", async () => {
  const names = [...FLOATS, ...INTS, ...FLOATS.map((n) => `complex_${n}`), "complex_bfloat16", "complex_float16", "complex_float32", "complex_float64"];
  for (const dtype of names) {
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [2], chunks: [2], dtype });
    const doc = JSON.parse(new TextDecoder().decode(await store.get("zarr.json")));
    assert.equal(doc.data_type, dtype);
    const bytes = doc.codecs.find((c: CodecConfig) => c.name === "bytes");
    const multiByte = /^complex_(b?float16|float32|float64)$/.test(dtype);
    assert.deepEqual(bytes.configuration ?? {}, multiByte ? { endian: "little" } : {}, dtype);
    const back = await openArray(store, { mode: "r" });
    assert.deepEqual(back.dataType, a.dataType, dtype);
    await assert.rejects(() => createArray(new MemoryStore(), { shape: [2], dtype, zarrFormat: 2 }), { code: "UNSUPPORTED" }, dtype);
  }
});

test("complex types: interleaved re, im; complex_float32/64 store what complex64/128 store; complex_float16 big-endian", async () => {
  const pairs = [1.5, -2.25, 0.1, 1e-3, 70000, -0, 3, 4];
  for (const [name, twin] of [["complex_float32", "complex64"], ["complex_float64", "complex128"]]) {
    const chunks: Uint8Array[] = [];
    for (const dtype of [name, twin]) {
      const store = new MemoryStore();
      const a = await createArray(store, { shape: [4], chunks: [4], dtype, codecs: [{ name: "bytes", configuration: { endian: "big" } }] });
      await a.set(null, Float64Array.from(pairs));
      chunks.push((await store.get("c/0"))!);
      const got = (await a.get()) as NDArray;
      assert.ok(got.data instanceof (name === "complex_float32" ? Float32Array : Float64Array));
      assert.deepEqual(await a.get([0]), [1.5, -2.25]);
    }
    assert.deepEqual(chunks[0], chunks[1], name);
  }
  const store = new MemoryStore();
  const h = await createArray(store, { shape: [4], chunks: [4], dtype: "complex_float16", codecs: [{ name: "bytes", configuration: { endian: "big" } }], fillValue: [1, "0x3c00"] });
  assert.deepEqual(h.fillValue, [1, 1]);
  await h.set(null, Float64Array.from(pairs));
  const got = (await h.get()) as NDArray;
  assert.ok(got.data instanceof Float32Array);
  // Rounded to half precision: 0.1 -> 0.0999755859375, 70000 overflows to Infinity.
  assert.deepEqual(Array.from(got.data as Float32Array), [1.5, -2.25, 0.0999755859375, 0.0010004043579101562, Infinity, -0, 3, 4]);
  const raw = (await store.get("c/0"))!;
  // 1.5 as a big-endian half: 0x3e00.
  assert.deepEqual(Array.from(raw.subarray(0, 2)), [0x3e, 0x00]);
  await h.set([1], [0.5, -1]);
  assert.deepEqual(await h.get([1]), [0.5, -1]);
  const e2m1 = await createArray(new MemoryStore(), { shape: [2], dtype: "complex_float4_e2m1fn" });
  await e2m1.set(null, [2.5, 100, -0.75, 1]);
  assert.deepEqual(Array.from(((await e2m1.get()) as NDArray).data as Float32Array), [2, 6, -1, 1]);
});

test("on the worker pool as inline: a folder array of each type written and read by workers equals the inline result", async () => {
  const dir = scratchDir();
  const n = 4096;
  const bytes = (endian?: string): CodecConfig => ({ name: "bytes", configuration: endian ? { endian } : {} });
  const cases: [string, CodecConfig[]][] = [
    ["float8_e4m3fn", [bytes(), { name: "gzip" }]],
    ["float4_e2m1fn", [bytes(), { name: "gzip" }]],
    ["int4", [bytes(), { name: "gzip" }]],
    ["uint2", [{ name: "packbits", configuration: { padding_encoding: "first_byte" } }, { name: "gzip" }]],
    ["complex_float6_e3m2fn", [{ name: "packbits" }]],
    ["complex_float16", [bytes("big"), { name: "gzip" }]],
  ];
  for (const [dtype, codecs] of cases) {
    const a = await createArray(dir, { path: dtype, shape: [n], chunks: [256], dtype, codecs });
    const int = dtype.includes("int");
    const c = dtype.startsWith("complex") ? 2 : 1;
    const values = Float64Array.from({ length: n * c }, (_, i) => (int ? (i % (dtype === "int4" ? 16 : 4)) - (dtype === "int4" ? 8 : 0) : Math.sin(i) * 5));
    await a.set(null, values, { pool, threads: 2 });
    const onPool = (await a.get(null, { pool, threads: 2 })) as NDArray;
    const inline = (await a.get(null, { threads: 0 })) as NDArray;
    assert.deepEqual(onPool.data, inline.data, dtype);
    const b = await createArray(dir, { path: `${dtype}-inline`, shape: [n], chunks: [256], dtype, codecs });
    await b.set(null, values, { threads: 0 });
    assert.deepEqual(((await b.get(null, { threads: 0 })) as NDArray).data, inline.data, dtype);
    if (int) assert.deepEqual(Array.from(inline.data as Int8Array), Array.from(values), dtype);
  }
});

/** An array of one chunk through `codecs`, its stored chunk, and what reading it gives. */
async function throughCodecs(dtype: string, codecs: CodecConfig[], values: ArrayLike<number>, components = 1): Promise<{ chunk: Uint8Array; back: number[] }> {
  const store = new MemoryStore();
  const n = values.length / components;
  const a = await createArray(store, { shape: [n], chunks: [n], dtype, codecs, fillValue: 0, writeEmptyChunks: true });
  await a.set(null, Float64Array.from(values));
  const chunk = (await store.get("c/0"))!;
  return { chunk, back: Array.from(((await a.get()) as NDArray).data as Int8Array) };
}

test("packbits reads the masks zarrs packed (low bit first) in its optional-type fixture", async () => {
  // Each chunk: mask length and data length (u64 little-endian), the packbits mask, then the data.
  const root = join(FIXTURES, "zarrs", "v3", "array_optional.zarr", "array", "c");
  const want: Record<string, number[]> = { "0/0": [1, 0, 0, 1], "0/1": [1, 1, 0, 1], "1/0": [1, 1, 1, 0] };
  for (const [key, mask] of Object.entries(want)) {
    const raw = readFileSync(join(root, key));
    const maskBytes = raw.subarray(16, 16 + Number(new DataView(raw.buffer, raw.byteOffset).getBigUint64(0, true)));
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [2, 2], chunks: [2, 2], dtype: "bool", codecs: [{ name: "packbits" }] });
    await store.set("c/0/0", maskBytes);
    assert.deepEqual(Array.from(((await a.get()) as NDArray).data as Uint8Array), mask, key);
    // And writing the same mask gives zarrs' bytes back.
    await a.set(null, Uint8Array.from(mask));
    assert.deepEqual(await store.get("c/0/0"), new Uint8Array(maskBytes), key);
  }
});

test("packbits: sub-byte values end to end, low bits first, padding counted first or last", async () => {
  const int4 = Array.from({ length: 16 }, (_, i) => i - 8);
  // Two int4 per byte, the first in the low nibble: -8 (0x8), -7 (0x9) -> 0x98.
  const packed = await throughCodecs("int4", [{ name: "packbits" }], int4);
  assert.deepEqual(Array.from(packed.chunk), [0x98, 0xba, 0xdc, 0xfe, 0x10, 0x32, 0x54, 0x76]);
  assert.deepEqual(packed.back, int4);
  // Three values, 12 bits: 4 padding bits, counted in a first or last byte.
  const first = await throughCodecs("uint4", [{ name: "packbits", configuration: { padding_encoding: "first_byte" } }], [1, 2, 15]);
  assert.deepEqual(Array.from(first.chunk), [4, 0x21, 0x0f]);
  const last = await throughCodecs("uint4", [{ name: "packbits", configuration: { padding_encoding: "last_byte" } }], [1, 2, 15]);
  assert.deepEqual(Array.from(last.chunk), [0x21, 0x0f, 4]);
  assert.deepEqual(last.back, [1, 2, 15]);
  // float6_e2m3fn, 6 bits each: the stream is sum(code_i << 6i), little-endian.
  const f6 = [0.5, -7.5, 1.125, 3];
  const codes = (await throughCodecs("float6_e2m3fn", [{ name: "bytes" }], f6)).chunk;
  let stream = 0n;
  codes.forEach((c, i) => (stream |= BigInt(c) << BigInt(6 * i)));
  const six = await throughCodecs("float6_e2m3fn", [{ name: "packbits" }], f6);
  assert.deepEqual(Array.from(six.chunk), [0, 1, 2].map((i) => Number((stream >> BigInt(8 * i)) & 0xffn)));
  assert.deepEqual(six.back, f6);
  // complex_float4_e2m1fn: re then im, 4 bits each: one byte per element.
  const cx = await throughCodecs("complex_float4_e2m1fn", [{ name: "packbits" }], [1, -2, 6, 0.5], 2);
  assert.deepEqual(Array.from(cx.chunk), [0xc2, 0x17]);
  assert.deepEqual(cx.back, [1, -2, 6, 0.5]);
  const bools = await throughCodecs("bool", [{ name: "packbits" }], [1, 0, 0, 0, 0, 0, 0, 0, 1, 1]);
  assert.deepEqual(Array.from(bools.chunk), [0x01, 0x03]);
});

test("packbits first_bit/last_bit keep a bit range: zero-extended, sign-extended for signed integers", async () => {
  const range = { name: "packbits", configuration: { first_bit: 4, last_bit: 11 } };
  const u = await throughCodecs("uint16", [range], [0x1234, 0xffff]);
  assert.deepEqual(Array.from(u.chunk), [0x23, 0xff]);
  assert.deepEqual(u.back, [0x0230, 0x0ff0]);
  const s = await throughCodecs("int16", [range], [-16, 0x7f0, -4096]);
  assert.deepEqual(s.back, [-16, 0x7f0, 0]);
  // int4 keeping bits 0..2: -3 (0b1101) keeps 0b101, whose top bit makes it -3 again.
  const i4 = await throughCodecs("int4", [{ name: "packbits", configuration: { last_bit: 2 } }], [-3, 2, -4, 3]);
  assert.deepEqual(i4.back, [-3, 2, -4, 3]);
  const store = new MemoryStore();
  const doc = async (codecs: CodecConfig[]) => {
    await createArray(store, { shape: [2], dtype: "int4", codecs, overwrite: true });
    return JSON.parse(new TextDecoder().decode(await store.get("zarr.json"))).codecs[0];
  };
  assert.deepEqual(await doc([{ name: "packbits", configuration: { first_bit: null, last_bit: 2 } }]), { name: "packbits", configuration: { padding_encoding: "none", last_bit: 2 } });
});

test("packbits refuses bad configurations and chunks of the wrong size or padding", async () => {
  for (const [dtype, configuration] of [
    ["int4", { first_bit: 2, last_bit: 1 }],
    ["int4", { last_bit: 4 }],
    ["uint8", { first_bit: -1 }],
    ["int4", { padding_encoding: "middle" }],
    ["string", {}],
  ] as const) {
    await assert.rejects(() => createArray(new MemoryStore(), { shape: [2], dtype, codecs: [{ name: "packbits", configuration }] }), { code: "INVALID_METADATA" }, JSON.stringify(configuration));
  }
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [3], chunks: [3], dtype: "uint4", codecs: [{ name: "packbits", configuration: { padding_encoding: "first_byte" } }] });
  await store.set("c/0", new Uint8Array([4, 0x21]));
  await assert.rejects(() => a.get(), { code: "CORRUPT_CHUNK" });
  await store.set("c/0", new Uint8Array([3, 0x21, 0x0f]));
  await assert.rejects(() => a.get(), { code: "CORRUPT_CHUNK" });
});

test("the CLI: info names the v3 type, get --out .npy writes what get holds (numpy reads it), 0-d too", { skip: zarrPythonSkip() }, async () => {
  const dir = scratchDir();
  const cases = [
    { dtype: "float8_e4m3fn", values: [1, 2.5, -0.3, 500], want: "[1.0, 2.5, -0.3125, nan]", descr: "float32" },
    { dtype: "int4", values: [-8, 7, 3, 0], want: "[-8, 7, 3, 0]", descr: "int8" },
    { dtype: "complex_float8_e5m2", values: [1, 2, 3, 4, 5, 6, 7, 8], want: "[(1+2j), (3+4j), (5+6j), (7+8j)]", descr: "complex64" },
  ];
  for (const c of cases) {
    const path = join(dir, `${c.dtype}.zarr`);
    const a = await createArray(path, { shape: [4], chunks: [2], dtype: c.dtype });
    await a.set(null, c.values);
    const info = await cliInProcess(["info", path]);
    assert.equal(info.code, 0, info.stderr);
    assert.match(info.stdout, new RegExp(`Data type\\s+: ${c.dtype}\\n`));
    for (const [sel, file] of [[[], "all.npy"], [["1"], "one.npy"]] as const) {
      const out = join(dir, `${c.dtype}-${file}`);
      const run = await cliInProcess(["get", path, ...sel, "--out", out]);
      assert.equal(run.code, 0, run.stderr);
      const py = runPython(`import numpy, sys; a = numpy.load(sys.argv[1]); print(a.dtype, a.tolist())`, out);
      assert.equal(py.status, 0, py.stderr);
      const whole = c.want;
      const second = whole.slice(1, -1).split(", ")[1];
      assert.equal(py.stdout.trim(), `${c.descr} ${sel.length ? second : whole}`, `${c.dtype} ${file}`);
    }
  }
});
