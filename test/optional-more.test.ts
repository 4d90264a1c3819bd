/**
 * zarrs' `optional` over the variable-length types `string` and `bytes` (nested too).
 *
 * zarrs commits no array of optional strings, so the chunk bytes are built here from the layout
 * its optional codec defines (zarrs/src/array/codec/array_to_bytes/optional/optional_codec.rs):
 * u64 LE length of the encoded mask, u64 LE length of the encoded data, the mask through
 * mask_codecs, then only the present elements, as a 1-d array of the inner type, through
 * data_codecs (nothing when none is present). zarrs' default data chain for a string is
 * vlen-utf8 (numcodecs' interleaved layout: a u32 LE count, then per element a u32 LE length and
 * its bytes), for bytes vlen-bytes (the same layout).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore, WorkerPool, createArray, openArray, slice, type NDArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";
import { main } from "../src/cli/main.js";
import { readFile } from "node:fs/promises";

const enc = new TextEncoder();
const u32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, n >>> 24];
const u64 = (n: number) => [...u32(n), 0, 0, 0, 0];
const utf8 = (s: string) => Array.from(enc.encode(s));

/** One `optional` chunk: header, encoded mask, encoded present values. */
function optionalChunk(mask: number[], data: number[]): number[] {
  return [...u64(mask.length), ...u64(data.length), ...mask, ...data];
}

/** numcodecs' interleaved vlen layout (vlen-utf8, vlen-bytes). */
function interleaved(items: number[][]): number[] {
  return [...u32(items.length), ...items.flatMap((b) => [...u32(b.length), ...b])];
}

const PACKBITS = [{ name: "packbits", configuration: {} }];

function meta(dataType: object, fillValue: unknown, codecs: object[], shape = [6], chunks = [3]): object {
  return {
    zarr_format: 3,
    node_type: "array",
    shape,
    data_type: dataType,
    chunk_grid: { name: "regular", configuration: { chunk_shape: chunks } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: fillValue,
    codecs,
    attributes: {},
  };
}

async function storeWith(doc: object, chunks: Record<string, number[]>): Promise<MemoryStore> {
  const store = new MemoryStore();
  await store.set("zarr.json", enc.encode(JSON.stringify(doc)));
  for (const [k, v] of Object.entries(chunks)) await store.set(k, Uint8Array.from(v));
  return store;
}

const values = async (a: Awaited<ReturnType<typeof openArray>>, sel?: Parameters<typeof a.get>[0]) => Array.from(((await a.get(sel)) as NDArray).data as ArrayLike<unknown>);

const OPT_STRING = { name: "optional", configuration: { name: "string", configuration: {} } };
const OPT_STRING_CODEC = { name: "optional", configuration: { mask_codecs: PACKBITS, data_codecs: [{ name: "vlen-utf8", configuration: {} }] } };
// "a" N "hé" | "" N N   (the second chunk has one present element, the empty string)
const STRING_VALUES = ["a", null, "hé", "", null, null];
const STRING_CHUNKS = {
  "c/0": optionalChunk([0b101], interleaved([utf8("a"), utf8("hé")])),
  "c/1": optionalChunk([0b001], interleaved([[]])),
};

test("optional string reads zarrs' layout: missing elements are null, present empty strings stay", async () => {
  const a = await openArray(await storeWith(meta(OPT_STRING, null, [OPT_STRING_CODEC]), STRING_CHUNKS), {});
  assert.equal(a.dataType.kind, "optional");
  assert.deepEqual(await values(a), STRING_VALUES);
  assert.deepEqual(await values(a, [slice(1, 4)]), [null, "hé", ""]);
});

test("optional string writes zarrs' bytes; its default chain is optional(packbits; vlen-utf8) as zarrs' is", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [6], chunks: [3], dtype: OPT_STRING, fillValue: null, codecs: [OPT_STRING_CODEC] });
  await a.set(null, STRING_VALUES);
  for (const [k, v] of Object.entries(STRING_CHUNKS)) assert.deepEqual(await store.get(k), Uint8Array.from(v), k);
  // A partial update that leaves a chunk all missing removes it; one element reads back.
  await a.set([slice(3, 4)], null);
  assert.equal(await store.get("c/1"), undefined);
  await a.set([4], "x");
  assert.deepEqual(await values(a), ["a", null, "hé", null, "x", null]);

  const d = await createArray(new MemoryStore(), { shape: [2], chunks: [2], dtype: OPT_STRING });
  const conf = (d.metadata.codecs?.[0] as unknown as { configuration: { mask_codecs: { name: string }[]; data_codecs: unknown[] } }).configuration;
  assert.deepEqual([conf.mask_codecs.map((c) => c.name), conf.data_codecs], [["packbits"], [{ name: "vlen-utf8", configuration: {} }]]);
  assert.equal(d.fillValue, null);
});

