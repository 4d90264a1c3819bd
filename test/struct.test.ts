/** The v3 `struct` data type (zarr-extensions data-types/struct): metadata, packed bytes, fill values. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryStore, createArray, openArray, fieldView, type NDArray, type StructuredDataType } from "../src/index.js";

const enc = (s: string) => new TextEncoder().encode(s);

test("the spec's example array opens, and its records are the packed little-endian fields", async () => {
  const store = new MemoryStore();
  const doc = {
    zarr_format: 3,
    node_type: "array",
    shape: [100],
    data_type: { name: "struct", configuration: { fields: [{ name: "x", data_type: "float32" }, { name: "y", data_type: "float32" }] } },
    chunk_grid: { name: "regular", configuration: { chunk_shape: [100] } },
    chunk_key_encoding: { name: "default" },
    fill_value: { x: 1.5, y: -2 },
    codecs: [{ name: "bytes", configuration: { endian: "little" } }],
  };
  await store.set("zarr.json", enc(JSON.stringify(doc)));
  const a = await openArray(store);
  assert.equal((a.dataType as StructuredDataType).itemSize, 8);
  const got = (await a.get("0:2")) as NDArray;
  assert.deepEqual(Array.from(((await a.get("0:2", { field: "y" })) as NDArray).data as Float32Array), [-2, -2]);
  assert.equal((got.data as Uint8Array[]).length, 2);
  const chunk = new Uint8Array(800);
  new DataView(chunk.buffer).setFloat32(8 * 7 + 4, 42.5, true);
  await store.set("c/0", chunk);
  assert.deepEqual(Array.from(((await a.get("6:8", { field: "y" })) as NDArray).data as Float32Array), [0, 42.5]);
});

test("a record type written to v3 is a struct with the spec's layout (13 bytes for int32, uint8, float64) and an object fill value", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [3], chunks: [3], dtype: [["id", "<i4"], ["flags", "|u1"], ["value", "<f8"]], fillValue: { id: 7, flags: 1, value: 0.5 }, codecs: ["bytes"] });
  const meta = JSON.parse(new TextDecoder().decode(await store.get("zarr.json")));
  assert.deepEqual(meta.data_type, { name: "struct", configuration: { fields: [{ name: "id", data_type: "int32" }, { name: "flags", data_type: "uint8" }, { name: "value", data_type: "float64" }] } });
  assert.deepEqual(meta.fill_value, { id: 7, flags: 1, value: 0.5 });
  assert.deepEqual(meta.codecs, [{ name: "bytes", configuration: { endian: "little" } }]);
  const rec = new Uint8Array(13);
  const dv = new DataView(rec.buffer);
  dv.setInt32(0, -5, true);
  rec[4] = 9;
  dv.setFloat64(5, 3.25, true);
  await a.set([1], rec);
  const stored = await store.get("c/0");
  assert.equal(stored!.length, 39);
  assert.deepEqual(stored!.subarray(13, 26), rec);
  const back = await openArray(store);
  const all = (await back.get()) as NDArray<Uint8Array[]>;
  assert.deepEqual(Array.from(fieldView(all, back.dataType as StructuredDataType, "value").data as Float64Array), [0.5, 3.25, 0.5]);
  assert.deepEqual(Array.from(fieldView(all, back.dataType as StructuredDataType, "id").data as Int32Array), [7, -5, 7]);
});

test("nested structs parse and round-trip; forms v3 cannot hold are refused by name", async () => {
  const nested = { name: "struct", configuration: { fields: [{ name: "point", data_type: { name: "struct", configuration: { fields: [{ name: "x", data_type: "float32" }, { name: "y", data_type: "float32" }] } } }, { name: "value", data_type: "float64" }] } };
  const a = await createArray(new MemoryStore(), { shape: [2], chunks: [2], dtype: nested, fillValue: { point: { x: 1, y: 2 }, value: 3.14 } });
  assert.equal((a.dataType as StructuredDataType).itemSize, 16);
  const v = ((await a.get()) as NDArray).data as Uint8Array[];
  assert.equal(new DataView(v[1].buffer, v[1].byteOffset).getFloat32(4, true), 2);
  await assert.rejects(createArray(new MemoryStore(), { shape: [2], dtype: [["a", ">i4"]] }), /no Zarr v3 struct form: field "a" is big-endian/);
  await assert.rejects(createArray(new MemoryStore(), { shape: [2], dtype: [["a", "<i4", [2]]] }), /field "a" is a sub-array/);
  await assert.rejects(createArray(new MemoryStore(), { shape: [2], dtype: [["a", "<i4"]], codecs: [{ name: "bytes", configuration: { endian: "big" } }] }), /little-endian only/);
  await assert.rejects(createArray(new MemoryStore(), { shape: [2], dtype: { name: "struct", configuration: { fields: [{ name: "a", data_type: "int8" }, { name: "a", data_type: "int8" }] } } }), /"a" is repeated/);
  await assert.rejects(createArray(new MemoryStore(), { shape: [2], dtype: [["a", "<i4"], ["b", "<i4"]], fillValue: { a: 1 } }), /no field "b"/);
});
