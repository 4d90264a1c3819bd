/**
 * Orthogonal (oindex), point (vindex), block (blocks) selections, backward slices and integer
 * arrays / masks in get/set, compared element by element with zarr-python 2 on the same stored
 * data: random shapes, chunkings, data types and selections; v2, v3 and sharded v3 arrays; inline
 * and on the worker pool. zarr-python 2.13 has neither backward slices nor `blocks`: those are
 * checked against numpy applied to the array zarr-python reads (`z[:]`), and blocks against the
 * equivalent slices zarr-python reads.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  BadSelectionError,
  MemoryStore,
  WorkerPool,
  createArray,
  slice,
  type DimSelection,
  type MaskArray,
  type NDArray,
  type NumericTypeName,
  type Scalar,
  type Selection,
  type TypedArray,
  type ZarrArray,
} from "../src/index.js";
import { normaliseSelection } from "../src/indexing/selection.js";
import { runPython, zarrPythonSkip } from "./helpers/peers.js";
import { scratchDir } from "./helpers/paths.js";
import { randomData, rng, testPool } from "./helpers/random.js";

const pool = testPool();

const DTYPES: NumericTypeName[] = ["int32", "float64", "uint8", "int64", "complex128", "bool", "int16", "float32"];

/** Selection items as the Python side reads them. */
type PyItem = { i: number } | { s: (number | null)[] } | { a: number[] } | { m: boolean[] };
type PySel = PyItem[] | { M: boolean[]; shape: number[] };
type Kind = "o" | "v" | "b";
interface SelCase {
  /** What parzarr is called with. */
  call: "oindex" | "vindex" | "blocks" | "get";
  sel: Selection;
  /** How zarr-python (or numpy) computes the expected result. */
  kind: Kind;
  py: PySel;
  /** blocks: the same elements as slices, for the sharded array (whose blocks are its shards). */
  slices?: DimSelection[];
}

function randomSlice(r: (n: number) => number, n: number, allowBackward: boolean): { s: Selection & object; py: PyItem } {
  const pick = (): number | null => (r(4) === 0 ? null : r(2 * n + 3) - n - 1);
  const step = r(3) === 0 ? null : (1 + r(3)) * (allowBackward && r(2) === 0 ? -1 : 1);
  const start = pick();
  const stop = pick();
  return { s: slice(start, stop, step), py: { s: [start, stop, step] } };
}

function randomIndices(r: (n: number) => number, n: number, unique: boolean): number[] {
  const len = r(Math.min(n, 5)) + 1;
  const out: number[] = [];
  while (out.length < len) {
    const i = r(n);
    if (unique && out.some((x) => ((x % n) + n) % n === i)) continue;
    out.push(r(2) === 0 ? i : i - n); // negatives count from the end
  }
  return out;
}

/** An orthogonal selection: every dimension any of the four forms. */
function randomOrthogonal(r: (n: number) => number, shape: number[], forWrite: boolean): SelCase {
  const sel: DimSelection[] = [];
  const py: PyItem[] = [];
  shape.forEach((n) => {
    const pick = r(4);
    if (pick === 0) {
      const i = r(n);
      sel.push(i);
      py.push({ i });
    } else if (pick === 1) {
      const { s, py: p } = randomSlice(r, n, true);
      sel.push(s as DimSelection);
      py.push(p);
    } else if (pick === 2) {
      const a = randomIndices(r, n, forWrite);
      sel.push(r(2) === 0 ? a : Int32Array.from(a));
      py.push({ a });
    } else {
      const m = Array.from({ length: n }, () => r(2) === 0);
      sel.push(m);
      py.push({ m });
    }
  });
  return { call: "oindex", sel, kind: "o", py };
}

