/**
 * Zarr Object Models (ZEP 6): the model of a hierarchy equals its metadata files read by hand;
 * a model written with toZarr reads back as the same model and opens in zarr-python; the ZEP's
 * JSON Schema (with its documented corrections) accepts real models and the ZEP's examples; the
 * xarray convention is checked at compile time and at run time.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import * as zarrita from "zarrita";
import ZarritaFileSystemStore from "@zarrita/storage/fs";
import {
  AlreadyExistsError,
  Group,
  InvalidMetadataError,
  MemoryStore,
  ZOM_SCHEMA_ERRATA,
  ZarrArray,
  createGroup,
  diffZarr,
  fromZarr,
  openGroup,
  toZarr,
  validateZarr,
  zomJsonSchema,
  type AnyGroupSpecV2,
  type AnyGroupSpecV3,
  type ArraySpecV3,
  type JsonObject,
  type NodeSpec,
  type XarrayGroupSpecV2,
  type XarrayAttrs,
  type GroupSpec,
  type ArraySpec,
} from "../src/index.js";
import { arraySpecV2Schema, attributesSchema, groupSpecV2Schema, xarraySchema, zomSchema } from "../src/zom.js";
import { z } from "zod";
import { FIXTURES, scratchDir } from "./helpers/paths.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

const V2_HIERARCHY = join(FIXTURES, "zarr-python-2.13", "hierarchy.zarr");
const V3_HIERARCHY = join(FIXTURES, "zarrs", "hierarchy.zarr");
const ZEP6 = join(FIXTURES, "zep6");

const readJson = (file: string) => JSON.parse(readFileSync(file, "utf8")) as JsonObject;

/** The model of a folder built straight from its metadata files, without parzarr. */
function modelFromFiles(dir: string, zarrFormat: 2 | 3): JsonObject | undefined {
  const subdirs = () => readdirSync(dir).filter((n) => statSync(join(dir, n)).isDirectory()).sort();
  const members = (): JsonObject => {
    const out: JsonObject = {};
    for (const name of subdirs()) {
      const child = modelFromFiles(join(dir, name), zarrFormat);
      if (child) out[name] = child;
    }
    return out;
  };
  if (zarrFormat === 3) {
    if (!existsSync(join(dir, "zarr.json"))) return undefined;
    const { consolidated_metadata: _cm, ...doc } = readJson(join(dir, "zarr.json"));
    const node: JsonObject = { ...doc, attributes: doc.attributes ?? {} };
    return doc.node_type === "group" ? { ...node, members: members() } : node;
  }
  const attributes = existsSync(join(dir, ".zattrs")) ? readJson(join(dir, ".zattrs")) : {};
  if (existsSync(join(dir, ".zarray"))) return { ...readJson(join(dir, ".zarray")), attributes };
  if (existsSync(join(dir, ".zgroup"))) return { ...readJson(join(dir, ".zgroup")), attributes, members: members() };
  return undefined;
}

/** A fresh v2 hierarchy written by zarr-python 2 that follows the xarray convention. */
const FRESH_SCRIPT = `
import sys, zarr, numpy as np
from numcodecs import Blosc, Delta, Zlib
root = zarr.open_group(sys.argv[1], mode="w")
root.attrs.update({"Conventions": "CF-1.8", "title": "fresh from zarr-python", "nested": {"a": [1, 2.5, None]}})
ds = root.create_group("ds")
t = ds.create_dataset("temperature", shape=(4, 5), chunks=(2, 5), dtype="<f4", fill_value=float("nan"),
                      compressor=Blosc(cname="zstd", clevel=3, shuffle=Blosc.BITSHUFFLE))
t.attrs.update({"_ARRAY_DIMENSIONS": ["y", "x"], "units": "K"})
x = ds.create_dataset("x", shape=(5,), chunks=(5,), dtype="<i8", compressor=None, filters=[Delta(dtype="<i8")])
x.attrs["_ARRAY_DIMENSIONS"] = ["x"]
y = ds.create_dataset("y", shape=(4,), chunks=(3,), dtype=">f8", fill_value=-1.5, compressor=Zlib(level=4))
y.attrs["_ARRAY_DIMENSIONS"] = ["y"]
deep = root.create_group("tree/child")
deep.attrs["depth"] = 2
m = deep.create_dataset("mask", shape=(3, 2, 2), chunks=(1, 2, 2), dtype="|b1", order="F",
                        dimension_separator="/", fill_value=True)
m.attrs["_ARRAY_DIMENSIONS"] = ["t", "a", "b"]
`;

