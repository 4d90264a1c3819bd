/**
 * Bad input gets a typed error with a stable code, and nothing is written: corrupt and truncated
 * chunks (the error names the key), malformed JSON, unknown codecs, keys escaping the store,
 * values of the wrong shape, out-of-range selections.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  FileSystemStore,
  MemoryStore,
  ZarrError,
  createArray,
  openArray,
  openGroup,
  type CodecConfig,
} from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

function hasCode(code: string, mention?: string) {
  return (err: unknown) => {
    assert.ok(err instanceof ZarrError, `expected a ZarrError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    if (mention) assert.ok(err.message.includes(mention), `"${err.message}" should mention ${mention}`);
    return true;
  };
}

async function snapshot(store: MemoryStore): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const k of await store.list("")) out.set(k, Buffer.from((await store.get(k))!).toString("hex"));
  return out;
}

const chains: [string, CodecConfig[]][] = [
  ["gzip", [{ name: "bytes", configuration: { endian: "little" } }, { name: "gzip", configuration: { level: 1 } }]],
  ["zstd", [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1, checksum: false } }]],
  ["blosc", [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "lz4", clevel: 5, shuffle: "shuffle" } }]],
  ["crc32c", [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }]],
  ["raw", [{ name: "bytes", configuration: { endian: "little" } }]],
];

test("truncated and corrupted chunks fail with CORRUPT_CHUNK naming the key, and nothing changes", async () => {
  for (const [name, codecs] of chains) {
    const store = new MemoryStore();
    const a = await createArray(store, { shape: [64], chunks: [32], dtype: "float64", codecs, path: "arr" });
    await a.set(null, { data: Float64Array.from({ length: 64 }, (_, i) => Math.sin(i)), shape: [64] });
    const good = (await store.get("arr/c/1"))!;
    const damaged: [string, Uint8Array][] = [
      ["truncated", good.subarray(0, Math.max(1, good.length >> 1))],
      ["empty", new Uint8Array(0)],
      ["flipped", good.map((b, i) => (i === good.length - 3 ? b ^ 0xff : b))],
    ];
    for (const [how, bytes] of damaged) {
      // Only a checksum notices a flipped byte: raw bytes, blosc and unchecksummed zstd cannot.
      if (how === "flipped" && name !== "crc32c" && name !== "gzip") continue;
      await store.set("arr/c/1", bytes);
      const before = await snapshot(store);
      await assert.rejects(a.get(), hasCode("CORRUPT_CHUNK", "arr/c/1"), `${name} ${how}`);
      // A partial write into the corrupt chunk must fail the same way and leave the store as it was.
      await assert.rejects(a.set([40], 1), hasCode("CORRUPT_CHUNK", "arr/c/1"), `${name} ${how} (write)`);
      assert.deepEqual(await snapshot(store), before, `${name} ${how}: nothing written`);
    }
  }
});

test("malformed metadata files fail with INVALID_METADATA naming the file", async () => {
  const dir = scratchDir();
  writeFileSync(join(dir, "zarr.json"), "{ not json");
  await assert.rejects(openArray(dir, { mode: "r" }), hasCode("INVALID_METADATA", "zarr.json"));
  writeFileSync(join(dir, "zarr.json"), JSON.stringify({ zarr_format: 3, node_type: "array", shape: [4], data_type: "int8" }));
  await assert.rejects(openArray(dir, { mode: "r" }), hasCode("INVALID_METADATA", '"chunk_grid"'));
  const dir2 = scratchDir();
  writeFileSync(join(dir2, ".zarray"), JSON.stringify({ zarr_format: 2, shape: [4], chunks: [2], dtype: "<i4", compressor: null, fill_value: 0, order: "Q", filters: null }));
  await assert.rejects(openArray(dir2, { mode: "r" }), hasCode("INVALID_METADATA", '"order"'));
});

test("unknown codecs fail with UNKNOWN_CODEC naming it, before anything is written", async () => {
  const dir = scratchDir();
  await assert.rejects(
    createArray(join(dir, "x.zarr"), { shape: [4], dtype: "int8", codecs: [{ name: "bytes" }, { name: "snappy-ish" }] }),
    hasCode("UNKNOWN_CODEC", "snappy-ish"),
  );
  await assert.rejects(
    createArray(join(dir, "y.zarr"), { shape: [4], dtype: "<i4", zarrFormat: 2, compressor: { id: "mystery" } }),
    hasCode("UNKNOWN_CODEC", "mystery"),
  );
  assert.deepEqual(readdirSync(dir), [], "no folder, no metadata");
  // Reading an array whose metadata names an unknown codec fails at the first chunk, naming it.
  const z = join(dir, "z.zarr");
  await createArray(z, { shape: [4], dtype: "int8", codecs: [{ name: "bytes" }] });
  writeFileSync(join(z, "zarr.json"), readFileSync(join(z, "zarr.json"), "utf8").replace('"bytes"', '"bytes"}, {"name": "frobnicate"'));
  const a = await openArray(z, { mode: "r" });
  await assert.rejects(a.get(), hasCode("UNKNOWN_CODEC", "frobnicate"));
});

test("keys that try to escape the store fail with INVALID_KEY and touch nothing", async () => {
  const dir = scratchDir();
  const store = new FileSystemStore(join(dir, "inside"));
  for (const key of ["../escape", "a/../../b", "/etc/passwd", "a//b", "", "a/", "./a", "C:/x", "a\\b"]) {
    await assert.rejects(store.set(key, new Uint8Array([1])), hasCode("INVALID_KEY"), key);
    await assert.rejects(store.get(key), hasCode("INVALID_KEY"), key);
  }
  await assert.rejects(createArray(store, { shape: [1], dtype: "int8", path: "../up" }), hasCode("INVALID_KEY"));
  await assert.rejects(openGroup(store, { path: "a/../.." }), hasCode("INVALID_KEY"));
  assert.equal(existsSync(join(dir, "escape")), false);
  assert.equal(existsSync(join(dir, "up")), false);
  assert.deepEqual(readdirSync(dir), [], "nothing was created, not even the store folder");
});

test("wrong value shapes and out-of-range selections change nothing", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [6, 6], chunks: [4, 4], dtype: "int32" });
  await a.set(null, 5);
  const before = await snapshot(store);
  await assert.rejects(a.set("0:2, 0:3", { data: new Int32Array(4), shape: [2, 2] }), hasCode("SHAPE_MISMATCH"));
  await assert.rejects(a.set("0:2, 0:3", new Int32Array(7)), hasCode("SHAPE_MISMATCH"));
  await assert.rejects(a.set([6, 0], 1), hasCode("BAD_SELECTION"));
  await assert.rejects(a.set([[0, 6]], 1), hasCode("BAD_SELECTION"));
  await assert.rejects(a.get([0, -7]), hasCode("BAD_SELECTION"));
  await assert.rejects(a.get("::0"), hasCode("BAD_SELECTION"));
  await assert.rejects(a.get([0, 0, 0]), hasCode("BAD_SELECTION"));
  // 1.5 is truncated as numpy does; NaN has no int32 value (see test/set-casting.test.ts).
  await assert.rejects(a.set([0, 0], NaN), hasCode("INVALID_ARGUMENT"));
  assert.deepEqual(await snapshot(store), before);
});
