/**
 * The `rectilinear` chunk grid (zarr-extensions): per-dimension chunk edges given by one integer,
 * explicit lists and run-length pairs. Hand-made metadata and chunk bytes read as the spec
 * defines them; parzarr's own writes store one chunk per edge box; every kind of selection
 * reads and writes the same values as on a regular grid; resize and append extend the edges;
 * sharding works inside the grid; hostile edge lists fail typed and in bounded memory.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import {
  ChunkCache,
  FileSystemStore,
  MemoryStore,
  MetadataMismatchError,
  createArray,
  formatInfo,
  openArray,
  slice,
  zerosLike,
  type NDArray,
  type ZarrArray,
} from "../src/index.js";
import { main } from "../src/cli/main.js";
import { gridAxes, type AxisEdges } from "../src/metadata/chunk-grid.js";
import { planSelection } from "../src/indexing/projection.js";
import { scratchDir } from "./helpers/paths.js";
import { rng, testPool } from "./helpers/random.js";

const pool = testPool();

function writeFile(path: string, bytes: Uint8Array | string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, bytes);
}

function v3Doc(shape: number[], chunkShapes: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    zarr_format: 3,
    node_type: "array",
    shape,
    data_type: "uint16",
    chunk_grid: { name: "rectilinear", configuration: { kind: "inline", chunk_shapes: chunkShapes } },
    chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
    fill_value: 7,
    codecs: [{ name: "bytes", configuration: { endian: "little" } }],
    ...extra,
  });
}

/** A chunk as the spec lays it out: its whole edge box in C order, little-endian uint16 `value(i, j)` (0 past the array). */
function chunkBytes(origin: number[], box: number[], shape: number[], value: (i: number, j: number) => number): Uint8Array {
  const out = new Uint16Array(box[0] * box[1]);
  for (let a = 0; a < box[0]; a++) {
    for (let b = 0; b < box[1]; b++) {
      const i = origin[0] + a;
      const j = origin[1] + b;
      out[a * box[1] + b] = i < shape[0] && j < shape[1] ? value(i, j) : 0;
    }
  }
  return new Uint8Array(out.buffer);
}

const flat = (r: unknown) => Array.from((r as NDArray).data as ArrayLike<number>);

test("hand-made metadata and chunks: run-length, explicit and uniform edges read as the spec lays them out", async () => {
  const dir = scratchDir();
  // Axis 0: [[2, 2], 1] = edges 2, 2, 1; axis 1: the integer 4 = edges 4, 4 (the second overflows).
  const shape = [5, 6];
  const value = (i: number, j: number) => 100 * i + j;
  writeFile(join(dir, "zarr.json"), v3Doc(shape, [[[2, 2], 1], 4]));
  const rows = [
    [0, 2],
    [2, 2],
    [4, 1],
  ];
  for (const [ci, [r0, rn]] of rows.entries()) {
    // Chunk (1, 1) is not stored: it reads as the fill value.
    for (const cj of ci === 1 ? [0] : [0, 1]) writeFile(join(dir, "c", String(ci), String(cj)), chunkBytes([r0, cj * 4], [rn, 4], shape, value));
  }
  const a = await openArray(new FileSystemStore(dir), { mode: "r" });
  assert.deepEqual(a.chunkGrid, [3, 2]);
  const whole = (await a.get(null)) as NDArray;
  const expected: number[] = [];
  for (let i = 0; i < 5; i++) for (let j = 0; j < 6; j++) expected.push(i >= 2 && i < 4 && j >= 4 ? 7 : value(i, j));
  assert.deepEqual(flat(whole), expected);
  assert.equal(await a.get([4, 5]), value(4, 5));
  assert.deepEqual(flat(await a.get([slice(1, 5, 2), slice(5, 0, -2)])), [105, 103, 101, 7, 303, 301]);
  // Blocks are the grid's uneven chunks.
  const block = (await a.blocks.get([2, 0])) as NDArray;
  assert.deepEqual(block.shape, [1, 4]);
  assert.deepEqual(flat(block), [400, 401, 402, 403]);
  assert.deepEqual(flat(await a.vindex.get([[0, 4, 3], [5, 0, 2]])), [5, 400, 302]);
});

