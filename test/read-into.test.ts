/**
 * `get(selection, { out })`: reads into the caller's memory (flat typed arrays and strided
 * NDArrays, private and shared, inline and on a pool) equal what zarr-python reads; wrong buffers
 * and unknown option names are refused with nothing written; reads reuse their scratch memory.
 */
import { before, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  InvalidArgumentError,
  MemoryStore,
  ZarrError,
  createArray,
  openArray,
  slice,
  type NDArray,
  type ZarrArray,
} from "../src/index.js";
import { scratchAllocations } from "../src/scratch.js";
import { scratchDir } from "./helpers/paths.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";
import { testPool } from "./helpers/random.js";

const skip = zarrPythonSkip();
const pool = testPool();

const ROWS = 300;
const COLS = 257;
let dir = "";
/** What zarr-python reads, by array and selection. */
const expected = new Map<string, Float32Array>();
const CODECS: Record<string, string> = {
  "blosc-lz4": "numcodecs.Blosc('lz4', 5, shuffle=1)",
  zlib: "numcodecs.Zlib(1)",
  raw: "None",
};

before(() => {
  if (skip) return;
  dir = scratchDir();
  // zarr-python writes the arrays and reads them back; its bytes are what parzarr must reproduce.
  const script = `
import sys, zarr, numcodecs, numpy as np
root, rows, cols = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
i, j = np.meshgrid(np.arange(rows), np.arange(cols), indexing="ij")
data = (np.sin(i * 0.37) * 100 + j * 0.25).astype("<f4")
for name, comp in [${Object.entries(CODECS).map(([k, v]) => `("${k}", ${v})`).join(", ")}]:
    z = zarr.open_array(f"{root}/{name}.zarr", mode="w", shape=(rows, cols), chunks=(64, 50), dtype="<f4", compressor=comp, fill_value=0)
    z[:] = data
    z[:, 250:] = 0  # the last column chunk is all fill value: not stored, it reads as fill
`;
  const r = runPython(script, dir, String(ROWS), String(COLS));
  assert.equal(r.status, 0, r.stderr);
});

async function pythonValues(name: string, sel: string): Promise<Float32Array> {
  const key = `${name}|${sel}`;
  const cached = expected.get(key);
  if (cached) return cached;
  const r = runPython(
    `import sys, zarr, numpy as np\nz = zarr.open_array(sys.argv[1], mode="r")\nsys.stdout.write(np.ascontiguousarray(eval("z[" + sys.argv[2] + "]"), dtype="<f4").tobytes().hex())`,
    join(dir, `${name}.zarr`),
    sel,
  );
  assert.equal(r.status, 0, r.stderr);
  const b = Buffer.from(r.stdout, "hex");
  const values = new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
  expected.set(key, values);
  return values;
}

const open = (name: string): Promise<ZarrArray> => openArray(join(dir, `${name}.zarr`), { mode: "r" });

test("a flat typed array out, private and shared, inline and on a pool, holds what zarr-python reads", { skip }, async () => {
  for (const name of Object.keys(CODECS)) {
    const a = await open(name);
    const want = await pythonValues(name, ":, :");
    const priv = new Float32Array(ROWS * COLS).fill(-7);
    const r1 = (await a.get(null, { out: priv })) as NDArray<Float32Array>;
    assert.equal(r1.data, priv, "the result is a view of out itself");
    assert.deepEqual(r1.shape, [ROWS, COLS]);
    assert.deepEqual(r1.stride, [COLS, 1]);
    assert.deepEqual(priv, want, name);
    const shared = new Float32Array(new SharedArrayBuffer(ROWS * COLS * 4)).fill(-7);
    const r2 = (await a.get(null, { out: shared, pool, threads: 2 })) as NDArray<Float32Array>;
    assert.equal(r2.data, shared);
    assert.deepEqual(new Float32Array(shared), want, `${name} on the pool`);
    // A private out on the pool: workers read into reused shared buffers, copied into it here.
    const onPool = new Float32Array(ROWS * COLS).fill(-7);
    const r3 = (await a.get(null, { out: onPool, pool, threads: 2 })) as NDArray<Float32Array>;
    assert.equal(r3.data, onPool);
    assert.deepEqual(onPool, want, `${name}: a private out on the pool`);
    const reversed = (await a.get("::-1, ::-2", { threads: 0 })) as NDArray<Float32Array>;
    const reversedOnPool = (await a.get("::-1, ::-2", { pool, threads: 2 })) as NDArray<Float32Array>;
    assert.deepEqual(reversedOnPool.data, reversed.data, `${name}: backward steps through staging`);
    // A part: interior chunks whole, edge chunks in part, the missing chunk as fill.
    const part = await pythonValues(name, "10:290:3, 40:257");
    const out = new Float32Array(part.length).fill(-7);
    await a.get([slice(10, 290, 3), slice(40, 257)], { out });
    assert.deepEqual(out, part, `${name} part`);
    out.fill(-7);
    await a.get([slice(10, 290, 3), slice(40, 257)], { out, pool, threads: 2 });
    assert.deepEqual(out, part, `${name} part on the pool`);
    // Points scatter element by element: workers need a shared out for them.
    await assert.rejects(a.vindex.get([[1, 2], [3, 4]], { out: new Float32Array(2), pool, threads: 2 }), /SharedArrayBuffer/);
  }
});

