/**
 * Consolidated metadata: zarr-python 2's `.zmetadata` opens a whole hierarchy with one read;
 * what parzarr consolidates, zarr-python's open_consolidated opens (v2) and zarrita opens (v3).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { cpSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import * as zarrita from "zarrita";
import ZarritaFileSystemStore from "@zarrita/storage/fs";
import {
  FileSystemStore,
  Group,
  InvalidMetadataError,
  MemoryStore,
  NodeTypeError,
  NotFoundError,
  UnsupportedError,
  UnopenableNode,
  ZarrArray,
  consolidateMetadata,
  createGroup,
  fromZarr,
  open,
  openGroup,
  type JsonObject,
} from "../src/index.js";
import { v3ConsolidatedRootDocument } from "../src/metadata/consolidated.js";
import { CountingStore } from "./helpers/counting-store.js";
import { FIXTURES, scratchDir } from "./helpers/paths.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

const V2_HIERARCHY = join(FIXTURES, "zarr-python-2.13", "hierarchy.zarr");

interface Entry {
  kind: "array" | "group";
  attrs: JsonObject;
  shape?: number[];
  chunks?: number[];
  dtype?: string;
}

/** Every node below a group, found through its members. */
async function walk(group: Group, prefix = ""): Promise<Record<string, Entry | "unsupported">> {
  const out: Record<string, Entry | "unsupported"> = {};
  let members: [string, ZarrArray | Group | UnopenableNode][];
  try {
    members = await group.members();
  } catch (err) {
    // A group holding a data type parzarr cannot read yet (|S7, structured) is marked, not walked.
    if (!(err instanceof UnsupportedError)) throw err;
    out[`${prefix}/*`] = "unsupported";
    return out;
  }
  for (const [name, node] of members) {
    const path = prefix === "" ? name : `${prefix}/${name}`;
    // A child of a data type parzarr cannot read yet (|S7, structured) is marked, not opened.
    if (node instanceof UnopenableNode) out[path] = "unsupported";
    else if (node instanceof ZarrArray) {
      out[path] = { kind: "array", attrs: node.attrs, shape: node.shape, chunks: node.chunks, dtype: node.numpyDtype };
    } else {
      out[path] = { kind: "group", attrs: node.attrs };
      Object.assign(out, await walk(node, path));
    }
  }
  return out;
}

test("v2: the zarr-python 2.13 hierarchy opens with one read of .zmetadata and no listing", async () => {
  const store = new CountingStore(new FileSystemStore(V2_HIERARCHY, { readOnly: true }));
  const g = await openGroup(store, { mode: "r", zarrFormat: 2 });
  assert.equal(g.consolidated, true);
  const tree = await walk(g);
  const sub = await g.get("compressors/zlib1_C");
  assert.ok(sub instanceof ZarrArray);
  assert.equal(await g.contains("no/such/node"), false);
  await assert.rejects(g.get("missing"), NotFoundError);
  assert.deepEqual(store.calls, ["get .zmetadata"]);

  // Without a format, zarr.json and .zmetadata are asked for together, and nothing after that.
  store.reset();
  await walk(await openGroup(store, { mode: "r" }));
  assert.deepEqual(store.calls.sort(), ["get .zmetadata", "get zarr.json"]);

  // The same tree, node for node, as reading every document from the store.
  store.reset();
  const plain = await openGroup(store, { mode: "r", consolidated: false });
  assert.equal(plain.consolidated, false);
  assert.deepEqual(await walk(plain), tree);
  assert.ok(store.count("listDir") > 5 && store.count("get") > 77, "the plain walk lists and reads every node");
  const zmeta = JSON.parse(readFileSync(join(V2_HIERARCHY, ".zmetadata"), "utf8")).metadata as JsonObject;
  const compressors = Object.keys(zmeta).filter((k) => /^compressors\/.+\/\.zarray$/.test(k)).map((k) => k.slice(0, -".zarray".length - 1));
  assert.ok(compressors.length > 20);
  assert.deepEqual(Object.keys(tree).filter((k) => k.startsWith("compressors/")).sort(), compressors.sort());

  // open() serves nodes the same way, and arrays opened so read their chunks as usual.
  store.reset();
  const root = await open(store, { mode: "r", zarrFormat: 2 });
  assert.ok(root instanceof Group);
  const arr = (await root.get("compressors/zlib1_C")) as ZarrArray;
  const manifest = JSON.parse(readFileSync(join(FIXTURES, "zarr-python-2.13", "manifest.json"), "utf8")) as { path: string; values?: unknown[] }[];
  const want = manifest.find((e) => e.path === "hierarchy.zarr/compressors/zlib1_C");
  assert.ok(want?.values);
  const got = await arr.get(null, { threads: 0 });
  assert.deepEqual(Array.from((got as { data: ArrayLike<number> }).data), want.values);
  assert.deepEqual(store.keys("get").filter((k) => !k.startsWith("compressors/zlib1_C/")), [".zmetadata"]);
});