test("the spec's example grid: one integer, a list, run-length pairs, both together, and overflowing edges", async () => {
  const dir = scratchDir();
  writeFile(join(dir, "zarr.json"), v3Doc([6, 6, 6, 6, 6], [4, [1, 2, 3], [[4, 2]], [[1, 3], 3], [4, 4, 4]]));
  const a = await openArray(new FileSystemStore(dir), { mode: "r+" });
  // [4, 4]; [1, 2, 3]; [4, 4]; [1, 1, 1, 3]; [4, 4, 4] of which the third holds no element.
  assert.deepEqual(a.chunkGrid, [2, 3, 2, 4, 2]);
  const data = Uint16Array.from({ length: 6 ** 5 }, (_, i) => i % 65521);
  await a.set(null, { data, shape: [6, 6, 6, 6, 6] });
  // Chunk (1, 2, 0, 3, 1) starts at (4, 3, 0, 3, 4) and is 4 x 3 x 4 x 3 x 4 elements.
  assert.equal(readFileSync(join(dir, "c/1/2/0/3/1")).length, 4 * 3 * 4 * 3 * 4 * 2);
  assert.deepEqual(flat(await a.get(null)), Array.from(data));
  // Written back as read (runs of one as plain edges).
  const doc = JSON.parse(readFileSync(join(dir, "zarr.json"), "utf8"));
  assert.equal(doc.chunk_grid.name, "rectilinear");
});

/** The same values on a regular and on a rectilinear array, to compare every selection kind against. */
async function twins(shape: number[], edges: (number | number[])[], r: (n: number) => number): Promise<[ZarrArray, ZarrArray]> {
  const n = shape.reduce((x, y) => x * y, 1);
  const data = Int32Array.from({ length: n }, () => r(1000));
  const regular = await createArray(new MemoryStore(), { shape, chunks: [3, 2], dtype: "int32", fillValue: -1 });
  // On files, so reads and writes with threads run on the pool's workers.
  const uneven = await createArray(new FileSystemStore(scratchDir()), { shape, chunks: edges, dtype: "int32", fillValue: -1 });
  for (const a of [regular, uneven]) await a.set(null, { data, shape });
  return [regular, uneven];
}

function randomSlice(r: (n: number) => number, n: number) {
  const step = [1, 1, 2, 3, -1, -2, 5][r(7)];
  const a = r(n + 1);
  const b = r(n + 1);
  return step > 0 ? slice(Math.min(a, b), Math.max(a, b), step) : slice(Math.max(a, b), Math.min(a, b) - 1 < 0 ? null : Math.min(a, b) - 1, step);
}

function randomIndices(r: (n: number) => number, n: number): number[] {
  return Array.from({ length: 1 + r(5) }, () => r(n));
}

test("every selection kind reads and writes the same values on uneven chunks as on a regular grid, inline and on the pool", async () => {
  const r = rng(29);
  const shape = [11, 9];
  // Edges of 1 (steps skip some chunks and not others), then none shorter than 3 (steps up to 3 touch every chunk).
  const ones = await twins(shape, [[1, 4, 2, 4], [2, 1, 1, 5]], r);
  const threes = await twins(shape, [[3, 5, 3], [4, 5]], r);
  for (let k = 0; k < 120; k++) {
    const [regular, uneven] = k % 2 ? threes : ones;
    const options = k % 3 === 0 ? { pool, threads: 2 } : { threads: 0 };
    const pick = k % 4;
    const ortho = () => shape.map((n) => (r(3) === 0 ? randomIndices(r, n) : randomSlice(r, n)));
    const plain = () => shape.map((n) => (r(4) === 0 ? r(n) : randomSlice(r, n)));
    const points = () => {
      const m = 1 + r(6);
      return shape.map((n) => Array.from({ length: m }, () => r(n)));
    };
    // Blocks differ by grid: compared below against the edges themselves.
    const sel = pick === 0 ? plain() : pick === 1 ? ortho() : pick === 2 ? points() : [randomIndices(r, shape[0]), r(shape[1])];
    const read = (a: ZarrArray) => (pick === 1 || pick === 3 ? a.oindex.get(sel, options) : pick === 2 ? a.vindex.get(sel, options) : a.get(sel, options));
    const want = await read(regular);
    assert.deepEqual(await read(uneven), want, `read ${k}: ${JSON.stringify(sel)}`);
    // Writes: the read's shape filled with new values (points selections: a unique set, so the last write does not depend on order).
    if (pick === 2) continue;
    const got = want as NDArray;
    if (typeof got !== "object") continue;
    const value = { data: Int32Array.from({ length: got.data.length }, () => 2000 + r(1000)), shape: got.shape };
    for (const a of [regular, uneven]) await (pick === 1 ? a.oindex.set(sel, value, options) : a.set(sel, value, options));
    assert.deepEqual(flat(await uneven.get(null)), flat(await regular.get(null)), `write ${k}: ${JSON.stringify(sel)}`);
  }
  // Block (2, 3) is rows 5..6 (edges 1, 4, 2) and columns 4..8 (edges 2, 1, 1, 5).
  const [regular, uneven] = ones;
  assert.deepEqual(await uneven.blocks.get([2, 3]), await regular.get([slice(5, 7), slice(4, 9)]));
  assert.deepEqual(await uneven.blocks.get([slice(1, 3), -1]), await regular.get([slice(1, 7), slice(4, 9)]));
});

