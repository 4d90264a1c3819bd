/** arr.info() / group.info(): the facts zarr-python's `.info` reports on the same stored array, and its text. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createArray, createGroup, formatInfo, MemoryStore } from "../src/index.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";
import { scratchDir } from "./helpers/paths.js";

test("array and group info agree with zarr-python's info_items on the same store", { skip: zarrPythonSkip() }, async () => {
  const dir = join(scratchDir(), "g.zarr");
  const g = await createGroup(dir, { zarrFormat: 2 });
  const a = await g.createArray("a", { shape: [100, 30], chunks: [30, 7], dtype: "<i2", attributes: { units: "m" } });
  await a.set("0:50", { data: Int16Array.from({ length: 1500 }, (_, i) => i), shape: [50, 30] });
  await g.createGroup("sub");
  const py = runPython(
    String.raw`
import json, sys, zarr
g = zarr.open_group(sys.argv[1], mode="r")
print(json.dumps({"array": dict(g["a"].info_items()), "group": dict((k, str(v)) for k, v in g.info_items())}))
`,
    dir,
  );
  assert.equal(py.status, 0, py.stderr);
  const r = JSON.parse(py.stdout) as { array: Record<string, string>; group: Record<string, string> };
  const info = await a.info();
  const num = (s: string) => Number(s.split(" ")[0]);
  assert.equal(info.numpyDtype, "<i2");
  assert.equal(r.array["Data type"], "int16");
  assert.equal(`(${info.shape.join(", ")})`, r.array.Shape);
  assert.equal(`(${info.chunks.join(", ")})`, r.array["Chunk shape"]);
  assert.equal(info.order, r.array.Order);
  assert.equal(info.nbytes, num(r.array["No. bytes"]));
  assert.equal(info.nbytesStored, num(r.array["No. bytes stored"]));
  assert.equal(info.compressionRatio!.toFixed(1), r.array["Storage ratio"]);
  assert.equal(`${info.chunksInitialized}/${info.chunksTotal}`, r.array["Chunks initialized"]);
  assert.deepEqual(info.compressor, { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1, blocksize: 0 });
  const text = formatInfo(info);
  for (const line of ["Chunk shape        : (30, 7)", "Order              : C", "Read-only          : False", `No. bytes          : ${r.array["No. bytes"]}`, `No. bytes stored   : ${r.array["No. bytes stored"]}`, "Chunks initialized : 10/20", "Store type         : FileSystemStore"]) {
    assert.ok(text.split("\n").includes(line), `${line}\n---\n${text}`);
  }
  const gi = await g.info();
  assert.deepEqual([gi.arrays, gi.groups, String(gi.arrays.length + gi.groups.length)], [[r.group.Arrays], [r.group.Groups], r.group["No. members"]]);
  assert.match(formatInfo(gi), /^Name        : \/\nType        : group \(Zarr v2\)\nRead-only   : False\nStore type  : FileSystemStore\nNo. members : 2\nNo. arrays  : 1\nNo. groups  : 1\nArrays      : a\nGroups      : sub$/);
});

test("v3 sharded info names shards and counts stored shards", async () => {
  const a = await createArray(new MemoryStore(), { shape: [8, 8], chunks: [2, 2], shards: [4, 8], dtype: "float32", fillValue: "NaN" });
  await a.set("0:4", 1);
  const info = await a.info();
  assert.deepEqual([info.chunks, info.shards, info.chunksInitialized, info.chunksTotal, info.fillValue, info.order], [[2, 2], [4, 8], 1, 2, "NaN", null]);
  assert.match(formatInfo(info), /Shard shape\s+: \(4, 8\)\n/);
  assert.match(formatInfo(info), /Shards initialized : 1\/2/);
});

test("variable-length strings from zarr-python: info says their size is unknown and counts them, without a storage ratio", { skip: zarrPythonSkip() }, async () => {
  const dir = join(scratchDir(), "s.zarr");
  const py = runPython(
    String.raw`
import sys, zarr, numcodecs, numpy as np
z = zarr.open_array(sys.argv[1], mode="w", shape=(5, 4), chunks=(2, 4), dtype=object, object_codec=numcodecs.VLenUTF8())
z[:] = np.array([["word %d" % (i * 4 + j) * (i + 1) for j in range(4)] for i in range(5)], dtype=object)
`,
    dir,
  );
  assert.equal(py.status, 0, py.stderr);
  const { openArray } = await import("../src/index.js");
  const a = await openArray(dir);
  const info = await a.info();
  assert.equal(info.nbytes, null);
  assert.equal(info.compressionRatio, null);
  assert.ok(info.nbytesStored! > 0);
  const text = formatInfo(info);
  assert.match(text, /No. bytes\s+: unknown \(20 elements of variable length\)\n/);
  assert.match(text, /Storage ratio\s+: -\n/);
});

test("an optional array's No. bytes counts its elements at the inner type's size, as zarrs' nbytes, not the mask in memory", async () => {
  const int32 = { name: "int32", configuration: {} };
  const a = await createArray(new MemoryStore(), { shape: [10], chunks: [5], dtype: { name: "optional", configuration: int32 }, fillValue: null });
  const nested = await createArray(new MemoryStore(), { shape: [3, 4], chunks: [3, 4], dtype: { name: "optional", configuration: { name: "optional", configuration: { name: "int16", configuration: {} } } }, fillValue: null });
  await a.set(null, [1, null, 3, 4, 5, 6, 7, 8, 9, null]);
  const info = await a.info();
  assert.deepEqual([info.nbytes, (await nested.info()).nbytes], [10 * 4, 12 * 2]);
  assert.equal(info.compressionRatio, 40 / info.nbytesStored!);
  assert.match(formatInfo(info), /\nNo. bytes {10}: 40\n/);
});

test("info shows a fill value held as bytes, or an optional's, as zarr.json writes it, not as a byte-keyed object", async () => {
  const cases: [number, unknown, unknown, unknown][] = [
    [3, "bytes", "AQI=", "AQI="],
    [2, "|S3", "YWI=", "YWI="],
    [2, "|V2", "AQI=", "AQI="],
    [3, "r16", [1, 2], [1, 2]],
    [2, [["x", "<f4"], ["y", "<i2"]], "AAAAAAAA", "AAAAAAAA"],
    [3, { name: "optional", configuration: { name: "float64", configuration: {} } }, [1.5], [1.5]],
    [3, { name: "optional", configuration: { name: "int64", configuration: {} } }, ["9007199254740993"], ["9007199254740993"]],
  ];
  for (const [zarrFormat, dtype, fillValue, json] of cases) {
    const a = await createArray(new MemoryStore(), { zarrFormat: zarrFormat as 2 | 3, shape: [1], chunks: [1], dtype: dtype as never, fillValue: fillValue as never });
    const info = await a.info();
    assert.deepEqual(info.fillValue, json, JSON.stringify(dtype));
    assert.match(formatInfo(info), new RegExp(`\nFill value +: ${JSON.stringify(json).replace(/[[\]]/g, "\\$&")}\n`), JSON.stringify(dtype));
  }
});

test("info lists the array's keys once for its stored bytes and its chunks initialized (a listing is one request per page on S3)", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [6], chunks: [2], dtype: "uint8" });
  await a.set("0:4", 7);
  let lists = 0;
  const list = store.list.bind(store);
  store.list = (prefix: string) => {
    lists++;
    return list(prefix);
  };
  const info = await a.info();
  assert.equal(info.chunksInitialized, 2);
  assert.ok(info.nbytesStored! > 0);
  assert.equal(lists, 1, "one listing");
});

test("chunksInitialized counts the stored keys, not every cell of the grid (a sparse array's grid can be of billions)", async () => {
  const a = await createArray(new MemoryStore(), { shape: [100000], chunks: [1], dtype: "uint8" });
  await a.set("5:7", 1);
  // A stray key that parses to a chunk of the grid but is not its key is not a chunk.
  await (a.store as MemoryStore).set("c/05", new Uint8Array(1));
  let keysMade = 0;
  const chunkKey = a.chunkKey.bind(a);
  a.chunkKey = (coords: readonly number[]) => {
    keysMade++;
    return chunkKey(coords);
  };
  assert.equal(await a.nchunksInitialized(), 2);
  assert.ok(keysMade <= 10, `${keysMade} chunk keys made for 4 stored keys`);
  // The chunk listing counts by the same rule.
  assert.deepEqual(await a.chunkCoords(), [[5], [6]]);
});
