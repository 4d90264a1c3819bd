/**
 * The command line, run as a child process the way a user runs it. Values are checked against
 * what zarr-python wrote (the fixture manifests) and what zarr-python reads back from the copies.
 */
import { describe, test, before } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { FileSystemStore, ZipStore, createArray, openArray, openGroup, type NDArray, type TypedArray } from "../src/index.js";
import { FIXTURES, assertMatchesManifest, laterFeature, loadManifest, sha256, type ManifestEntry } from "./helpers/manifest.js";
import { scratchDir } from "./helpers/paths.js";
import { runOracle, runPython, zarrPythonSkip } from "./helpers/peers.js";
import { main } from "../src/cli/main.js";

const ROOT = new URL("../", import.meta.url).pathname;
const MAIN = join(ROOT, "src/cli/main.ts");
const NODE_ARGS = ["--expose-gc", "--import", "tsx", MAIN];
const exec = promisify(execFile);

interface Run {
  code: number;
  signal: string | null;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
  try {
    const r = await exec(process.execPath, [...NODE_ARGS, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      maxBuffer: 64 * 2 ** 20,
    });
    return { code: 0, signal: null, stdout: r.stdout, stderr: r.stderr };
  } catch (err) {
    const e = err as { code?: number; signal?: string | null; stdout: string; stderr: string };
    return { code: typeof e.code === "number" ? e.code : -1, signal: e.signal ?? null, stdout: e.stdout, stderr: e.stderr };
  }
}

/** The same entry point in this process: for the many small cases that need no separate process. */
async function inProcess(args: string[]): Promise<Run> {
  let stdout = "";
  let stderr = "";
  const sink = (add: (t: string) => void) => ({ write: (t: string | Uint8Array) => (add(String(t)), true) }) as unknown as NodeJS.WritableStream;
  const code = await main(args, {
    stdout: sink((t) => (stdout += t)),
    stderr: sink((t) => (stderr += t)),
    env: {},
  });
  return { code, signal: null, stdout, stderr };
}

function ok(r: Run, what: string): Run {
  assert.equal(r.code, 0, `${what} failed (${r.code}${r.signal ? `, ${r.signal}` : ""}): ${r.stderr}`);
  return r;
}

const PY = join(FIXTURES, "zarr-python-2.13");
const HIER = join(PY, "hierarchy.zarr");

/**
 * The v2 fixture arrays of hierarchy.zarr: every one is copied (strings, bytes, datetimes, fixed
 * strings and the record array, which becomes a v3 `struct`).
 */
function fixtureArrays(): ManifestEntry[] {
  return loadManifest(PY).filter((e) => e.path.startsWith("hierarchy.zarr/") && !e.unsupported_ok);
}

async function readAll(path: string, inner = ""): Promise<NDArray<TypedArray>> {
  const arr = await openArray(path, { path: inner, mode: "r" });
  return (await arr.get()) as NDArray<TypedArray>;
}

function bytesOf(a: NDArray<TypedArray>): Uint8Array {
  return new Uint8Array(a.data.buffer, a.data.byteOffset, a.data.byteLength);
}