function randomPoints(r: (n: number) => number, shape: number[], forWrite: boolean): SelCase {
  if (r(3) === 0) {
    const total = shape.reduce((a, b) => a * b, 1);
    const data = Array.from({ length: total }, () => r(3) === 0);
    const mask: MaskArray = r(2) === 0 ? { data, shape } : { data: Uint8Array.from(data, Number), shape };
    return { call: "vindex", sel: mask, kind: "v", py: { M: data, shape } };
  }
  const count = 1 + r(6);
  const seen = new Set<string>();
  const coords: number[][] = shape.map(() => []);
  for (let k = 0; k < count; k++) {
    const p = shape.map((n) => r(n));
    if (forWrite && seen.has(p.join())) continue; // zarr-python orders repeated points its own way
    seen.add(p.join());
    p.forEach((x, d) => coords[d].push(r(2) === 0 ? x : x - shape[d]));
  }
  const sel = coords.map((c) => c as DimSelection);
  return { call: "vindex", sel, kind: "v", py: coords.map((a) => ({ a })) };
}

function randomBlocks(r: (n: number) => number, shape: number[], chunks: number[]): SelCase {
  const sel: DimSelection[] = [];
  const py: PyItem[] = [];
  const slices: DimSelection[] = [];
  shape.forEach((n, d) => {
    const blocks = Math.ceil(n / chunks[d]);
    if (r(2) === 0) {
      const b = r(blocks);
      sel.push(r(2) === 0 ? b : b - blocks);
      py.push({ s: [b * chunks[d], (b + 1) * chunks[d], null] });
      slices.push(slice(b * chunks[d], (b + 1) * chunks[d]));
    } else {
      const a = r(blocks + 1);
      const z = a + r(blocks + 2 - a);
      sel.push(slice(a, z));
      py.push({ s: [a * chunks[d], z * chunks[d], null] });
      slices.push(slice(a * chunks[d], z * chunks[d]));
    }
  });
  return { call: "blocks", sel, kind: "b", py, slices };
}

/** Integer arrays in a plain get/set: one array among slices (orthogonal) or arrays and integers only (points). */
function randomMixed(r: (n: number) => number, shape: number[], forWrite: boolean): SelCase {
  if (shape.length > 1 && r(2) === 0) {
    const c = randomPoints(r, shape, forWrite);
    if (!Array.isArray(c.sel)) return { ...c, call: "get" };
    // Some dimensions an integer instead of an array (it broadcasts).
    const d = r(shape.length);
    const items = [...(c.sel as DimSelection[])];
    const py = [...(c.py as PyItem[])];
    const first = (items[d] as number[])[0];
    if (first !== undefined && !forWrite) {
      items[d] = first;
      py[d] = { i: first };
    }
    return { call: "get", sel: items, kind: "v", py };
  }
  const c = randomOrthogonal(r, shape, forWrite);
  const items = c.sel as DimSelection[];
  const py = c.py as PyItem[];
  // Keep exactly one array or mask: the others become whole slices.
  const arrayDims = items.map((x, d) => (Array.isArray(x) || ArrayBuffer.isView(x) ? d : -1)).filter((d) => d >= 0);
  const keep = arrayDims.length ? arrayDims[r(arrayDims.length)] : -1;
  for (const d of arrayDims) {
    if (d === keep) continue;
    items[d] = null;
    py[d] = { s: [null, null, null] };
  }
  return { call: "get", sel: items, kind: "o", py };
}

const VALUES = { half: 100, bigScale: 12345n, floatDivisor: 4 };

/** An NDArray or scalar as a flat list of numbers (complex: re, im) and its shape. */
function flat(x: NDArray | Scalar): { values: number[]; shape: number[] } {
  if (typeof x === "object" && x !== null && "data" in x) {
    return { values: Array.from(x.data as ArrayLike<number | bigint>, Number), shape: x.shape };
  }
  if (Array.isArray(x)) return { values: x.map(Number), shape: [] };
  return { values: [Number(x as number | bigint | boolean)], shape: [] };
}

