/**
 * zarrs' `optional` data type with its `optional` codec, and zarrs' variable-length codecs.
 *
 * The chunk bytes are built here from the layout zarrs documents (codec/array_to_bytes/optional:
 * u64 LE mask length, u64 LE data length, the encoded mask, the encoded present values) and were
 * checked against the chunks zarrs commits in zarrs/tests/data/v3/array_optional*.zarr (same
 * arrays, same bytes).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FileSystemStore, MemoryStore, copy, createArray, openArray, slice, type NDArray } from "../src/index.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";
import { FIXTURES, scratchDir } from "./helpers/paths.js";

const enc = new TextEncoder();

function u64(n: number): number[] {
  return [n, 0, 0, 0, 0, 0, 0, 0];
}

/** One `optional` chunk: header, encoded mask, encoded present values. */
function optionalChunk(mask: number[], data: number[]): Uint8Array {
  return Uint8Array.from([...u64(mask.length), ...u64(data.length), ...mask, ...data]);
}

const OPTIONAL_U8 = {
  zarr_format: 3,
  node_type: "array",
  shape: [4, 4],
  data_type: { name: "optional", configuration: { name: "uint8", configuration: {} } },
  chunk_grid: { name: "regular", configuration: { chunk_shape: [2, 2] } },
  chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
  fill_value: null,
  codecs: [
    {
      name: "optional",
      configuration: { mask_codecs: [{ name: "packbits" }], data_codecs: [{ name: "bytes", configuration: { endian: "little" } }] },
    },
  ],
  attributes: {},
};

// zarrs' example: N marks a missing element.
//  0  N  2  3
//  N  5  N  7
//  8  9  N  N
// 12  N  N  N
const U8_VALUES = [0, null, 2, 3, null, 5, null, 7, 8, 9, null, null, 12, null, null, null];
// Its chunks (1/1 is all missing and not stored). Mask bits: packbits, low bit first.
const U8_CHUNKS: Record<string, Uint8Array> = {
  "c/0/0": optionalChunk([0b1001], [0, 5]),
  "c/0/1": optionalChunk([0b1011], [2, 3, 7]),
  "c/1/0": optionalChunk([0b0111], [8, 9, 12]),
};

async function storeWith(meta: object, chunks: Record<string, Uint8Array>): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.set("zarr.json", enc.encode(JSON.stringify(meta)));
  for (const [k, v] of Object.entries(chunks)) await store.set(k, v);
  return store;
}

test("optional uint8 as zarrs writes it reads with null for missing elements", async () => {
  const a = await openArray(await storeWith(OPTIONAL_U8, U8_CHUNKS), {});
  assert.equal(a.dataType.kind, "optional");
  const got = (await a.get()) as NDArray;
  assert.deepEqual(got.shape, [4, 4]);
  assert.deepEqual(Array.from(got.data as ArrayLike<unknown>), U8_VALUES);
  // A selection that crosses chunks, and one element.
  const part = (await a.get([slice(1, 3), slice(1, 3)])) as NDArray;
  assert.deepEqual(Array.from(part.data as ArrayLike<unknown>), [5, null, 9, null]);
});

test("optional uint8 writes the chunks zarrs writes, and zarr.json names the type and codec as zarrs does", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, {
    shape: [4, 4],
    chunks: [2, 2],
    dtype: { name: "optional", configuration: { name: "uint8", configuration: {} } },
    fillValue: null,
    codecs: OPTIONAL_U8.codecs,

  });
  await a.set(null, U8_VALUES);
  for (const [k, v] of Object.entries(U8_CHUNKS)) assert.deepEqual(await store.get(k), v, k);
  assert.equal(await store.get("c/1/1"), undefined);
  const meta = JSON.parse(new TextDecoder().decode(await store.get("zarr.json")));
  assert.deepEqual(meta.data_type, OPTIONAL_U8.data_type);
  assert.equal(meta.fill_value, null);
  assert.equal(meta.codecs[0].name, "optional");
  const back = (await (await openArray(store, {})).get()) as NDArray;
  assert.deepEqual(Array.from(back.data as ArrayLike<unknown>), U8_VALUES);
});

