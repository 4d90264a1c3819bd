/** zeros/ones/full/empty/array and the *Like helpers: what zarr-python 2 reads back from them. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { array, createArray, empty, emptyLike, full, fullLike, ones, onesLike, zeros, zerosLike, type NDArray } from "../src/index.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";
import { scratchDir } from "./helpers/paths.js";

const values = (x: unknown) => Array.from((x as NDArray).data as ArrayLike<number>, Number);

test("zarr-python reads the helpers' arrays with their types, fill values, layouts and values", { skip: zarrPythonSkip() }, async () => {
  const dir = scratchDir();
  const v2 = { zarrFormat: 2 as const };
  await zeros([5, 4], { ...v2, store: join(dir, "zeros") });
  await ones([3], { ...v2, store: join(dir, "ones"), chunks: [2] });
  await full([2, 2], 42, { ...v2, store: join(dir, "full"), dtype: "int16" });
  await empty([4], { ...v2, store: join(dir, "empty") });
  await array(Int32Array.from([5, -3, 9]), { ...v2, store: join(dir, "array1d") });
  await array({ data: [1.5, 2.5, 3.5, 4.5, 5.5, 6.5], shape: [2, 3] }, { ...v2, store: join(dir, "array2d"), chunks: [1, 2] });
  const src = await createArray(join(dir, "src"), { ...v2, shape: [6, 7], chunks: [4, 3], dtype: "<u2", compressor: { id: "zlib", level: 3 }, order: "F", fillValue: 9 });
  await src.set(null, 1);
  await zerosLike(src, { store: join(dir, "zl") });
  await fullLike(src, 7, { store: join(dir, "fl") });
  await onesLike(src, { store: join(dir, "ol") });
  await emptyLike(src, { store: join(dir, "el") });
  const script = String.raw`
import json, sys, os
import zarr
out = {}
for name in sorted(os.listdir(sys.argv[1])):
    z = zarr.open(os.path.join(sys.argv[1], name), mode="r")
    fv = z.fill_value
    out[name] = {"dtype": str(z.dtype), "shape": list(z.shape), "chunks": list(z.chunks), "fill": None if fv is None else float(fv),
                 "order": z.order, "compressor": None if z.compressor is None else z.compressor.codec_id,
                 "values": [float(v) for v in z[:].ravel()], "stored": z.nchunks_initialized}
print(json.dumps(out))
`;
  const py = runPython(script, dir);
  assert.equal(py.status, 0, py.stderr);
  const r = JSON.parse(py.stdout) as Record<string, { dtype: string; shape: number[]; chunks: number[]; fill: number | null; order: string; compressor: string | null; values: number[]; stored: number }>;
  assert.deepEqual([r.zeros.dtype, r.zeros.fill, r.zeros.stored, r.zeros.values], ["float64", 0, 0, new Array(20).fill(0)]);
  assert.deepEqual([r.ones.dtype, r.ones.fill, r.ones.values, r.ones.chunks], ["float64", 1, [1, 1, 1], [2]]);
  assert.deepEqual([r.full.dtype, r.full.values], ["int16", [42, 42, 42, 42]]);
  assert.deepEqual([r.empty.dtype, r.empty.fill], ["float64", null]);
  assert.deepEqual([r.array1d.dtype, r.array1d.values], ["int32", [5, -3, 9]]);
  assert.deepEqual([r.array2d.dtype, r.array2d.shape, r.array2d.values], ["float64", [2, 3], [1.5, 2.5, 3.5, 4.5, 5.5, 6.5]]);
  for (const [name, fill] of [["zl", 0], ["fl", 7], ["ol", 1], ["el", null]] as const) {
    const like = r[name];
    assert.deepEqual([like.dtype, like.shape, like.chunks, like.order, like.compressor, like.fill], ["uint16", [6, 7], [4, 3], "F", "zlib", fill], name);
    if (fill !== null) assert.deepEqual(like.values, new Array(42).fill(fill), name);
  }
});

test("v3 helpers: memory store by default, the *Like forms keep shards and codecs", async () => {
  const z = await zeros([3, 2]);
  assert.equal(z.dtype, "float64");
  assert.equal(z.zarrFormat, 3);
  assert.deepEqual(values(await z.get()), [0, 0, 0, 0, 0, 0]);
  const src = await createArray(scratchDir(), { shape: [8, 8], chunks: [2, 2], shards: [4, 4], dtype: "int8", codecs: ["bytes", { name: "gzip", configuration: { level: 1 } }] });
  const like = await fullLike(src, -2);
  assert.deepEqual([like.shards, like.chunks, like.dtype, like.fillValue], [[4, 4], [2, 2], "int8", -2]);
  assert.deepEqual(like.codecs, src.codecs);
  assert.deepEqual(values(await like.get("0, :")), new Array(8).fill(-2));
  const a = await array({ data: [true, false, true], shape: [3] });
  assert.equal(a.dtype, "bool");
  assert.deepEqual(values(await a.get()), [1, 0, 1]);
});