describe("parzarr cp converts the zarr-python fixtures to v3 and back", () => {
  const tmp = scratchDir("parzarr-cli-");
  const v3 = join(tmp, "v3", "hierarchy.zarr");
  const v2 = join(tmp, "v2", "hierarchy.zarr");
  const readable = fixtureArrays();
  let toV3: Run;

  before(async () => {
    toV3 = ok(await cli(["cp", HIER, v3, "--format", "3", "--codec", "blosc:zstd:3:bitshuffle", "--skip-unreadable", "-q"]), "cp to v3");
    // Back to v2 keeping the codecs: v3 blosc becomes the numcodecs blosc compressor.
    ok(await cli(["cp", v3, v2, "--format", "2", "-q"]), "cp back to v2");
  });

  test("every array is copied, the record array as a v3 struct; none is skipped", () => {
    assert.ok(readable.length >= 60, `only ${readable.length} readable fixture arrays`);
    assert.ok(readable.some((e) => e.path === "hierarchy.zarr/structured/records"), "the record array is in the fixture");
    assert.equal(toV3.stderr.match(/skipping /g), null, toV3.stderr);
  });

  test("the v3 copy holds every value zarr-python wrote", async () => {
    const store = new FileSystemStore(join(tmp, "v3"), { readOnly: true });
    for (const e of readable) {
      const arr = await assertMatchesManifest(store, e);
      assert.equal(arr.zarrFormat, 3, e.path);
      assert.equal(arr.codecs.find((c) => c.name === "blosc")?.configuration?.cname, "zstd", e.path);
    }
  });

  test("the copy back to v2 holds the same values, and zarr-python reads it exactly", async (t) => {
    const store = new FileSystemStore(join(tmp, "v2"), { readOnly: true });
    for (const e of readable) assert.equal((await assertMatchesManifest(store, e)).zarrFormat, 2, e.path);
    const skip = zarrPythonSkip();
    if (skip) return t.skip(skip);
    // The sha256 of the values, not the values: JSON.parse has already rounded int64 values.
    const entries = readable.map((e) => (e.sha256 ? { path: e.path, shape: e.shape, sha256: e.sha256 } : e));
    writeFileSync(join(tmp, "v2", "manifest.json"), JSON.stringify(entries));
    const r = runOracle("check", join(tmp, "v2"));
    assert.equal(r.status, 0, `zarr-python check failed:\n${r.stdout}\n${r.stderr}`);
  });

  test("group attributes come along", async () => {
    const want = (await openGroup(HIER, { mode: "r" })).attrs;
    assert.deepEqual((await openGroup(v3, { mode: "r" })).attrs, want);
    assert.deepEqual((await openGroup(v2, { mode: "r" })).attrs, want);
  });

  test("without --codec a v2 compressor becomes its v3 equivalent", async () => {
    const out = join(tmp, "fill3.zarr");
    ok(await cli(["cp", `${HIER}#fill`, out, "--format", "3", "--skip-unreadable", "-q"]), "cp fill group");
    const doc = JSON.parse(readFileSync(join(out, "int42", "zarr.json"), "utf8"));
    assert.deepEqual(doc.codecs.map((c: { name: string }) => c.name), ["bytes", "numcodecs.zlib"]);
    assert.equal(doc.fill_value, 42);
    const store = new FileSystemStore(tmp, { readOnly: true });
    for (const e of readable.filter((x) => x.path.startsWith("hierarchy.zarr/fill/"))) {
      await assertMatchesManifest(store, { ...e, path: e.path.replace("hierarchy.zarr/fill", "fill3.zarr") });
    }
  });
});