test("writes store one chunk per edge box, each its own shape; an all-fill chunk is not stored", async () => {
  const dir = scratchDir();
  const a = await createArray(new FileSystemStore(dir), { shape: [7, 5], chunks: [[3, 1, 3], 5], dtype: "uint8", fillValue: 0, codecs: ["bytes"] });
  const doc = JSON.parse(readFileSync(join(dir, "zarr.json"), "utf8"));
  assert.deepEqual(doc.chunk_grid, { name: "rectilinear", configuration: { kind: "inline", chunk_shapes: [[3, 1, 3], 5] } });
  await a.set([slice(0, 4), null], 9);
  assert.equal(readFileSync(join(dir, "c/0/0")).length, 15);
  assert.equal(readFileSync(join(dir, "c/1/0")).length, 5);
  assert.throws(() => readFileSync(join(dir, "c/2/0")), /ENOENT/);
  // A partial write merges into the stored chunk of its own shape.
  await a.set([3, 4], 1);
  assert.deepEqual(flat(await a.get([slice(2, 5), 4])), [9, 1, 0]);
});

test("resize keeps edges that still reach, extends by the last edge past them, deletes chunks outside; append grows the same way", async () => {
  const dir = scratchDir();
  const a = await createArray(new FileSystemStore(dir), { shape: [5, 4], chunks: [[2, 3, 4], 4], dtype: "int16", fillValue: 0, codecs: ["bytes"] });
  await a.set(null, { data: Int16Array.from({ length: 20 }, (_, i) => i + 1), shape: [5, 4] });
  const edges = () => JSON.parse(readFileSync(join(dir, "zarr.json"), "utf8")).chunk_grid.configuration.chunk_shapes;
  await a.resize([8, 4]);
  assert.deepEqual(edges(), [[2, 3, 4], 4]);
  await a.resize([15, 9]);
  assert.deepEqual(edges(), [[2, 3, [4, 3]], 4]);
  assert.deepEqual(a.chunkGrid, [5, 3]);
  await a.set([14, 8], 5);
  assert.equal(readFileSync(join(dir, "c/4/2")).length, 4 * 4 * 2);
  await a.resize([2, 4]);
  assert.deepEqual(edges(), [[2, 3, [4, 3]], 4]);
  assert.throws(() => readFileSync(join(dir, "c/1/0")), /ENOENT/);
  assert.deepEqual(flat(await a.get(null)), [1, 2, 3, 4, 5, 6, 7, 8]);
  const shape = await a.append({ data: Int16Array.from({ length: 16 }, (_, i) => 100 + i), shape: [4, 4] });
  assert.deepEqual(shape, [6, 4]);
  assert.deepEqual(flat(await a.get([slice(1, 3), 0])), [5, 100]);
  assert.deepEqual(flat(await (await openArray(new FileSystemStore(dir))).get([5, null])), [112, 113, 114, 115]);
});