// zarrs' nested example, optional(optional(uint8)), fill value [null] (Some(None)). In JS a
// present value of a nested optional is wrapped once: null, [null], [5].
//   N   SN  2   3
//   N   5   N   7
//   SN  SN  N   N
//   SN  SN  N   N
const NESTED = {
  ...OPTIONAL_U8,
  data_type: { name: "optional", configuration: { name: "optional", configuration: { name: "uint8", configuration: {} } } },
  fill_value: [null],
  codecs: [
    {
      name: "optional",
      configuration: {
        mask_codecs: [{ name: "packbits" }],
        data_codecs: [
          {
            name: "optional",
            configuration: { mask_codecs: [{ name: "packbits" }], data_codecs: [{ name: "bytes", configuration: { endian: "little" } }] },
          },
        ],
      },
    },
  ],
};
const NESTED_VALUES = [null, [null], [2], [3], null, [5], null, [7], [null], [null], null, null, [null], [null], null, null];
const NESTED_CHUNKS: Record<string, Uint8Array> = {
  "c/0/0": optionalChunk([0b1010], Array.from(optionalChunk([0b10], [5]))),
  "c/0/1": optionalChunk([0b1011], Array.from(optionalChunk([0b111], [2, 3, 7]))),
  "c/1/1": optionalChunk([0], []),
};

test("the arrays zarrs itself wrote (test/fixtures/zarrs) read as their descriptions say, chunk bytes equal to the ones built here", async () => {
  const dir = join(FIXTURES, "zarrs", "v3");
  const store = new FileSystemStore(dir, { readOnly: true });
  for (const [path, values, chunks] of [
    ["array_optional.zarr/array", U8_VALUES, U8_CHUNKS],
    ["array_optional_nested.zarr/array", NESTED_VALUES, NESTED_CHUNKS],
  ] as const) {
    const a = await openArray(store, { path, mode: "r" });
    assert.deepEqual(Array.from(((await a.get()) as NDArray).data as ArrayLike<unknown>), values, path);
    for (const [k, v] of Object.entries(chunks)) assert.deepEqual(new Uint8Array(readFileSync(join(dir, path, k))), v, `${path}/${k}`);
  }
});

test("nested optional reads and writes zarrs' layout; a missing chunk reads as the fill value [null]", async () => {
  const a = await openArray(await storeWith(NESTED, NESTED_CHUNKS), {});
  assert.deepEqual(a.fillValue, [null]);
  const got = (await a.get()) as NDArray;
  assert.deepEqual(Array.from(got.data as ArrayLike<unknown>), NESTED_VALUES);

  const store = new MemoryStore();
  const b = await createArray(store, { shape: [4, 4], chunks: [2, 2], dtype: NESTED.data_type, fillValue: [null], codecs: NESTED.codecs });
  await b.set(null, NESTED_VALUES as never);
  for (const k of ["c/0/0", "c/0/1", "c/1/1"]) assert.deepEqual(await store.get(k), NESTED_CHUNKS[k], k);
  const meta = JSON.parse(new TextDecoder().decode(await store.get("zarr.json")));
  assert.deepEqual(meta.fill_value, [null]);
  assert.deepEqual(meta.data_type, NESTED.data_type);
});