let freshDir: string | undefined;
function freshHierarchy(): string {
  if (freshDir) return freshDir;
  const dir = join(scratchDir(), "fresh.zarr");
  const r = runPython(FRESH_SCRIPT, dir);
  assert.equal(r.status, 0, r.stderr);
  freshDir = dir;
  return dir;
}

function sources(): { name: string; dir: string; zarrFormat: 2 | 3 }[] {
  const out: { name: string; dir: string; zarrFormat: 2 | 3 }[] = [
    { name: "zarr-python 2.13 fixture", dir: V2_HIERARCHY, zarrFormat: 2 },
    { name: "zarrs fixture", dir: V3_HIERARCHY, zarrFormat: 3 },
  ];
  if (!zarrPythonSkip()) out.push({ name: "fresh zarr-python hierarchy", dir: freshHierarchy(), zarrFormat: 2 });
  return out;
}

test("fromZarr equals the model read straight from the metadata files", async () => {
  for (const { name, dir, zarrFormat } of sources()) {
    const want = modelFromFiles(dir, zarrFormat);
    assert.ok(want, name);
    assert.deepEqual(await fromZarr(dir), want, name);
    assert.deepEqual(await fromZarr(dir, { consolidated: false }), want, `${name} (listing the store)`);
    assert.deepEqual(await fromZarr(await openGroup(dir, { mode: "r" })), want, `${name} (from a Group)`);
    const model = await fromZarr(dir);
    // JSON in, JSON out: the model survives serialisation unchanged.
    assert.deepEqual(JSON.parse(JSON.stringify(model)), model, name);
  }
  // A sub-tree and a single array have models of their own.
  const sub = await fromZarr(V3_HIERARCHY, { path: "a" });
  assert.deepEqual(sub, modelFromFiles(join(V3_HIERARCHY, "a"), 3));
  const arr = await fromZarr(join(V3_HIERARCHY, "a", "baz"));
  assert.equal((arr as ArraySpecV3).node_type, "array");
  assert.deepEqual((arr as ArraySpecV3).attributes, { foo: 42, bar: "apples", baz: [1, 2, 3, 4] });
});

test("toZarr writes a hierarchy whose model is the same again", async () => {
  for (const { name, dir } of sources()) {
    const model = await fromZarr(dir);
    const out = join(scratchDir(), "copy.zarr");
    const g = await toZarr(model, out);
    assert.ok(g instanceof Group, name);
    assert.deepEqual(await fromZarr(out), model, name);
    assert.deepEqual(await diffZarr(model, out), [], name);
    // No chunks: only metadata documents were written.
    const files = (function list(d: string): string[] {
      return readdirSync(d).flatMap((n) => (statSync(join(d, n)).isDirectory() ? list(join(d, n)) : [n]));
    })(out);
    assert.deepEqual([...new Set(files)].sort(), model.zarr_format === 2 ? [".zarray", ".zattrs", ".zgroup"].filter((f) => files.includes(f)) : ["zarr.json"], name);
  }
});