describe("parzarr cp rechunks within the memory budget", () => {
  const tmp = scratchDir("parzarr-cli-rechunk-");
  const src = join(tmp, "src.zarr");
  const shape = [1024, 1000];
  const budget = 2 * 2 ** 20;
  let expected: Uint8Array;

  before(async () => {
    // A random walk along rows, v2 blosc-lz4, with an all-zero band whose chunks are not stored.
    const a = await createArray(src, {
      zarrFormat: 2, shape, chunks: [100, 130], dtype: "<f4",
      compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 },
    });
    const data = new Float32Array(shape[0] * shape[1]);
    let seed = 7;
    for (let i = 0; i < shape[0]; i++) {
      let x = 0;
      for (let j = 0; j < shape[1]; j++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        x += seed / 2 ** 32 - 0.5;
        data[i * shape[1] + j] = i >= 300 && i < 500 ? 0 : x;
      }
    }
    await a.set(null, { data, shape });
    expected = new Uint8Array(data.buffer);
    // The point of the test: the array is bigger than the budget.
    assert.ok(data.byteLength > 1.5 * budget);
  });

  // Destination chunks of at most 64 KiB: eight in flight, each with its encoded copy, fit the
  // 2 MiB budget next to a slab. Few chunks each, as the debug sampling forces a GC per chunk.
  for (const chunks of ["128,125", "16,1000", "1024,16"]) {
    test(`to chunks ${chunks}: equal values, peak buffers under --memory`, async () => {
      const dst = join(tmp, `c${chunks.replace(",", "x")}.zarr`);
      const args = ["cp", src, dst, "--chunks", chunks, "--codec", "zstd:3", "--format", "3", "--memory", String(budget)];
      const plan = ok(await cli([...args, "--dry-run"]), "dry run").stdout;
      const m = /= ([\d.]+) (KiB|MiB) of 2.0 MiB/.exec(plan);
      assert.ok(m, plan);
      assert.ok(Number(m[1]) * (m[2] === "MiB" ? 2 ** 20 : 2 ** 10) <= budget, `planned ${m[0]}`);
      assert.ok(!existsSync(dst), "a dry run writes nothing");

      const r = ok(await cli([...args, "-q"], { PARZARR_CP_DEBUG: "1" }), "cp");
      const debug = JSON.parse(/parzarr-debug (.*)/.exec(r.stderr)![1]);
      assert.equal(debug.gcForced, true);
      // Live ArrayBuffer bytes (slabs, chunks, encoded bytes) above what the process held before.
      assert.ok(debug.peakArrayBuffers - debug.baselineArrayBuffers <= budget, JSON.stringify(debug));
      assert.ok(debug.peakArrayBuffers - debug.baselineArrayBuffers > 0);

      const got = await readAll(dst);
      assert.deepEqual(got.shape, shape);
      assert.equal(sha256(bytesOf(got)), sha256(expected));
      const arr = await openArray(dst, { mode: "r" });
      assert.deepEqual(arr.chunks, chunks.split(",").map(Number));
      // Chunks that hold only the fill value (inside the zero band of rows 300-500) were not stored.
      const rows = arr.chunks[0];
      const zeroRows = [...Array(arr.chunkGrid[0]).keys()].filter((k) => k * rows >= 300 && (k + 1) * rows <= 500).length;
      assert.equal(await arr.nchunksInitialized(), (arr.chunkGrid[0] - zeroRows) * arr.chunkGrid[1]);
    });
  }

  test("dimension names move between v3 dimension_names and v2 _ARRAY_DIMENSIONS", async () => {
    const a3 = join(tmp, "named3.zarr");
    await createArray(a3, { shape: [4, 3], chunks: [2, 3], dtype: "int16", dimensionNames: ["y", "x"], attributes: { units: "m" } });
    ok(await cli(["cp", a3, join(tmp, "named2.zarr"), "--format", "2", "--codec", "gzip:1", "-q"]), "to v2");
    const v2 = await openArray(join(tmp, "named2.zarr"), { mode: "r" });
    assert.deepEqual(v2.attrs, { units: "m", _ARRAY_DIMENSIONS: ["y", "x"] });
    ok(await inProcess(["cp", join(tmp, "named2.zarr"), join(tmp, "named3b.zarr"), "--format", "3", "-q"]), "back to v3");
    const back = await openArray(join(tmp, "named3b.zarr"), { mode: "r" });
    assert.deepEqual(back.metadata.dimensionNames, ["y", "x"]);
    assert.deepEqual(back.attrs, { units: "m" });
  });

  test("a budget too small for one chunk and its buffers is a TOO_LARGE (exit code 1), not a usage error", async () => {
    const r = await cli(["cp", src, join(tmp, "never.zarr"), "--chunks", "1024,1000", "--memory", "1MiB"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /TOO_LARGE: --memory 1\.0 MiB is too small/);
    assert.ok(!existsSync(join(tmp, "never.zarr")));
  });

  test("--resume finishes a copy killed in the middle of a slab", async () => {
    const dst = join(tmp, "resume.zarr");
    const args = ["cp", src, dst, "--chunks", "128,128", "--codec", "gzip:1", "--memory", String(budget)];
    const killed = await cli(args, { PARZARR_CP_CRASH_AFTER_SLABS: "2" });
    assert.equal(killed.signal, "SIGKILL", `expected the hook to kill the copy: ${killed.stderr}`);
    const journal = JSON.parse(readFileSync(join(dst, ".parzarr-cp-journal.json"), "utf8"));
    assert.deepEqual(journal.arrays[""].done, [[0, 1]]);
    assert.ok(journal.arrays[""].count > 3);

    const again = await cli(args);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /ALREADY_EXISTS.*--resume/);
    const changed = await cli([...args.map((a) => (a === "128,128" ? "64,64" : a)), "--resume"]);
    assert.equal(changed.code, 2);
    assert.match(changed.stderr, /cannot resume/);

    const resumed = ok(await cli([...args, "--resume"]), "resume");
    assert.match(resumed.stderr, /2 slab\(s\) already done/);
    assert.ok(!existsSync(join(dst, ".parzarr-cp-journal.json")), "the journal is removed at the end");
    assert.equal(sha256(bytesOf(await readAll(dst))), sha256(expected));
    assert.equal((await openArray(dst, { mode: "r" })).zarrFormat, 2);
  });

  test("progress: plain lines without a terminal, a redrawn bar in a pseudo-terminal", async (t) => {
    const plain = ok(await cli(["cp", src, join(tmp, "plain.zarr"), "--chunks", "256,256"]), "cp");
    assert.match(plain.stderr, /^cp: done 100% 16\/16 chunks .*\/s .* left$/m);
    assert.ok(!plain.stderr.includes("\r") && !plain.stderr.includes("\x1b["), "no terminal controls in a log");

    if (spawnSync("script", ["--version"]).status !== 0) return t.skip("script (util-linux) is not installed");
    const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
    const cmd = [process.execPath, ...NODE_ARGS, "cp", src, join(tmp, "tty.zarr"), "--chunks", "256,256"].map(quote).join(" ");
    const r = spawnSync("script", ["-qfec", cmd, "/dev/null"], { cwd: ROOT, encoding: "utf8" });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.ok(r.stdout.includes("\r"), "the bar is redrawn in place");
    assert.match(r.stdout, /█+\s*100% 16\/16 chunks/);
    assert.ok(!r.stdout.includes("cp: progress"), "no plain lines on a terminal");
    assert.equal(sha256(bytesOf(await readAll(join(tmp, "tty.zarr")))), sha256(expected));
  });
});

