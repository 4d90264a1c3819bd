/**
 * Slices with negative and mixed steps, read from random arrays (shapes, chunks, orders, data
 * types, codecs), must give what numpy gives for the same slices of the same values: inline,
 * through a chunk cache, on the pool into a fresh result, and on the pool into a shared `out`
 * (written in place by the workers); writes through them must leave what numpy's assignment
 * leaves. Issue 26 item 4: a backward slice whose chunk took the decode-into-rows fast path was
 * reported as a CORRUPT_CHUNK. numpy runs in one Python process per test, one JSON line per case.
 */
import { strict as assert } from "node:assert";
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, describe, it } from "node:test";
import fc from "fast-check";
import { ChunkCache, createArray, FileSystemStore, MemoryStore, openArray, slice, ZarrError, type DimSelection, type JsonObject, type NDArray, type ZarrArray } from "../src/index.js";
import { runChunkTask } from "../src/parallel/chunk-io/chunk-task.js";
import { parseV2Array } from "../src/metadata/array-metadata.js";
import { testPool } from "./helpers/random.js";
import { PYTHON } from "./helpers/peers.js";

const pool = testPool();
const root = mkdtempSync(join(tmpdir(), "parzarr-negative-steps-"));
after(() => rmSync(root, { recursive: true, force: true }));
let arrays = 0;

// ---------------------------------------------------------------------------------------------
// numpy, as a line-by-line service: each request is a case, each answer the sliced array.

const NUMPY_SERVICE = `
import json, sys
import numpy as np
for line in sys.stdin:
    c = json.loads(line)
    a = np.array(c["data"], dtype=c["dtype"]).reshape(c["shape"])
    key = tuple(slice(*s[1:]) if s[0] == "s" else s[1] for s in c["sel"])
    if "values" in c:
        # A write: the selection takes the values (in its own shape); the answer is the whole array.
        a[key] = np.array(c["values"], dtype=c["dtype"]).reshape(np.shape(a[key]))
        r = a
    else:
        r = np.asarray(a[key])
    sys.stdout.write(json.dumps({"shape": list(r.shape), "data": r.ravel().tolist()}) + "\\n")
    sys.stdout.flush()
`;

interface NumpyAnswer {
  shape: number[];
  data: number[];
}

class Numpy {
  private readonly proc: ChildProcessWithoutNullStreams;
  private readonly answers: { resolve: (a: NumpyAnswer) => void; reject: (e: Error) => void }[] = [];
  private exited: string | null = null;
  constructor() {
    this.proc = spawn(PYTHON, ["-c", NUMPY_SERVICE]);
    this.proc.stderr.on("data", (b: Buffer) => process.stderr.write(b));
    createInterface({ input: this.proc.stdout }).on("line", (line) => this.answers.shift()!.resolve(JSON.parse(line) as NumpyAnswer));
    // Python failing (no numpy, a bad request) fails the questions still open instead of hanging.
    this.proc.on("exit", (code) => {
      this.exited = `${PYTHON} with numpy exited (${code})`;
      for (const a of this.answers.splice(0)) a.reject(new Error(this.exited));
    });
    this.proc.stdin.on("error", () => {}); // a write after the exit: reported by `exited`
  }
  ask(request: unknown): Promise<NumpyAnswer> {
    return new Promise((resolve, reject) => {
      if (this.exited !== null) return reject(new Error(this.exited));
      this.answers.push({ resolve, reject });
      this.proc.stdin.write(JSON.stringify(request) + "\n");
    });
  }
  close(): void {
    this.proc.stdin.end();
  }
}

// ---------------------------------------------------------------------------------------------
// Cases.

const DTYPES = {
  "|i1": { v3: "int8", ctor: Int8Array, value: (k: number, s: number) => ((k * 37 + s) % 256) - 128 },
  "<u2": { v3: "uint16", ctor: Uint16Array, value: (k: number, s: number) => (k * 7919 + s) % 65536 },
  "<i4": { v3: "int32", ctor: Int32Array, value: (k: number, s: number) => ((k * 104729 + s) % 2 ** 31) - 2 ** 30 },
  "<f8": { v3: "float64", ctor: Float64Array, value: (k: number, s: number) => (k * 13 + s) / 8 - 50 },
} as const;
type DtypeName = keyof typeof DTYPES;

const CODECS = ["blosc", "raw", "zlib", "sharded"] as const;
type CodecName = (typeof CODECS)[number];

/** One dimension: an integer, or a slice (start/stop null, negative or past the end; any step). */
type DimSpec = ["i", number] | ["s", number | null, number | null, number];

interface Case {
  shape: number[];
  chunks: number[];
  order: "C" | "F";
  dtype: DtypeName;
  codec: CodecName;
  seed: number;
  sels: DimSpec[][];
}