test("a hierarchy written by toZarr opens in zarr-python with the model's metadata", { skip: zarrPythonSkip() }, async () => {
  for (const src of [V2_HIERARCHY, freshHierarchy()]) {
    const model = (await fromZarr(src)) as AnyGroupSpecV2;
    const out = join(scratchDir(), "py.zarr");
    await toZarr(model, out, { consolidate: true });
    const r = runPython(
      `
import json, sys, zarr
g = zarr.open_group(sys.argv[1], mode="r")
out = {"": {"attrs": dict(g.attrs)}}
def visit(name, node):
    e = {"attrs": dict(node.attrs)}
    if isinstance(node, zarr.Array):
        e.update(shape=list(node.shape), chunks=list(node.chunks), order=node.order,
                 compressor=node.compressor.get_config() if node.compressor else None,
                 filters=[f.get_config() for f in node.filters] if node.filters else None)
    out[name] = e
g.visititems(visit)
c = zarr.open_consolidated(sys.argv[1], mode="r")
print(json.dumps({"tree": out, "consolidated": sorted(k for k, _ in c.groups()) == sorted(k for k, _ in g.groups())}))
`,
      out,
    );
    assert.equal(r.status, 0, r.stderr);
    const py = JSON.parse(r.stdout) as { tree: Record<string, JsonObject>; consolidated: boolean };
    assert.equal(py.consolidated, true);
    const want: Record<string, JsonObject> = {};
    (function visit(node: NodeSpec, path: string) {
      const e: JsonObject = { attrs: node.attributes as JsonObject };
      if (!("members" in node) && node.zarr_format === 2) {
        // zarr-python reports an empty filter list as no filters.
        Object.assign(e, { shape: node.shape, chunks: node.chunks, order: node.order, compressor: node.compressor, filters: node.filters?.length ? node.filters : null });
      }
      want[path] = e;
      if ("members" in node) for (const [n, child] of Object.entries(node.members)) visit(child, path === "" ? n : `${path}/${n}`);
    })(model, "");
    assert.deepEqual(py.tree, want, src);
  }
});

test("a v3 hierarchy written by toZarr opens in zarrita", async () => {
  const model = (await fromZarr(V3_HIERARCHY)) as AnyGroupSpecV3;
  const out = join(scratchDir(), "z3.zarr");
  await toZarr(model, out, { consolidate: true });
  const zstore = await zarrita.withConsolidatedMetadata(new ZarritaFileSystemStore(out), { format: "v3" });
  assert.deepEqual(zstore.contents().map((c) => `${c.kind} ${c.path}`).sort(), ["array /a/baz", "array /a/foo", "group /", "group /a", "group /b"]);
  const arr = await zarrita.open(zarrita.root(new ZarritaFileSystemStore(out)).resolve("a/foo"), { kind: "array" });
  assert.deepEqual(arr.shape, [10000, 1000]);
  assert.deepEqual(arr.attrs, { foo: 42, bar: "apples", baz: [1, 2, 3, 4] });
  const b = await zarrita.open(zarrita.root(new ZarritaFileSystemStore(out)).resolve("b"), { kind: "group" });
  assert.deepEqual(b.attrs, { test_key: "test_value" });
});

test("toZarr checks the whole model before writing and refuses to clobber", async () => {
  const model = (await fromZarr(V3_HIERARCHY)) as AnyGroupSpecV3;
  const store = new MemoryStore();
  const broken = structuredClone(model);
  const foo = (broken.members.a as AnyGroupSpecV3).members.foo as ArraySpecV3;
  foo.chunk_grid = { name: "regular", configuration: { chunk_shape: [10] } };
  (broken.members.b as AnyGroupSpecV3).attributes = "nope" as unknown as JsonObject;
  await assert.rejects(toZarr(broken, store), (e: unknown) => {
    assert.ok(e instanceof InvalidMetadataError);
    assert.match(e.message, /"b": attributes/);
    return true;
  });
  (broken.members.b as AnyGroupSpecV3).attributes = {};
  await assert.rejects(toZarr(broken, store), (e: unknown) => e instanceof InvalidMetadataError && /"a\/foo"/.test(e.message) && /chunk_shape/.test(e.message));
  assert.deepEqual(await store.list(""), [], "nothing was written");
  await assert.rejects(toZarr({ attributes: {}, members: {} } as unknown as AnyGroupSpecV2, store), InvalidMetadataError);

  await toZarr(model, store);
  await assert.rejects(toZarr(model, store), AlreadyExistsError);
  const other = { zarr_format: 3, node_type: "group", attributes: { replaced: true }, members: {} } as AnyGroupSpecV3;
  await toZarr(other, store, { overwrite: true });
  assert.deepEqual(await fromZarr(store), other);
  // Below a path, with the ancestors made as groups.
  const arr = await toZarr((model.members.a as AnyGroupSpecV3).members.baz as ArraySpecV3, store, { path: "x/y" });
  assert.ok(arr instanceof ZarrArray);
  assert.deepEqual(arr.shape, [10000, 1000]);
  assert.deepEqual(Object.keys(((await fromZarr(store)) as AnyGroupSpecV3).members), ["x"]);
});