test("v2: parzarr's .zmetadata for the fixture equals the one zarr-python 2 wrote", async () => {
  const dir = join(scratchDir(), "h.zarr");
  // The metadata documents only: consolidation never looks at chunks.
  cpSync(V2_HIERARCHY, dir, { recursive: true, filter: (src) => statSync(src).isDirectory() || /\.z(array|group|attrs)$/.test(src) });
  await consolidateMetadata(dir);
  const ours = JSON.parse(readFileSync(join(dir, ".zmetadata"), "utf8"));
  const theirs = JSON.parse(readFileSync(join(V2_HIERARCHY, ".zmetadata"), "utf8"));
  assert.deepEqual(ours, theirs);
});

test("v2: what parzarr consolidates, zarr-python opens with open_consolidated", { skip: zarrPythonSkip() }, async () => {
  const dir = join(scratchDir(), "c.zarr");
  const root = await createGroup(dir, { zarrFormat: 2, attributes: { title: "consolidated", n: 3 } });
  const a = await root.createGroup("a", { attributes: { level: 1 } });
  await a.createArray("x", { shape: [6, 4], chunks: [3, 2], dtype: "<i4", fillValue: 0, attributes: { units: "m" } });
  await root.createArray("y", { shape: [5], chunks: [5], dtype: "<f8", fillValue: 0 });
  await a.createGroup("b/c");
  await consolidateMetadata(dir);
  // Data written after consolidation lands in chunks: the metadata stays true.
  const x = (await (await openGroup(dir)).get("a/x")) as ZarrArray;
  await x.set(null, { data: Int32Array.from({ length: 24 }, (_, i) => i * 7), shape: [6, 4] });

  // A store with only .zmetadata answers open_consolidated: rename the node documents away.
  const script = `
import json, sys, zarr
g = zarr.open_consolidated(sys.argv[1], mode="r")
out = {}
def visit(name, node):
    e = {"kind": "array" if isinstance(node, zarr.Array) else "group", "attrs": dict(node.attrs)}
    if e["kind"] == "array":
        e.update(shape=list(node.shape), chunks=list(node.chunks), dtype=node.dtype.str)
    out[name] = e
g.visititems(visit)
print(json.dumps({"root": dict(g.attrs), "tree": out, "x": g["a/x"][:].ravel().tolist(),
                  "store": type(g.store).__name__}))
`;
  const r = runPython(script, dir);
  assert.equal(r.status, 0, r.stderr);
  const py = JSON.parse(r.stdout) as { root: JsonObject; tree: Record<string, Entry>; x: number[]; store: string };
  assert.equal(py.store, "ConsolidatedMetadataStore");
  assert.deepEqual(py.root, { title: "consolidated", n: 3 });
  assert.deepEqual(py.tree, await walk(await openGroup(dir, { mode: "r" })));
  assert.deepEqual(py.x, Array.from({ length: 24 }, (_, i) => i * 7));
});