describe("parzarr info, tree and get on the fixtures", () => {
  const manifest = new Map(loadManifest(PY).map((e) => [e.path, e]));

  test("info shows the layout and counts stored bytes and chunks as the files on disk say", async () => {
    const dir = join(HIER, "compressors", "blosc_lz4_shuffle_F");
    // Nested chunk keys ("0/1"): every file below the folder.
    const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => statSync(join(dir, f)).isFile());
    const chunkFiles = files.filter((f) => !f.startsWith("."));
    const stored = files.reduce((n, f) => n + statSync(join(dir, f)).size, 0);
    const zarray = JSON.parse(readFileSync(join(dir, ".zarray"), "utf8"));
    const info = JSON.parse(ok(await cli(["info", `${HIER}#compressors/blosc_lz4_shuffle_F`, "--json"]), "info").stdout);
    assert.deepEqual(info.shape, zarray.shape);
    assert.deepEqual(info.chunks, zarray.chunks);
    assert.equal(info.order, "F");
    assert.equal(info.numpyDtype, zarray.dtype);
    assert.equal(info.nbytes, 37 * 23 * 8);
    assert.equal(info.nbytesStored, stored);
    assert.equal(info.chunksInitialized, chunkFiles.length);
    assert.equal(info.chunksTotal, Math.ceil(37 / zarray.chunks[0]) * Math.ceil(23 / zarray.chunks[1]));
    const text = ok(await cli(["info", `${HIER}#compressors/blosc_lz4_shuffle_F`]), "info").stdout;
    assert.match(text, /^Shape +: \(37, 23\)$/m);
    assert.match(text, new RegExp(`^Chunks initialized : ${chunkFiles.length}/${info.chunksTotal}$`, "m"));
    // A v2 array shows its .zarray's compressor and filters, as zarr-python's info does.
    assert.match(text, /^Compressor +: blosc\(blocksize=0, clevel=5, cname=lz4, shuffle=1\)$/m);
    assert.match(text, /^Filters +: None$/m);
    const group = ok(await cli(["info", HIER]), "group info").stdout;
    assert.match(group, /Type +: group \(Zarr v2\)/);
    assert.match(group, /^Arrays \(all levels\) +: [1-9]\d*$/m);
    assert.match(group, /"title":"fixture"/);
  });

  test("tree lists every node with the shape and type zarr-python recorded", async () => {
    const out = ok(await cli(["tree", HIER]), "tree").stdout;
    for (const e of manifest.values()) {
      if (!e.path.startsWith("hierarchy.zarr/")) continue;
      const name = e.path.split("/").pop()!;
      const line = out.split("\n").find((l) => l.match(new RegExp(`[└├]── ${name}( |$)`)));
      assert.ok(line, `${name} missing from:\n${out}`);
      if (laterFeature(PY, e) === null) {
        const shape = e.shape!.length === 1 ? `(${e.shape![0]},)` : `(${e.shape!.join(", ")})`;
        assert.ok(line.includes(` ${shape} `), `${line} should show ${shape}`);
      }
    }
    // Types of every kind show as zarr-python spells them, fixed bytes and datetimes included.
    assert.match(out, /── S7 \(5, 6, 7\) \|S7$/m);
    assert.match(out, /── le_M8_ns \(5, 6, 7\) <M8\[ns\]$/m);
  });

  test("get prints the selected values", async () => {
    const e = manifest.get("hierarchy.zarr/dtypes/le_i4")!; // shape [5, 6, 7]
    const out = ok(await cli(["get", `${HIER}#dtypes/le_i4`, "1, 2:4, ::3"]), "get").stdout;
    const want: number[][] = [2, 3].map((j) => [0, 3, 6].map((k) => e.values![1 * 42 + j * 7 + k] as number));
    assert.deepEqual(
      out.trim().replace(/[[\]]/g, " ").trim().split(/\s+/).map(Number),
      want.flat(),
    );
    assert.equal(out.trim().split("\n").length, 2);
    // Past the threshold only the corners are read and printed, numpy-style.
    const big = manifest.get("hierarchy.zarr/compressors/zstd3_C")!; // 37 x 23 float64
    const corners = ok(await inProcess(["get", `${HIER}#compressors/zstd3_C`, "::2, 1:", "--threshold", "100"]), "get corners").stdout;
    const v = (i: number, j: number) => big.values![i * 23 + j] as number;
    const tokens = corners.replace(/[[\]]/g, " ").trim().split(/\s+/);
    assert.equal(tokens.length, 6 * 7 + 1, corners); // 3 rows, "...", 3 rows; each 3 + "..." + 3
    assert.equal(tokens[21], "...");
    const rows = [0, 1, 2, 3, 4, 5].map((r) => tokens.slice(r * 7 + (r >= 3 ? 1 : 0), r * 7 + 7 + (r >= 3 ? 1 : 0)));
    const expectRow = (i: number) => [1, 2, 3].map((j) => v(i, j)).concat([20, 21, 22].map((j) => v(i, j)));
    // Selected rows are 0, 2, ..., 36 (19 of them): printed are 0, 2, 4 and 32, 34, 36.
    for (const [r, i] of [[0, 0], [1, 2], [2, 4], [3, 32], [4, 34], [5, 36]] as const) {
      assert.equal(rows[r][3], "...", corners);
      const got = rows[r].filter((x) => x !== "...").map(Number);
      got.forEach((x, k) => assert.ok(Math.abs(x - expectRow(i)[k]) < 1e-7, `row ${i}: ${x} vs ${expectRow(i)[k]}`));
    }
    const scalar = ok(await cli(["get", `${HIER}#dtypes/le_i4`, "4, 5, -1"]), "get scalar").stdout.trim();
    assert.equal(Number(scalar), e.values![4 * 42 + 5 * 7 + 6]);
  });

  test("get --out writes .npy, .bin and .json that match zarr-python's values", async (t) => {
    const tmp = scratchDir("parzarr-cli-get-");
    const names = ["be_f8", "le_f2", "le_c8", "b1", "le_i8"];
    for (const [i, name] of names.entries()) {
      const e = manifest.get(`hierarchy.zarr/dtypes/${name}`)!;
      const target = `${HIER}#dtypes/${name}`;
      // One child process here, the rest in this process: the files are what is under test.
      ok(await (i === 0 ? cli : inProcess)(["get", target, "--out", join(tmp, `${name}.bin`)]), "bin");
      assert.equal(sha256(readFileSync(join(tmp, `${name}.bin`))), e.sha256, `${name}.bin`);
      ok(await (i === 0 ? cli : inProcess)(["get", target, "--out", join(tmp, `${name}.npy`)]), "npy");
      const npy = readFileSync(join(tmp, `${name}.npy`));
      const headerLen = npy.readUInt16LE(8);
      assert.equal((10 + headerLen) % 64, 0);
      assert.match(npy.subarray(10, 10 + headerLen).toString("latin1"), /'fortran_order': False, 'shape': \(5, 6, 7\), }\s*\n$/);
      assert.equal(sha256(npy.subarray(10 + headerLen)), e.sha256, `${name}.npy body`);
    }
    ok(await inProcess(["get", `${HIER}#fill/nan`, "0:2, 0:2", "--out", join(tmp, "nan.json")]), "json");
    const doc = JSON.parse(readFileSync(join(tmp, "nan.json"), "utf8"));
    const e = manifest.get("hierarchy.zarr/fill/nan")!;
    assert.deepEqual(doc.shape, [2, 2]);
    assert.deepEqual(doc.data, [[e.values![0], e.values![1]], [e.values![20], e.values![21]]]);
    const skip = zarrPythonSkip();
    if (skip) return t.skip(skip);
    const r = runPython(
      "import sys, numpy as np, zarr\n" +
        "for name in ['be_f8', 'le_f2', 'le_c8', 'b1', 'le_i8']:\n" +
        "    a = np.load(f'{sys.argv[1]}/{name}.npy')\n" +
        "    z = zarr.open(sys.argv[2] + '/dtypes/' + name, mode='r')[:]\n" +
        "    assert a.dtype == z.dtype.newbyteorder('<') or a.dtype == z.dtype, (name, a.dtype, z.dtype)\n" +
        "    assert np.array_equal(a, z, equal_nan=a.dtype.kind in 'fc'), name\n" +
        "print('ok')",
      tmp,
      HIER,
    );
    assert.equal(r.status, 0, r.stderr);
  });
});

