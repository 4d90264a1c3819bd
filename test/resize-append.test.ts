/**
 * resize and append, compared with zarr-python 2 doing the same on the same data (values and the
 * set of stored chunk keys), on v2, v3 and sharded arrays; with consolidated metadata (which goes
 * stale) and concurrent appends under a ProcessSynchronizer.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import {
  InvalidArgumentError,
  ProcessSynchronizer,
  ShapeMismatchError,
  consolidateMetadata,
  createArray,
  createGroup,
  openArray,
  openGroup,
  type NDArray,
  type ZarrArray,
} from "../src/index.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";
import { scratchDir } from "./helpers/paths.js";

function files(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.filter((f) => !f.startsWith(".z") && f !== "zarr.json").sort();
}

const values = (x: unknown) => Array.from((x as NDArray).data as ArrayLike<number>, Number);

type Op = { resize: number[] } | { append: number[]; shape: number[]; axis: number };

const OPS: Op[] = [
  { resize: [11, 4] },
  { append: Array.from({ length: 8 }, (_, i) => 100 + i), shape: [2, 4], axis: 0 },
  { resize: [5, 9] },
  { append: Array.from({ length: 10 }, (_, i) => 200 + i), shape: [5, 2], axis: 1 },
  { resize: [3, 3] },
  { resize: [8, 12] },
  { append: Array.from({ length: 12 }, (_, i) => -i), shape: [1, 12], axis: -2 },
];

async function apply(a: ZarrArray, ops: Op[]): Promise<number[][]> {
  const shapes: number[][] = [];
  for (const op of ops) {
    if ("resize" in op) {
      await a.resize(op.resize);
      shapes.push(a.shape);
    } else {
      shapes.push(await a.append({ data: Int32Array.from(op.append), shape: op.shape }, op.axis));
    }
  }
  return shapes;
}

test("resize and append store what zarr-python's store (values and chunk keys); v3 and sharded hold the same values", { skip: zarrPythonSkip() }, async () => {
  const root = scratchDir();
  const initial = { data: Int32Array.from({ length: 36 }, (_, i) => i + 1), shape: [9, 4] };
  const v2 = await createArray(join(root, "v2"), { shape: [9, 4], chunks: [4, 3], dtype: "int32", zarrFormat: 2, fillValue: 0 });
  const v3 = await createArray(join(root, "v3"), { shape: [9, 4], chunks: [4, 3], dtype: "int32", fillValue: 0 });
  const sharded = await createArray(join(root, "sh"), { shape: [9, 4], chunks: [2, 3], shards: [4, 3], dtype: "int32", fillValue: 0 });
  for (const a of [v2, v3, sharded]) await a.set(null, initial);
  const shapes = await apply(v2, OPS);
  assert.deepEqual(await apply(v3, OPS), shapes);
  assert.deepEqual(await apply(sharded, OPS), shapes);
  assert.deepEqual(shapes.at(-1), [9, 12]);

  const script = String.raw`
import json, sys, os
import numpy as np, zarr
root, ops = sys.argv[1], json.loads(sys.argv[2])
z = zarr.open(os.path.join(root, "py"), mode="w", shape=(9, 4), chunks=(4, 3), dtype="i4", fill_value=0)
z[:] = np.arange(1, 37, dtype="i4").reshape(9, 4)
shapes = []
for op in ops:
    if "resize" in op: z.resize(*op["resize"]); shapes.append(list(z.shape))
    else: shapes.append(list(z.append(np.array(op["append"], dtype="i4").reshape(op["shape"]), axis=op["axis"] % 2)))
ours = zarr.open(os.path.join(root, "v2"), mode="r")
keys = lambda a: sorted(k for k in a.store.keys() if not k.startswith(".z"))
print(json.dumps({"shapes": shapes, "same": bool(np.array_equal(ours[:], z[:])), "theirs": z[:].ravel().tolist(),
                  "keys": keys(z), "ourKeys": keys(ours)}))
`;
  const py = runPython(script, root, JSON.stringify(OPS));
  assert.equal(py.status, 0, py.stderr);
  const r = JSON.parse(py.stdout) as { shapes: number[][]; same: boolean; theirs: number[]; keys: string[]; ourKeys: string[] };
  assert.deepEqual(shapes, r.shapes);
  assert.deepEqual(values(await v2.get()), r.theirs);
  assert.ok(r.same, "zarr-python reads our resized array as its own");
  assert.deepEqual(r.ourKeys, r.keys, "the same chunks stored");
  assert.deepEqual(values(await v3.get()), r.theirs);
  assert.deepEqual(values(await sharded.get()), r.theirs);
  // Shards wholly outside the final shape are gone: the grid is [3, 4] shards of [4, 3].
  assert.ok(files(join(root, "sh")).every((f) => f.split("/").slice(1).every((c, d) => Number(c) < [3, 4][d])), files(join(root, "sh")).join());
  // A fresh handle sees the new shape.
  assert.deepEqual((await openArray(join(root, "v3"))).shape, [9, 12]);
});

test("resize and append refuse bad arguments before changing anything", async () => {
  const a = await createArray(scratchDir(), { shape: [4, 2], chunks: [2, 2], dtype: "float64" });
  await assert.rejects(a.resize([4]), InvalidArgumentError);
  await assert.rejects(a.resize([4, -1]), InvalidArgumentError);
  await assert.rejects(a.append({ data: new Float64Array(3), shape: [1, 3] }), ShapeMismatchError);
  await assert.rejects(a.append({ data: new Float64Array(2), shape: [1, 2] }, 2), InvalidArgumentError);
  await assert.rejects(a.append(new Float64Array(2)), ShapeMismatchError);
  assert.deepEqual(a.shape, [4, 2]);
  const b = await createArray(scratchDir(), { shape: [3], chunks: [2], dtype: "uint8" });
  assert.deepEqual(await b.append([7, 8]), [5]);
  assert.deepEqual(values(await b.get()), [0, 0, 0, 7, 8]);
});

test("resize through consolidated metadata marks it stale: the group then reads the new shape", async () => {
  const dir = scratchDir();
  const g = await createGroup(dir);
  await (await g.createArray("x", { shape: [10], chunks: [3], dtype: "int16" })).set(null, 5);
  await consolidateMetadata(dir);
  const opened = await openGroup(dir);
  assert.equal(opened.consolidated, true);
  const x = (await opened.get("x")) as ZarrArray;
  await x.resize([4]);
  assert.equal(opened.consolidated, false);
  assert.deepEqual(((await opened.get("x")) as ZarrArray).shape, [4]);
  assert.deepEqual(files(join(dir, "x")), ["c/0", "c/1"]);
});

test("concurrent appends from separate handles with a ProcessSynchronizer land in disjoint regions", async () => {
  const dir = scratchDir();
  const sync = new ProcessSynchronizer(join(dir, "locks"));
  await createArray(join(dir, "a"), { shape: [0, 3], chunks: [4, 3], dtype: "int32", zarrFormat: 2 });
  const handles = await Promise.all(Array.from({ length: 6 }, () => openArray(join(dir, "a"), { mode: "r+", synchronizer: sync })));
  await Promise.all(handles.map((h, i) => h.append({ data: new Int32Array(3 * (i + 1)).fill(i + 1), shape: [i + 1, 3] })));
  const a = await openArray(join(dir, "a"));
  assert.deepEqual(a.shape, [21, 3]);
  const got = values(await a.get());
  for (let i = 1; i <= 6; i++) assert.equal(got.filter((v) => v === i).length, 3 * i, `value ${i}`);
  // Each append's rows are contiguous and whole.
  for (let r = 0; r < 21; r++) assert.equal(new Set(got.slice(3 * r, 3 * r + 3)).size, 1);
});
