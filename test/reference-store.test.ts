/**
 * ReferenceStore over kerchunk reference documents built from real files: an HDF5 file written
 * by h5py and a NetCDF-4 file written by netCDF4, whose chunk byte ranges come from HDF5's own
 * chunk index (test/peers/kerchunk_refs.py). Reads through the store (inline and on the pool;
 * targets on local files, on an HTTP server and on s3rver, all started here) must equal what
 * h5py reads; zarrita's ReferenceStore must read the same documents alike; nearby ranges of one
 * file must merge into one request; every malformed document is a typed error naming the key.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as zarrita from "zarrita";
import ZarritaReferenceStore from "@zarrita/storage/ref";
import {
  createArray,
  FileSystemStore,
  InvalidReferenceError,
  NotFoundError,
  openArray,
  openGroup,
  ReferenceStore,
  ReferenceTargetError,
  S3Store,
  workerCanOpen,
  WorkerPool,
  type NDArray,
} from "../src/index.js";
import { startStaticServer, type StaticServer } from "../src/cli/static-server.js";
import { renderTemplate } from "../src/stores/reference-template.js";
import { cliInProcess } from "./helpers/cli-in-process.js";
import { scratchDir } from "./helpers/paths.js";
import { PYTHON, pythonModulesSkip } from "./helpers/peers.js";
import { startS3, type TestS3 } from "./helpers/s3.js";

const SCRIPT = new URL("./peers/kerchunk_refs.py", import.meta.url).pathname;
const skip = pythonModulesSkip(["h5py", "netCDF4", "numpy"], "apt-get install -y python3-h5py python3-netcdf4");

interface Expected {
  shape: number[];
  dtype: string;
  file: string;
}

/** The bytes of a result, little-endian as this machine is. */
function bytesOf(v: NDArray): Buffer {
  const d = v.data as unknown as ArrayBufferView;
  return Buffer.from(d.buffer, d.byteOffset, d.byteLength);
}

const pool = new WorkerPool({ threads: 2 });
after(() => pool.close());

