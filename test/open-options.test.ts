/**
 * TensorStore's zarr3 driver's open options on arrays zarr-python wrote: `fillMissingDataReads:
 * false` (a missing chunk is a MissingChunkError naming its key, inline and on the pool),
 * `expect` constraints, `assumeMetadata` (the stored document is never read nor written) and
 * `assumeCachedMetadata` (read only when an operation rewrites it, and checked then).
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  MetadataMismatchError,
  MissingChunkError,
  WorkerPool,
  ZarrError,
  createArray,
  openArray,
  openGroup,
  type NDArray,
} from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";

const skip = zarrPythonSkip();
const pool = new WorkerPool({ threads: 2 });
const root = scratchDir("parzarr-open-options-");
after(async () => {
  await pool.close();
  rmSync(root, { recursive: true, force: true });
});

/** zarr-python 2 writes a 12x12 int32 array in 4x4 chunks; only the top-left 8x8 is stored. */
const dir = join(root, "a.zarr");
const expected = new Int32Array(144);
before(() => {
  if (skip) return;
  const r = runPython(
    `import sys, zarr, numpy as np
a = zarr.open(sys.argv[1], mode="w", shape=(12, 12), chunks=(4, 4), dtype="<i4", fill_value=-1)
a[0:8, 0:8] = np.arange(64, dtype="<i4").reshape(8, 8) * 3 + 1
print(",".join(str(v) for v in a[:].ravel()))`,
    dir,
  );
  assert.equal(r.status, 0, r.stderr);
  expected.set(r.stdout.trim().split(",").map(Number));
});

const code = (c: string, test?: (e: ZarrError) => boolean) => (e: unknown) => e instanceof ZarrError && e.code === c && (test?.(e) ?? true);

test("fillMissingDataReads: false names the missing chunk, inline and on the pool; stored chunks read as zarr-python's", { skip }, async () => {
  const strict = await openArray(dir, { mode: "r", fillMissingDataReads: false });
  const stored = (await strict.get("0:8, 0:8", { threads: 0 })) as NDArray<Int32Array>;
  assert.deepEqual([...stored.data], [...expected].filter((_, i) => i % 12 < 8 && i < 96));
  const missing = (key: string) => (e: unknown) =>
    e instanceof MissingChunkError && e.code === "MISSING_CHUNK" && e.key === key && e.message.includes(`"${key}"`);
  await assert.rejects(strict.get("8:12, 0:4", { threads: 0 }), missing("2.0"));
  // On the pool the error crosses the thread boundary and keeps its class and key.
  await assert.rejects(strict.get("0:4, 8:12", { threads: 2, pool }), missing("0.2"));
  await assert.rejects(strict.get(null, { threads: 2, pool }), (e: unknown) => e instanceof MissingChunkError && /^[0-2]\.[0-2]$/.test(e.key));
  // The default (and true) reads the fill value, as zarr-python does.
  for (const options of [{}, { fillMissingDataReads: true }]) {
    const a = await openArray(dir, { mode: "r", ...options });
    assert.deepEqual([...((await a.get(null, { threads: 2, pool })) as NDArray<Int32Array>).data], [...expected]);
  }
  await assert.rejects(openArray(dir, { mode: "r", fillMissingDataReads: "no" as unknown as boolean }), code("INVALID_ARGUMENT"));
});

test("expect: stored metadata that differs is METADATA_MISMATCH naming the field", { skip }, async () => {
  const a = await openArray(dir, { mode: "r", expect: { shape: [12, 12], dtype: "int32", chunks: [4, 4] } });
  assert.deepEqual(a.shape, [12, 12]);
  // A numpy type string names the same type.
  await openArray(dir, { mode: "r", expect: { dtype: "<i4" } });
  const field = (f: string) => (e: unknown) => e instanceof MetadataMismatchError && e.field === f && e.message.includes(f);
  await assert.rejects(openArray(dir, { mode: "r", expect: { shape: [12, 13] } }), field("shape"));
  await assert.rejects(openArray(dir, { mode: "r", expect: { dtype: "float32" } }), field("dtype"));
  await assert.rejects(openArray(dir, { mode: "r", expect: { chunks: [6, 6] } }), field("chunks"));
  await assert.rejects(openArray(dir, { mode: "r", expect: { chunk: [4, 4] } as never }), code("INVALID_ARGUMENT", (e) => e.message.includes('"chunk"')));
  await assert.rejects(openArray(dir, { mode: "r", expect: { dtype: "nonsense" } }), code("INVALID_ARGUMENT"));
  // Sharded arrays: `chunks` are the inner chunks, as `arr.chunks` reports them.
  const sharded = join(root, "sharded.zarr");
  await createArray(sharded, { shape: [16], chunks: [2], shards: [8], dtype: "uint8" });
  await openArray(sharded, { mode: "r", expect: { chunks: [2] } });
  await assert.rejects(openArray(sharded, { mode: "r", expect: { chunks: [8] } }), field("chunks"));
  await assert.rejects(openGroup(root, { mode: "r", expect: { shape: [1] } } as never), code("INVALID_ARGUMENT"));
});

