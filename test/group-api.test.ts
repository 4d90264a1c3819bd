/** Group tree/arrayKeys/groupKeys/requireGroup/requireArray/move/delete, checked with zarr-python 2. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { AlreadyExistsError, NodeTypeError, NotFoundError, createGroup, openGroup, type NDArray, type ZarrArray } from "../src/index.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";
import { scratchDir } from "./helpers/paths.js";

const PY = String.raw`
import json, sys
import zarr
g = zarr.open_group(sys.argv[1], mode="r")
sub = g[sys.argv[2]] if len(sys.argv) > 2 else g
out = {"tree": str(sub.tree()), "arrays": list(sub.array_keys()), "groups": list(sub.group_keys())}
if "x/moved" in g: out["moved"] = g["x/moved"][:].tolist()
print(json.dumps(out))
`;

function python(dir: string, ...args: string[]): { tree: string; arrays: string[]; groups: string[]; moved?: number[] } {
  const r = runPython(PY, dir, ...args);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test("tree, arrayKeys and groupKeys print and list what zarr-python's do; move and delete as zarr-python sees them", { skip: zarrPythonSkip() }, async () => {
  const dir = join(scratchDir(), "h.zarr");
  const g = await createGroup(dir, { zarrFormat: 2 });
  await g.createGroup("foo");
  const bar = await g.createGroup("bar");
  await bar.createGroup("baz");
  await (await bar.createGroup("quux")).createArray("baz", { shape: [100], chunks: [10], dtype: "float64" });
  const arr = await g.createArray("arr", { shape: [3, 4], chunks: [2, 2], dtype: "int16" });
  await arr.set(null, { data: Int16Array.from({ length: 12 }, (_, i) => i), shape: [3, 4] });
  await g.createArray("scalar", { shape: [], dtype: "uint8" });

  let py = python(dir);
  assert.equal(await g.tree(), py.tree);
  assert.deepEqual(await g.arrayKeys(), py.arrays);
  assert.deepEqual(await g.groupKeys(), py.groups);
  assert.equal(await bar.tree(), python(dir, "bar").tree);

  await g.move("arr", "x/moved");
  await g.delete("bar/quux");
  await assert.rejects(g.move("arr", "y"), NotFoundError);
  await assert.rejects(g.move("foo", "x/moved"), AlreadyExistsError);
  await assert.rejects(g.delete("nope"), NotFoundError);
  py = python(dir);
  assert.equal(await g.tree(), py.tree);
  assert.deepEqual(py.moved, [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]);
  assert.deepEqual(await g.groupKeys(), ["bar", "foo", "x"]);
  assert.match(py.tree, /x\n +└── moved \(3, 4\) int16/);
  assert.doesNotMatch(py.tree, /quux/);
});

test("requireGroup and requireArray open what is there when it fits, create what is missing, and refuse the rest", async () => {
  const g = await createGroup(scratchDir());
  const a = await g.requireArray("a/b", { shape: [4], dtype: "int32" });
  await a.set(null, 5);
  const again = await g.requireArray("a/b", { shape: [4], dtype: "<i4" });
  assert.deepEqual(Array.from(((await again.get()) as NDArray).data as Int32Array), [5, 5, 5, 5]);
  await assert.rejects(g.requireArray("a/b", { shape: [5], dtype: "int32" }), (e: unknown) => e instanceof AlreadyExistsError && /shape \[4\] \(asked \[5\]\)/.test(e.message));
  await assert.rejects(g.requireArray("a/b", { shape: [4], dtype: "float32" }), /data type int32 \(asked float32\)/);
  await assert.rejects(g.requireArray("a", { shape: [4], dtype: "int32" }), NodeTypeError);
  const grp = await g.requireGroup("a");
  assert.deepEqual(await grp.arrayKeys(), ["b"]);
  assert.equal((await g.requireGroup("new/deep")).path, "new/deep");
  await assert.rejects(g.requireGroup("a/b"), NodeTypeError);
  const reopened = await openGroup(g.store);
  assert.deepEqual(await reopened.groupKeys(), ["a", "new"]);
  assert.equal(((await reopened.get("a/b")) as ZarrArray).shape[0], 4);
});