/** Expected results from zarr-python for every case, in one run of Python. */
const ORACLE = String.raw`
import json, sys
import numpy as np, zarr
spec = json.load(open(sys.argv[1]))

def item(p, n, keep_int):
    if "i" in p: return p["i"]
    if "s" in p: return slice(*p["s"])
    if "a" in p: return np.array(p["a"], dtype=np.int64)
    return np.array(p["m"], dtype=bool)

def orthogonal_numpy(full, sel):
    # numpy emulation of an orthogonal selection, for backward slices zarr-python 2 refuses.
    idx, drop = [], []
    for d, p in enumerate(sel):
        n = full.shape[d]
        if "i" in p: idx.append(np.array([p["i"] % n])); drop.append(d)
        elif "s" in p: idx.append(np.arange(n)[slice(*p["s"])])
        elif "a" in p: idx.append(np.array(p["a"]) % n)
        else: idx.append(np.nonzero(np.array(p["m"]))[0])
    res = full[np.ix_(*idx)] if idx else full
    return res.reshape([len(i) for d, i in enumerate(idx) if d not in drop]), idx

def backward(sel):
    return any("s" in p and p["s"][2] is not None and p["s"][2] < 0 for p in sel)

def get(z, kind, sel):
    if kind == "v":
        if isinstance(sel, dict): return z.vindex[np.array(sel["M"], dtype=bool).reshape(sel["shape"])]
        return z.vindex[tuple(item(p, 0, True) for p in sel)]
    if kind == "b": return z[tuple(slice(*p["s"]) for p in sel)]
    if backward(sel): return orthogonal_numpy(z[:], sel)[0]
    return z.oindex[tuple(item(p, 0, True) for p in sel)]

def put(z, kind, sel, value):
    if kind == "v":
        if isinstance(sel, dict): z.vindex[np.array(sel["M"], dtype=bool).reshape(sel["shape"])] = value
        else: z.vindex[tuple(item(p, 0, True) for p in sel)] = value
    elif kind == "b": z[tuple(slice(*p["s"]) for p in sel)] = value
    elif backward(sel):
        full = z[:]
        _, idx = orthogonal_numpy(full, sel)
        full[np.ix_(*idx)] = np.asarray(value).reshape([len(i) for i in idx]) if np.ndim(value) else value
        z[...] = full
    else: z.oindex[tuple(item(p, 0, True) for p in sel)] = value

def listed(a):
    a = np.asarray(a)
    if np.iscomplexobj(a): return [float(x) for c in a.ravel() for x in (c.real, c.imag)]
    return [float(x) for x in a.ravel()]

out = {"reads": [], "writes": []}
for c in spec["reads"]:
    z = zarr.open(c["path"], mode="r")
    res = []
    for s in c["cases"]:
        r = get(z, s["kind"], s["py"])
        res.append({"values": listed(r), "shape": list(np.shape(r))})
    out["reads"].append(res)
for c in spec["writes"]:
    src = zarr.open(c["initial"], mode="r")
    z = zarr.array(src[:], chunks=src.chunks, fill_value=src.fill_value)
    for op in c["ops"]:
        v = op["value"]
        if v["scalar"] is not None: value = v["scalar"]
        else:
            value = np.array(v["values"], dtype=np.float64)
            if np.iscomplexobj(src[:1]) or src.dtype.kind == "c": value = value[0::2] + 1j * value[1::2]
            value = value.astype(src.dtype).reshape(v["shape"])
        put(z, op["kind"], op["py"], value)
    expected = z[:]
    out["writes"].append([bool(np.array_equal(zarr.open(p, mode="r")[:], expected)) for p in c["written"]])
print(json.dumps(out))
`;

interface Config {
  shape: number[];
  chunks: number[];
  dtype: NumericTypeName;
}

