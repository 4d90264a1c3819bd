/**
 * What left the read page's up-front JavaScript (issue 30): writing metadata (the JSON serialiser,
 * the documents, fill values' JSON, new arrays' default codecs, the grid's edits, creating nodes),
 * reading into `out`, the metadata recheck, the transpose codec, ChunkCache's class, the lenient
 * JSON parser (Python's NaN/Infinity, integers beyond 2^53), what loads with the rare data types (numcodecs' vlen-array type, v2 filters, rectilinear grids),
 * the wrapper of a user's store object (CallerStore), the worker's store of fetched chunks (with
 * OverlayStore) and a point selection's chunk plan. The page
 * holds none of it up front; each works on its first use in a fresh process through the browser
 * entry, which (unlike Node's) loads nothing at start.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readPageUpFront } from "./helpers/read-page.js";
import { resolvedInChild } from "./helpers/resolved-in-child.js";

const OFF_THE_PAGE = [
  "src/metadata/json-write.ts",
  "src/metadata/json-lenient.ts",
  "src/metadata/documents.ts",
  "src/metadata/fill-value-json.ts",
  "src/metadata/default-codecs.ts",
  "src/metadata/grid-edits.ts",
  "src/metadata/rectilinear.ts",
  "src/metadata/v2-filters.ts",
  "src/metadata/vlen-array.ts",
  "src/hierarchy/node-writes.ts",
  "src/hierarchy/revalidate.ts",
  "src/indexing/read-into.ts",
  "src/codecs/transpose.ts",
  "src/stores/caller.ts",
  "src/stores/overlay.ts",
  "src/parallel/execution/returning-store.ts",
  "src/indexing/point-plan.ts",
];

test("a page that opens and reads arrays holds none of it up front (esbuild --splitting)", async () => {
  const { modules, text } = await readPageUpFront();
  assert.ok(modules.some((m) => m.endsWith("src/metadata/array-metadata.ts")), "the graph was read");
  assert.deepEqual(OFF_THE_PAGE.filter((f) => modules.some((m) => m.endsWith(f))), []);
  // ChunkCache's module stays (cacheId, isFresh), its class does not.
  assert.ok(!text.includes("maxBytes must be a non-negative number"), "the page holds ChunkCache's constructor");
  // Nor the lenient JSON parser, under whatever module name: its error and its rewrite's marker.
  assert.ok(!text.includes("not valid JSON") && !text.includes(".randomUUID().replaceAll("), "the page holds the lenient JSON parser");
});

/**
 * Of those, the modules that nothing imports but a module loaded on first use: Node, which loads
 * every module the entry imports (the copy engine's, say), resolves them only when used.
 */
const ONLY_ON_FIRST_USE = [
  "src/metadata/json-lenient.ts",
  "src/metadata/rare-types.ts",
  "src/metadata/v2-filters.ts",
  "src/metadata/documents.ts",
  "src/hierarchy/node-writes.ts",
  "src/hierarchy/revalidate.ts",
  "src/indexing/read-into.ts",
  "src/codecs/transpose.ts",
  "src/indexing/point-plan.ts",
];

/** Runs `code` in a fresh process after opening the browser entry: what it printed, and the modules under src/ it resolved. */
const inChild = (code: string) =>
  resolvedInChild(
    `const p = await import("./src/browser.ts");
    const { openArray, createArray, createGroup, openGroup, MemoryStore } = p;
    const enc = (o) => new TextEncoder().encode(JSON.stringify(o));
    const store = new MemoryStore();
    ${code}`,
    /\/(src\/[^?]+)$/,
  );

test("reading a plain v2 array and a regular v3 array loads none of it", () => {
  const { stdout, resolved } = inChild(`
    await store.set("a/.zarray", enc({ zarr_format: 2, shape: [2, 3], chunks: [2, 3], dtype: "<i2", fill_value: 4, order: "C", compressor: null, filters: null }));
    await store.set("b/zarr.json", enc({ zarr_format: 3, node_type: "array", shape: [2], data_type: "float32", chunk_grid: { name: "regular", configuration: { chunk_shape: [2] } },
      chunk_key_encoding: { name: "default" }, fill_value: "NaN", codecs: [{ name: "bytes", configuration: { endian: "little" } }] }));
    const a = await openArray(store, { path: "a", mode: "r" });
    const b = await openArray(store, { path: "b", mode: "r" });
    console.log(Array.from((await a.get(null, { threads: 0 })).data).join(","), Array.from((await b.get(null, { threads: 0 })).data).join(","));`);
  assert.equal(stdout, "4,4,4,4,4,4 NaN,NaN");
  assert.deepEqual(ONLY_ON_FIRST_USE.filter((f) => resolved.has(f)), []);
});