describe("errors are clean, with stable exit codes", { concurrency: 4 }, () => {
  const cases: [string, string[], number, RegExp][] = [
    ["a missing path", ["info", "/nonexistent/data.zarr"], 1, /^parzarr info: NOT_FOUND: nothing at \/nonexistent\/data\.zarr/],
    ["an out-of-range index", ["get", `${HIER}#dtypes/le_i4`, "99"], 1, /BAD_SELECTION: axis 0: index 99 is out of bounds/],
    ["a malformed selection", ["get", `${HIER}#dtypes/le_i4`, "a:b"], 1, /BAD_SELECTION/],
    ["get on a group", ["get", HIER], 1, /NODE_TYPE_MISMATCH: .* is a group/],
    ["an unknown command", ["frobnicate"], 2, /unknown command "frobnicate"/],
    ["an unknown option", ["info", HIER, "--colour"], 2, /Unknown option '--colour'/],
    ["a bad --memory", ["cp", HIER, "/tmp/x.zarr", "--memory", "lots"], 2, /--memory must be a size/],
    ["a bad --codec", ["cp", HIER, "/tmp/x.zarr", "--codec", "brotli:3"], 2, /unknown codec/],
    ["--shards with --format 2", ["cp", `${HIER}#dtypes/le_i4`, "/tmp/x.zarr", "--shards", "5,6,7", "--format", "2"], 2, /--shards needs --format 3/],
    ["a bad --out ending", ["get", `${HIER}#dtypes/le_i4`, "--out", "x.csv"], 2, /must end in \.npy, \.bin or \.json/],
    ["missing arguments", ["cp", HIER], 2, /missing DST/],
  ];
  for (const [i, [what, args, code, pattern]] of cases.entries()) {
    // The first few as real processes (exit status and all), the rest through main() directly.
    test(what, async () => {
      const r = i < 3 ? await cli(args) : await inProcess(args);
      assert.equal(r.code, code, r.stderr);
      assert.match(r.stderr, pattern);
      assert.ok(!/\n\s+at /.test(r.stderr), "no stack trace");
    });
  }

  test("every command has --help", async () => {
    const top = ok(await cli(["--help"]), "--help").stdout;
    for (const name of ["info", "tree", "get", "cp", "consolidate", "zom", "bench"]) {
      assert.match(top, new RegExp(`^  ${name} `, "m"));
      const r = ok(await inProcess([name, "--help"]), `${name} --help`);
      assert.match(r.stdout, new RegExp(`^Usage: parzarr ${name}`));
    }
  });
});