function dimArb(n: number): fc.Arbitrary<DimSpec> {
  const bound = fc.option(fc.integer({ min: -n - 2, max: n + 2 }), { nil: null });
  const step = fc.constantFrom(-3, -2, -1, -1, -1, 1, 1, 2, 3);
  // Whole dimensions, forwards and backwards, are common: the fast paths that place whole chunks
  // (decoded into place, into the output's rows) take only chunks a selection covers entirely.
  return fc.oneof(
    { weight: 1, arbitrary: fc.integer({ min: -n, max: n - 1 }).map((i): DimSpec => ["i", i]) },
    { weight: 3, arbitrary: fc.constantFrom<DimSpec>(["s", null, null, -1], ["s", null, null, 1]) },
    { weight: 4, arbitrary: fc.tuple(bound, bound, step).map(([a, b, s]): DimSpec => ["s", a, b, s]) },
  );
}

const caseArb: fc.Arbitrary<Case> = fc
  .array(fc.integer({ min: 1, max: 13 }), { minLength: 1, maxLength: 4 })
  .chain((shape) =>
    fc.record({
      shape: fc.constant(shape),
      chunks: fc.tuple(...shape.map((n) => fc.integer({ min: 1, max: n + 1 }))),
      order: fc.constantFrom("C" as const, "F" as const),
      dtype: fc.constantFrom(...(Object.keys(DTYPES) as DtypeName[])),
      codec: fc.constantFrom(...CODECS),
      seed: fc.integer({ min: 0, max: 1000 }),
      // Several selections per array; at least one with a backward step.
      sels: fc.array(fc.tuple(...shape.map(dimArb)), { minLength: 1, maxLength: 4 }),
    }),
  )
  // Fewer than ~8k elements keep a case cheap to send to numpy.
  .filter((c) => c.shape.reduce((a, b) => a * b, 1) <= 8000);

function toSelection(sel: DimSpec[]): DimSelection[] {
  return sel.map((d) => (d[0] === "i" ? d[1] : slice(d[1], d[2], d[3])));
}

async function makeArray(c: Case): Promise<{ a: ZarrArray; data: number[] }> {
  const { v3, ctor, value } = DTYPES[c.dtype];
  const path = join(root, `a${arrays++}`);
  const compressor: JsonObject | null =
    c.codec === "blosc" ? { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 } : c.codec === "zlib" ? { id: "zlib", level: 1 } : null;
  const layout =
    c.codec === "sharded"
      ? // v3: the shard is the outer chunk, made of 1-2 inner chunks per dimension.
        { zarrFormat: 3 as const, shards: c.chunks.map((n, d) => n * (1 + (d % 2))), chunks: c.chunks, dtype: v3 }
      : {
          zarrFormat: 2 as const,
          chunks: c.chunks,
          dtype: c.dtype,
          order: c.order,
          compressor,
        };
  const a = await createArray(new FileSystemStore(path), { shape: c.shape, fillValue: 0, ...layout });
  const n = c.shape.reduce((x, y) => x * y, 1);
  const data = Array.from({ length: n }, (_, k) => value(k, c.seed));
  await a.set(null, { data: ctor.from(data), shape: c.shape }, { threads: 0 });
  return { a, data };
}

type Mode = "inline" | "cache" | "pool" | "pool, shared out";

async function read(a: ZarrArray, c: Case, sel: DimSpec[], expected: NumpyAnswer, mode: Mode): Promise<unknown> {
  const selection = toSelection(sel);
  if (mode === "inline") return a.get(selection, { threads: 0 });
  if (mode === "cache") {
    // Through a chunk cache: the first read fills it, the second is served from it.
    const cached = await openArray(a.store, { mode: "r", cache: new ChunkCache({ maxBytes: 1 << 24 }) });
    await cached.get(selection, { threads: 0 });
    return cached.get(selection, { threads: 0 });
  }
  if (mode === "pool") return a.get(selection, { pool, threads: 2 });
  const { ctor } = DTYPES[c.dtype];
  const n = expected.shape.reduce((x, y) => x * y, 1);
  // Workers write a shared out in place (no staging buffer between them and it).
  const out = new ctor(new SharedArrayBuffer(n * ctor.BYTES_PER_ELEMENT) as unknown as ArrayBuffer);
  return a.get(selection, { pool, threads: 2, out } as never);
}

async function check(numpy: Numpy, c: Case, modes: readonly Mode[]): Promise<void> {
  const { a, data } = await makeArray(c);
  for (const sel of c.sels) {
    const expected = await numpy.ask({ dtype: c.dtype, shape: c.shape, data, sel });
    for (const mode of modes) {
      const what = `${mode}: ${JSON.stringify({ ...c, sels: undefined })} [${JSON.stringify(sel)}]`;
      const got = await read(a, c, sel, expected, mode);
      if (expected.shape.length === 0 && mode !== "pool, shared out") {
        assert.equal(got, expected.data[0], what);
        continue;
      }
      const nd = got as NDArray;
      assert.deepEqual(nd.shape, expected.shape, what);
      assert.deepEqual(Array.from(nd.data as ArrayLike<number>), expected.data, what);
    }
  }
}