describe("ReferenceStore on files written by h5py and netCDF4", { skip }, () => {
  let dir: string;
  let expected: Record<string, Expected>;
  let server: StaticServer;
  /** Requests the HTTP server answered, as "path range". */
  const requests: string[] = [];

  before(async () => {
    dir = scratchDir("parzarr-kerchunk-");
    const r = spawnSync(PYTHON, [SCRIPT, dir], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    expected = JSON.parse(readFileSync(join(dir, "expected.json"), "utf8")) as Record<string, Expected>;
    server = await startStaticServer({ mounts: { "/": dir }, onRequest: (path, range) => void requests.push(`${path} ${range ?? ""}`) });
  });
  after(() => server?.close());

  /** Every array of the fixture read through `store` equals h5py's values. */
  async function assertAllEqual(store: ReferenceStore, threads: number): Promise<void> {
    for (const [name, e] of Object.entries(expected)) {
      const a = await openArray(store, { path: name, mode: "r" });
      assert.deepEqual(a.shape, e.shape, name);
      const v = (await a.get(null, threads === 0 ? { threads: 0 } : { pool, threads })) as NDArray;
      assert.ok(bytesOf(v).equals(readFileSync(join(dir, e.file))), `${name} (threads ${threads}) differs from h5py's values`);
    }
  }

  for (const doc of ["refs-v0.json", "refs-v1.json"]) {
    test(`${doc}: local targets, relative to the document's folder, inline and on the pool`, async () => {
      // The tests run from the repository: a relative target resolved against the current
      // folder would not be found.
      assert.notEqual(process.cwd(), dir);
      const store = await ReferenceStore.open(join(dir, doc));
      assert.ok(workerCanOpen(store.descriptor()));
      await assertAllEqual(store, 0);
      await assertAllEqual(store, 2);
      const g = await openGroup(store, { mode: "r" });
      assert.equal(g.attrs.title, "parzarr kerchunk fixture");
      assert.deepEqual((await g.members()).map(([n]) => n).sort(), ["counts", "grid", "lat", "pr", "sub", "temp"]);
      const pr = await openArray(store, { path: "pr", mode: "r" });
      assert.deepEqual(pr.attrs._ARRAY_DIMENSIONS, ["time", "lat", "lon"]);
      assert.equal(pr.attrs.units, "kg m-2 s-1");
    });
  }

  test("a path or URL ending in .json opens as references: openArray, and parzarr cp into a folder", async () => {
    const a = await openArray(join(dir, "refs-v1.json"), { path: "temp", mode: "r" });
    assert.ok(bytesOf((await a.get(null)) as NDArray).equals(readFileSync(join(dir, "temp.bin"))));
    const g = await openGroup(`${server.origin}/refs-v0.json`, { mode: "r" });
    assert.equal(g.attrs.title, "parzarr kerchunk fixture");
    const out = join(dir, "copied.zarr");
    const run = await cliInProcess(["cp", join(dir, "refs-v1.json"), out, "-q"]);
    assert.equal(run.code, 0, run.stderr);
    for (const [name, e] of Object.entries(expected)) {
      const v = (await (await openArray(new FileSystemStore(out), { path: name, mode: "r" })).get(null)) as NDArray;
      assert.ok(bytesOf(v).equals(readFileSync(join(dir, e.file))), `${name} copied as h5py reads it`);
    }
    // A document that is not there: the first read says so.
    await assert.rejects(openArray(join(dir, "none.json"), { mode: "r" }), NotFoundError);
  });

  test("a document served over HTTP: its relative targets are fetched from the same server", async () => {
    const store = await ReferenceStore.open(`${server.origin}/refs-v1.json`);
    requests.length = 0;
    await assertAllEqual(store, 0);
    await assertAllEqual(store, 2);
    assert.ok(requests.some((r) => r.startsWith("/data.h5 bytes=")), "data.h5 was read by range over HTTP");
    assert.ok(requests.some((r) => r.startsWith("/data.nc bytes=")), "data.nc was read by range over HTTP");
  });

  test("nearby chunks of one file are fetched in one request (h5py's 15 chunks of counts)", async () => {
    const store = await ReferenceStore.open(`${server.origin}/refs-v1.json`);
    const a = await openArray(store, { path: "counts", mode: "r" });
    assert.equal(Math.ceil(a.shape[0]! / a.chunks[0]!), 15);
    for (const opts of [{ threads: 0 }, { pool, threads: 1 }]) {
      requests.length = 0;
      const v = (await a.get(null, opts)) as NDArray;
      assert.ok(bytesOf(v).equals(readFileSync(join(dir, "counts.bin"))));
      assert.deepEqual(
        requests.filter((r) => r.startsWith("/data.h5")).length,
        1,
        `one range request for 15 chunks (threads ${opts.threads}): ${requests.join(", ")}`,
      );
    }
  });

  test("the documents are kerchunk's: fsspec's ReferenceFileSystem and zarr-python read them as h5py does", { skip: pythonModulesSkip(["fsspec", "zarr"], "apt-get install -y python3-fsspec python3-zarr") }, () => {
    // fsspec resolves relative targets against the current folder: run it in the documents' own.
    const script = [
      "import fsspec, zarr, numpy as np, json, sys",
      "exp = json.load(open('expected.json'))",
      "for doc in ['refs-v0.json', 'refs-v1.json']:",
      "    g = zarr.open_group(fsspec.get_mapper('reference://', fo=doc, remote_protocol='file'), mode='r')",
      "    for name, e in exp.items():",
      "        want = np.fromfile(e['file'], dtype=e['dtype']).reshape(e['shape'])",
      "        assert np.array_equal(g[name][...], want), (doc, name)",
      "print('ok')",
    ].join("\n");
    const r = spawnSync(PYTHON, ["-c", script], { cwd: dir, encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), "ok");
  });

  test("the same documents read by zarrita's ReferenceStore give the same values", async () => {
    const v1 = JSON.parse(readFileSync(join(dir, "refs-v1.json"), "utf8")) as { templates: Record<string, string> };
    // zarrita fetches target URLs as they are: make them absolute.
    v1.templates = { h5: `${server.origin}/data.h5`, nc: `${server.origin}/data.nc` };
    const theirs = ZarritaReferenceStore.fromSpec(v1 as never);
    const ours = ReferenceStore.fromDocument(v1);
    for (const [name, e] of Object.entries(expected)) {
      const arr = await zarrita.open(zarrita.root(theirs).resolve(name), { kind: "array" });
      const got = await zarrita.get(arr);
      const d = got.data as unknown as ArrayBufferView;
      const want = readFileSync(join(dir, e.file));
      assert.ok(Buffer.from(d.buffer, d.byteOffset, d.byteLength).equals(want), `zarrita reads ${name} as h5py does`);
      const mine = (await (await openArray(ours, { path: name, mode: "r" })).get(null, { pool, threads: 2 })) as NDArray;
      assert.ok(bytesOf(mine).equals(want), `parzarr reads ${name} as zarrita does`);
    }
  });

  describe("on s3rver", () => {
    let s3: TestS3;
    before(async () => {
      s3 = await startS3();
      const bucket = new S3Store(`s3://${s3.bucket}/k`, s3.options);
      for (const f of ["data.h5", "data.nc", "refs-v1.json"]) await bucket.set(f, readFileSync(join(dir, f)));
    });
    after(() => s3?.close());

    test("a document in a bucket, relative targets beside it, inline and on the pool", async () => {
      const store = await ReferenceStore.open(`s3://${s3.bucket}/k/refs-v1.json`, { s3: s3.options });
      await assertAllEqual(store, 0);
      await assertAllEqual(store, 2);
    });

    test("an in-memory document naming s3:// targets", async () => {
      const v1 = JSON.parse(readFileSync(join(dir, "refs-v1.json"), "utf8")) as { templates: Record<string, string> };
      v1.templates = { h5: `s3://${s3.bucket}/k/data.h5`, nc: `s3://${s3.bucket}/k/data.nc` };
      const store = ReferenceStore.fromDocument(v1, { s3: s3.options });
      await assertAllEqual(store, 0);
      await assertAllEqual(store, 2);
    });
  });

  test("an in-memory document: small ones travel to workers, large ones stay in their thread", async () => {
    const text = readFileSync(join(dir, "refs-v0.json"), "utf8");
    const small = ReferenceStore.fromDocument(text, { base: `${dir}/` });
    assert.equal(small.descriptor().kind, "reference");
    assert.ok(workerCanOpen(small.descriptor()));
    await assertAllEqual(small, 2);
    const doc = JSON.parse(text) as Record<string, unknown>;
    doc[".zattrs"] = JSON.stringify({ title: "parzarr kerchunk fixture", padding: "x".repeat(1 << 20) });
    const large = ReferenceStore.fromDocument(doc, { base: `${dir}/` });
    assert.equal(workerCanOpen(large.descriptor()), false);
    assert.ok(JSON.stringify(large.descriptor()).length < 2000, "the large document does not travel");
    await assertAllEqual(large, 2);
  });

  test("a target that is missing, or too short for its range, is an error naming the key", async () => {
    const v0 = JSON.parse(readFileSync(join(dir, "refs-v0.json"), "utf8")) as Record<string, unknown>;
    const [, off, len] = v0["temp/0.0"] as [string, number, number];
    const size = readFileSync(join(dir, "data.h5")).length;
    const cases: [string, unknown, "missing" | "short"][] = [
      ["temp/0.0", ["gone.h5", off, len], "missing"],
      ["temp/0.1", [`${server.origin}/gone.h5`, off, len], "missing"],
      ["temp/0.2", ["data.h5", size - 10, len], "short"],
      ["temp/0.3", [`${server.origin}/data.h5`, size - 10, len], "short"],
    ];
    for (const [key, ref, reason] of cases) {
      const store = ReferenceStore.fromDocument({ ...v0, [key]: ref }, { base: `${dir}/` });
      const a = await openArray(store, { path: "temp", mode: "r" });
      for (const threads of [0, 2]) {
        await assert.rejects(
          a.get(null, threads === 0 ? { threads } : { pool, threads }),
          (err: unknown) => err instanceof ReferenceTargetError && err.key === key && err.reason === reason && err.message.includes(key),
          `${key} ${reason} (threads ${threads})`,
        );
      }
    }
    // Past the end within a merged request: the short range is named, not the group's first.
    const [, cOff] = v0["counts/3"] as [string, number, number];
    const store = ReferenceStore.fromDocument({ ...v0, "counts/3": ["data.h5", size - 4, cOff] }, { base: `${dir}/` });
    const c = await openArray(store, { path: "counts", mode: "r" });
    await assert.rejects(c.get(null, { threads: 0 }), (err: unknown) => err instanceof ReferenceTargetError && err.key === "counts/3" && err.reason === "short");
    await assert.rejects(ReferenceStore.open(join(dir, "no-such.json")), NotFoundError);
  });
});

describe("ReferenceStore (documents built here)", () => {
  let dir: string;
  let server: StaticServer;
  const requests: string[] = [];
  /** 1 MiB + 64 bytes of known values: byte i is i % 251. */
  const blob = Uint8Array.from({ length: (1 << 20) + 64 }, (_, i) => i % 251);

  before(async () => {
    dir = scratchDir("parzarr-refs-");
    writeFileSync(join(dir, "blob.bin"), blob);
    server = await startStaticServer({ mounts: { "/": dir }, onRequest: (path, range) => void requests.push(`${path} ${range ?? ""}`) });
  });
  after(() => server?.close());

  /** A v2 uint8 array of 5 chunks of 4, three close together, two 1 MiB further on. */
  function spread(url: string): object {
    const far = 1 << 20;
    return {
      ".zarray": JSON.stringify({ zarr_format: 2, shape: [20], chunks: [4], dtype: "|u1", compressor: null, filters: null, fill_value: 0, order: "C" }),
      "0": [url, 0, 4],
      "1": [url, 10, 4],
      "2": [url, 100, 4],
      "3": [url, far, 4],
      "4": [url, far + 40, 4],
    };
  }
  const spreadValues = (): number[] => [0, 10, 100, 1 << 20, (1 << 20) + 40].flatMap((o) => [0, 1, 2, 3].map((k) => blob[o + k]!));

  test("ranges of one target within 64 KiB merge into one request, others stay apart", async () => {
    const store = ReferenceStore.fromDocument(spread(`${server.origin}/blob.bin`));
    const a = await openArray(store, { mode: "r" });
    for (const opts of [{ threads: 0 }, { pool, threads: 1 }]) {
      requests.length = 0;
      const v = (await a.get(null, opts)) as NDArray;
      assert.deepEqual([...(v.data as Uint8Array)], spreadValues());
      assert.deepEqual(requests.sort(), [`/blob.bin bytes=0-103`, `/blob.bin bytes=${1 << 20}-${(1 << 20) + 43}`], `threads ${opts.threads}`);
    }
    // One chunk alone: one request of its own bytes.
    requests.length = 0;
    assert.deepEqual([...((await a.get("4:8")) as NDArray).data as Uint8Array], [10, 11, 12, 13].map((i) => blob[i]));
    assert.deepEqual(requests, ["/blob.bin bytes=10-13"]);
  });

  test("version 1: templates, gen over ranges and lists, offsets computed by expressions", async () => {
    const doc = {
      version: 1,
      templates: { root: `${server.origin}`, file: "{{root}}/blob.bin" },
      refs: {
        ".zarray": JSON.stringify({ zarr_format: 2, shape: [4, 6], chunks: [1, 3], dtype: "|u1", compressor: null, filters: null, fill_value: 0, order: "C" }),
        "0.0": ["{{file}}", 1000, 3],
      },
      gen: [
        // Rows 1..3, first half: offset (i + 1) * 1000, as the spec's example writes it.
        { key: "{{i}}.0", url: "{{file}}", offset: "{{ (i + 1) * 1000 }}", length: "3", dimensions: { i: { start: 1, stop: 4 } } },
        // Second halves, from a list, with // and %.
        { key: "{{i}}.1", url: "{{ file }}", offset: "{{ 5000 + i // 1 * 7 % 100 }}", length: "{{ 1 + 2 }}", dimensions: { i: [0, 1, 2, 3] } },
      ],
    };
    const a = await openArray(ReferenceStore.fromDocument(doc), { mode: "r" });
    const v = (await a.get(null)) as NDArray;
    const want = [0, 1, 2, 3].flatMap((i) => [...[0, 1, 2].map((k) => blob[(i + 1) * 1000 + k]!), ...[0, 1, 2].map((k) => blob[5000 + ((i * 7) % 100) + k]!)]);
    assert.deepEqual([...(v.data as Uint8Array)], want);
  });

  test("Zarr v3 keys and [url] whole-file references", async () => {
    writeFileSync(join(dir, "c0.bin"), Uint8Array.from([1, 2, 3, 4]));
    const doc = {
      "zarr.json": JSON.stringify({ zarr_format: 3, node_type: "group", attributes: { kind: "v3" } }),
      "a/zarr.json": JSON.stringify({
        zarr_format: 3,
        node_type: "array",
        shape: [8],
        data_type: "uint8",
        chunk_grid: { name: "regular", configuration: { chunk_shape: [4] } },
        chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
        fill_value: 9,
        codecs: [{ name: "bytes" }],
      }),
      "a/c/0": ["c0.bin"],
      "a/c/1": `base64:${Buffer.from([5, 6, 7, 8]).toString("base64")}`,
    };
    const store = ReferenceStore.fromDocument(doc, { base: `${server.origin}/` });
    const g = await openGroup(store, { mode: "r" });
    assert.equal(g.attrs.kind, "v3");
    const v = (await (await openArray(store, { path: "a", mode: "r" })).get(null)) as NDArray;
    assert.deepEqual([...(v.data as Uint8Array)], [1, 2, 3, 4, 5, 6, 7, 8]);
    assert.equal(await store.getSize("a/c/0"), 4);
    assert.deepEqual([...(await store.getRange("a/c/1", { offset: 1, length: 2 }))!], [6, 7]);
  });

  test("the store is read-only: writes are a READ_ONLY error", async () => {
    const store = ReferenceStore.fromDocument(spread("blob.bin"), { base: `${dir}/` });
    await assert.rejects(store.set("0", new Uint8Array(4)), { code: "READ_ONLY" });
    await assert.rejects(store.delete("0"), { code: "READ_ONLY" });
    await assert.rejects(openArray(store, { mode: "r+" }).then((a) => a.set(null, 1)), { code: "READ_ONLY" });
    // Nor can it be a copy's destination: createArray refuses it.
    await assert.rejects(createArray(store, { shape: [2], chunks: [2], dtype: "uint8" }), { code: "READ_ONLY" });
  });

  test("a ReferenceStore can be the source of a copy into a folder", async () => {
    const store = ReferenceStore.fromDocument(spread("blob.bin"), { base: `${dir}/` });
    const { copy } = await import("../src/index.js");
    const dest = new FileSystemStore(join(dir, "out.zarr"));
    await copy(await openArray(store, { mode: "r" }), { store: dest }, { name: "x" });
    const v = (await (await openArray(dest, { path: "x", mode: "r" })).get(null)) as NDArray;
    assert.deepEqual([...(v.data as Uint8Array)], spreadValues());
  });

  describe("malformed documents are INVALID_METADATA errors naming the key", () => {
    const zarray = JSON.stringify({ zarr_format: 2, shape: [4], chunks: [4], dtype: "|u1", compressor: null, filters: null, fill_value: 0 });
    const cases: [string, string | object, string][] = [
      ["not JSON", "{ nope", ""],
      ["not an object", "[1, 2]", ""],
      ["a version other than 0 and 1", { version: 2, refs: {} }, "version"],
      ["refs without a version", { refs: { ".zarray": zarray } }, "refs"],
      ["a reference of the wrong type", { ".zarray": zarray, "0": 42 }, "0"],
      ["an offset that is not an integer", { "0": ["blob.bin", "10", 4] }, "0"],
      ["a negative length", { "0": ["blob.bin", 10, -4] }, "0"],
      ["[url, offset] without a length", { "0": ["blob.bin", 10] }, "0"],
      ["bad base64", { "0": "base64:abc" }, "0"],
      ["base64 outside the alphabet", { "0": "base64:ab!d" }, "0"],
      ["a null target url", { version: 1, refs: { "0": [null, 0, 4] } }, "0"],
      ["a key that leaves the store", { "../0": ["blob.bin", 0, 4] }, "../0"],
      ["templates that are not strings", { version: 1, templates: { t: 3 }, refs: {} }, "templates"],
      ["an undefined template name", { version: 1, refs: { "0": ["{{nope}}", 0, 4] } }, "0"],
      ["a Jinja filter", { version: 1, templates: { t: "x" }, refs: { "0": ["{{ t | upper }}", 0, 4] } }, "0"],
      ["an unclosed {{", { version: 1, templates: { t: "x" }, refs: { "0": ["{{ t", 0, 4] } }, "0"],
      ["templates that name each other in a cycle", { version: 1, templates: { a: "{{b}}", b: "{{a}}" }, refs: { "0": ["{{a}}", 0, 4] } }, "0"],
      ["gen without dimensions", { version: 1, gen: [{ key: "{{i}}", url: "blob.bin" }] }, "gen[0]"],
      ["gen with an offset but no length", { version: 1, gen: [{ key: "{{i}}", url: "blob.bin", offset: "0", dimensions: { i: { stop: 2 } } }] }, "gen[0]"],
      ["gen with step 0", { version: 1, gen: [{ key: "{{i}}", url: "blob.bin", dimensions: { i: { stop: 2, step: 0 } } }] }, "gen[0]"],
      ["gen dimensions that are not integers", { version: 1, gen: [{ key: "{{i}}", url: "blob.bin", dimensions: { i: ["a"] } }] }, "gen[0]"],
      ["a gen offset that renders as a float", { version: 1, gen: [{ key: "{{i}}", url: "blob.bin", offset: "{{ i / 1 }}", length: "4", dimensions: { i: [2] } }] }, "2"],
      ["a gen key that renders invalid", { version: 1, gen: [{ key: "/{{i}}", url: "blob.bin", dimensions: { i: [0] } }] }, "/0"],
    ];
    for (const [what, doc, key] of cases) {
      test(what, () => {
        assert.throws(
          () => ReferenceStore.fromDocument(doc),
          (err: unknown) => err instanceof InvalidReferenceError && err.code === "INVALID_METADATA" && err.key === key && (key === "" || err.message.includes(key)),
        );
      });
    }
    test("from a file: bad JSON names the file", async () => {
      writeFileSync(join(dir, "bad.json"), "{ nope");
      await assert.rejects(ReferenceStore.open(join(dir, "bad.json")), (err: unknown) => err instanceof InvalidReferenceError && err.message.includes("bad.json"));
    });
  });

  test("templates render as Jinja does: arithmetic, floats from /, templates naming templates", () => {
    const ctx = { values: new Map<string, string | number>([["i", 2]]), templates: new Map([["a", "x{{b}}"], ["b", "y{{ i * 3 }}"]]) };
    assert.equal(renderTemplate("{{ (i + 1) * 1000 }}", ctx, "k"), "3000");
    assert.equal(renderTemplate("{{ 7 // i }}-{{ -7 % 3 }}", ctx, "k"), "3-2");
    assert.equal(renderTemplate("{{ 7 / i }}|{{ 4 / i }}", ctx, "k"), "3.5|2.0");
    assert.equal(renderTemplate("s3://b/{{a}}.nc", ctx, "k"), "s3://b/xy6.nc");
    assert.equal(renderTemplate("{{ 'p' + a }}", ctx, "k"), "pxy6");
  });
});