test("a v2 array's filters, vlen-array elements, F order and a rectilinear grid work first in a process", () => {
  const { stdout, resolved } = inChild(`
    const v2 = (path, doc) => store.set(path + "/.zarray", enc({ zarr_format: 2, shape: [4], chunks: [4], order: "C", compressor: null, ...doc }));
    // delta of int32 stored as int16 with fill 1; no chunks: every element reads as the fill value.
    await v2("delta", { dtype: "<i4", fill_value: 1, filters: [{ id: "delta", dtype: "<i4", astype: "<i2" }] });
    await v2("objects", { dtype: "|O", fill_value: 0, filters: [{ id: "vlen-array", dtype: "<i2" }] });
    await v2("strings", { dtype: "|O", fill_value: "", filters: [] }).then(() => openArray(store, { path: "strings", mode: "r" })).then(
      () => console.log("opened"), (e) => console.log(e.code));
    await store.set("f/.zarray", enc({ zarr_format: 2, shape: [2, 3], chunks: [2, 3], dtype: "|u1", fill_value: 0, order: "F", compressor: null, filters: null }));
    // The F-ordered chunk's bytes are the C-ordered bytes of the 3x2 transpose.
    await store.set("f/0.0", Uint8Array.of(1, 4, 2, 5, 3, 6));
    await store.set("r/zarr.json", enc({ zarr_format: 3, node_type: "array", shape: [5], data_type: "uint8", fill_value: 9,
      chunk_grid: { name: "rectilinear", configuration: { kind: "inline", chunk_shapes: [[2, 3]] } }, codecs: [{ name: "bytes" }] }));
    await store.set("r/c/1", Uint8Array.of(7, 8, 9));
    const read = async (path) => (await (await openArray(store, { path, mode: "r" })).get(null, { threads: 0 })).data;
    console.log(Array.from(await read("delta")).join(","), JSON.stringify((await read("objects")).map((x) => Array.from(x))));
    console.log(Array.from(await read("f")).join(","), Array.from(await read("r")).join(","));`);
  assert.deepEqual(stdout.split("\n"), ["INVALID_METADATA", "1,1,1,1 [[0],[0],[0],[0]]", "1,2,3,4,5,6 9,9,7,8,9"]);
  for (const f of ["src/metadata/rare-types.ts", "src/metadata/v2-filters.ts", "src/codecs/transpose.ts"]) {
    assert.ok(resolved.has(f), `${f} was not loaded`);
  }
});

test("a user's store object (zarrita's contract) and point selections work first in a process", () => {
  const { stdout, resolved } = inChild(`
    await store.set("a/.zarray", enc({ zarr_format: 2, shape: [2, 3], chunks: [1, 2], dtype: "<i2", fill_value: 0, order: "C", compressor: null, filters: null }));
    await store.set("a/0.0", Uint8Array.of(1, 0, 2, 0));
    await store.set("a/1.1", Uint8Array.of(6, 0, 0, 0));
    const user = { get: (key) => store.get(key.slice(1)) };
    const a = await openArray(user, { path: "a", mode: "r" });
    const points = await a.vindex.get([[0, 1, 0], [1, 2, 0]], { threads: 0 });
    console.log(Array.from((await a.get(null, { threads: 0 })).data).join(","), Array.from(points.data).join(","), a.readOnly);`);
  assert.equal(stdout, "1,2,0,0,0,6 2,6,1 true");
  // CallerStore's module is on Node's graph anyway (the copy engine imports it); the plan's is not.
  assert.ok(resolved.has("src/indexing/point-plan.ts"), "the point plan was not loaded");
});