/** Writes each selection (a value per selected element) and compares the whole array with numpy's. */
async function checkWrites(numpy: Numpy, c: Case, threads: 0 | 2): Promise<void> {
  const { a, data } = await makeArray(c);
  const { ctor, value } = DTYPES[c.dtype];
  let current = data;
  for (const [s, sel] of c.sels.entries()) {
    const selected = await numpy.ask({ dtype: c.dtype, shape: c.shape, data: current, sel });
    const values = selected.data.map((_, k) => value(k, c.seed + 1000 * (s + 1)));
    const expected = await numpy.ask({ dtype: c.dtype, shape: c.shape, data: current, sel, values });
    const input = selected.shape.length === 0 ? values[0] : { data: ctor.from(values), shape: selected.shape };
    await a.set(toSelection(sel), input, threads === 0 ? { threads } : { pool, threads });
    const got = (await a.get(null, { threads: 0 })) as NDArray;
    assert.deepEqual(Array.from(got.data as ArrayLike<number>), expected.data, `threads ${threads}: ${JSON.stringify({ ...c, sels: undefined })} [${JSON.stringify(sel)}]`);
    current = expected.data;
  }
}

// ---------------------------------------------------------------------------------------------

describe("negative-step slices", () => {
  it("the issue's read: <i4 blosc [12, 9, 5] in chunks [4, 3, 3], [::-1, :, ::-1], inline and on the pool", async () => {
    const numpy = new Numpy();
    try {
      const c: Case = {
        shape: [12, 9, 5],
        chunks: [4, 3, 3],
        order: "C",
        dtype: "<i4",
        codec: "blosc",
        seed: 1,
        sels: [
          [["s", null, null, -1], ["s", null, null, 1], ["s", null, null, -1]],
          [["s", null, null, 1], ["s", null, null, -1], ["s", 0, null, 1]],
          [["s", null, null, -1], ["s", null, null, -1], ["s", null, null, 1]],
          [["s", null, null, -2], ["s", 7, 1, -3], ["s", null, null, 1]],
        ],
      };
      await check(numpy, c, ["pool, shared out", "pool", "inline"]);
    } finally {
      numpy.close();
    }
  });

  it("random shapes, chunks, orders, types, codecs and steps against numpy (inline, and through a chunk cache)", async () => {
    const numpy = new Numpy();
    try {
      await fc.assert(
        fc.asyncProperty(caseArb, (c) => check(numpy, c, ["inline", "cache"])),
        { numRuns: 120, seed: 2611 },
      );
    } finally {
      numpy.close();
    }
  });

  it("random shapes, chunks, orders, types, codecs and steps against numpy (threads: 2, result and shared out)", async () => {
    const numpy = new Numpy();
    try {
      await fc.assert(
        fc.asyncProperty(caseArb, (c) => check(numpy, c, ["pool", "pool, shared out"])),
        { numRuns: 150, seed: 2612 },
      );
    } finally {
      numpy.close();
    }
  });

  it("writes through random negative and mixed steps against numpy (inline and threads: 2)", async () => {
    const numpy = new Numpy();
    try {
      await fc.assert(
        fc.asyncProperty(caseArb, fc.constantFrom(0 as const, 2 as const), (c, threads) => checkWrites(numpy, c, threads)),
        { numRuns: 50, seed: 2613 },
      );
    } finally {
      numpy.close();
    }
  });

  it("a destination planned wrongly is an internal fault, never a CORRUPT_CHUNK", async () => {
    // A raw whole chunk [2, 3] whose item claims an output position past the end of a [2, 3]
    // output: the bytes are fine, the plan is not, so the error must not call the chunk corrupt.
    const meta = parseV2Array({ zarr_format: 2, shape: [4, 3], chunks: [2, 3], dtype: "<i4", compressor: null, fill_value: 0, order: "C", filters: null }, {});
    const store = new MemoryStore();
    await store.set("1.0", new Uint8Array(new Int32Array([1, 2, 3, 4, 5, 6]).buffer));
    const item = { key: "1.0", origin: [2, 0], chunkSel: [{ start: 0, step: 1, count: 2 }, { start: 0, step: 1, count: 3 }], outStart: [2, 0] };
    // The chunk's place as one C-order run, then as rows of a wider output (a row stride of 4).
    for (const out of [{ data: new Int32Array(6), strides: [3, 1] }, { data: new Int32Array(8), strides: [4, 1] }]) {
      const task = { kind: "read" as const, store: store.descriptor(), meta, items: [item], out };
      await assert.rejects(runChunkTask(task, store), (err: unknown) => {
        assert.ok(!(err instanceof ZarrError && err.code === "CORRUPT_CHUNK"), `reported as corrupt: ${String(err)}`);
        assert.match(String(err), /internal error/);
        return true;
      });
    }
  });
});