test("optional bytes (zarrs' `bytes`) reads and writes the same layout through vlen-bytes", async () => {
  const dtype = { name: "optional", configuration: { name: "bytes", configuration: {} } };
  const codec = { name: "optional", configuration: { mask_codecs: PACKBITS, data_codecs: [{ name: "vlen-bytes", configuration: {} }] } };
  const chunks = { "c/0": optionalChunk([0b110], interleaved([[], [0, 255]])) };
  const a = await openArray(await storeWith(meta(dtype, null, [codec], [3], [3]), chunks), {});
  const got = await values(a);
  assert.equal(got[0], null);
  assert.deepEqual(got.slice(1).map((b) => Array.from(b as Uint8Array)), [[], [0, 255]]);
  const store = new MemoryStore();
  const w = await createArray(store, { shape: [3], chunks: [3], dtype, fillValue: null, codecs: [codec] });
  await w.set(null, [null, new Uint8Array(0), Uint8Array.of(0, 255)]);
  assert.deepEqual(await store.get("c/0"), Uint8Array.from(chunks["c/0"]));
});

test("nested optional over strings: null, [null] and [value] tell the levels apart; a missing chunk reads as the fill value", async () => {
  const dtype = { name: "optional", configuration: OPT_STRING };
  const codec = { name: "optional", configuration: { mask_codecs: PACKBITS, data_codecs: [OPT_STRING_CODEC] } };
  // ["x"] [null] N | (chunk 1 not stored: the fill value ["n/a"])
  const chunks = { "c/0": optionalChunk([0b011], optionalChunk([0b01], interleaved([utf8("x")]))) };
  const a = await openArray(await storeWith(meta(dtype, [["n/a"]], [codec]), chunks), {});
  assert.deepEqual(a.fillValue, ["n/a"]);
  assert.deepEqual(await values(a), [["x"], [null], null, ["n/a"], ["n/a"], ["n/a"]]);

  const store = new MemoryStore();
  // createArray takes the fill value's JSON form, as zarr.json has it.
  const w = await createArray(store, { shape: [6], chunks: [3], dtype, fillValue: [["n/a"]], codecs: [codec] });
  await w.set(null, [["x"], [null], null, ["n/a"], ["n/a"], ["n/a"]] as never);
  assert.deepEqual(await store.get("c/0"), Uint8Array.from(chunks["c/0"]));
  assert.equal(await store.get("c/1"), undefined, "a chunk of the fill value is not stored");
  const doc = JSON.parse(new TextDecoder().decode(await store.get("zarr.json")));
  assert.deepEqual([doc.data_type, doc.fill_value], [dtype, [["n/a"]]]);
});

test("optional string through compressed chains and sharding round-trips; all-missing inner chunks are not stored", async () => {
  const store = new MemoryStore();
  const [zstd, gzip] = [{ name: "zstd", configuration: { level: 1 } }, { name: "gzip", configuration: { level: 1 } }];
  const codec = { name: "optional", configuration: { mask_codecs: [{ name: "packbits" }, zstd], data_codecs: [{ name: "vlen-utf8" }, gzip] } };
  const sharded = await createArray(store, {
    shape: [8],
    chunks: [8],
    dtype: OPT_STRING,
    fillValue: null,
    codecs: [{ name: "sharding_indexed", configuration: { chunk_shape: [2], codecs: [codec], index_codecs: [{ name: "bytes", configuration: { endian: "little" } }] } }],
  });
  const v = [null, null, "ünï", "", null, "long ".repeat(50), null, null];
  await sharded.set(null, v);
  assert.deepEqual(await values(await openArray(store, {})), v);
  const shard = (await store.get("c/0"))!;
  const index = shard.slice(-64);
  assert.ok(index.subarray(0, 16).every((b) => b === 0xff) && index.subarray(48).every((b) => b === 0xff), "all-missing inner chunks are not stored");
});

