/**
 * src/metadata/rare-types.ts: the data types other than the numeric ones and variable-length
 * strings and bytes (narrow floats with their code tables, datetimes, fixed-length strings and
 * bytes, raw bits, records, optional) load with the first metadata document that names one
 * (metadata-json.ts). Node and workers import them at start, so each case runs in a fresh process
 * on the browser entry, where nothing has loaded them yet.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolvedInChild } from "./helpers/resolved-in-child.js";
import { readPageUpFront } from "./helpers/read-page.js";

const RARE = ["src/metadata/rare-types.ts", "src/metadata/narrow-float.ts", "src/metadata/minifloat.ts", "src/metadata/bfloat16.ts"];

// A store holding a v3 array of `data_type` and a v2 one of `dtype`, each filled with its fill value.
const STORE = `const { openArray, openGroup, MemoryStore, parseDataType, loadDataTypes } = await import("./src/browser.ts");
  const enc = (o) => new TextEncoder().encode(JSON.stringify(o));
  const store = new MemoryStore();
  const v3 = (path, data_type, fill_value) => store.set(path + "/zarr.json", enc({ zarr_format: 3, node_type: "array", shape: [2], data_type,
    chunk_grid: { name: "regular", configuration: { chunk_shape: [2] } }, chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value, codecs: [{ name: "bytes", configuration: { endian: "little" } }], attributes: { dtype: "float8_e4m3fn" } }));
  const v2 = (path, dtype, fill_value) => store.set(path + "/.zarray", enc({ zarr_format: 2, shape: [2], chunks: [2], dtype, fill_value, order: "C", compressor: null, filters: null }));
  const values = async (path) => { const a = await openArray(store, { path, mode: "r" }); return a.dtype + " " + JSON.stringify(Array.from((await a.get(null, { threads: 0 })).data, String)); };`;

/** Runs `code` after STORE in a fresh process: what it printed, and the modules under src/ it resolved. */
const inChild = (code: string) => resolvedInChild(`${STORE}\n${code}`, /\/(src\/[^?]+)$/);

test("opening and reading numeric arrays (an attribute naming a rare type aside) loads no rare type's code", () => {
  const { stdout, resolved } = inChild(
    `    await v3("a", "int16", 3);
    await v2("b", "<f8", "NaN");
    console.log(await values("a"), await values("b"));`,
  );
  assert.equal(stdout, 'int16 ["3","3"] float64 ["NaN","NaN"]');
  assert.deepEqual(RARE.filter((f) => resolved.has(f)), []);
});

test("the first array naming a rare type loads them before its metadata is parsed; before that a name of one is a typed error, never another type", () => {
  const { stdout, resolved } = inChild(
    `    await v3("f8", "float8_e4m3fn", "0x38");
    await v2("s", "|S3", "YWI=");
    await v3("t", { name: "numpy.datetime64", configuration: { unit: "ms", scale_factor: 1 } }, "NaT");
    let early;
    try { parseDataType("float8_e4m3fn"); } catch (e) { early = e.code + (e.message.includes("loadDataTypes()") ? " (says loadDataTypes)" : ""); }
    console.log(early, await values("f8"), await values("s"), await values("t"), parseDataType(">M8[10ms]").kind);`,
  );
  assert.equal(stdout, 'UNSUPPORTED (says loadDataTypes) float8_e4m3fn ["1","1"] null_terminated_bytes ["97,98","97,98"] numpy.datetime64 ["-9223372036854775808","-9223372036854775808"] datetime');
  assert.deepEqual(RARE.filter((f) => !resolved.has(f)), []);
});

test("loadDataTypes() lets a page parse a rare type's name before any array names one", () => {
  const { stdout } = inChild(`    await loadDataTypes();
    console.log(parseDataType("bfloat16").name, parseDataType("<M8[ns]").kind);`);
  assert.equal(stdout, "bfloat16 datetime");
});