test("optional float64 and int64 round-trip through compressed data and mask chains; the default chain is optional(packbits; bytes)", async () => {
  const store = new MemoryStore();
  const f = await createArray(store, {
    path: "f",
    shape: [7],
    chunks: [3],
    dtype: { name: "zarrs.optional", configuration: { name: "float64", configuration: {} } },
    fillValue: [1.5],
    codecs: [
      {
        name: "zarrs.optional",
        configuration: {
          mask_codecs: [{ name: "packbits" }, { name: "gzip", configuration: { level: 5 } }],
          data_codecs: [{ name: "bytes", configuration: { endian: "big" } }, { name: "zstd", configuration: { level: 1 } }],
        },
      },
    ],

  });
  assert.equal(f.fillValue, 1.5);
  await f.set([slice(1, 6)], [null, -2.25, NaN, null, 1e300]);
  const got = (await f.get()) as NDArray;
  assert.deepEqual(Array.from(got.data as ArrayLike<unknown>), [1.5, null, -2.25, NaN, null, 1e300, 1.5]);

  const i = await createArray(store, { path: "i", shape: [4], chunks: [4], dtype: { name: "optional", configuration: { name: "int64", configuration: {} } } });
  assert.equal(i.fillValue, null);
  const meta = JSON.parse(new TextDecoder().decode(await store.get("i/zarr.json")));
  assert.equal(meta.codecs[0].name, "optional");
  assert.deepEqual(meta.codecs[0].configuration.data_codecs[0], { name: "bytes", configuration: { endian: "little" } });
  await i.set(null, [5n, null, -(2n ** 63n), null]);
  const back = (await i.get()) as NDArray;
  assert.deepEqual(Array.from(back.data as ArrayLike<unknown>), [5n, null, -(2n ** 63n), null]);
});

test("a scalar written to a selection of an optional array: a value, null, or [value] for a nested one", async () => {
  const a = await createArray(new MemoryStore(), { shape: [4], chunks: [2], dtype: OPTIONAL_U8.data_type, codecs: OPTIONAL_U8.codecs });
  await a.set([slice(0, 3)], 7);
  await a.set([slice(1, 2)], null);
  assert.deepEqual(Array.from(((await a.get()) as NDArray).data as ArrayLike<unknown>), [7, null, 7, null]);
  const b = await createArray(new MemoryStore(), { shape: [3], chunks: [3], dtype: NESTED.data_type, fillValue: null, codecs: NESTED.codecs });
  await b.set([slice(0, 2)], [9]);
  await b.set([slice(1, 2)], [null]);
  assert.deepEqual(Array.from(((await b.get()) as NDArray).data as ArrayLike<unknown>), [[9], [null], null]);
  await assert.rejects(b.set([slice(0, 1)], 9), { code: "INVALID_ARGUMENT" });
});

test("bad optional input gets typed errors: corrupt chunks, wrong codecs, wrong fill values", async () => {
  const corrupt = async (bytes: Uint8Array) => {
    const a = await openArray(await storeWith(OPTIONAL_U8, { "c/0/0": bytes }), {});
    await assert.rejects(a.get([slice(0, 2), slice(0, 2)]), { code: "CORRUPT_CHUNK" });
  };
  await corrupt(new Uint8Array(10)); // shorter than the header
  await corrupt(optionalChunk([0b1001], [0, 5, 6])); // a value more than the mask has present
  await corrupt(optionalChunk([0b1001], [0])); // one fewer
  await corrupt(Uint8Array.from([...u64(1), ...u64(2 ** 40), 9, 0, 5])); // lengths past the end
  // A chain is checked when first used: opening, or the first read.
  const badChain = async (codecs: unknown) => {
    await assert.rejects(async () => (await openArray(await storeWith({ ...OPTIONAL_U8, codecs }, {}))).get(), { code: "INVALID_METADATA" });
  };
  await badChain([{ name: "bytes" }]);
  await badChain([{ name: "optional", configuration: { mask_codecs: [] } }]);
  await badChain([{ name: "optional", configuration: { mask_codecs: [], data_codecs: [{ name: "bytes" }], extra: 1 } }]);
  await assert.rejects(openArray(await storeWith({ ...OPTIONAL_U8, fill_value: 3 }, {})), { code: "INVALID_METADATA" });
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [2], chunks: [2], dtype: OPTIONAL_U8.data_type, codecs: OPTIONAL_U8.codecs });
  await assert.rejects(a.set(null, ["x", null] as never), { code: "INVALID_ARGUMENT" });
});

// ---------------------------------------------------------------------------------------------
// zarrs' variable-length codecs over `string` and `variable_length_bytes` arrays.

function u32(n: number): number[] {
  return [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24];
}

