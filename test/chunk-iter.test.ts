/** chunkCoords and iterChunks: the stored chunks zarr-python sees, each chunk's values, bounded read-ahead. */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { MemoryStore, WorkerPool, createArray, slice, type NDArray } from "../src/index.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";
import { scratchDir } from "./helpers/paths.js";

const pool = new WorkerPool({ threads: 2 });
after(() => pool.close());

test("chunkCoords and iterChunks agree with zarr-python's stored chunks and values, inline and on the pool", { skip: zarrPythonSkip() }, async () => {
  const dir = join(scratchDir(), "a.zarr");
  const a = await createArray(dir, { shape: [10, 7], chunks: [4, 3], dtype: "float32", zarrFormat: 2, dimensionSeparator: "/" });
  await a.set([slice(0, 3), slice(2, 7)], { data: Float32Array.from({ length: 15 }, (_, i) => i + 0.5), shape: [3, 5] });
  await a.set([9, 0], -1);
  const script = String.raw`
import json, sys
import zarr
z = zarr.open(sys.argv[1], mode="r")
keys = sorted([int(x) for x in k.split("/")] for k in z.store.keys() if not k.startswith(".z"))
chunks = [[float(v) for v in z[c[0]*4:(c[0]+1)*4, c[1]*3:(c[1]+1)*3].ravel()] for c in keys]
print(json.dumps({"keys": keys, "chunks": chunks}))
`;
  const py = runPython(script, dir);
  assert.equal(py.status, 0, py.stderr);
  const r = JSON.parse(py.stdout) as { keys: number[][]; chunks: number[][] };
  assert.deepEqual(await a.chunkCoords(), r.keys);
  assert.deepEqual(r.keys, [[0, 0], [0, 1], [0, 2], [2, 0]]);
  for (const options of [{ threads: 0 }, { pool, threads: 2, ahead: 0 }]) {
    const seen: number[][] = [];
    for await (const { chunkCoords, selection, data } of a.iterChunks(options)) {
      const k = seen.push(chunkCoords) - 1;
      assert.deepEqual(Array.from(data.data as Float32Array), r.chunks[k]);
      assert.deepEqual(Array.from(((await a.get(selection)) as NDArray).data as Float32Array), r.chunks[k]);
    }
    assert.deepEqual(seen, r.keys);
  }
  let n = 0;
  for await (const { chunkCoords, data } of a.iterChunks({ all: true })) {
    n++;
    if (chunkCoords[0] === 1) assert.ok(Array.from(data.data as Float32Array).every((v) => v === 0), "a missing chunk reads as the fill value");
  }
  assert.equal(n, 3 * 3);
});

test("iterChunks reads at most `ahead` chunks beyond the one being consumed", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [40], chunks: [2], dtype: "uint8" });
  await a.set(null, 3);
  let gets = 0;
  const get = store.get.bind(store);
  store.get = async (key: string) => {
    gets++;
    return get(key);
  };
  for await (const entry of a.iterChunks({ ahead: 1 })) {
    assert.ok(gets <= entry.chunkCoords[0] + 3, `chunk ${entry.chunkCoords}: ${gets} chunks read`);
  }
  assert.equal(gets, 20);
});
