/**
 * NetCDF-3, NetCDF-4 and HDF5 files converted to Zarr by `parzarr cp` and by `copy`, and their
 * kerchunk reference documents (`parzarr refs`). The source
 * files are written by xarray, netCDF4 and h5py (test/peers/netcdf_peer.py) in a scratch folder;
 * what xarray reads from the converted store must be identical (xr.testing.assert_identical:
 * values, dtypes after CF decoding, dimension names, coordinates and every attribute) to what it
 * reads from the source. v3 output, which zarr-python 2 cannot read, is checked by parzarr itself
 * against h5py's values.
 */
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, existsSync, readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import {
  ArchiveStore,
  FileSystemStore,
  Group,
  ZarrError,
  copy,
  createGroup,
  openArchive,
  openArray,
  openGroup,
  referencesFor,
  type NDArray,
  type RangeRequest,
  type ReadableStore,
} from "../src/index.js";
import { cliInProcess } from "./helpers/cli-in-process.js";
import { PYTHON, runPython } from "./helpers/peers.js";
import { scratchDir } from "./helpers/paths.js";
import { spawnSync } from "node:child_process";

const PEER = new URL("./peers/netcdf_peer.py", import.meta.url).pathname;

function peer(...args: string[]): string {
  const r = spawnSync(PYTHON, [PEER, ...args], { encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
  if (r.status !== 0) throw new Error(`netcdf_peer.py ${args.join(" ")} failed (${r.status}):\n${r.stderr}`);
  return r.stdout;
}

const skip = runPython("import xarray, netCDF4, h5py").status === 0 ? false : `${PYTHON} lacks xarray, netCDF4 or h5py`;
let dir = "";

before(() => {
  if (skip) return;
  dir = scratchDir("parzarr-archival-");
  peer("make", dir);
});

async function cp(...args: string[]): Promise<{ code: number; stderr: string }> {
  const r = await cliInProcess(["cp", "-q", ...args]);
  return { code: r.code, stderr: r.stderr };
}

function elements(a: NDArray | unknown): unknown[] {
  const data = (a as NDArray).data as ArrayLike<unknown>;
  return Array.from(data, (x) => (typeof x === "bigint" ? Number(x) : x));
}

test("NetCDF-4 from xarray (chunked zlib with and without shuffle, contiguous, strings, CF attributes, groups) -> v2: xarray reads the same", { skip }, async () => {
  const out = join(dir, "cf.zarr");
  const r = await cp(join(dir, "cf.nc"), out, "--threads", "0");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(peer("compare", join(dir, "cf.nc"), out, "/", "forecast", "forecast/deep").trim(), "ok");
  // The file's chunks are kept where nothing else is asked for; contiguous variables get one.
  const temp = JSON.parse(readFileSync(join(out, "temp/.zarray"), "utf8"));
  assert.deepEqual(temp.chunks, [3, 2, 4]);
  assert.equal(temp.fill_value, -999.0);
  const attrs = JSON.parse(readFileSync(join(out, "temp/.zattrs"), "utf8"));
  assert.deepEqual(attrs._ARRAY_DIMENSIONS, ["time", "lat", "lon"]);
  for (const hidden of ["_Netcdf4Dimid", "DIMENSION_LIST", "_FillValue", "_Netcdf4Coordinates"]) assert.equal(hidden in attrs, false, hidden);
  const lat = JSON.parse(readFileSync(join(out, "lat/.zattrs"), "utf8"));
  for (const hidden of ["CLASS", "NAME", "REFERENCE_LIST"]) assert.equal(hidden in lat, false, hidden);
  assert.equal(JSON.parse(readFileSync(join(out, "station/.zarray"), "utf8")).dtype, "|O");
  // xarray writes bytes as NetCDF chars with a string-length dimension, as does the copy.
  assert.equal(JSON.parse(readFileSync(join(out, "code/.zarray"), "utf8")).dtype, "|S1");
  assert.deepEqual(JSON.parse(readFileSync(join(out, "code/.zattrs"), "utf8"))._ARRAY_DIMENSIONS, ["lat", "string4"]);
});

test("cp options apply to archives: --chunks, --codec, several slabs under a small --memory, worker threads", { skip }, async () => {
  const out = join(dir, "field.zarr");
  const args = [join(dir, "cf.nc") + "#field", out, "--chunks", "3,20,50", "--codec", "zstd:3", "--memory", "150KiB", "--threads", "2"];
  const plan = await cliInProcess(["cp", ...args, "--dry-run"]);
  assert.equal(plan.code, 0, plan.stderr);
  const slabs = Number(/(\d+) slab\(s\)/.exec(plan.stdout)?.[1]);
  assert.ok(slabs > 1, `several slabs under --memory 150KiB:\n${plan.stdout}`);
  const r = await cp(...args);
  assert.equal(r.code, 0, r.stderr);
  const field = JSON.parse(readFileSync(join(out, ".zarray"), "utf8"));
  assert.deepEqual(field.chunks, [3, 20, 50]);
  assert.equal(field.compressor.id, "zstd");
  const expected = JSON.parse(peer("values", join(dir, "cf.nc"))) as Record<string, unknown[]>;
  assert.deepEqual(elements(await (await openArray(new FileSystemStore(out))).get(null)), expected.field);
});

test("NetCDF-3 classic (record dimension, char data, several record variables) -> v2: xarray reads the same", { skip }, async () => {
  const out = join(dir, "classic.zarr");
  const r = await cp(join(dir, "classic.nc"), out, "--threads", "2");
  assert.equal(r.code, 0, r.stderr);
  assert.equal(peer("compare", join(dir, "classic.nc"), out, "/").trim(), "ok");
  // A record variable is stored one record per chunk, as the records lie in the file.
  assert.deepEqual(JSON.parse(readFileSync(join(out, "v/.zarray"), "utf8")).chunks, [1, 4]);
  assert.equal(JSON.parse(readFileSync(join(out, "name/.zarray"), "utf8")).dtype, "|S1");
});

test("NetCDF-3 -> v3 read back by parzarr equals netCDF4's raw values", { skip }, async () => {
  const out = join(dir, "classic-v3.zarr");
  const r = await cp(join(dir, "classic.nc"), out, "--format", "3", "--codec", "gzip:5");
  assert.equal(r.code, 0, r.stderr);
  const expected = JSON.parse(peer("values", join(dir, "classic.nc"))) as Record<string, unknown[]>;
  for (const name of ["x", "v", "s", "b"]) {
    const arr = await openArray(new FileSystemStore(out), { path: name });
    assert.deepEqual(elements(await arr.get(null)), (expected[name] as unknown[]).flat(), name);
  }
  const v = await openArray(new FileSystemStore(out), { path: "v" });
  assert.deepEqual(v.metadata.dimensionNames, ["time", "x"]);
  assert.equal(v.fillValue, -1);
});

test("HDF5 from h5py (no dimension scales, fixed strings, groups) -> v3: parzarr reads h5py's values", { skip }, async () => {
  const out = join(dir, "plain-v3.zarr");
  const r = await cp(join(dir, "plain.h5"), out, "--format", "3", "--codec", "zstd:1", "--shards", "8,10", "--chunks", "4,5");
  assert.equal(r.code, 2, "shards apply to 2-d arrays only: a usage error for the 1-d ones");
  const ok = await cp(join(dir, "plain.h5"), out, "--format", "3", "--codec", "zstd:1");
  assert.equal(ok.code, 0, ok.stderr);
  const expected = JSON.parse(peer("values", join(dir, "plain.h5"))) as Record<string, unknown[]>;
  const store = new FileSystemStore(out);
  for (const name of ["grid", "flat"]) assert.deepEqual(elements(await (await openArray(store, { path: name })).get(null)), expected[name], name);
  const labels = await openArray(store, { path: "inner/labels" });
  assert.deepEqual(elements(await labels.get(null)).map((b) => new TextDecoder().decode(b as Uint8Array).replace(/\0+$/, "")), expected["inner/labels"]);
  // netCDF-C's numbering: the subgroup's dimension first (phony_dim_0), then flat's, then grid's.
  assert.deepEqual((await openArray(store, { path: "grid" })).metadata.dimensionNames, ["phony_dim_2", "phony_dim_3"]);
  assert.equal((await openGroup(store, { path: "inner" })).attrs.count, 2);
  // xarray (netCDF-C) names the phony dimensions the same way.
  const v2 = join(dir, "plain.zarr");
  assert.equal((await cp(join(dir, "plain.h5"), v2)).code, 0);
  assert.equal(peer("compare", join(dir, "plain.h5"), v2, "/").trim(), "ok");
});

test("the library: openArchive + copy converts a file; the store reopens in workers", { skip }, async () => {
  const src = await openArchive(join(dir, "cf.nc"));
  try {
    assert.ok(src instanceof Group);
    assert.ok(src.store instanceof ArchiveStore);
    const destStore = new FileSystemStore(join(dir, "lib.zarr"));
    const dest = await createGroup(destStore, { zarrFormat: 2 });
    const report = await copy(src, dest, { name: "copied", threads: 2 });
    assert.ok(report.copied > 0);
    assert.equal(peer("compare", join(dir, "cf.nc"), join(dir, "lib.zarr", "copied"), "/", "forecast").trim(), "ok");
    // Read through the archive store itself, on worker threads: the same values as h5py's.
    const expected = JSON.parse(peer("values", join(dir, "cf.nc"))) as Record<string, unknown[]>;
    const temp = await openArray(src.store, { path: "temp" });
    assert.deepEqual(elements(await temp.get(null, { threads: 2 })), expected.temp);
  } finally {
    (src.store as ArchiveStore).close();
  }
});

test("refused sources: truncated, corrupt, unknown extension, unsupported types; nothing is written", { skip }, async () => {
  const cases: { name: string; make: (p: string) => void; code: string }[] = [
    { name: "cut.nc", make: (p) => (copyFileSync(join(dir, "cf.nc"), p), truncateSync(p, 3000)), code: "SOURCE_FILE" },
    { name: "cut3.nc", make: (p) => (copyFileSync(join(dir, "classic.nc"), p), truncateSync(p, 400)), code: "SOURCE_FILE" },
    { name: "head3.nc", make: (p) => (copyFileSync(join(dir, "classic.nc"), p), truncateSync(p, 40)), code: "SOURCE_FILE" },
    { name: "noise.nc", make: (p) => writeFileSync(p, Buffer.from("this is not a netCDF file at all, just text\n".repeat(40))), code: "SOURCE_FILE" },
    { name: "data.txt", make: (p) => writeFileSync(p, "x"), code: "UNSUPPORTED" },
    { name: "compound.h5", make: (p) => copyFileSync(join(dir, "compound.h5"), p), code: "UNSUPPORTED" },
  ];
  for (const c of cases) {
    const src = join(dir, "bad-" + c.name);
    c.make(src);
    const out = join(dir, `bad-${c.name}.zarr`);
    const r = await cp(src, out);
    assert.equal(r.code, 1, `${c.name}: ${r.stderr}`);
    assert.match(r.stderr, new RegExp(c.code), c.name);
    assert.equal(existsSync(out), false, `${c.name}: nothing written`);
    if (c.code === "SOURCE_FILE") {
      await assert.rejects(openArchive(src), (e: unknown) => e instanceof ZarrError && e.code === "SOURCE_FILE", c.name);
    }
  }
  // Copy what can be copied: the compound dataset is left out and named.
  const out = join(dir, "partial.zarr");
  const r = await cp(join(dir, "compound.h5"), out, "--skip-unreadable");
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(elements(await (await openArray(new FileSystemStore(out), { path: "ok" })).get(null)), [0, 1, 2, 3]);
  assert.equal(existsSync(join(out, "rec")), false);
});

// ------------------------------------------------------------------------------------------------
// Reference documents (`parzarr refs`, referencesFor)

type RefDoc = { version: number; refs: Record<string, string | [string, number, number]> };

/**
 * A parzarr store over zarrita's ReferenceStore (a devDependency, kerchunk's reader in JS), its
 * byte ranges read from the local file by a fetch of our own: reads through it show what another
 * reader of the document gets.
 */
async function referenceReader(doc: RefDoc): Promise<ReadableStore> {
  const { ReferenceStore } = await import("@zarrita/storage");
  const files = async (request: Request): Promise<Response> => {
    const path = fileURLToPath(request.url);
    const all = readFileSync(path);
    const m = /bytes=(\d+)-(\d+)/.exec(request.headers.get("range") ?? "");
    const body = m ? all.subarray(Number(m[1]), Number(m[2]) + 1) : all;
    return new Response(body, { status: m ? 206 : 200 });
  };
  const refs = ReferenceStore.fromSpec(doc as never, { fetch: files });
  const get = async (key: string) => (await refs.get(`/${key}` as `/${string}`)) ?? undefined;
  return {
    readOnly: true,
    get,
    async getRange(key: string, range: RangeRequest) {
      const b = await get(key);
      return b && b.subarray(range.offset, range.length === undefined ? undefined : range.offset + range.length);
    },
    has: async (key: string) => (await get(key)) !== undefined,
    list: async () => Object.keys(doc.refs),
    listDir: async () => ({ keys: [], prefixes: [] }),
    descriptor: () => ({ kind: "memory", id: "refs-under-test" }),
  };
}

async function refsOf(file: string, ...args: string[]): Promise<RefDoc> {
  const r = await cliInProcess(["refs", file, ...args]);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as RefDoc;
}

test("refs: chunk byte ranges equal h5py's get_chunk_info; values read through the document equal h5py's", { skip }, async () => {
  for (const file of ["cf.nc", "plain.h5"]) {
    const path = join(dir, file);
    // zarrita fetches targets: a file: URL here (the default target is the path as given).
    const url = pathToFileURL(path).href;
    const doc = await refsOf(path, "--url", url);
    assert.equal(doc.version, 1);
    const h5 = JSON.parse(peer("chunks", path)) as Record<string, Record<string, [number | null, number]>>;
    const values = JSON.parse(peer("values", path)) as Record<string, unknown[]>;
    const store = await referenceReader(doc);
    let checked = 0;
    for (const [name, chunks] of Object.entries(h5)) {
      const zarray = doc.refs[`${name}/.zarray`];
      if (zarray === undefined) continue; // a dimension without a variable
      const meta = JSON.parse(zarray as string);
      if (meta.dtype === "|O") continue; // strings: inlined, checked below
      for (const [key, range] of Object.entries(chunks)) {
        if (key === "contiguous") {
          const zeros = meta.shape.map(() => 0).join(".") || "0";
          if (range[0] === null) assert.equal(doc.refs[`${name}/${zeros}`], undefined, name);
          else assert.deepEqual(doc.refs[`${name}/${zeros}`], [url, range[0], range[1]], name);
        } else assert.deepEqual(doc.refs[`${name}/${key}`], [url, range[0], range[1]], `${file} ${name}/${key}`);
        checked++;
      }
      const expected = values[name];
      if (expected === undefined) continue;
      const arr = await openArray(store, { path: name });
      const got = elements(await arr.get(null));
      if (meta.dtype.startsWith("|S")) {
        assert.deepEqual(got.map((b) => new TextDecoder("latin1").decode(b as Uint8Array).replace(/\0+$/, "")), expected, name);
      } else assert.deepEqual(got, expected, `${file} ${name}`);
    }
    assert.ok(checked > 10, `${file}: ${checked} ranges checked`);
  }
  // Variable-length strings are inlined, in the vlen-utf8 layout.
  const cf = await refsOf(join(dir, "cf.nc"), "--version", "0");
  assert.equal((cf as unknown as RefDoc["refs"])["temp/0.0.0"]?.[0], join(dir, "cf.nc"), "the default target: the path as given");
  const flat = cf as unknown as RefDoc["refs"];
  assert.equal(JSON.parse(flat["station/.zarray"] as string).dtype, "|O");
  const station = await openArray(await referenceReader({ version: 1, refs: flat }), { path: "station" });
  assert.deepEqual(elements(await station.get(null)), ["Oslo", "Ås", "", "Bergen-Nord", "x"]);
});

test("refs of NetCDF-3: big-endian ranges, one chunk per record; values equal netCDF4's", { skip }, async () => {
  const path = join(dir, "classic.nc");
  const doc = await refsOf(path, "--url", pathToFileURL(path).href);
  const expected = JSON.parse(peer("values", path)) as Record<string, unknown[]>;
  const store = await referenceReader(doc);
  assert.equal(JSON.parse(doc.refs["v/.zarray"] as string).dtype, ">f4");
  assert.deepEqual(JSON.parse(doc.refs["v/.zarray"] as string).chunks, [1, 4]);
  for (const name of ["x", "v", "s", "b"]) assert.deepEqual(elements(await (await openArray(store, { path: name })).get(null)), (expected[name] as unknown[]).flat(), name);
});

test("refs refuse what a reference cannot describe (fletcher32, HDF5 1.10 chunk indexes, corrupt files) and inline compact data", { skip }, async () => {
  const refused = await cliInProcess(["refs", join(dir, "refusals.h5")]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /UNSUPPORTED.*checked.*fletcher32/);
  const latest = await cliInProcess(["refs", join(dir, "latest.h5")]);
  assert.equal(latest.code, 1);
  assert.match(latest.stderr, /UNSUPPORTED.*layout message version 4/);
  const cut = join(dir, "bad-cut.nc"); // made by the cp refusal test, or here
  if (!existsSync(cut)) (copyFileSync(join(dir, "cf.nc"), cut), truncateSync(cut, 3000));
  const corrupt = await cliInProcess(["refs", cut]);
  assert.equal(corrupt.code, 1);
  assert.match(corrupt.stderr, /SOURCE_FILE/);
  // Leaving out what cannot be referenced: the rest reads back.
  const { document, skipped } = await referencesFor(join(dir, "refusals.h5"), { skipUnreferenceable: true, url: pathToFileURL(join(dir, "refusals.h5")).href });
  assert.deepEqual(skipped.map((s) => s.path), ["checked"]);
  const doc = document as unknown as RefDoc;
  assert.equal(Object.keys(doc.refs).some((k) => k.startsWith("checked/")), false);
  const store = await referenceReader(doc);
  assert.deepEqual(elements(await (await openArray(store, { path: "fine" })).get(null)), [0, 1, 2, 3, 4, 5]);
  assert.match(doc.refs["tiny/0"] as string, /^base64:/);
  assert.deepEqual(elements(await (await openArray(store, { path: "tiny" })).get(null)), [7, 8, 9]);
});

test("refs end to end with parzarr's ReferenceStore: the .json document opens like a store, and cp of it equals the source in xarray", { skip }, async () => {
  const doc = join(dir, "cf.refs.json");
  const r = await cliInProcess(["refs", join(dir, "cf.nc"), "-o", doc]);
  assert.equal(r.code, 0, r.stderr);
  const expected = JSON.parse(peer("values", join(dir, "cf.nc"))) as Record<string, unknown[]>;
  for (const name of ["temp", "count", "big", "field", "forecast/wind"]) {
    const arr = await openArray(doc, { path: name });
    assert.deepEqual(elements(await arr.get(null, { threads: 2 })), expected[name], name);
  }
  const out = join(dir, "from-refs.zarr");
  const copied = await cp(doc, out, "--threads", "0");
  assert.equal(copied.code, 0, copied.stderr);
  assert.equal(peer("compare", join(dir, "cf.nc"), out, "/", "forecast").trim(), "ok");
});