function vlenArray(dataType: string, codec: object, chunks = [2]): object {
  return {
    zarr_format: 3,
    node_type: "array",
    shape: [3],
    data_type: dataType,
    chunk_grid: { name: "regular", configuration: { chunk_shape: chunks } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: "",
    codecs: [codec],
    attributes: {},
  };
}

const WORDS = ["ab", "", "héllo"];
const utf8 = (s: string) => Array.from(enc.encode(s));

// zarrs.vlen: the index (offsets, uint32 or uint64, N + 1 of them) through index_codecs and the
// concatenated element bytes through data_codecs; a u64 LE length of the encoded index at the start
// (its default) or end.
const ZARRS_VLEN = (location: "start" | "end", indexType: "uint32" | "uint64") => ({
  name: "zarrs.vlen",
  configuration: {
    index_codecs: [{ name: "bytes", configuration: { endian: "little" } }],
    data_codecs: [{ name: "bytes" }],
    index_data_type: indexType,
    index_location: location,
  },
});

function zarrsVlenChunk(items: number[][], location: "start" | "end", indexType: "uint32" | "uint64"): Uint8Array {
  const offsets = [0];
  for (const it of items) offsets.push(offsets[offsets.length - 1] + it.length);
  const index = offsets.flatMap((o) => (indexType === "uint32" ? u32(o) : u64(o)));
  const data = items.flat();
  return Uint8Array.from(location === "start" ? [...u64(index.length), ...index, ...data] : [...data, ...index, ...u64(index.length)]);
}

test("zarrs.vlen reads and writes string and bytes arrays: index at the start or end, uint32 or uint64 offsets", async () => {
  for (const [location, indexType] of [["start", "uint32"], ["end", "uint64"]] as const) {
    const chunks = {
      "c/0": zarrsVlenChunk([utf8("ab"), []], location, indexType),
      "c/1": zarrsVlenChunk([utf8("héllo"), []], location, indexType),
    };
    const meta = vlenArray("string", ZARRS_VLEN(location, indexType));
    const got = (await (await openArray(await storeWith(meta, chunks), {})).get()) as NDArray;
    assert.deepEqual(got.data, WORDS, `${location} ${indexType}`);

    const store = new MemoryStore();
    const a = await createArray(store, { shape: [3], chunks: [2], dtype: "string", fillValue: "", codecs: [ZARRS_VLEN(location, indexType)], writeEmptyChunks: true });
    await a.set(null, WORDS);
    assert.deepEqual(await store.get("c/0"), chunks["c/0"]);
    assert.deepEqual(await store.get("c/1"), chunks["c/1"]);
    const written = JSON.parse(new TextDecoder().decode(await store.get("zarr.json")));
    assert.equal(written.codecs[0].configuration.index_location, location);
  }
  // Without index_location (zarrs' first draft) the index is at the start; bytes elements come back as bytes.
  const { index_location: _, ...v0 } = ZARRS_VLEN("start", "uint64").configuration;
  const bytesMeta = vlenArray("variable_length_bytes", { name: "zarrs.vlen", configuration: v0 }, [3]);
  const items = [[1, 2], [], [255]];
  const b = (await (await openArray(await storeWith(bytesMeta, { "c/0": zarrsVlenChunk(items, "start", "uint64") }), {})).get()) as NDArray;
  assert.deepEqual((b.data as Uint8Array[]).map((x) => Array.from(x)), items);
});

test("zarrs.vlen_v2 and vlen-array store numcodecs' interleaved layout over string and bytes arrays, as zarrs does", async () => {
  const interleaved = (items: number[][]) => Uint8Array.from([...u32(items.length), ...items.flatMap((it) => [...u32(it.length), ...it])]);
  for (const name of ["zarrs.vlen_v2", "vlen-array", "numcodecs.vlen-array"]) {
    const chunks = { "c/0": interleaved([utf8("ab"), []]), "c/1": interleaved([utf8("héllo"), []]) };
    const got = (await (await openArray(await storeWith(vlenArray("string", { name, configuration: {} }), chunks), {})).get()) as NDArray;
    assert.deepEqual(got.data, WORDS, name);
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [3], chunks: [2], dtype: "bytes", fillValue: "", codecs: [{ name }], writeEmptyChunks: true });
    await a.set(null, [Uint8Array.of(7), new Uint8Array(0), Uint8Array.of(1, 2)]);
    assert.deepEqual(await store.get("c/0"), interleaved([[7], []]), name);
  }
});