test("a page that opens arrays holds no rare type's code up front (esbuild --splitting)", async () => {
  const { modules, text } = await readPageUpFront();
  assert.ok(modules.some((m) => m.endsWith("src/metadata/dtype-names.ts")), "the graph was read");
  assert.deepEqual(RARE.filter((f) => modules.some((m) => m.endsWith(f))), []);
  // Nor their scalars (scalars.ts hands them to rare-types.ts).
  for (const rare of ["a datetime is stored as an integer count", "a present value of a nested optional"]) assert.ok(!text.includes(rare), `the page holds "${rare}" up front`);
});

test("createArray and openArray's expected dtype load them for a rare type they are given", () => {
  const { stdout } = inChild(
    `    const { createArray } = await import("./src/browser.ts");
    const made = await createArray(store, { path: "m", shape: [2], chunks: [2], dtype: "datetime64[ms]", fillValue: 5 });
    await v3("a", "int16", 3);
    const expectCode = await openArray(store, { path: "a", mode: "r", expect: { dtype: "bfloat16" } }).then(() => "opened", (e) => e.code);
    console.log(made.dtype, String((await made.get(null, { threads: 0 })).data[0]), expectCode);`,
  );
  assert.equal(stdout, "numpy.datetime64 5 METADATA_MISMATCH");
});

test("requireArray loads them for a rare type it is given: the existing array differs, it is not an internal fault", () => {
  const { stdout } = inChild(
    `    const { createGroup } = await import("./src/browser.ts");
    const g = await createGroup(store, { path: "g" });
    await g.createArray("x", { shape: [2], chunks: [2], dtype: "int16" });
    console.log(await g.requireArray("x", { shape: [2], chunks: [2], dtype: "float8_e5m2" }).then(() => "opened", (e) => e.code));`,
  );
  assert.equal(stdout, "ALREADY_EXISTS");
});

test("a rare type in a numcodecs filter's astype loads them too: refused as the filter refuses it, not an internal fault", () => {
  const { stdout } = inChild(
    `    await store.set("f/.zarray", enc({ zarr_format: 2, shape: [2], chunks: [2], dtype: "<f8", fill_value: 0, order: "C", compressor: null,
      filters: [{ id: "fixedscaleoffset", offset: 0, scale: 1, dtype: "<f8", astype: "|S2" }] }));
    console.log(await openArray(store, { path: "f", mode: "r" }).then((a) => a.get(null, { threads: 0 })).then(() => "read", (e) => e.code));`,
  );
  assert.equal(stdout, "INVALID_METADATA");
});

/** A v3 bfloat16 array's model (its zarr.json), as code for inChild. */
const BF16_ARRAY = `{ zarr_format: 3, node_type: "array", shape: [2], data_type: "bfloat16", chunk_grid: { name: "regular", configuration: { chunk_shape: [2] } },
  chunk_key_encoding: { name: "default", configuration: { separator: "/" } }, fill_value: 1.5, codecs: [{ name: "bytes", configuration: { endian: "little" } }], attributes: {} }`;

test("toZarr loads them for a model naming one before it checks the model's documents", () => {
  const { stdout } = inChild(
    `    const { toZarr } = await import("./src/browser.ts");
    const model = ${BF16_ARRAY};
    const a = await toZarr(model, store, { path: "z" });
    console.log(a.dtype, await values("z"));`,
  );
  assert.equal(stdout, 'bfloat16 bfloat16 ["1.5","1.5"]');
});

test("a node named \"attributes\" (in consolidated metadata, in a model's members) is looked into: only a node's own attributes are left out", () => {
  const { stdout } = inChild(
    `    const { toZarr } = await import("./src/browser.ts");
    const array = ${BF16_ARRAY};
    await store.set("c/zarr.json", enc({ zarr_format: 3, node_type: "group", attributes: {}, consolidated_metadata: { kind: "inline", must_understand: false, metadata: { attributes: array } } }));
    const member = await (await openGroup(store, { path: "c", mode: "r" })).get("attributes").then((a) => a.dtype, (e) => e.code);
    const made = await toZarr({ zarr_format: 3, node_type: "group", attributes: {}, members: { attributes: array } }, store, { path: "z" }).then(() => "written", (e) => e.code);
    console.log(member, made);`,
  );
  assert.equal(stdout, "bfloat16 written");
});
