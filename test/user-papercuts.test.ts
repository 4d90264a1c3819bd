/**
 * The small things a user meets (issue 30 item 7): errors that name the store's folder or URL,
 * an option error's code, the warnings a fetchOnCaller read printed, which commands run
 * themselves again for huge pages, `cp`'s memory plan, and how `tree` spells a data type.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  FileSystemStore,
  InvalidArgumentError,
  NotFoundError,
  ReadOnlyError,
  createArray,
  createGroup,
  openArray,
  openGroup,
  type Mode,
} from "../src/index.js";
import { hugeTlbEnv } from "../src/cli/hugepages.js";
import { planSlabs } from "../src/copy/slabs.js";
import { cliInProcess } from "./helpers/cli-in-process.js";
import { scratchDir } from "./helpers/paths.js";

const SRC = join(import.meta.dirname, "..", "src");
const MAIN = join(SRC, "cli", "main.ts");

test("not-found and read-only errors name the store's folder, not 'the store root'", async () => {
  const dir = scratchDir();
  const missing = join(dir, "nothing.zarr");
  await assert.rejects(openArray(missing, { mode: "r" }), (e: unknown) => e instanceof NotFoundError && e.message.includes(missing) && !/store root/.test(e.message));
  await assert.rejects(openGroup(missing, { mode: "r" }), (e: unknown) => e instanceof NotFoundError && e.message.includes(missing));
  await assert.rejects(openArray(missing, { mode: "r", path: "a/b" }), (e: unknown) => e instanceof NotFoundError && e.message.includes(`"a/b" in ${missing}`));
  const at = join(dir, "a.zarr");
  await createArray(at, { shape: [2], dtype: "int8" });
  const a = await openArray(at, { mode: "r" });
  await assert.rejects(a.set(null, 1), (e: unknown) => e instanceof ReadOnlyError && e.message.includes(at) && !/store root/.test(e.message));
  const g = join(dir, "g.zarr");
  await createGroup(g);
  const group = await openGroup(g, { mode: "r" });
  await assert.rejects(group.setAttrs({ x: 1 }), (e: unknown) => e instanceof ReadOnlyError && e.message.includes(g));
  await assert.rejects(
    createArray(new FileSystemStore(g, { readOnly: true }), { shape: [1], dtype: "int8" }),
    (e: unknown) => e instanceof ReadOnlyError && e.message.includes(g),
  );
});

test("a bad openArray mode is an INVALID_ARGUMENT", async () => {
  const at = join(scratchDir(), "a.zarr");
  for (const open of [() => openArray(at, { mode: "rw" as Mode }), () => openGroup(at, { mode: "x" as Mode })]) {
    await assert.rejects(open(), (e: unknown) => e instanceof InvalidArgumentError && e.code === "INVALID_ARGUMENT" && /mode must be one of/.test(e.message));
  }
  // So is a synchronizer that is not one: options, not a selection.
  await assert.rejects(openArray(at, { synchronizer: {} as never }), (e: unknown) => e instanceof InvalidArgumentError && /synchronizer must be/.test(e.message));
});

test("CLI tree spells plain numeric types as the API and zarr-python do (float32, not <f4)", async () => {
  const dir = scratchDir();
  const root = join(dir, "h.zarr");
  await createGroup(root, { zarrFormat: 2 });
  await createArray(root, { path: "f", zarrFormat: 2, shape: [3], dtype: "<f4" });
  await createArray(root, { path: "i", zarrFormat: 2, shape: [3], dtype: "<i8" });
  await createArray(root, { path: "big", zarrFormat: 2, shape: [3], dtype: ">f4" });
  await createArray(root, { path: "s", zarrFormat: 2, shape: [3], dtype: "|S7" });
  const r = await cliInProcess(["tree", root]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /── f \(3,\) float32$/m);
  assert.match(r.stdout, /── i \(3,\) int64$/m);
  // numpy's own str() keeps the code for a non-native byte order and for fixed-size bytes.
  assert.match(r.stdout, /── big \(3,\) >f4$/m);
  assert.match(r.stdout, /── s \(3,\) \|S7$/m);
  const json = await cliInProcess(["tree", `${root}#f`, "--json"]);
  assert.equal(JSON.parse(json.stdout).dtype, "float32");
});

const glibc = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
const reruns = process.platform === "linux" && glibc !== undefined && hugeTlbEnv({ platform: "linux", glibc, env: {} }) !== null;

test("only commands that read large arrays run again for huge pages: not --help, info, tree", () => {
  for (const command of [undefined, "--help", "--version", "help", "info", "tree", "zom", "consolidate", "refs", "worker", "view", "cp"]) {
    assert.equal(hugeTlbEnv({ platform: "linux", glibc: "2.36", env: {}, command: command ?? "" }), null, `${command} re-runs`);
  }
  for (const command of ["get", "bench"]) {
    assert.ok(hugeTlbEnv({ platform: "linux", glibc: "2.36", env: {}, command }), `${command} does not re-run`);
  }
});

test("spawned --help and info start no second process", { skip: reruns ? false : "not glibc >= 2.35 Linux" }, async () => {
  const dir = scratchDir();
  const at = join(dir, "a.zarr");
  await createArray(at, { shape: [2], dtype: "int8" });
  const { GLIBC_TUNABLES: _drop, ...base } = process.env;
  for (const args of [["--help"], ["info", at], ["tree", at]]) {
    const r = spawnSync(process.execPath, ["--import", "tsx", MAIN, ...args], { encoding: "utf8", env: { ...base, PARZARR_DEBUG: "1" } });
    assert.equal(r.status, 0, r.stderr);
    // The re-run announces itself under PARZARR_DEBUG=1 (hugepages.ts), once per re-run.
    assert.doesNotMatch(r.stderr, /running again/, `${args[0]} ran itself again`);
  }
});

test("fetchOnCaller reads over HTTP print no MaxListenersExceededWarning", async () => {
  const dir = scratchDir();
  // A child of its own, so that its warnings are the read's: 256 chunks, two threads, with and
  // without the caller's signal.
  const script = join(dir, "read.mts");
  writeFileSync(
    script,
    `
import { WorkerPool, createArray, openArray, type NDArray } from ${JSON.stringify(join(SRC, "index.ts"))};
import { startStaticServer } from ${JSON.stringify(join(SRC, "cli", "static-server.ts"))};
const warnings: string[] = [];
process.on("warning", (w) => warnings.push(w.name + ": " + w.message));
const a = await createArray(${JSON.stringify(join(dir, "a.zarr"))}, { shape: [64, 64], chunks: [4, 4], dtype: "float32" });
await a.set(null, 2);
const server = await startStaticServer({ mounts: { "/": ${JSON.stringify(dir)} } });
const pool = new WorkerPool({ threads: 2, fetchOnCaller: true });
const sums: number[] = [];
try {
  const r = await openArray(server.origin + "/a.zarr", { mode: "r" });
  for (const signal of [undefined, new AbortController().signal]) {
    const got = (await r.get(null, { pool, threads: 2, signal })) as NDArray<Float32Array>;
    sums.push(got.data.reduce((x, y) => x + y, 0));
  }
} finally {
  await pool.close();
  await server.close();
}
// Warnings are emitted on the next tick.
await new Promise((r) => setTimeout(r, 50));
console.log(JSON.stringify({ warnings, sums }));
`,
  );
  const r = spawnSync(process.execPath, ["--import", "tsx", script], { encoding: "utf8", timeout: 120_000 });
  assert.equal(r.status, 0, r.stderr);
  const { warnings, sums } = JSON.parse(r.stdout.trim().split("\n").pop()!) as { warnings: string[]; sums: number[] };
  assert.deepEqual(sums, [8192, 8192]);
  assert.deepEqual(warnings, []);
});

test("a slab's in-flight chunks are those it can touch: a rechunk of 64 MiB chunks to small ones fits 512 MiB", () => {
  const MiB = 2 ** 20;
  const input = { shape: [8192, 8192], sourceChunk: [4096, 4096], destUnit: [512, 512], itemBytes: 4, inFlight: 8, memory: 512 * MiB };
  // Eight 64 MiB source chunks and their compressed bytes (1 GiB) were counted in flight, though
  // a slab inside one source chunk decodes only that one.
  const plan = planSlabs(input);
  assert.ok(plan.plannedPeak <= input.memory, `planned ${plan.plannedPeak}`);
  assert.equal(plan.readAmplification, 1);
  // A destination chunk as large as the source's: two in flight at most per slab of two.
  const shards = planSlabs({ ...input, sourceChunk: [512, 512], destUnit: [4096, 4096] });
  assert.ok(shards.plannedPeak <= input.memory, `planned ${shards.plannedPeak}`);
});

test("cp: --dry-run reports a plan over the budget without refusing; the real run fails with TOO_LARGE, not a usage error", async () => {
  const dir = scratchDir();
  const src = join(dir, "src.zarr");
  // Nothing stored but the metadata: planning reads one value.
  await createArray(src, { shape: [8192, 8192], chunks: [4096, 4096], dtype: "float32" });
  const dst = join(dir, "dst.zarr");
  const modest = await cliInProcess(["cp", src, dst, "--chunks", "512,512", "--dry-run"]);
  assert.equal(modest.code, 0, modest.stderr);
  assert.match(modest.stdout, /slab\(s\) of \(/);
  const small = await cliInProcess(["cp", src, dst, "--chunks", "512,512", "--memory", "1MiB", "--dry-run"]);
  assert.equal(small.code, 0, small.stderr);
  assert.match(small.stdout, /needs .* more than --memory 1\.0 MiB/);
  const real = await cliInProcess(["cp", src, dst, "--chunks", "512,512", "--memory", "1MiB", "-q"]);
  assert.equal(real.code, 1, real.stderr);
  assert.match(real.stderr, /TOO_LARGE: --memory 1\.0 MiB is too small for .*: one destination chunk and the buffers in flight need/);
  assert.ok(!existsSync(dst));
});