function randomConfig(r: (n: number) => number): Config {
  const ndim = 1 + r(3);
  const shape = Array.from({ length: ndim }, () => 1 + r(ndim === 1 ? 20 : 8));
  const chunks = shape.map((s) => 1 + r(s + 1));
  return { shape, chunks, dtype: DTYPES[r(DTYPES.length)] };
}

/** The same data in a v2 array, a v3 array and a sharded v3 array. */
async function makeArrays(dir: string, c: Config, data: TypedArray): Promise<ZarrArray[]> {
  const fill = c.dtype === "bool" ? false : 0;
  const common = { shape: c.shape, chunks: c.chunks, dtype: c.dtype, fillValue: fill };
  const arrays = [
    await createArray(join(dir, "v2"), { ...common, zarrFormat: 2 }),
    await createArray(join(dir, "v3"), { ...common, zarrFormat: 3 }),
    await createArray(join(dir, "sharded"), { ...common, zarrFormat: 3, shards: c.chunks.map((n) => n * 2) }),
  ];
  for (const a of arrays) await a.set(null, { data, shape: c.shape }, { threads: 0 });
  return arrays;
}

function isSharded(a: ZarrArray): boolean {
  return a.shards !== null;
}

async function call(a: ZarrArray, c: SelCase, options: { threads?: number; pool?: WorkerPool }): Promise<NDArray | Scalar> {
  if (c.call === "blocks" && isSharded(a)) return a.get(c.slices, options);
  if (c.call === "get") return a.get(c.sel, options);
  return a[c.call].get(c.sel, options);
}

const skip = zarrPythonSkip();

test("reads: oindex, vindex, blocks, backward slices and arrays in get equal zarr-python's, v2/v3/sharded, inline and on the pool", { skip }, async () => {
  const root = scratchDir();
  const configs: { arrays: ZarrArray[]; cases: SelCase[]; label: string }[] = [];
  const spec: { reads: { path: string; cases: { kind: Kind; py: PySel }[] }[]; writes: never[] } = { reads: [], writes: [] };
  for (let seed = 1; seed <= 24; seed++) {
    const r = rng(seed * 7919);
    const c = randomConfig(r);
    const dir = join(root, `r${seed}`);
    const arrays = await makeArrays(dir, c, randomData(c.dtype, c.shape.reduce((a, b) => a * b, 1), r, VALUES));
    const cases: SelCase[] = [];
    for (let k = 0; k < 6; k++) {
      cases.push(randomOrthogonal(r, c.shape, false), randomPoints(r, c.shape, false), randomBlocks(r, c.shape, c.chunks), randomMixed(r, c.shape, false));
    }
    configs.push({ arrays, cases, label: `seed ${seed} ${c.dtype} [${c.shape}]/[${c.chunks}]` });
    spec.reads.push({ path: join(dir, "v2"), cases: cases.map(({ kind, py }) => ({ kind, py })) });
  }
  const specPath = join(root, "spec.json");
  writeFileSync(specPath, JSON.stringify(spec));
  const py = runPython(ORACLE, specPath);
  assert.equal(py.status, 0, py.stderr);
  const expected = JSON.parse(py.stdout) as { reads: { values: number[]; shape: number[] }[][] };
  let compared = 0;
  for (const [i, cfg] of configs.entries()) {
    for (const [j, c] of cfg.cases.entries()) {
      const want = expected.reads[i][j];
      for (const [k, a] of cfg.arrays.entries()) {
        for (const options of [{ threads: 0 }, { pool, threads: 2 }]) {
          const got = flat(await call(a, c, options));
          const what = `${cfg.label} ${["v2", "v3", "sharded"][k]} ${c.call} ${JSON.stringify(c.py)} threads=${options.threads}`;
          assert.deepEqual(got.shape, want.shape, what);
          assert.deepEqual(got.values, want.values, what);
          compared += got.values.length;
        }
      }
    }
  }
  assert.ok(compared > 1000, `compared ${compared} elements`);
});