test("sharding inside a rectilinear grid of shards: partial writes and reads; edges the inner chunks do not divide are refused", async () => {
  const dir = scratchDir();
  const a = await createArray(new FileSystemStore(dir), { shape: [10, 6], shards: [[4, 2, 4], 6], chunks: [2, 3], dtype: "int32", fillValue: 0 });
  assert.deepEqual(a.shards, [4, 6]);
  assert.deepEqual(a.chunks, [2, 3]);
  const data = Int32Array.from({ length: 60 }, (_, i) => i);
  await a.set(null, { data, shape: [10, 6] }, { pool, threads: 2 });
  await a.set([slice(3, 5), 2], 99);
  const expect = Array.from(data, (v, i) => (Math.floor(i / 6) >= 3 && Math.floor(i / 6) < 5 && i % 6 === 2 ? 99 : v));
  assert.deepEqual(flat(await a.get(null)), expect);
  assert.deepEqual(flat(await (await openArray(new FileSystemStore(dir))).get([slice(2, 8), slice(1, 5)], { pool, threads: 2 })), [2, 3, 4, 5, 6].flatMap((i) => [1, 2, 3, 4].map((j) => expect[i * 6 + j])).concat([7].flatMap((i) => [1, 2, 3, 4].map((j) => expect[i * 6 + j]))));
  await assert.rejects(
    createArray(new MemoryStore(), { shape: [10, 6], shards: [[4, 3, 3], 6], chunks: [2, 3], dtype: "int32" }),
    (e: Error & { code?: string }) => e.code === "INVALID_METADATA" && /shard edge 3 along dimension 0/.test(e.message),
  );
  const doc = JSON.parse(readFileSync(join(dir, "zarr.json"), "utf8"));
  doc.chunk_grid.configuration.chunk_shapes = [[4, 3, 3], 6];
  writeFileSync(join(dir, "zarr.json"), JSON.stringify(doc));
  await assert.rejects(openArray(new FileSystemStore(dir)), (e: Error & { code?: string }) => e.code === "INVALID_METADATA");
});

test("hostile edge lists fail typed at open; a billion run-length chunks cost one run", async () => {
  const cases: [unknown, number, string][] = [
    [[[2, 2]], 5, "INVALID_METADATA"], // sums to 4 < 5
    [[0], 5, "INVALID_METADATA"],
    [[[[1, 2, 3]]], 6, "INVALID_METADATA"], // a run of three numbers
    [[[2.5]], 5, "INVALID_METADATA"],
    [[[[2 ** 40, 2 ** 20]]], 5, "INVALID_METADATA"], // over 2^53
    [[[]], 0, "INVALID_METADATA"],
    [[[2], [3]], 2, "INVALID_METADATA"], // two edge lists for one dimension
  ];
  for (const [shapes, n, code] of cases) {
    const dir = scratchDir();
    writeFile(join(dir, "zarr.json"), v3Doc([n], shapes));
    await assert.rejects(openArray(new FileSystemStore(dir)), (e: Error & { code?: string }) => e.code === code, JSON.stringify(shapes));
  }
  const dir = scratchDir();
  writeFile(join(dir, "zarr.json"), v3Doc([10], { kind: "inline", chunk_shapes: [[10]] }).replace('"kind":"inline"', '"kind":"varying"'));
  await assert.rejects(openArray(new FileSystemStore(dir)), (e: Error & { code?: string }) => e.code === "UNSUPPORTED");
  const big = scratchDir();
  writeFile(join(big, "zarr.json"), v3Doc([2e9 + 3], [[[2, 1e9], 3]]));
  const a = await openArray(new FileSystemStore(big), { mode: "r+" });
  assert.deepEqual(a.chunkGrid, [1e9 + 1]);
  await a.set([slice(2e9 - 1, 2e9 + 2)], { data: Uint16Array.of(1, 2, 3), shape: [3] });
  assert.deepEqual(flat(await a.get([slice(2e9 - 2, null)])), [7, 1, 2, 3, 7]);
  assert.equal(readFileSync(join(big, "c/1000000000")).length, 6);
});

test("edge lists need Zarr v3", async () => {
  await assert.rejects(
    createArray(new MemoryStore(), { shape: [5], chunks: [[2, 3]], dtype: "int8", zarrFormat: 2 }),
    (e: Error & { code?: string }) => e.code === "INVALID_METADATA",
  );
});

/** The CLI in this process: exit code and output. */
async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const sink = (add: (t: string) => void) => ({ write: (t: string | Uint8Array) => (add(String(t)), true) }) as unknown as NodeJS.WritableStream;
  const code = await main(args, { stdout: sink((t) => (stdout += t)), stderr: sink((t) => (stderr += t)), env: {} });
  return { code, stdout, stderr };
}