test("v2: zarr-python's open_consolidated reads from .zmetadata alone", { skip: zarrPythonSkip() }, async () => {
  // Proof that the document is complete: hide every node document and open it in zarr-python.
  const dir = join(scratchDir(), "only.zarr");
  const root = await createGroup(dir, { zarrFormat: 2, attributes: { k: "v" } });
  await root.createArray("g/arr", { shape: [3], chunks: [3], dtype: "|u1", fillValue: 7 });
  await consolidateMetadata(dir);
  for (const f of [".zgroup", ".zattrs", "g/.zgroup", "g/arr/.zarray"]) rmSync(join(dir, f), { force: true });
  const r = runPython(
    `import json, sys, zarr
g = zarr.open_consolidated(sys.argv[1], mode="r")
print(json.dumps([dict(g.attrs), list(g["g/arr"].shape), int(g["g/arr"].fill_value), g["g/arr"][:].tolist()]))`,
    dir,
  );
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), [{ k: "v" }, [3], 7, [7, 7, 7]]);
  // parzarr, too, opens it from .zmetadata alone.
  const g = await openGroup(dir, { mode: "r" });
  assert.deepEqual(g.attrs, { k: "v" });
  assert.deepEqual(((await g.get("g/arr")) as ZarrArray).shape, [3]);
});

test("v3: inline consolidated_metadata as zarr-python 3 lays it out; one read; zarrita opens it", async () => {
  const dir = join(scratchDir(), "v3.zarr");
  const root = await createGroup(dir, { attributes: { title: "v3 root" } });
  const sub = await root.createGroup("sub", { attributes: { depth: 1 } });
  await sub.createArray("temp", { shape: [4, 6], chunks: [2, 3], dtype: "float32", fillValue: 0, attributes: { units: "K" }, dimensionNames: ["y", "x"] });
  // An int64 fill value beyond 2^53 must reach the consolidated document digit for digit.
  await root.createArray("big", { shape: [2], chunks: [2], dtype: "int64", fillValue: 9007199254740993n });
  await consolidateMetadata(dir);

  const text = readFileSync(join(dir, "zarr.json"), "utf8");
  assert.match(text, /"fill_value": 9007199254740993\b/);
  const doc = JSON.parse(text) as JsonObject;
  const cm = doc.consolidated_metadata as JsonObject;
  assert.equal(cm.kind, "inline");
  assert.equal(cm.must_understand, false);
  const meta = cm.metadata as Record<string, JsonObject>;
  // Entries by depth, then by path, as zarr-python 3.1 writes them.
  assert.deepEqual(Object.keys(meta), ["big", "sub", "sub/temp"]);
  for (const [path, entry] of Object.entries(meta)) {
    assert.deepEqual(entry, JSON.parse(readFileSync(join(dir, path, "zarr.json"), "utf8")), path);
  }
  assert.deepEqual(doc.attributes, { title: "v3 root" });

  const store = new CountingStore(new FileSystemStore(dir, { readOnly: true }));
  const g = await openGroup(store, { mode: "r", zarrFormat: 3 });
  const tree = await walk(g);
  assert.deepEqual(store.calls, ["get zarr.json"]);
  assert.deepEqual(tree, await walk(await openGroup(dir, { mode: "r", consolidated: false })));
  assert.deepEqual(tree["sub/temp"], { kind: "array", attrs: { units: "K" }, shape: [4, 6], chunks: [2, 3], dtype: "<f4" });

  // zarrita reads the same consolidated document.
  const zstore = await zarrita.withConsolidatedMetadata(new ZarritaFileSystemStore(dir), { format: "v3" });
  const contents = zstore.contents().map((c) => `${c.kind} ${c.path}`).sort();
  assert.deepEqual(contents, ["array /big", "array /sub/temp", "group /", "group /sub"]);
  const zg = await zarrita.open(zarrita.root(new ZarritaFileSystemStore(dir)), { kind: "group" });
  assert.deepEqual(zg.attrs, { title: "v3 root" });
  const za = await zarrita.open(zarrita.root(zstore).resolve("sub/temp"), { kind: "array" });
  assert.deepEqual(za.shape, [4, 6]);
  assert.deepEqual(za.attrs, { units: "K" });
});