test("writes: oindex/vindex/blocks/get-style sets store what zarr-python's setters store, inline and on the pool", { skip }, async () => {
  const root = scratchDir();
  const spec: { reads: never[]; writes: { initial: string; written: string[]; ops: unknown[] }[] } = { reads: [], writes: [] };
  for (let seed = 1; seed <= 16; seed++) {
    const r = rng(seed * 104729);
    const c = randomConfig(r);
    const data = randomData(c.dtype, c.shape.reduce((a, b) => a * b, 1), r, VALUES);
    const dir = join(root, `w${seed}`);
    const initial = (await makeArrays(join(dir, "initial"), c, data))[0];
    const inline = await makeArrays(join(dir, "inline"), c, data);
    const onPool = await makeArrays(join(dir, "pool"), c, data);
    const ops: unknown[] = [];
    for (let k = 0; k < 6; k++) {
      const pick = r(4);
      const sc =
        pick === 0 ? randomOrthogonal(r, c.shape, true) : pick === 1 ? randomPoints(r, c.shape, true) : pick === 2 ? randomBlocks(r, c.shape, c.chunks) : randomMixed(r, c.shape, true);
      // The value's shape: what a read of the same selection returns.
      const probe = await call(initial, sc, { threads: 0 });
      const shape = flat(probe).shape;
      const count = shape.reduce((a, b) => a * b, 1);
      const scalar = r(3) === 0 ? (c.dtype === "bool" ? 1 : 3) : null;
      const values = randomData(c.dtype, count, r, VALUES);
      const value = scalar !== null ? (c.dtype === "bool" ? true : c.dtype === "int64" ? 3n : scalar) : { data: values, shape };
      for (const [a, options] of [...inline.map((a) => [a, { threads: 0 }] as const), ...onPool.map((a) => [a, { pool, threads: 2 }] as const)]) {
        if (sc.call === "blocks" && isSharded(a)) await a.set(sc.slices, value as never, options);
        else if (sc.call === "get") await a.set(sc.sel, value as never, options);
        else await a[sc.call].set(sc.sel, value as never, options);
      }
      ops.push({ kind: sc.kind, py: sc.py, value: { scalar, values: flat({ data: values, shape, stride: [] }).values, shape } });
    }
    // zarr-python 2 reads the v2 arrays; the v3 and sharded ones must hold exactly the same values.
    const reference = flat(await inline[0].get(null, { threads: 0 }));
    for (const a of [...inline, ...onPool]) assert.deepEqual(flat(await a.get(null, { threads: 0 })), reference, `write case ${seed}: ${a.path}`);
    spec.writes.push({ initial: join(dir, "initial", "v2"), written: [inline[0], onPool[0]].map((a) => (a.store as unknown as { root: string }).root), ops });
  }
  const specPath = join(root, "spec.json");
  writeFileSync(specPath, JSON.stringify(spec));
  const py = runPython(ORACLE, specPath);
  assert.equal(py.status, 0, py.stderr);
  const result = JSON.parse(py.stdout) as { writes: boolean[][] };
  result.writes.forEach((oks, i) => assert.deepEqual(oks, oks.map(() => true), `write case ${i + 1}: v2 inline, then on the pool`));
});

test("blocks of a sharded array are its shards (the chunk grid), as zarr-python 3", async () => {
  const a = await createArray(new MemoryStore(), { shape: [10, 6], chunks: [2, 3], shards: [4, 6], dtype: "int16" });
  await a.set(null, { data: Int16Array.from({ length: 60 }, (_, i) => i), shape: [10, 6] });
  const last = (await a.blocks.get([-1])) as NDArray;
  assert.deepEqual(last.shape, [2, 6]);
  assert.deepEqual(Array.from(last.data as Int16Array), Array.from({ length: 12 }, (_, i) => 48 + i));
  await a.blocks.set([slice(1, 2), 0], 0);
  assert.deepEqual(Array.from(((await a.get("3:9, 0")) as NDArray).data as Int16Array), [18, 0, 0, 0, 0, 48]);
});