test("corrupt zarrs.vlen chunks and bad configurations get typed errors", async () => {
  const meta = vlenArray("string", ZARRS_VLEN("start", "uint32"), [3]);
  const corrupt = async (bytes: Uint8Array, code = "CORRUPT_CHUNK") => {
    const a = await openArray(await storeWith(meta, { "c/0": bytes }), {});
    await assert.rejects(a.get(), { code });
  };
  const good = Array.from(zarrsVlenChunk([utf8("ab"), [], utf8("c")], "start", "uint32"));
  await corrupt(Uint8Array.from(good.slice(0, 6))); // no room for the index length
  await corrupt(Uint8Array.from([...u64(1000), ...good.slice(8)])); // index longer than the chunk
  await corrupt(Uint8Array.from([...u64(16), ...u32(0), ...u32(2), ...u32(1), ...u32(3), 97, 98, 99])); // offsets go back
  await corrupt(Uint8Array.from([...u64(16), ...u32(0), ...u32(2), ...u32(2), ...u32(9), 97, 98, 99])); // past the data
  await corrupt(Uint8Array.from([...u64(16), ...u32(0), ...u32(1), ...u32(2), ...u32(3), 97, 0xff, 99])); // not UTF-8
  await corrupt(Uint8Array.from([...u64(16), ...u32(0), ...u32(1), ...u32(2), ...u32(2 ** 31), 97, 98]), "TOO_LARGE"); // a huge data length
  const bad = async (configuration: object) => {
    await assert.rejects(async () => (await openArray(await storeWith(vlenArray("string", { name: "zarrs.vlen", configuration }), {}), {})).get(), {
      code: "INVALID_METADATA",
    });
  };
  await bad({ ...ZARRS_VLEN("start", "uint32").configuration, index_data_type: "uint16" });
  await bad({ ...ZARRS_VLEN("start", "uint32").configuration, index_location: "middle" });
  await bad({ data_codecs: [{ name: "bytes" }], index_data_type: "uint32" });
  await assert.rejects(async () => (await openArray(await storeWith(vlenArray("int32", ZARRS_VLEN("start", "uint32")), {}), {})).get(), { code: "INVALID_METADATA" });
});

// numcodecs' vlen-array in Zarr v2 (`|O` with { id: "vlen-array", dtype }): each element is an
// array of numbers, stored as its bytes in that dtype. Chunks as zarr-python 2.13 wrote them for
// [[1, 2, 3], [], [-7]] in chunks of 2 ("<i4", fill_value 0: the unset element past the end is [0]).
const VLEN_ARRAY_V2 = {
  zarr_format: 2,
  shape: [3],
  chunks: [2],
  dtype: "|O",
  fill_value: 0,
  filters: [{ id: "vlen-array", dtype: "<i4" }],
  compressor: null,
  order: "C",
};
async function storeV2(meta: object, chunks: Record<string, Uint8Array>): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.set(".zarray", enc.encode(JSON.stringify(meta)));
  for (const [k, v] of Object.entries(chunks)) await store.set(k, v);
  return store;
}
const hex = (s: string) => Uint8Array.from(s.match(/../g)!.map((h) => parseInt(h, 16)));
const ZP2_CHUNKS = { "0": hex("020000000c00000001000000020000000300000000000000"), "1": hex("0200000004000000f9ffffff0400000000000000") };