test("writes through a group opened from consolidated metadata are seen, not hidden by it", async () => {
  const store = new MemoryStore();
  const root = await createGroup(store, { zarrFormat: 2 });
  await root.createArray("a", { shape: [2], chunks: [2], dtype: "<i2", fillValue: 0 });
  await consolidateMetadata(store);
  const g = await openGroup(store);
  assert.equal(g.consolidated, true);
  await g.createArray("b", { shape: [3], chunks: [3], dtype: "<i2", fillValue: 0 });
  await g.setAttrs({ changed: true });
  assert.equal(g.consolidated, false);
  assert.deepEqual((await g.members()).map(([n]) => n), ["a", "b"]);
  // The stored .zmetadata is now out of date until consolidated again, as in zarr-python.
  const again = await openGroup(store, { mode: "r" });
  assert.deepEqual((await again.members()).map(([n]) => n), ["a"]);
  await consolidateMetadata(store);
  const fresh = await openGroup(store, { mode: "r" });
  assert.deepEqual((await fresh.members()).map(([n]) => n), ["a", "b"]);
  assert.deepEqual(fresh.attrs, { changed: true });
  // An array's attributes, changed through a handle from the consolidated view, are seen too.
  const writable = await openGroup(store, { mode: "r+" });
  assert.equal(writable.consolidated, true);
  await ((await writable.get("a")) as ZarrArray).updateAttrs({ units: "s" });
  assert.equal(writable.consolidated, false);
  assert.deepEqual(((await writable.get("a")) as ZarrArray).attrs, { units: "s" });
});

test("bad consolidated metadata and bad targets get typed errors", async () => {
  const dir = scratchDir();
  await createGroup(dir, { zarrFormat: 2 });
  writeFileSync(join(dir, ".zmetadata"), JSON.stringify({ metadata: {}, zarr_consolidated_format: 2 }));
  await assert.rejects(
    openGroup(dir, { mode: "r" }),
    (e: unknown) => e instanceof InvalidMetadataError && /zarr_consolidated_format/.test(e.message) && /consolidated: false/.test(e.message),
  );
  // consolidated: false ignores the document.
  assert.ok((await openGroup(dir, { mode: "r", consolidated: false })) instanceof Group);
  writeFileSync(join(dir, ".zmetadata"), JSON.stringify({ metadata: { "a/.zarray": [1] }, zarr_consolidated_format: 1 }));
  await assert.rejects(openGroup(dir, { mode: "r" }), (e: unknown) => e instanceof InvalidMetadataError && /a\/\.zarray/.test(e.message));

  const store = new MemoryStore();
  const g = await createGroup(store);
  await g.createArray("arr", { shape: [1], chunks: [1], dtype: "uint8", fillValue: 0 });
  await assert.rejects(consolidateMetadata(store, { path: "arr" }), NodeTypeError);
  await assert.rejects(consolidateMetadata(store, { path: "nothing" }), NotFoundError);
  // A broken node document stops consolidation before anything is written.
  await store.set("bad/zarr.json", new TextEncoder().encode("{not json"));
  const before = await store.get("zarr.json");
  await assert.rejects(consolidateMetadata(store), InvalidMetadataError);
  assert.deepEqual(await store.get("zarr.json"), before);
});