test("diffZarr names every difference between models, or a model and a hierarchy", async () => {
  const model = (await fromZarr(V3_HIERARCHY)) as AnyGroupSpecV3;
  const changed = structuredClone(model);
  const a = changed.members.a as AnyGroupSpecV3;
  const foo = a.members.foo as ArraySpecV3;
  foo.shape = [10, 10];
  foo.attributes = { ...foo.attributes, foo: 43, added: "x" };
  delete a.members.baz;
  a.members.extra = { zarr_format: 3, node_type: "group", attributes: {}, members: {} };
  changed.attributes = { root: 1 };
  assert.deepEqual(await diffZarr(model, changed), [
    { path: "", field: "attributes.root", want: undefined, got: 1 },
    { path: "a/baz", field: "node", want: "array (v3)", got: undefined },
    { path: "a/extra", field: "node", want: undefined, got: "group (v3)" },
    { path: "a/foo", field: "shape", want: [10000, 1000], got: [10, 10] },
    { path: "a/foo", field: "attributes.added", want: undefined, got: "x" },
    { path: "a/foo", field: "attributes.foo", want: 42, got: 43 },
  ]);
  // Against a live hierarchy: a copy matches until one of its arrays changes.
  const store = new MemoryStore();
  const g = await toZarr(model, store);
  assert.deepEqual(await diffZarr(model, g), []);
  await ((await g.get("b")) as Group).updateAttrs({ test_key: "changed" });
  assert.deepEqual(await diffZarr(model, g), [{ path: "b", field: "attributes.test_key", want: "test_value", got: "changed" }]);
  // Other versions and kinds are named as such.
  const v2 = await fromZarr(V2_HIERARCHY);
  assert.deepEqual(await diffZarr(model, v2), [{ path: "", field: "node", want: "group (v3)", got: "group (v2)" }]);
});

// --- The xarray convention -------------------------------------------------------------------

test("the xarray convention: declared types are checked by the compiler", () => {
  // ZEP 6's TypeScript example, with the fields a v2 array document always has.
  const valid: XarrayGroupSpecV2 = {
    zarr_format: 2,
    attributes: {},
    members: {
      array_0: {
        zarr_format: 2,
        dtype: "|u1",
        attributes: { _ARRAY_DIMENSIONS: ["a", "b"] },
        shape: [10, 10],
        chunks: [10, 10],
        compressor: null,
        fill_value: 0,
        order: "C",
        filters: null,
        dimension_separator: "/",
      },
    },
  };
  const invalid: XarrayGroupSpecV2 = {
    zarr_format: 2,
    attributes: {},
    members: {
      // @ts-expect-error: its attributes lack '_ARRAY_DIMENSIONS' (TS reports it at the member).
      array_0: {
        zarr_format: 2,
        dtype: "|u1",
        attributes: { foo: ["a", "b"] },
        shape: [10, 10],
        chunks: [10, 10],
        compressor: null,
        fill_value: 0,
        order: "C",
        filters: null,
      },
    },
  };
  // The version-free generics: GroupSpec<attributes, member type> and ArraySpec<attributes>.
  type Owned = { owner: string };
  const g: GroupSpec<Owned, ArraySpec<XarrayAttrs>> = { zarr_format: 3, node_type: "group", attributes: { owner: "me" }, members: {} };
  // @ts-expect-error: the group's attributes must say who owns it.
  const h: GroupSpec<Owned, ArraySpec<XarrayAttrs>> = { zarr_format: 2, attributes: {}, members: {} };
  assert.equal(g.members.x, undefined);
  assert.equal(h.zarr_format, 2);
  // The run-time schema agrees with the compiler on both.
  assert.equal(xarraySchema(2).safeParse(valid).success, true);
  assert.equal(xarraySchema(2).safeParse(invalid).success, false);
  // A convention of one's own: the inferred type and the schema come from one declaration.
  const Tagged = groupSpecV2Schema(z.object({ owner: z.string() }), arraySpecV2Schema(attributesSchema));
  type Tagged = z.infer<typeof Tagged>;
  const t: Tagged = { zarr_format: 2, attributes: { owner: "me" }, members: {} };
  // @ts-expect-error: owner must be a string.
  const u: Tagged = { zarr_format: 2, attributes: { owner: 1 }, members: {} };
  assert.equal(Tagged.safeParse(t).success, true);
  assert.equal(Tagged.safeParse(u).success, false);
});