test("v2 vlen-array arrays read as typed arrays of their dtype and write zarr-python 2's bytes", async () => {
  const a = await openArray(await storeV2(VLEN_ARRAY_V2, ZP2_CHUNKS), {});
  const got = (await a.get()) as NDArray;
  assert.deepEqual(got.data, [Int32Array.of(1, 2, 3), new Int32Array(0), Int32Array.of(-7)]);

  const store = new MemoryStore();
  const b = await createArray(store, { zarrFormat: 2, shape: [3], chunks: [2], dtype: "|O", filters: [{ id: "vlen-array", dtype: "<i4" }], compressor: null, fillValue: 0 });
  await b.set(null, [Int32Array.of(1, 2, 3), [], [-7]] as never);
  assert.deepEqual(await store.get("0"), ZP2_CHUNKS["0"]);
  assert.deepEqual(await store.get("1"), ZP2_CHUNKS["1"]);
  const zarray = JSON.parse(new TextDecoder().decode(await store.get(".zarray")));
  assert.deepEqual(zarray.filters, VLEN_ARRAY_V2.filters);
  assert.equal(zarray.fill_value, 0);
  const info = await b.info();
  assert.deepEqual([info.fillValue, info.dtype, info.nbytes], [[0], "vlen_array", null]);
  // Big-endian floats: the stored bytes are in the dtype's order, the values come back as numbers.
  const f = await createArray(new MemoryStore(), { zarrFormat: 2, shape: [2], chunks: [2], dtype: "|O", filters: [{ id: "vlen-array", dtype: ">f8" }], fillValue: 0 });
  await f.set([0], Float64Array.of(1.5, -2));
  assert.deepEqual((await f.get()) as NDArray, { data: [Float64Array.of(1.5, -2), Float64Array.of(0)], shape: [2], stride: [1] });
  // An element whose bytes are not whole numbers is corrupt; a value that is not numbers is refused.
  const bad = await storeV2(VLEN_ARRAY_V2, { "0": hex("02000000030000000102030000000000") });
  await assert.rejects((await openArray(bad, {})).get(), { code: "CORRUPT_CHUNK" });
  await assert.rejects(b.set([0], ["x"] as never), (e: { code?: string }) => e.code === "INVALID_METADATA" || e.code === "SHAPE_MISMATCH");
});

test("copy re-chunks and re-compresses optional and vlen-array arrays, keeping their types", async () => {
  const src = new MemoryStore();
  const o = await createArray(src, { path: "o", shape: [5], chunks: [2], dtype: { name: "optional", configuration: { name: "int16", configuration: {} } } });
  await o.set(null, [1, null, -3, null, 5]);
  const v = await createArray(src, { path: "v", zarrFormat: 2, shape: [3], chunks: [1], dtype: "|O", filters: [{ id: "vlen-array", dtype: ">u2" }], fillValue: 0 });
  await v.set(null, [[1], [2, 3], []] as never);
  const [dstO, dstV] = [new MemoryStore(), new MemoryStore()];
  await copy({ store: src, path: "o" }, { store: dstO }, { chunks: [5], codec: "zstd:3", threads: 0 });
  await copy({ store: src, path: "v" }, { store: dstV }, { chunks: [3], codec: "zstd:3", threads: 0 });
  const o2 = await openArray(dstO, { path: "o" });
  assert.deepEqual([o2.dataType.kind, o2.chunks], ["optional", [5]]);
  assert.deepEqual(Array.from(((await o2.get()) as NDArray).data as ArrayLike<unknown>), [1, null, -3, null, 5]);
  const v2 = await openArray(dstV, { path: "v" });
  assert.deepEqual([v2.dataType.kind, v2.metadata.v2?.filters], ["vlen_array", [{ id: "vlen-array", dtype: ">u2" }]]);
  assert.deepEqual(((await v2.get()) as NDArray).data, [Uint16Array.of(1), Uint16Array.of(2, 3), new Uint16Array(0)]);
});