test("documents with NaN, Infinity, -Infinity and int64/uint64 fill values beyond 2^53 parse exactly first in a process", () => {
  const { stdout, resolved } = inChild(`
    const put = (key, text) => store.set(key, new TextEncoder().encode(text));
    const v2 = (dtype, fill) => '{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "' + dtype + '", "fill_value": ' + fill + ', "order": "C", "compressor": null, "filters": null}';
    await put("nan/.zarray", v2("<f8", "NaN"));
    await put("nan/.zattrs", '{"missing_value": NaN, "range": [-Infinity, Infinity], "s": "NaN"}');
    await put("u/.zarray", v2("<u8", "18446744073709551615"));
    await put("i/.zarray", v2("<i8", "-9223372036854775808"));
    await put("v3/zarr.json", '{"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "int64", "fill_value": 9223372036854775807, "attributes": {"x": -Infinity},' +
      '"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}}, "chunk_key_encoding": {"name": "default"}, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}');
    const open = (path) => openArray(store, { path, mode: "r" });
    const nan = await open("nan");
    const read = async (path) => Array.from((await (await open(path)).get(null, { threads: 0 })).data).join(",");
    console.log(JSON.stringify(Object.values(nan.attrs).map(String)), await read("nan"));
    console.log(await read("u"), await read("i"), await read("v3"), String((await open("v3")).attrs.x));`);
  assert.deepEqual(stdout.split("\n"), ['["NaN","-Infinity,Infinity","NaN"] NaN,NaN', "18446744073709551615,18446744073709551615 -9223372036854775808,-9223372036854775808 9223372036854775807,9223372036854775807 -Infinity"]);
  assert.ok(resolved.has("src/metadata/json-lenient.ts"), "the lenient parser was not loaded");
});

test("creating arrays and groups, writing attributes, reading into out and rechecking metadata work first in a process", () => {
  const { stdout, resolved } = inChild(`
    const a = await createArray(store, { path: "g/a", shape: [4], chunks: [[1, 3]], dtype: "int16", fillValue: 2, zarrFormat: 3 });
    const v2 = await createArray(store, { path: "g/v", shape: [2], chunks: [2], dtype: "<f8", fillValue: 0.5, zarrFormat: 2, filters: [{ id: "delta", dtype: "<f8" }] });
    const g = await openGroup(store, { path: "g", mode: "r+" });
    await g.setAttrs({ units: "m" });
    await createGroup(store, { path: "h", zarrFormat: 2 });
    const out = new Int16Array(4);
    await (await openArray(store, { path: "g/a", mode: "r" })).get(null, { out, threads: 0 });
    const rechecking = await openArray(store, { path: "g/a", mode: "r", recheckCachedMetadata: true });
    await a.resize([6]);
    const after = await rechecking.get(null, { threads: 0 });
    const text = (key) => store.get(key).then((b) => new TextDecoder().decode(b));
    console.log(Array.from(out).join(","), after.shape.join(","), JSON.stringify(a.chunkShapes), v2.codecs.map((c) => c.name).join(","));
    console.log(JSON.parse(await text("g/zarr.json")).attributes.units, JSON.parse(await text("g/v/.zarray")).fill_value, await text("h/.zgroup"));`);
  // The resized grid grows by its last edge; the v2 array gets the default compressor.
  assert.deepEqual(stdout.split("\n"), ["2,2,2,2 6 [[1,[3,2]]] numcodecs.delta,bytes,blosc", "m 0.5 {", '    "zarr_format": 2', "}"]);
  for (const f of ["src/hierarchy/node-writes.ts", "src/metadata/documents.ts", "src/indexing/read-into.ts", "src/hierarchy/revalidate.ts"]) {
    assert.ok(resolved.has(f), `${f} was not loaded`);
  }
});

test("openArray's cache is checked by the caches made: a ChunkCache or a subclass's, not another object", () => {
  const { stdout } = inChild(`
    const { ChunkCache } = p;
    class Counted extends ChunkCache {}
    await createArray(store, { shape: [2], chunks: [2], dtype: "uint8" });
    const open = (cache) => openArray(store, { mode: "r", cache }).then(() => "opened", (e) => e.code);
    const fake = Object.create(ChunkCache.prototype);
    console.log(await open(new ChunkCache({ maxBytes: 10 })), await open(new Counted({ maxBytes: 10 })), await open({ maxBytes: 10 }), await open(fake));`);
  assert.equal(stdout, "opened opened INVALID_ARGUMENT INVALID_ARGUMENT");
});