test("the xarray convention passes on a conforming hierarchy and names what a broken copy lacks", { skip: zarrPythonSkip() }, async () => {
  const dir = freshHierarchy();
  const ok = await validateZarr(xarraySchema(2), dir);
  assert.equal(ok.success, true, ok.success ? "" : ok.message);
  // The fixture hierarchy has no dimension names anywhere: every array is named.
  const fixture = await validateZarr(xarraySchema(2), V2_HIERARCHY);
  assert.equal(fixture.success, false);
  assert.ok(!fixture.success && fixture.issues.some((i) => i.path === "compressors/zlib1_C" && i.field === "attributes._ARRAY_DIMENSIONS"));

  const broken = join(scratchDir(), "broken.zarr");
  cpSync(dir, broken, { recursive: true });
  const attrsFile = join(broken, "ds", "temperature", ".zattrs");
  const { _ARRAY_DIMENSIONS: _dims, ...rest } = readJson(attrsFile);
  writeFileSync(attrsFile, JSON.stringify(rest));
  const wrongRank = join(broken, "tree", "child", "mask", ".zattrs");
  writeFileSync(wrongRank, JSON.stringify({ _ARRAY_DIMENSIONS: ["t"] }));
  const r = await validateZarr(xarraySchema(2), broken);
  assert.equal(r.success, false);
  assert.ok(!r.success);
  assert.deepEqual(r.issues, [
    { path: "ds/temperature", field: "attributes._ARRAY_DIMENSIONS", message: "is missing" },
    { path: "tree/child/mask", field: "attributes._ARRAY_DIMENSIONS", message: "has 1 entries but the array has rank 3" },
  ]);
  assert.match(r.message, /"ds\/temperature": attributes\._ARRAY_DIMENSIONS: is missing/);
});

test("the xarray convention for v3 reads dimension_names", async () => {
  const ok = await validateZarr(xarraySchema(3), V3_HIERARCHY);
  assert.equal(ok.success, true, ok.success ? "" : ok.message);
  const model = (await fromZarr(V3_HIERARCHY)) as AnyGroupSpecV3;
  const baz = (model.members.a as AnyGroupSpecV3).members.baz as ArraySpecV3;
  delete baz.dimension_names;
  const r = await validateZarr(xarraySchema(3), model);
  assert.ok(!r.success);
  assert.deepEqual(r.issues.map((i) => [i.path, i.field]), [["a/baz", "dimension_names"]]);
});

// --- JSON Schema -----------------------------------------------------------------------------

const compiled = new Map<2 | 3, ReturnType<Ajv2020["compile"]>>();
function ajvFor(zarrFormat: 2 | 3) {
  let validate = compiled.get(zarrFormat);
  if (!validate) {
    validate = new Ajv2020({ allErrors: true, strict: false }).compile(zomJsonSchema(zarrFormat));
    compiled.set(zarrFormat, validate);
  }
  return validate;
}