test("get --out .json writes bytes values as base64, as info shows a bytes fill value; a missing one as null", async () => {
  const tmp = scratchDir("parzarr-cli-bytes-");
  const bytes = { name: "bytes", configuration: {} };
  const cases: [string, unknown, unknown[], unknown[]][] = [
    ["b", "bytes", [Uint8Array.of(1, 2), Uint8Array.of(), Uint8Array.of(255)], ["AQI=", "", "/w=="]],
    ["ob", { name: "optional", configuration: bytes }, [Uint8Array.of(1, 2), null, Uint8Array.of(255)], ["AQI=", null, "/w=="]],
    ["oob", { name: "optional", configuration: { name: "optional", configuration: bytes } }, [[Uint8Array.of(1, 2)], null, [null]], [["AQI="], null, [null]]],
  ];
  for (const [name, dtype, values, json] of cases) {
    const a = await createArray(join(tmp, name), { shape: [3], chunks: [2], dtype: dtype as never });
    await a.set(null, values as never);
    ok(await inProcess(["get", join(tmp, name), "--out", join(tmp, `${name}.json`)]), `get ${name}`);
    assert.deepEqual(JSON.parse(readFileSync(join(tmp, `${name}.json`), "utf8")).data, json, name);
    ok(await inProcess(["get", join(tmp, name), "0", "--out", join(tmp, `${name}-0.json`)]), `get ${name} 0`);
    assert.deepEqual(JSON.parse(readFileSync(join(tmp, `${name}-0.json`), "utf8")).data, json[0], `${name}[0]`);
  }
  // A vlen-array element (a typed array) as its numbers, as info shows its fill value.
  const va = await createArray(join(tmp, "va"), { zarrFormat: 2, shape: [3], chunks: [2], dtype: "|O", filters: [{ id: "vlen-array", dtype: "<i4" }], fillValue: 0 });
  await va.set(null, [Int32Array.of(1, 2, 3), [], [-7]] as never);
  ok(await inProcess(["get", join(tmp, "va"), "--out", join(tmp, "va.json")]), "get va");
  assert.deepEqual(JSON.parse(readFileSync(join(tmp, "va.json"), "utf8")).data, [[1, 2, 3], [], [-7]]);
  await createArray(join(tmp, "fill"), { shape: [1], chunks: [1], dtype: "bytes", fillValue: "AQI=" as never });
  assert.match(ok(await inProcess(["info", join(tmp, "fill")]), "info").stdout, /\nFill value +: "AQI="\n/);
  assert.equal(JSON.parse(ok(await inProcess(["info", join(tmp, "fill"), "--json"]), "info").stdout).fillValue, "AQI=");
});