test("an NDArray out with its own strides (a column-major buffer, a window of a larger one)", { skip }, async () => {
  const a = await open("blosc-lz4");
  const want = await pythonValues("blosc-lz4", "5:105, 7:207");
  // Column-major 100 x 200.
  const fortran = new Float32Array(100 * 200);
  const r = (await a.get("5:105, 7:207", { out: { data: fortran, shape: [100, 200], stride: [1, 100] } })) as NDArray<Float32Array>;
  assert.equal(r.data, fortran);
  assert.deepEqual(r.stride, [1, 100]);
  for (let i = 0; i < 100; i++) for (let j = 0; j < 200; j++) assert.equal(fortran[i + j * 100], want[i * 200 + j]);
  // The same window inside a larger shared buffer, with a margin of sentinels kept as they were.
  const big = new Float32Array(new SharedArrayBuffer(102 * 202 * 4)).fill(-7);
  const inner = big.subarray(203);
  await a.get("5:105, 7:207", { out: { data: inner, shape: [100, 200], stride: [202, 1] }, pool, threads: 2 });
  for (let i = 0; i < 102; i++) {
    for (let j = 0; j < 202; j++) {
      const v = big[i * 202 + j];
      if (i >= 1 && i <= 100 && j >= 1 && j <= 200) assert.equal(v, want[(i - 1) * 200 + (j - 1)]);
      else assert.equal(v, -7, `margin ${i},${j} untouched`);
    }
  }
  // Integer-selected dimensions are dropped from out's shape.
  const row = new Float32Array(COLS);
  await a.get([17, null], { out: row });
  assert.deepEqual(row, await pythonValues("blosc-lz4", "17, :"));
});

test("wrong out buffers are refused before anything is written", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [6, 8], chunks: [4, 4], dtype: "float32", fillValue: 1 });
  const refused = async (out: unknown, code: string, pattern: RegExp, extra: object = {}) => {
    const sentinel = ArrayBuffer.isView(out) ? (out as Float32Array) : null;
    sentinel?.fill(-3);
    await assert.rejects(a.get(null, { out: out as Float32Array, ...extra }), (e: unknown) => {
      assert.ok(e instanceof ZarrError, String(e));
      assert.equal(e.code, code);
      assert.match(e.message, pattern);
      return true;
    });
    if (sentinel) assert.ok(sentinel.every((v) => v === -3), "nothing written");
  };
  await refused(new Float32Array(47), "SHAPE_MISMATCH", /47 numbers.*\[6,8\] needs 48/);
  await refused(new Float64Array(48), "INVALID_ARGUMENT", /Float32Array.*got Float64Array/);
  await refused([1, 2, 3], "INVALID_ARGUMENT", /typed array or an NDArray/);
  await refused({ data: new Float32Array(48), shape: [8, 6], stride: [6, 1] }, "SHAPE_MISMATCH", /shape \[8,6\].*\[6,8\]/);
  await refused({ data: new Float32Array(48), shape: [6, 8], stride: [9, 1] }, "SHAPE_MISMATCH", /outside out.data/);
  await refused({ data: new Float32Array(48), shape: [6, 8], stride: [8] }, "INVALID_ARGUMENT", /stride must be 2 integers/);
  const s = await createArray(new MemoryStore(), { shape: [3], chunks: [3], dtype: "string" });
  await assert.rejects(s.get(null, { out: new Float32Array(3) }), InvalidArgumentError);
  // A fill-value read into out writes the fill value.
  const ok = new Float32Array(48);
  await a.get(null, { out: ok });
  assert.ok(ok.every((v) => v === 1));
});