test("zomJsonSchema accepts the models of real hierarchies and the ZEP's examples", async () => {
  const models: [2 | 3, unknown][] = [];
  for (const { dir, zarrFormat } of sources()) models.push([zarrFormat, await fromZarr(dir)]);
  const mem = new MemoryStore();
  const g = await createGroup(mem, { attributes: { made: "by parzarr" } });
  await g.createArray("a/b", { shape: [3, 4], chunks: [2, 2], dtype: "int16", fillValue: -1, dimensionNames: ["r", null] });
  await g.createArray("crc", { shape: [3], dtype: "uint8", codecs: [{ name: "bytes" }, { name: "crc32c" }] });
  models.push([3, await fromZarr(mem)]);
  const g2 = await createGroup(mem, { path: "v2", zarrFormat: 2 });
  await g2.createArray("s", { shape: [2, 2], chunks: [1, 2], dtype: "<f8", order: "F", compressor: null, filters: null });
  models.push([2, await fromZarr(mem, { path: "v2" })]);
  for (const [v, model] of models) {
    const validate = ajvFor(v);
    assert.equal(validate(model), true, JSON.stringify(validate.errors?.slice(0, 3)));
    // zod and the JSON Schema agree.
    assert.equal(zomSchema(v).safeParse(model).success, true);
  }
  // The ZEP's v3 example is valid as printed.
  const v3Example = readJson(join(ZEP6, "example-v3.json"));
  assert.equal(ajvFor(3)(v3Example), true);
  assert.equal(zomSchema(3).safeParse(v3Example).success, true);
  // The ZEP's v2 example writes "filters": {}, which the v2 spec does not allow (a list or null):
  // that is its only fault.
  const v2Example = readJson(join(ZEP6, "example-v2.json"));
  const validate2 = ajvFor(2);
  assert.equal(validate2(v2Example), false);
  // (The Group branch of the members' anyOf fails too, as it must for an array.)
  const arrayErrors = validate2.errors?.filter((e) => e.schemaPath.startsWith("#/definitions/Array/")) ?? [];
  assert.deepEqual([...new Set(arrayErrors.map((e) => e.instancePath))], ["/members/foo/filters"]);
  const zodIssues = zomSchema(2).safeParse(v2Example);
  assert.ok(!zodIssues.success);
  ((v2Example.members as JsonObject).foo as JsonObject).filters = null;
  assert.equal(validate2(v2Example), true);
  assert.equal(zomSchema(2).safeParse(v2Example).success, true);
});

test("zomJsonSchema rejects broken models, as zod does", async () => {
  const model = (await fromZarr(V3_HIERARCHY)) as AnyGroupSpecV3;
  const cases: [string, (m: AnyGroupSpecV3) => void][] = [
    ["no shape", (m) => delete ((m.members.a as AnyGroupSpecV3).members.foo as Partial<ArraySpecV3>).shape],
    ["v2 in v3", (m) => ((m.members.b as { zarr_format: number }).zarr_format = 2)],
    ["unknown field", (m) => (((m.members.a as AnyGroupSpecV3).members.foo as unknown as JsonObject).extra = 1)],
    ["shape of strings", (m) => (((m.members.a as AnyGroupSpecV3).members.foo as unknown as JsonObject).shape = ["1"])],
  ];
  for (const [name, breakIt] of cases) {
    const m = structuredClone(model);
    breakIt(m);
    assert.equal(ajvFor(3)(m), false, name);
    assert.equal(zomSchema(3).safeParse(m).success, false, name);
  }
  const v2 = (await fromZarr(V2_HIERARCHY)) as AnyGroupSpecV2;
  const m = structuredClone(v2);
  (m.members.compressors as AnyGroupSpecV2).members.zlib1_C = { ...((m.members.compressors as AnyGroupSpecV2).members.zlib1_C as JsonObject), order: "K" } as never;
  assert.equal(ajvFor(2)(m), false);
  const r = await validateZarr(zomSchema(2), m);
  assert.ok(!r.success);
  assert.deepEqual(r.issues.map((i) => [i.path, i.field]), [["compressors/zlib1_C", "order"]]);
});