test("assumeMetadata: the stored document is neither read nor written; resize and setAttrs are refused", { skip }, async () => {
  const copy = join(root, "assumed.zarr");
  const r = runPython(`import sys, zarr; zarr.copy_store(zarr.DirectoryStore(sys.argv[1]), zarr.DirectoryStore(sys.argv[2]))`, dir, copy);
  assert.equal(r.status, 0, r.stderr);
  const zarray = join(copy, ".zarray");
  const original = readFileSync(zarray, "utf8");
  writeFileSync(zarray, "not json");
  await assert.rejects(openArray(copy, { mode: "r" }), code("INVALID_METADATA"));
  // zarr-python 2's defaults (blosc lz4, C order) are createArray's for v2.
  const spec = { zarrFormat: 2 as const, shape: [12, 12], chunks: [4, 4], dtype: "<i4", fillValue: -1 };
  const a = await openArray(copy, { mode: "r+", assumeMetadata: spec, expect: { shape: [12, 12] } });
  assert.deepEqual([...((await a.get(null, { threads: 0 })) as NDArray<Int32Array>).data], [...expected]);
  await a.set("8:12, 8:12", 7);
  await assert.rejects(a.resize([4, 4]), code("UNSUPPORTED", (e) => e.message.includes("assumeMetadata")));
  await assert.rejects(a.append({ data: new Int32Array(12), shape: [1, 12] }), code("UNSUPPORTED"));
  await assert.rejects(a.setAttrs({ x: 1 }), code("UNSUPPORTED"));
  assert.equal(readFileSync(zarray, "utf8"), "not json");
  // With the document back, zarr-python reads what the assumed handle wrote.
  writeFileSync(zarray, original);
  const check = runPython(`import sys, zarr; print(zarr.open(sys.argv[1], mode="r")[8:12, 8:12].tolist())`, copy);
  assert.equal(check.stdout.trim(), JSON.stringify(Array.from({ length: 4 }, () => [7, 7, 7, 7])).replaceAll(",", ", "));
  // The assumed document need not exist at all.
  const none = await openArray(join(root, "nothing-here.zarr"), { mode: "r", assumeMetadata: spec });
  assert.deepEqual([...((await none.get("0:2, 0")) as NDArray<Int32Array>).data], [-1, -1]);
  // Names are checked; creating modes and both options together are refused.
  await assert.rejects(openArray(copy, { assumeMetadata: { ...spec, chunk: [4, 4] } as never }), code("INVALID_ARGUMENT", (e) => e.message.includes('"chunk"')));
  await assert.rejects(openArray(copy, { mode: "w", assumeMetadata: spec }), code("INVALID_ARGUMENT"));
  await assert.rejects(openArray(copy, { assumeMetadata: spec, assumeCachedMetadata: spec }), code("INVALID_ARGUMENT"));
  await assert.rejects(openArray(copy, { assumeMetadata: { ...spec, shape: [12] } }), code("INVALID_METADATA"));
});

test("assumeCachedMetadata: no read at open; resize reads the stored document and refuses one that differs", { skip }, async () => {
  const copy = join(root, "cached.zarr");
  const r = runPython(`import sys, zarr; zarr.copy_store(zarr.DirectoryStore(sys.argv[1]), zarr.DirectoryStore(sys.argv[2]))`, dir, copy);
  assert.equal(r.status, 0, r.stderr);
  const spec = { zarrFormat: 2 as const, shape: [12, 12], chunks: [4, 4], dtype: "<i4", fillValue: -1 };
  const wrong = await openArray(copy, { mode: "r+", assumeCachedMetadata: { ...spec, chunks: [6, 6] } });
  await assert.rejects(wrong.resize([8, 8]), (e: unknown) => e instanceof MetadataMismatchError && e.field === "chunks");
  await assert.rejects(wrong.setAttrs({ a: 1 }), (e: unknown) => e instanceof MetadataMismatchError && e.field === "chunks");
  const a = await openArray(copy, { mode: "r+", assumeCachedMetadata: spec });
  assert.deepEqual([...((await a.get(null, { threads: 2, pool })) as NDArray<Int32Array>).data], [...expected]);
  await a.resize([8, 12]);
  await a.setAttrs({ resized: true });
  const check = runPython(`import sys, zarr; a = zarr.open(sys.argv[1], mode="r"); print(list(a.shape), a.attrs["resized"])`, copy);
  assert.equal(check.stdout.trim(), "[8, 12] True");
  const gone = await openArray(join(root, "nothing-cached.zarr"), { mode: "a", assumeCachedMetadata: spec });
  await assert.rejects(gone.resize([1, 1]), code("NOT_FOUND"));
});