test("zarr-python 2 reads parzarr's vlen-array arrays, and parzarr reads zarr-python 2's", { skip: zarrPythonSkip() }, async () => {
  const dir = scratchDir();
  const a = await createArray(`${dir}/ours.zarr`, { zarrFormat: 2, shape: [3], chunks: [2], dtype: "|O", filters: [{ id: "vlen-array", dtype: ">f8" }], fillValue: 0 });
  await a.set(null, [[1.5, -2], [], [1e300]] as never);
  const script = `
import sys, zarr, numcodecs, numpy as np, json
d = sys.argv[1]
print(json.dumps([list(map(float, x)) for x in zarr.open(d + "/ours.zarr", mode="r")[:]]))
z = zarr.open(d + "/theirs.zarr", mode="w", shape=(3,), chunks=(2,), dtype=object, object_codec=numcodecs.VLenArray("<u8"))
z[:] = np.array([np.array([1, 2**63], dtype="u8"), np.array([], dtype="u8"), np.array([7], dtype="u8")], dtype=object)
`;
  const r = runPython(script, dir);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [[1.5, -2], [], [1e300]]);
  const theirs = (await (await openArray(`${dir}/theirs.zarr`)).get()) as NDArray;
  assert.deepEqual(theirs.data, [BigUint64Array.of(1n, 2n ** 63n), new BigUint64Array(0), BigUint64Array.of(7n)]);
});

test("vlen-utf8 over a bytes array and vlen-bytes over a string array, as zarrs accepts them: the layout is the same", async () => {
  const interleaved = Uint8Array.from([...u32(2), ...u32(utf8("hé").length), ...utf8("hé"), ...u32(0)]);
  const strings = await openArray(await storeWith(vlenArray("string", { name: "vlen-bytes", configuration: {} }, [2]), { "c/0": interleaved }), {});
  assert.deepEqual(((await strings.get([slice(0, 2)])) as NDArray).data, ["hé", ""]);
  const bytes = await openArray(await storeWith(vlenArray("variable_length_bytes", { name: "vlen-utf8", configuration: {} }, [2]), { "c/0": interleaved }), {});
  assert.deepEqual((((await bytes.get([slice(0, 2)])) as NDArray).data as Uint8Array[]).map((b) => Array.from(b)), [utf8("hé"), []]);
  const store = new MemoryStore();
  const w = await createArray(store, { shape: [2], chunks: [2], dtype: "string", fillValue: "", codecs: [{ name: "vlen-bytes" }] });
  await w.set(null, ["hé", ""]);
  assert.deepEqual(await store.get("c/0"), interleaved);
});

// null is a real fill value of an optional array: a chunk, inner chunk or shard left all missing
// is not stored, whichever write path (whole chunk, partial update, sharding) encodes it.
test("optional arrays leave all-missing chunks, inner chunks and shards unstored on every write path", async () => {
  const dtype = { name: "optional", configuration: { name: "uint8", configuration: {} } };
  const store = new MemoryStore();
  const a = await createArray(store, { path: "plain", shape: [4], chunks: [2], dtype, fillValue: null });
  await a.set(null, [1, null, 3, 4]);
  assert.ok(await store.get("plain/c/0"));
  await a.set([0], null); // a partial update that leaves chunk 0 all missing
  assert.equal(await store.get("plain/c/0"), undefined);
  assert.deepEqual(Array.from(((await a.get()) as NDArray).data as ArrayLike<unknown>), [null, null, 3, 4]);

  const optional = { name: "optional", configuration: { mask_codecs: [{ name: "packbits" }], data_codecs: [{ name: "bytes" }] } };
  const sharded = await createArray(store, {
    path: "sharded",
    shape: [8],
    chunks: [4],
    dtype,
    fillValue: null,
    codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [2], codecs: [optional], index_codecs: [{ name: "bytes", configuration: { endian: "little" } }] } }],
  });
  await sharded.set(null, [null, null, 1, 2, null, null, null, null]);
  assert.equal(await store.get("sharded/c/1"), undefined);
  const index = (await store.get("sharded/c/0"))!.slice(-32);
  assert.ok(index.subarray(0, 16).every((b) => b === 0xff), "inner chunk 0 is all missing: not stored");
  await sharded.set([2], null); // partial: inner chunk 1 keeps one present value
  await sharded.set([3], null); // now the whole shard is missing
  assert.equal(await store.get("sharded/c/0"), undefined);
});