test("repeated points and indices: a write keeps the last, as numpy; reads repeat", async () => {
  const a = await createArray(new MemoryStore(), { shape: [4, 5], chunks: [3, 2], dtype: "int32" });
  await a.vindex.set([[1, 2, 1, 1], [3, 0, 3, 3]], { data: new Int32Array([10, 20, 30, 40]), shape: [4] });
  assert.equal(await a.get([1, 3]), 40);
  assert.equal(await a.get([2, 0]), 20);
  await a.oindex.set([[0, 0], [4]], { data: new Int32Array([7, 8]), shape: [2, 1] });
  assert.equal(await a.get([0, 4]), 8);
  const r = (await a.oindex.get([[1, 1, -3], [3]])) as NDArray;
  assert.deepEqual(Array.from(r.data as Int32Array), [40, 40, 40]);
  assert.deepEqual(r.shape, [3, 1]);
});

test("slices clamp to the dimension as numpy does; integers out of range stay BAD_SELECTION", async () => {
  const a = await createArray(new MemoryStore(), { shape: [40], chunks: [7], dtype: "uint16" });
  await a.set(null, Uint16Array.from({ length: 40 }, (_, i) => i));
  assert.deepEqual((await a.get(slice(0, 5000)) as NDArray).shape, [40]);
  assert.deepEqual(Array.from(((await a.get("35:99")) as NDArray).data as Uint16Array), [35, 36, 37, 38, 39]);
  assert.deepEqual(Array.from(((await a.get("-100:3")) as NDArray).data as Uint16Array), [0, 1, 2]);
  assert.deepEqual(Array.from(((await a.get("50:60")) as NDArray).data as Uint16Array), []);
  assert.deepEqual(Array.from(((await a.get("3:-100:-2")) as NDArray).data as Uint16Array), [3, 1]);
  assert.equal(await a.get(0), 0);
  assert.equal(await a.get(-1), 39);
  assert.equal(await a.get(5n), 5);
  assert.deepEqual(Array.from(((await a.get([[1n, -1n]])) as NDArray).data as Uint16Array), [1, 39]);
  await a.set(slice(38, 1000), 7);
  assert.deepEqual(Array.from(((await a.get("37:")) as NDArray).data as Uint16Array), [37, 7, 7]);
  for (const bad of [40, -41, 40n, 2n ** 70n]) await assert.rejects(a.get(bad), BadSelectionError, String(bad));
});

test("bad fancy selections are BAD_SELECTION naming the dimension, and write nothing", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [5, 6], chunks: [2, 4], dtype: "float64" });
  await a.set(null, 1);
  const before = new Map(await Promise.all((await store.list("")).map(async (k) => [k, Buffer.from((await store.get(k))!).toString("hex")] as const)));
  const cases: [string, () => Promise<unknown>, RegExp][] = [
    ["index out of range", () => a.oindex.get([[0, 5], null]), /axis 0: index 5 is out of bounds for size 5/],
    ["negative out of range", () => a.oindex.set([null, [-7]], 0), /axis 1: index -7/],
    ["mask of the wrong length", () => a.oindex.get([null, [true, false]]), /axis 1: a mask of length 2/],
    ["whole mask of the wrong shape", () => a.vindex.get({ data: new Uint8Array(30), shape: [6, 5] }), /mask of shape \[6,5\]/],
    ["a slice in a point selection", () => a.vindex.get([[0, 1], null]), /axis 1: .*slice/],
    ["arrays that do not broadcast", () => a.vindex.set([[0, 1], [0, 1, 2]], 0), /do not broadcast/],
    ["two arrays among slices", () => a.get([[0, 1], [0, 1], "..."] as never), /oindex.*vindex/],
    ["a block out of range", () => a.blocks.get([3]), /axis 0: index 3 is out of bounds for size 3/],
    ["a block slice with a step", () => a.blocks.set([slice(0, 2, 2)], 0), /axis 0: block slices take a step of 1/],
    ["a non-integer index", () => a.oindex.get([[0.5]]), /axis 0: index 0.5 is not an integer/],
    ["a zero step", () => a.get("::0"), /axis 0: slice step must be a non-zero integer/],
  ];
  for (const [what, run, message] of cases) {
    await assert.rejects(run(), (e: unknown) => e instanceof BadSelectionError && e.code === "BAD_SELECTION" && message.test(e.message), what);
  }
  const after = new Map(await Promise.all((await store.list("")).map(async (k) => [k, Buffer.from((await store.get(k))!).toString("hex")] as const)));
  assert.deepEqual(after, before);
});