test("bad input to optional strings gets typed errors", async () => {
  const a = await createArray(new MemoryStore(), { shape: [2], chunks: [2], dtype: OPT_STRING });
  await assert.rejects(a.set([0], 5 as never), { code: "INVALID_ARGUMENT" });
  // A value of the wrong type in a list is the caller's argument, not bad metadata.
  await assert.rejects(a.set(null, [Uint8Array.of(1), null] as never), { code: "INVALID_ARGUMENT", message: /value\[0\]/ });
  const nested = await createArray(new MemoryStore(), { shape: [2], chunks: [2], dtype: { name: "optional", configuration: { name: "optional", configuration: { name: "int16", configuration: {} } } } as never });
  await assert.rejects(nested.set(null, [[1], 2] as never), { code: "INVALID_ARGUMENT", message: /value\[1\]/ });
  await assert.rejects(createArray(new MemoryStore(), { shape: [2], chunks: [2], dtype: OPT_STRING, fillValue: "x" }), { code: "INVALID_METADATA" });
  // The mask says two present, the data holds one.
  const bad = await openArray(await storeWith(meta(OPT_STRING, null, [OPT_STRING_CODEC], [3], [3]), { "c/0": optionalChunk([0b011], interleaved([utf8("a")])) }), {});
  await assert.rejects(bad.get(), { code: "CORRUPT_CHUNK" });
  // Data bytes where no element is present.
  const extra = await openArray(await storeWith(meta(OPT_STRING, null, [OPT_STRING_CODEC], [3], [3]), { "c/0": optionalChunk([0], interleaved([])) }), {});
  await assert.rejects(extra.get(), { code: "CORRUPT_CHUNK" });
});

test("a scalar written to a nested optional over strings or bytes is of the inner type, or an INVALID_ARGUMENT", async () => {
  for (const [inner, good, bad] of [
    [{ name: "string", configuration: {} }, ["ok"], [[["x"]], [5], [true], [Uint8Array.of(1)]]],
    [{ name: "bytes", configuration: {} }, [Uint8Array.of(7)], [["zz"], [5], [[1]]]],
  ] as const) {
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [2], chunks: [2], dtype: { name: "optional", configuration: { name: "optional", configuration: inner } }, fillValue: null });
    await a.set([0], good as never);
    for (const v of bad) await assert.rejects(a.set([1], v as never), { code: "INVALID_ARGUMENT" }, `${inner.name}: ${String(v)}`);
    assert.deepEqual(await values(await openArray(store, {})), [good, null]);
  }
});

test("optional strings read and write on the worker pool (both executors) as inline", async () => {
  const v = [["a"], null, [""], [null], ["ünï"], null];
  for (const executor of ["piscina", "comlink"] as const) {
    const pool = new WorkerPool({ threads: 1, executor });
    try {
      const path = `${scratchDir()}/opt-${executor}.zarr`;
      const a = await createArray(path, { shape: [6], chunks: [2], dtype: { name: "optional", configuration: OPT_STRING }, fillValue: [null] });
      await a.set(null, v as never, { threads: 1, pool });
      const got = (await (await openArray(path)).get(null, { threads: 1, pool })) as NDArray;
      assert.deepEqual(Array.from(got.data as ArrayLike<unknown>), v, executor);
    } finally {
      await pool.close();
    }
  }
});

/** The CLI in this process: exit code and stdout (stderr joins the failure message). */
async function cli(...args: string[]): Promise<string> {
  let stdout = "";
  let stderr = "";
  const sink = (add: (t: string) => void) => ({ write: (t: string | Uint8Array) => (add(String(t)), true) }) as unknown as NodeJS.WritableStream;
  const code = await main(args, { stdout: sink((t) => (stdout += t)), stderr: sink((t) => (stderr += t)), env: {} });
  assert.equal(code, 0, `parzarr ${args.join(" ")}: ${stderr}`);
  return stdout;
}