test("get --out .json writes fixed-length bytes and raw bits in the form info gives their fill value, not as byte-keyed objects", async () => {
  const tmp = scratchDir("parzarr-cli-fixed-bytes-");
  const cases: [string, 2 | 3, unknown, Uint8Array[], unknown[]][] = [
    ["s3", 2, "|S3", [Uint8Array.of(97, 98, 0), Uint8Array.of(1, 2, 3)], ["YWI=", "AQID"]],
    ["v2", 2, "|V2", [Uint8Array.of(1, 2), Uint8Array.of(255, 0)], ["AQI=", "/wA="]],
    ["r16", 3, "r16", [Uint8Array.of(1, 2), Uint8Array.of(255, 0)], [[1, 2], [255, 0]]],
  ];
  for (const [name, zarrFormat, dtype, values, json] of cases) {
    const a = await createArray(join(tmp, name), { zarrFormat, shape: [2], chunks: [2], dtype: dtype as never });
    await a.set(null, values as never);
    ok(await inProcess(["get", join(tmp, name), "--out", join(tmp, `${name}.json`)]), `get ${name}`);
    assert.deepEqual(JSON.parse(readFileSync(join(tmp, `${name}.json`), "utf8")).data, json, name);
    ok(await inProcess(["get", join(tmp, name), "1", "--out", join(tmp, `${name}-1.json`)]), `get ${name} 1`);
    assert.deepEqual(JSON.parse(readFileSync(join(tmp, `${name}-1.json`), "utf8")).data, json[1], `${name}[1]`);
  }
});

// Keeps the copy used by the fixture tests honest: the tree of a copy is the tree of its source.
test("tree of a copied hierarchy lists the same arrays as its source", async () => {
  const tmp = scratchDir("parzarr-cli-tree-");
  const src = join(tmp, "src");
  cpSync(join(HIER, "compressors"), join(src, "compressors"), { recursive: true });
  cpSync(join(HIER, ".zgroup"), join(src, ".zgroup"));
  ok(await cli(["cp", src, join(tmp, "dst.zarr"), "--format", "3", "--codec", "zstd:1", "--skip-unreadable", "-q"]), "cp");
  const a = ok(await cli(["tree", src, "--json"]), "tree").stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const b = ok(await cli(["tree", join(tmp, "dst.zarr"), "--json"]), "tree").stdout.split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const arrays = (xs: { kind: string; path: string; shape?: number[] }[]) => xs.filter((x) => x.kind === "array").map((x) => `${x.path} ${x.shape}`);
  const sorted = (xs: string[]) => [...xs].sort();
  assert.deepEqual(sorted(arrays(b)), sorted(arrays(a.filter((x) => x.kind === "array"))));
});

describe("parzarr consolidate and zom", () => {
  test("consolidate writes a .zmetadata that zarr-python's open_consolidated reads", async (t) => {
    const dir = scratchDir("cli-consolidate");
    cpSync(join(FIXTURES, "zarr-python-2.13", "hierarchy.zarr"), dir, { recursive: true });
    const meta = join(dir, ".zmetadata");
    if (existsSync(meta)) writeFileSync(meta, "{}"); // a stale, empty document: consolidate must replace it
    ok(await inProcess(["consolidate", dir]), "consolidate");
    const doc = JSON.parse(readFileSync(meta, "utf8")) as { metadata: Record<string, unknown> };
    assert.ok(".zgroup" in doc.metadata && Object.keys(doc.metadata).some((k) => k.endsWith("/.zarray")));
    const skip = zarrPythonSkip();
    if (skip) return t.skip(skip);
    const r = runPython("import sys, zarr; g = zarr.open_consolidated(sys.argv[1], mode='r'); print(sorted(g.group_keys()))", dir);
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stdout.includes("compressors"), r.stdout);
  });

  test("zom prints the model of a hierarchy, equal to its metadata files", async () => {
    const dir = join(FIXTURES, "zarr-python-2.13", "hierarchy.zarr");
    const r = ok(await inProcess(["zom", dir, "--compact"]), "zom");
    const model = JSON.parse(r.stdout) as { zarr_format: number; attributes: unknown; members: Record<string, unknown> };
    assert.equal(model.zarr_format, 2);
    assert.deepEqual(model.attributes, JSON.parse(readFileSync(join(dir, ".zattrs"), "utf8")));
    assert.deepEqual(Object.keys(model.members).sort(), readdirSync(dir).filter((n) => statSync(join(dir, n)).isDirectory()).sort());
  });
});