test("a point or integer-array read touches only the chunks holding selected elements, each once", async () => {
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [100, 100], chunks: [10, 10], dtype: "int32", codecs: [{ name: "bytes" }] });
  await a.set(null, 1);
  const gets: string[] = [];
  const get = store.get.bind(store);
  store.get = async (key: string) => {
    gets.push(key);
    return get(key);
  };
  await a.vindex.get([[1, 2, 3, 55, 56, 99], [1, 2, 3, 55, 57, 0]]);
  assert.deepEqual(gets.sort(), ["c/0/0", "c/5/5", "c/9/0"]);
  gets.length = 0;
  await a.oindex.get([[5, 1, 3, 7], [95, 91]]);
  assert.deepEqual(gets, ["c/0/9"]);
  assert.deepEqual(normaliseSelection([[3, -1], null], [5, 2])[0], { kind: "list", indices: [3, 4] });
});

test("strings and records go through the same scattered paths", async () => {
  const s = await createArray(new MemoryStore(), { shape: [5, 3], chunks: [2, 2], dtype: "string" });
  await s.set(null, { data: Array.from({ length: 15 }, (_, i) => `s${i}`), shape: [5, 3] });
  assert.deepEqual(((await s.vindex.get([[4, 0, 2], [2, 1, 0]])) as NDArray).data, ["s14", "s1", "s6"]);
  await s.oindex.set([[3, 1], [2]], ["x", "y"]);
  assert.deepEqual(((await s.get("::-1, 2")) as NDArray).data, ["s14", "x", "s8", "y", "s2"]);
  const r = await createArray(new MemoryStore(), { shape: [4], chunks: [3], dtype: [["a", "<i4"], ["b", "<f8"]], zarrFormat: 2 });
  const rec = (a: number, b: number) => {
    const bytes = new Uint8Array(12);
    new DataView(bytes.buffer).setInt32(0, a, true);
    new DataView(bytes.buffer).setFloat64(4, b, true);
    return bytes;
  };
  await r.set(null, { data: [rec(1, 0.5), rec(2, 1.5), rec(3, 2.5), rec(4, 3.5)], shape: [4] });
  assert.deepEqual(Array.from(((await r.vindex.get([[3, 0, 3]], { field: "a" })) as NDArray).data as Int32Array), [4, 1, 4]);
  assert.deepEqual(Array.from(((await r.get("::-1", { field: "b" })) as NDArray).data as Float64Array), [3.5, 2.5, 1.5, 0.5]);
});

test("empty selections: an empty index list, an all-false mask, an integer-only point", async () => {
  const e = await createArray(new MemoryStore(), { shape: [4, 4], chunks: [2, 2], dtype: "int8" });
  await e.set(null, 3);
  assert.deepEqual(((await e.oindex.get([[], null])) as NDArray).shape, [0, 4]);
  assert.deepEqual(((await e.vindex.get({ data: new Uint8Array(16), shape: [4, 4] })) as NDArray).shape, [0]);
  assert.equal(await e.vindex.get([1, 2]), 3);
});