test("unknown option names in get and set are refused, so a typo is not silently ignored", async () => {
  const a = await createArray(new MemoryStore(), { shape: [4], chunks: [2], dtype: "int32" });
  for (const run of [() => a.get(null, { thread: 0 } as never), () => a.set(null, 1, { theads: 2 } as never), () => a.set(null, 1, { out: new Int32Array(4) } as never)]) {
    await assert.rejects(run(), (e: unknown) => e instanceof InvalidArgumentError && e.code === "INVALID_ARGUMENT" && /unknown option/.test(e.message));
  }
  await assert.rejects(a.get(null, 5 as never), InvalidArgumentError);
  assert.equal(await a.get([1], { threads: 0 }), 0);
  await assert.rejects(a.get(null, { out: new Int32Array(4), field: "x" }), InvalidArgumentError);
});

test("repeated reads into out allocate no new scratch memory (inline, compressed and raw)", { skip }, async () => {
  for (const name of ["blosc-lz4", "zlib"]) {
    const a = await open(name);
    const out = new Float32Array(ROWS * COLS);
    await a.get(null, { out, threads: 0 });
    const before = scratchAllocations();
    for (let i = 0; i < 3; i++) await a.get(null, { out, threads: 0 });
    assert.equal(scratchAllocations(), before, `${name}: no scratch buffer allocated after the first read`);
    assert.deepEqual(out, await pythonValues(name, ":, :"));
  }
});

test("blosc chunks decode block by block straight into the output's rows: every shuffle, blocks that straddle rows, raw-stored frames", { skip }, async () => {
  const root = scratchDir();
  // Rows of 37 float32 (148 bytes) against 256- and 4096-byte blocks; clevel 0 stores frames raw.
  const configs = ["'lz4', 5, shuffle=1, blocksize=256", "'lz4', 5, shuffle=0, blocksize=256", "'zstd', 3, shuffle=2, blocksize=4096", "'blosclz', 0, shuffle=1", "'zlib', 1, shuffle=1, blocksize=256"];
  const r = runPython(
    `import sys, zarr, numcodecs, numpy as np
d = (np.arange(50 * 74, dtype="<f4").reshape(50, 74) * 1.5 - 7).astype("<f4")
for k, conf in enumerate(sys.argv[2:]):
    zarr.open_array(f"{sys.argv[1]}/{k}.zarr", mode="w", shape=d.shape, chunks=(16, 37), dtype="<f4", compressor=eval("numcodecs.Blosc(" + conf + ")"))[:] = d`,
    root,
    ...configs,
  );
  assert.equal(r.status, 0, r.stderr);
  const want = Float32Array.from({ length: 50 * 74 }, (_, i) => Math.fround(i * 1.5 - 7));
  for (let k = 0; k < configs.length; k++) {
    const a = await openArray(join(root, `${k}.zarr`), { mode: "r" });
    const fresh = (await a.get(null, { threads: 0 })) as NDArray<Float32Array>;
    assert.deepEqual(fresh.data, want, configs[k]);
    const shared = new Float32Array(new SharedArrayBuffer(want.byteLength));
    await a.get(null, { out: shared, pool, threads: 2 });
    assert.deepEqual(new Float32Array(shared), want, `${configs[k]} on the pool`);
  }
});

test("out works with orthogonal, point and block selections; a point selection needs a C-contiguous out", async () => {
  const a = await createArray(new MemoryStore(), { shape: [9, 7], chunks: [4, 3], dtype: "int32", fillValue: 0 });
  const data = Int32Array.from({ length: 63 }, (_, i) => i * 10 + 1);
  await a.set(null, { data, shape: [9, 7] });
  const at = (i: number, j: number) => data[i * 7 + j];
  const o = new Int32Array(2 * 3);
  const ro = (await a.oindex.get([[8, 1], [6, 0, 3]], { out: o })) as NDArray<Int32Array>;
  assert.equal(ro.data, o);
  assert.deepEqual(Array.from(o), [at(8, 6), at(8, 0), at(8, 3), at(1, 6), at(1, 0), at(1, 3)]);
  const p = new Int32Array(3);
  await a.vindex.get([[0, 5, 8], [6, 2, 1]], { out: p });
  assert.deepEqual(Array.from(p), [at(0, 6), at(5, 2), at(8, 1)]);
  await assert.rejects(a.vindex.get([[0, 5, 8], [6, 2, 1]], { out: { data: new Int32Array(6), shape: [3], stride: [2] } }), InvalidArgumentError);
  // Block (1, 2): rows 4..7 of the last column chunk, which holds column 6 only.
  const b = new Int32Array(4);
  await a.blocks.get([1, 2], { out: b });
  assert.deepEqual(Array.from(b), [at(4, 6), at(5, 6), at(6, 6), at(7, 6)]);
  await assert.rejects(a.oindex.get([[1], null], { out: new Int32Array(7), thread: 0 } as never), InvalidArgumentError);
});