test("bench runs the read/write comparison on a small generated array and reports every implementation", async () => {
  const dir = scratchDir("cli-bench");
  const r = ok(await inProcess(["bench", "--size", "256", "--chunks", "128", "--repeat", "1", "--dir", dir, "--json"]), "bench");
  const result = JSON.parse(r.stdout) as {
    measurements: { impl: string; codec: string; op: string; mode?: string; seconds: number | null }[];
    checksumMismatches: string[];
    skipped: string[];
    targets: { name: string; ratio: number | null; target: number }[];
  };
  assert.deepEqual(result.checksumMismatches, []);
  // Issue 31's goals for reads into a reused out, each computed from this run's times.
  const target = (name: string) => result.targets.find((t) => t.name === name);
  assert.equal(target("read into out, blosc-lz4, vs zarr-python out=")?.target, 1.2);
  assert.equal(target("read into out, raw, vs zarr-python out=")?.target, 1);
  assert.equal(target("read into out, blosc-zstd, 2 threads vs inline")?.target, 1.6);
  assert.equal(target("read into out, zlib, 2 threads vs inline")?.target, 1.8);
  for (const codec of ["blosc-lz4", "blosc-zstd", "zlib", "raw"]) {
    const d = target(`read into out, ${codec}, default vs the better of inline, 2 thr`);
    assert.equal(d?.target, 1 / 1.1, codec);
    assert.equal(typeof d?.ratio, "number", codec);
  }
  const parzarr = result.measurements.filter((m) => m.impl === "parzarr");
  // Three thread settings, four codecs: a fresh read, a read into out and a write each; and the
  // four fresh reads with huge pages where glibc has them (a skip says so otherwise).
  const hugePages = result.skipped.some((s) => s.startsWith("huge pages")) ? 0 : 4;
  assert.equal(parzarr.filter((m) => m.mode !== "hugepages").length, 36);
  assert.equal(parzarr.filter((m) => m.mode === "hugepages").length, hugePages);
  assert.ok(parzarr.every((m) => typeof m.seconds === "number"));
  assert.ok(result.measurements.some((m) => m.impl === "zarrita" && m.op === "read"));
  if (!zarrPythonSkip()) assert.ok(result.measurements.some((m) => m.impl === "zarr-python" && m.mode === "out" && typeof m.seconds === "number"));
});

describe("parzarr cp into a zip archive and into shards", () => {
  const inner = "compressors/blosc_lz4_shuffle_C";
  const digest = (a: NDArray<TypedArray>) => createHash("sha256").update(bytesOf(a)).digest("hex");

  test("an array copied into a .zip is a finished archive that zarr-python's ZipStore reads exactly", async (t) => {
    const zip = join(scratchDir("parzarr-cli-zip-"), "out.zip");
    ok(await cli(["cp", `${HIER}#${inner}`, zip, "-q"]), "cp to zip");
    // What zarr-python read from the source, as its manifest records it.
    const want = loadManifest(PY).find((e) => e.path === `hierarchy.zarr/${inner}`)!.sha256;
    const back = await openArray(new ZipStore(zip, { mode: "r" }), { mode: "r" });
    assert.equal(digest((await back.get()) as NDArray<TypedArray>), want);
    const skip = zarrPythonSkip();
    if (skip) return t.skip(skip);
    const r = runPython(
      "import sys, hashlib, zarr; a = zarr.open(zarr.ZipStore(sys.argv[1], mode='r'), mode='r')[:]; print(hashlib.sha256(a.astype('<f8').tobytes()).hexdigest())",
      zip,
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), want);
  });

  test("--shards writes a sharded v3 array with the asked inner chunks and equal values", async () => {
    const dst = join(scratchDir("parzarr-cli-shards-"), "s.zarr");
    ok(await cli(["cp", `${HIER}#${inner}`, dst, "--format", "3", "--chunks", "8,8", "--shards", "16,16", "--codec", "zstd:3", "-q"]), "cp --shards");
    const s = await openArray(dst, { mode: "r" });
    assert.deepEqual([s.chunks, s.shards], [[8, 8], [16, 16]]);
    assert.equal(s.codecs[0].name, "sharding_indexed");
    assert.equal(digest((await s.get()) as NDArray<TypedArray>), loadManifest(PY).find((e) => e.path === `hierarchy.zarr/${inner}`)!.sha256);
  });
});