test("parzarr cp --chunks to a rectilinear grid (edges joined by ':' or the chunk_shapes JSON), back to regular, and keeping it by default", async () => {
  const root = scratchDir();
  const src = join(root, "src.zarr");
  const data = Float32Array.from({ length: 8 * 5 }, (_, i) => i / 2);
  const a = await createArray(new FileSystemStore(src), { shape: [8, 5], chunks: [4, 5], dtype: "float32" });
  await a.set(null, { data, shape: [8, 5] });
  const gridOf = (dir: string) => JSON.parse(readFileSync(join(dir, "zarr.json"), "utf8")).chunk_grid;
  const cases: [string, string[], unknown][] = [
    ["colon.zarr", ["--chunks", "3:1:4,5"], { name: "rectilinear", configuration: { kind: "inline", chunk_shapes: [[3, 1, 4], 5] } }],
    ["json.zarr", ["--chunks", "[[[2,3],2],2]", "--threads", "2"], { name: "rectilinear", configuration: { kind: "inline", chunk_shapes: [[[2, 4]], 2] } }], // equal neighbours merged
    ["sharded.zarr", ["--shards", "4:2:2,5", "--chunks", "2,5"], { name: "rectilinear", configuration: { kind: "inline", chunk_shapes: [[4, [2, 2]], 5] } }],
  ];
  for (const [name, args, grid] of cases) {
    const dst = join(root, name);
    const r = await cli(["cp", src, dst, "-q", ...args]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(gridOf(dst), grid, name);
    assert.deepEqual(flat(await (await openArray(new FileSystemStore(dst))).get(null)), Array.from(data), name);
  }
  // From a rectilinear source: a v3 copy keeps its edges, --chunks makes it regular, v2 takes its largest edges.
  const from = join(root, "colon.zarr");
  const kept = join(root, "kept.zarr");
  assert.equal((await cli(["cp", from, kept, "-q"])).code, 0);
  assert.deepEqual(gridOf(kept), cases[0][2]);
  const regular = join(root, "regular.zarr");
  assert.equal((await cli(["cp", from, regular, "-q", "--chunks", "2,2"])).code, 0);
  assert.deepEqual(gridOf(regular), { name: "regular", configuration: { chunk_shape: [2, 2] } });
  const v2 = join(root, "v2.zarr");
  assert.equal((await cli(["cp", from, v2, "-q", "--format", "2"])).code, 0);
  assert.deepEqual(JSON.parse(readFileSync(join(v2, ".zarray"), "utf8")).chunks, [4, 5]);
  for (const dir of [kept, regular, v2]) assert.deepEqual(flat(await (await openArray(new FileSystemStore(dir))).get(null)), Array.from(data), dir);
  // Usage errors: edges that fall short, edge lists for v2, shards the inner chunks do not divide.
  for (const args of [["--chunks", "3:1,5"], ["--chunks", "3:5,5", "--format", "2"], ["--shards", "3:5,5", "--chunks", "2,5"], ["--chunks", "[[3,"]]) {
    const r = await cli(["cp", src, join(root, "bad.zarr"), "-q", "--overwrite", ...args]);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.stderr}`);
  }
});

test("info, tree and the viewer's array info show a rectilinear grid", async () => {
  const dir = scratchDir();
  await createArray(new FileSystemStore(dir), { shape: [6, 6], chunks: [[1, [2, 2], 1], 4], dtype: "uint8", attributes: { a: 1 } });
  const text = (await cli(["info", dir])).stdout;
  assert.match(text, /Chunk shape\s+: at most \(2, 4\)/);
  assert.match(text, /Chunk grid\s+: rectilinear \[\[1,\[2,2\],1\],4\]/);
  assert.match(text, /Chunks initialized\s+: 0\/8/);
  const json = JSON.parse((await cli(["info", dir, "--json"])).stdout);
  assert.deepEqual(json.chunkShapes, [[1, [2, 2], 1], 4]);
  const tree = await cli(["tree", dir]);
  assert.equal(tree.code, 0, tree.stderr);
  assert.match(tree.stdout, /\(6, 6\) uint8/);
  const arr = await openArray(new FileSystemStore(dir));
  assert.match((await arr.info()).chunkShapes ? formatInfo(await arr.info()) : "", /Chunk grid\s+: rectilinear/);
});

test("zerosLike keeps the edges; a chunk cache holds each chunk at its own shape; assumed edges are checked", async () => {
  const dir = scratchDir();
  const spec = { shape: [9, 4], chunks: [[2, 3, 4], [1, 3]], dtype: "int32", fillValue: 0 } as const;
  const a = await createArray(new FileSystemStore(dir), spec);
  await a.set(null, { data: Int32Array.from({ length: 36 }, (_, i) => i), shape: [9, 4] });
  const like = await zerosLike(a);
  assert.deepEqual(like.chunkShapes, [[2, 3, 4], [1, 3]]);
  // Through a chunk cache, inline and on the pool: each chunk cached at its own shape.
  const cache = new ChunkCache({ maxBytes: 1 << 20 });
  const cached = await openArray(new FileSystemStore(dir), { mode: "r", cache });
  for (const options of [{ pool, threads: 2 }, { threads: 0 }]) {
    assert.deepEqual(flat(await cached.get([slice(1, 8), 2], options)), [6, 10, 14, 18, 22, 26, 30]);
    assert.deepEqual(flat(await cached.get([slice(1, 8), 0], options)), [4, 8, 12, 16, 20, 24, 28]);
  }
  // Every chunk, each of rows 2, 3, 4 by columns 1, 3: 36 elements.
  assert.deepEqual([cache.stats().entries, cache.size], [6, 36 * 4]);
  // Another writer changes chunk 1 (rows 2..4) and empties chunk 2 (rows 5..8): read again, revalidated.
  await a.set([3, 2], 99);
  await a.set([slice(5, 9), null], 0);
  assert.deepEqual(flat(await cached.get([slice(1, 8), 2])), [6, 10, 99, 18, 0, 0, 0]);
  assert.deepEqual(flat(await cached.vindex.get([[0, 3, 6, 8], [1, 2, 2, 3]])), [1, 99, 0, 0]);
  // Other edges than assumed are refused when the metadata is rewritten; a shape another writer changed is not.
  const wrong = await openArray(new FileSystemStore(dir), { mode: "r+", assumeCachedMetadata: { ...spec, chunks: [[3, 2, 4], [1, 3]] } });
  await assert.rejects(wrong.resize([9, 4]), (e: unknown) => e instanceof MetadataMismatchError && e.field === "chunks");
  const right = await openArray(new FileSystemStore(dir), { mode: "r+", assumeCachedMetadata: spec });
  await a.resize([3, 4]);
  await right.resize([12, 4]);
  assert.deepEqual(right.chunkShapes, [[2, 3, [4, 2]], [1, 3]]);
});

test("a strided slice plans only the chunks it touches: all between its ends when no edge is shorter than the step, else by jumps", () => {
  const axes = (edges: AxisEdges) => gridAxes({ chunks: [0], rectilinear: [edges] });
  const chunksOf = (edges: AxisEdges, start: number, step: number, count: number) =>
    Array.from(planSelection([{ kind: "range", start, step, count }], axes(edges)), (p) => [p.coords[0], p.chunkSel[0].start, p.chunkSel[0].count]);
  // Edges 1 x 10, then 5: elements 0, 3, 6, 9, 12 lie in chunks 0, 3, 6, 9 and 10 (at 2 in it).
  assert.deepEqual(chunksOf([[1, 10], [5, 1]], 0, 3, 5), [[0, 0, 1], [3, 0, 1], [6, 0, 1], [9, 0, 1], [10, 2, 1]]);
  // Edges 3, 4, 3: a step of 3 meets every chunk.
  assert.deepEqual(chunksOf([[3, 1], [4, 1], [3, 1]], 1, 3, 3), [[0, 1, 1], [1, 1, 1], [2, 0, 1]]);
});

test("a resize (or another writer's) that brings a huge edge into the shape is TOO_LARGE, writes nothing, and a stale handle refuses it too", async () => {
  // An edge past the end is not bounded at open (no chunk of it lies in the shape yet).
  const store = new MemoryStore();
  const a = await createArray(store, { shape: [1], chunks: [[1, 2 ** 40]], dtype: "int32" });
  const before = await store.get("zarr.json");
  await assert.rejects(a.resize([2]), { code: "TOO_LARGE" });
  assert.deepEqual(await store.get("zarr.json"), before, "the metadata is as it was");
  assert.deepEqual(a.shape, [1]);
  // Another writer grows it behind this handle's back: revalidating the metadata checks it as opening does.
  const b = await openArray(store, { mode: "r+", recheckCachedMetadata: true });
  const doc = JSON.parse(new TextDecoder().decode(before!));
  await store.set("zarr.json", new TextEncoder().encode(JSON.stringify({ ...doc, shape: [2] })));
  await assert.rejects(b.set([1], 5), { code: "TOO_LARGE" });
});