/** JSON Pointers where two JSON documents differ (a key present on one side only, or a value). */
function differingPointers(a: unknown, b: unknown, at = ""): string[] {
  const isObj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);
  if (isObj(a) && isObj(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) => {
      const p = `${at}/${k.replace(/~/g, "~0").replace(/\//g, "~1")}`;
      return k in a && k in b ? differingPointers(a[k], b[k], p) : [p];
    });
  }
  return JSON.stringify(a) === JSON.stringify(b) ? [] : [at];
}

test("zomJsonSchema differs from the schemas printed in ZEP 6 only where ZOM_SCHEMA_ERRATA says", async () => {
  for (const v of [2, 3] as const) {
    const printed = readJson(join(ZEP6, `schema-v${v}.json`));
    const diffs = differingPointers(printed, zomJsonSchema(v));
    const errata = ZOM_SCHEMA_ERRATA[v].map((e) => e.pointer);
    for (const d of diffs) assert.ok(errata.some((p) => d === p || d.startsWith(`${p}/`)), `v${v}: undocumented difference at ${d}`);
    for (const p of errata) assert.ok(diffs.some((d) => d === p || d.startsWith(`${p}/`)), `v${v}: erratum ${p} changes nothing`);
    assert.ok(new Ajv2020({ strict: false }).validateSchema(printed));
  }
  // Taken literally, the printed v2 schema rejects what zarr-python 2 writes ("attributess",
  // "zarr_version", "compressor": null); the printed v3 one accepts the zarrs hierarchy.
  const printedV2 = new Ajv2020({ strict: false }).compile(readJson(join(ZEP6, "schema-v2.json")));
  assert.equal(printedV2(await fromZarr(V2_HIERARCHY)), false);
  const printedV3 = new Ajv2020({ strict: false }).compile(readJson(join(ZEP6, "schema-v3.json")));
  assert.equal(printedV3(await fromZarr(V3_HIERARCHY)), true);
});

test("every node among the fixtures has a model equal to its files, accepted by zod and ajv", async () => {
  const validate = { 2: ajvFor(2), 3: ajvFor(3) };
  function* nodeDirs(d: string): Generator<string> {
    for (const n of readdirSync(d).sort()) {
      const p = join(d, n);
      if (!statSync(p).isDirectory()) continue;
      if (["zarr.json", ".zarray", ".zgroup"].some((f) => existsSync(join(p, f)))) yield p;
      yield* nodeDirs(p);
    }
  }
  let count = 0;
  for (const dir of nodeDirs(FIXTURES)) {
    const zarrFormat = existsSync(join(dir, "zarr.json")) ? 3 : 2;
    const model = await fromZarr(dir);
    assert.deepEqual(model, modelFromFiles(dir, zarrFormat), dir);
    // The JSON Schema describes hierarchies: a lone array is checked as a group's only member.
    const asGroup = "members" in model ? model : zarrFormat === 3 ? { zarr_format: 3, node_type: "group", attributes: {}, members: { x: model } } : { zarr_format: 2, attributes: {}, members: { x: model } };
    assert.equal(validate[zarrFormat](asGroup), true, `${dir}: ${JSON.stringify(validate[zarrFormat].errors?.slice(0, 2))}`);
    count++;
  }
  assert.ok(count > 300, `${count} nodes`);
});

test("a group document's own \"members\" field is kept as \"_members\" (ZEP 6's rule for collisions)", async () => {
  const store = new MemoryStore();
  const doc = { zarr_format: 3, node_type: "group", attributes: {}, members: { must_understand: false, n: 1 }, _members: { must_understand: false } };
  await store.set("zarr.json", new TextEncoder().encode(JSON.stringify(doc)));
  const model = (await fromZarr(store)) as unknown as JsonObject;
  assert.deepEqual(model._members, doc.members);
  assert.deepEqual(model.__members, doc._members);
  assert.deepEqual(model.members, {});
  const out = new MemoryStore();
  await toZarr(model as unknown as AnyGroupSpecV3, out);
  assert.deepEqual(JSON.parse(new TextDecoder().decode(await out.get("zarr.json"))), doc);
});