test("v2: a group below the root, consolidated by zarr-python 2 (store-wide keys) or by parzarr (relative keys)", { skip: zarrPythonSkip() }, async () => {
  const dir = join(scratchDir(), "sub.zarr");
  const r = runPython(
    `import sys, zarr
store = zarr.DirectoryStore(sys.argv[1])
root = zarr.group(store)
g = root.create_group("outer/inner")
g.attrs["who"] = "inner"
g.create_dataset("arr", shape=(2, 3), chunks=(1, 3), dtype="<u2")
zarr.consolidate_metadata(store, metadata_key="outer/inner/.zmetadata")
z = zarr.open_consolidated(store, metadata_key="outer/inner/.zmetadata", path="outer/inner", mode="r")
print(list(z.array_keys()))`,
    dir,
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), "['arr']");
  for (const label of ["zarr-python 2", "parzarr"]) {
    if (label === "parzarr") await consolidateMetadata(dir, { path: "outer/inner" });
    const store = new CountingStore(new FileSystemStore(dir, { readOnly: true }));
    const g = await openGroup(store, { mode: "r", path: "outer/inner", zarrFormat: 2 });
    assert.equal(g.consolidated, true, label);
    assert.deepEqual(g.attrs, { who: "inner" }, label);
    assert.deepEqual((await g.members()).map(([n, node]) => [n, (node as ZarrArray).shape]), [["arr", [2, 3]]], label);
    assert.deepEqual(store.calls, ["get outer/inner/.zmetadata"], label);
  }
});

test("consolidation lists folders, never an array's chunks", async () => {
  const inner = new MemoryStore();
  const root = await createGroup(inner, { attributes: { v: 3 } });
  const arr = await root.createArray("g/data", { shape: [40], chunks: [1], dtype: "uint8", fillValue: 0 });
  await arr.set(null, { data: Uint8Array.from({ length: 40 }, (_, i) => i + 1), shape: [40] }, { threads: 0 });
  const listed: string[] = [];
  const spy = Object.assign(Object.create(inner) as MemoryStore, {
    list: async (p: string) => (listed.push(`list ${p}`), inner.list(p)),
    listDir: async (p: string) => (listed.push(`listDir ${p}`), inner.listDir(p)),
  });
  await consolidateMetadata(spy);
  assert.deepEqual(listed.sort(), ["listDir ", "listDir g/"]);
  const g = await openGroup(inner, { mode: "r" });
  assert.deepEqual(await walk(g), {
    g: { kind: "group", attrs: {} },
    "g/data": { kind: "array", attrs: {}, shape: [40], chunks: [1], dtype: "|u1" },
  });
});

test("v3 entries are ordered by depth, then by path; the node documents are spliced in unchanged", () => {
  const docs = new Map([
    ["a/b", '{"zarr_format": 3, "node_type": "group", "attributes": {"big": 12345678901234567890}}'],
    ["b", '{\n  "zarr_format": 3,\n  "node_type": "group"\n}'],
    ["a", '{"zarr_format":3,"node_type":"group"}'],
  ]);
  const text = new TextDecoder().decode(v3ConsolidatedRootDocument({ zarr_format: 3, node_type: "group", attributes: { x: "é" } }, docs));
  const doc = JSON.parse(text) as { consolidated_metadata: { metadata: JsonObject }; attributes: JsonObject };
  assert.deepEqual(Object.keys(doc.consolidated_metadata.metadata), ["a", "b", "a/b"]);
  assert.match(text, /"big": 12345678901234567890\}/);
  assert.deepEqual(doc.attributes, { x: "é" });
});

test("over HTTP, where nothing can be listed, consolidated metadata makes the hierarchy walkable", async () => {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const rel = decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname).slice(1);
    requests.push(rel);
    const file = join(V2_HIERARCHY, rel);
    if (!file.startsWith(V2_HIERARCHY) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
    const g = await openGroup(url, { mode: "r" });
    const tree = await walk(g);
    assert.deepEqual(tree, await walk(await openGroup(V2_HIERARCHY, { mode: "r", consolidated: false })));
    assert.deepEqual(requests.sort(), [".zmetadata", "zarr.json"]);
    const model = await fromZarr(url);
    assert.deepEqual(model, await fromZarr(V2_HIERARCHY, { consolidated: false }));
    // Without it, a plain HTTP server cannot say what a group holds.
    const plain = await openGroup(url, { mode: "r", consolidated: false });
    await assert.rejects(plain.members());
  } finally {
    server.close();
  }
});