/** Optional arrays of numbers, strings and nested strings, each with a present fill value. */
async function optionalGroup(): Promise<{ root: string; arrays: Record<string, { dtype: object; fill: unknown; values: unknown[] }> }> {
  const root = `${scratchDir()}/optionals.zarr`;
  const arrays = {
    num: { dtype: { name: "optional", configuration: { name: "int16", configuration: {} } }, fill: [7], values: [1, null, -3, null, 5, 7, null] },
    str: { dtype: OPT_STRING, fill: ["dflt"], values: ["a", null, "", "ünï", null, "dflt", "z"] },
    nested: { dtype: { name: "optional", configuration: OPT_STRING }, fill: [["x"]], values: [["a"], [null], null, [""], ["x"], null, ["x"]] },
  };
  for (const [path, a] of Object.entries(arrays)) {
    const arr = await createArray(root, { path, shape: [7], chunks: [2], dtype: a.dtype, fillValue: a.fill as never });
    await arr.set(null, a.values as never);
  }
  return { root, arrays };
}

test("parzarr info and tree name an optional type's inner type, and info shows its fill value as zarr.json holds it", async () => {
  const { root } = await optionalGroup();
  const info = await cli("info", `${root}#str`);
  assert.match(info, /^Data type\s+: optional\(string\)$/m);
  assert.match(info, /^Fill value\s+: \["dflt"\]$/m);
  assert.match(info, /^No\. bytes\s+: unknown/m);
  const json = JSON.parse(await cli("info", `${root}#nested`, "--json")) as { dtype: string; fillValue: unknown };
  assert.deepEqual([json.dtype, json.fillValue], ["optional(optional(string))", [["x"]]]);
  assert.match(await cli("info", `${root}#num`), /^Fill value\s+: \[7\]$/m);
  const tree = await cli("tree", root);
  for (const line of ["nested (7,) optional(optional(string))", "num (7,) optional(int16)", "str (7,) optional(string)"]) assert.ok(tree.includes(line), `${line} in\n${tree}`);
});

test("parzarr cp copies optional arrays of numbers and strings, nested too, as they are and re-chunked and re-compressed", async () => {
  const { root, arrays } = await optionalGroup();
  for (const extra of [[], ["--codec", "gzip:5", "--chunks", "3"]]) {
    const dst = `${scratchDir()}/copy.zarr`;
    await cli("cp", root, dst, "-q", ...extra);
    for (const [path, a] of Object.entries(arrays)) {
      const [src, out] = [await openArray(root, { path }), await openArray(dst, { path })];
      assert.deepEqual([out.dataType, out.fillValue, out.chunks], [src.dataType, src.fillValue, extra.length ? [3] : [2]], path);
      assert.deepEqual(await values(out), a.values, path);
      if (extra.length) assert.deepEqual(out.codecs.at(-1), { name: "gzip", configuration: { level: 5 } }, path);
    }
  }
});

test("parzarr info shows an optional bytes array's present fill value as zarr.json holds it (base64), not as an object of bytes", async () => {
  const root = `${scratchDir()}/optional-bytes-fill.zarr`;
  await createArray(root, { shape: [2], chunks: [2], dtype: { name: "optional", configuration: { name: "bytes", configuration: {} } }, fillValue: ["AQI="] as never });
  const doc = JSON.parse(new TextDecoder().decode(await readFile(`${root}/zarr.json`))) as { fill_value: unknown };
  const json = JSON.parse(await cli("info", root, "--json")) as { fillValue: unknown };
  assert.deepEqual([doc.fill_value, json.fillValue], [["AQI="], ["AQI="]]);
  assert.match(await cli("info", root), /^Fill value\s+: \["AQI="\]$/m);
});

test("parzarr cp keeps an optional float or big-integer array's present fill value (the copy passed the metadata writer's Python-float object as the fill value)", async () => {
  const root = `${scratchDir()}/optional-number-fills.zarr`;
  const fills: [string, unknown][] = [["float64", [1.5]], ["int64", ["9007199254740993"]]];
  for (const [name, fillValue] of fills) {
    await createArray(`${root}/${name}`, { shape: [3], chunks: [2], dtype: { name: "optional", configuration: { name, configuration: {} } }, fillValue: fillValue as never });
  }
  const dst = scratchDir();
  for (const [name] of fills) {
    await cli("cp", `${root}/${name}`, `${dst}/${name}`, "-q");
    const [src, out] = [await openArray(`${root}/${name}`), await openArray(`${dst}/${name}`)];
    assert.deepEqual(out.fillValue, src.fillValue, name);
  }
});
