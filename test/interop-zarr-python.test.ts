/**
 * Round trips with zarr-python 2.13: parzarr reads collections the oracle generates fresh (new
 * seeds and random cases, not only the committed ones), re-writes every v2 array it supports with
 * the same metadata, and zarr-python reads the re-written arrays back exactly (`oracle check`).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { FileSystemStore, ZipStore, createArray, openArray, type NDArray, type Scalar } from "../src/index.js";
import { assertMatchesManifest, FIXTURES, laterFeature, loadManifest, zipEntryPath, type ManifestEntry } from "./helpers/manifest.js";
import { scratchDir } from "./helpers/paths.js";
import { runOracle, runPython, zarrPythonSkip } from "./helpers/peers.js";

const skip = zarrPythonSkip();

/** Re-writes each array with its own .zarray's metadata; returns the entries written. */
async function rewrite(srcDir: string, dstDir: string, entries: ManifestEntry[], sameBytes = true): Promise<ManifestEntry[]> {
  const written: ManifestEntry[] = [];
  const src = new FileSystemStore(srcDir, { readOnly: true });
  for (const entry of entries) {
    // Arrays inside a zip archive are read by the fixtures test; this one re-writes folders.
    if (laterFeature(srcDir, entry) !== null || entry.unsupported_ok || zipEntryPath(entry)) continue;
    const doc = JSON.parse(readFileSync(join(srcDir, entry.path, ".zarray"), "utf8"));
    // zarr-python deprecates snappy and parzarr does not encode it; reading it is covered elsewhere.
    if (doc.compressor?.cname === "snappy") continue;
    const arr = await openArray(src, { path: entry.path, mode: "r" });
    const out = await createArray(dstDir, {
      path: entry.path,
      zarrFormat: 2,
      shape: doc.shape,
      chunks: doc.chunks,
      dtype: doc.dtype,
      fillValue: doc.fill_value,
      order: doc.order,
      compressor: doc.compressor,
      filters: doc.filters,
      dimensionSeparator: doc.dimension_separator,
    });
    const value = await arr.get();
    await out.set(null, value as NDArray | Scalar);
    // Metadata is written the way zarr-python 2.13 writes it: the same bytes.
    if (sameBytes) assert.equal(
      readFileSync(join(dstDir, entry.path, ".zarray"), "utf8"),
      readFileSync(join(srcDir, entry.path, ".zarray"), "utf8"),
      `${entry.path}: .zarray`,
    );
    written.push(entry);
  }
  // Python copies the manifest entries: JSON.parse would round int64 values beyond 2^53. The
  // oracle lists values only up to 4096 elements; longer lists (legacy |S and <U arrays) are
  // compared instead by zarr-python reading the original and the re-written array.
  const paths = JSON.stringify(written.map((e) => e.path));
  const r = runPython(
    `import json,sys,zarr,numpy as np
m=json.load(open(sys.argv[1])); keep=set(json.loads(sys.argv[3])); out=[]
for e in m:
    if e['path'] not in keep: continue
    if len(e.get('values') or []) > 4096:
        a=zarr.open(sys.argv[4]+'/'+e['path'],mode='r')[...]; b=zarr.open(sys.argv[2].rsplit('/',1)[0]+'/'+e['path'],mode='r')[...]
        assert a.dtype==b.dtype and a.shape==b.shape and (a==b).all(), e['path']
        del e['values']
    out.append(e)
json.dump(out, open(sys.argv[2],'w'))`,
    join(srcDir, "manifest.json"),
    join(dstDir, "manifest.json"),
    paths,
    srcDir,
  );
  assert.equal(r.status, 0, r.stderr);
  return written;
}

function assertOracleCheck(dir: string, count: number): void {
  const r = runOracle("check", dir);
  assert.equal(r.status, 0, `oracle check failed:\n${r.stdout}\n${r.stderr}`);
  assert.match(r.stdout, new RegExp(`^${count} passed, 0 failed$`, "m"));
}

test("zarr-python reads back every committed v2 fixture array that parzarr re-writes", { skip }, async () => {
  const srcDir = join(FIXTURES, "zarr-python-2.13");
  const dst = scratchDir();
  const written = await rewrite(srcDir, dst, loadManifest(srcDir));
  assert.ok(written.length >= 45, `re-wrote ${written.length} arrays`);
  assertOracleCheck(dst, written.length);
});

test("zarr-python reads back the legacy and zarrs-written v2 arrays that parzarr re-writes", { skip }, async () => {
  for (const collection of ["zarr-python-legacy", "zarr-implementations"]) {
    const srcDir = join(FIXTURES, collection);
    const entries = loadManifest(srcDir).filter((e) => !e.zarr_python_error);
    const dst = scratchDir();
    const written = await rewrite(srcDir, dst, entries, false);
    assert.ok(written.length > 0);
    assertOracleCheck(dst, written.length);
  }
});

for (const seed of [3, 20261122]) {
  test(`a fresh oracle collection (seed ${seed}, random cases) reads exactly and re-writes for zarr-python`, { skip }, async () => {
    const gen = scratchDir();
    const r = runOracle("generate", gen, "--seed", String(seed), "--random", "24");
    assert.equal(r.status, 0, r.stderr);
    const entries = loadManifest(gen);
    const store = new FileSystemStore(gen, { readOnly: true });
    let read = 0;
    for (const entry of entries) {
      if (laterFeature(gen, entry) !== null) continue;
      const zipped = zipEntryPath(entry);
      if (zipped) {
        const zip = new ZipStore(join(gen, zipped.zip));
        await assertMatchesManifest(zip, { ...entry, path: zipped.path });
        await zip.close();
      } else await assertMatchesManifest(store, entry);
      read++;
    }
    assert.ok(read >= 60, `read ${read} arrays`);
    const dst = scratchDir();
    const written = await rewrite(gen, dst, entries);
    assertOracleCheck(dst, written.length);
  });
}
