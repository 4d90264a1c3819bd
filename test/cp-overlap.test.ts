/**
 * A copy whose source and destination overlap is refused before anything is written: with
 * `--overwrite`, a source inside its destination used to be deleted before it was read (and the
 * copy reported success), and a destination inside its source copied into itself.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { FileSystemStore, InvalidArgumentError, MemoryStore, createArray, createGroup, openArray, type NDArray } from "../src/index.js";
import { main } from "../src/cli/main.js";
import { assertNoOverlap, planCopy, runCopy, type CopySettings } from "../src/copy/engine.js";
import { scratchDir } from "./helpers/paths.js";

async function cli(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  const sink = (add: (t: string) => void) => ({ write: (t: string | Uint8Array) => (add(String(t)), true) }) as unknown as NodeJS.WritableStream;
  const code = await main(args, { stdout: sink(() => {}), stderr: sink((t) => (stderr += t)), env: {} });
  return { code, stderr };
}

/** Every file under a folder with its size: what must not change when a copy is refused. */
function snapshot(dir: string): Record<string, number> {
  const out: Record<string, number> = {};
  const visit = (d: string, rel: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const r = rel === "" ? name : `${rel}/${name}`;
      if (statSync(p).isDirectory()) visit(p, r);
      else out[r] = statSync(p).size;
    }
  };
  visit(dir, "");
  return out;
}

/** A hierarchy like the issue's: `climate/temp` and `ints`, each with stored chunks. */
async function nest(dir: string): Promise<void> {
  const store = new FileSystemStore(dir);
  await createGroup(store, { zarrFormat: 2 });
  await createGroup(store, { path: "climate", zarrFormat: 2 });
  const temp = await createArray(store, { path: "climate/temp", shape: [8], chunks: [4], dtype: "<f8", zarrFormat: 2 });
  await temp.set(null, Float64Array.from({ length: 8 }, (_, i) => i + 0.5));
  const ints = await createArray(store, { path: "ints", shape: [6], chunks: [2], dtype: "<i4", zarrFormat: 2 });
  await ints.set(null, Int32Array.from([1, 2, 3, 4, 5, 6]));
}

test("cp of a group into the store that holds it, with --overwrite, is refused and deletes nothing", async () => {
  const dir = join(scratchDir("parzarr-overlap-"), "nest.zarr");
  await nest(dir);
  const before = snapshot(dir);
  const r = await cli(["cp", `${dir}#climate`, dir, "--overwrite", "-q"]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /INVALID_ARGUMENT: cannot copy .*#climate into .*: the source lies inside the destination/);
  assert.deepEqual(snapshot(dir), before);
  const ints = await openArray(dir, { path: "ints", mode: "r" });
  assert.deepEqual(Array.from(((await ints.get()) as NDArray).data as Int32Array), [1, 2, 3, 4, 5, 6]);
});

test("cp of a group into a node inside it is refused, also when that node exists and --overwrite is given", async () => {
  const dir = join(scratchDir("parzarr-overlap-"), "g.zarr");
  await nest(dir);
  await createGroup(new FileSystemStore(dir), { path: "backup", zarrFormat: 2 });
  const before = snapshot(dir);
  for (const extra of [["--overwrite"], []]) {
    const r = await cli(["cp", dir, `${dir}#backup`, ...extra, "-q"]);
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /the destination lies inside the source/);
  }
  // Also with the folder named as a store of its own rather than as `#path`.
  const r = await cli(["cp", dir, join(dir, "backup"), "--overwrite", "-q"]);
  assert.match(r.stderr, /the destination lies inside the source/);
  assert.deepEqual(snapshot(dir), before);
});

test("cp X X and a dry run of an overlapping copy are refused", async () => {
  const dir = join(scratchDir("parzarr-overlap-"), "n.zarr");
  await nest(dir);
  assert.match((await cli(["cp", `${dir}#ints`, `${dir}/#ints/`, "-q"])).stderr, /same node/);
  assert.match((await cli(["cp", `${join(dir, "climate")}#temp`, `${dir}`, "--dry-run"])).stderr, /source lies inside the destination/);
});

test("siblings whose names share a prefix do not overlap, and the copy works", async () => {
  const dir = join(scratchDir("parzarr-overlap-"), "s.zarr");
  await nest(dir);
  const r = await cli(["cp", `${dir}#ints`, `${dir}#ints2`, "-q"]);
  assert.equal(r.code, 0, r.stderr);
  const copy = await openArray(dir, { path: "ints2", mode: "r" });
  assert.deepEqual(Array.from(((await copy.get()) as NDArray).data as Int32Array), [1, 2, 3, 4, 5, 6]);
});

test("the engine refuses an overlapping copy by itself (library callers), on any store", async () => {
  const store = new MemoryStore();
  await createGroup(store, { zarrFormat: 3 });
  const a = await createArray(store, { path: "a", shape: [4], chunks: [2], dtype: "int32" });
  await a.set(null, Int32Array.from([7, 8, 9, 10]));
  const settings: CopySettings = { memory: 2 ** 20, resume: false, overwrite: true, skipUnreadable: false };
  const plan = await planCopy(a, settings, "mem#a");
  await assert.rejects(runCopy(plan, { store, path: "", text: "mem" }, settings), InvalidArgumentError);
  assert.deepEqual(Array.from(((await a.get()) as NDArray).data as Int32Array), [7, 8, 9, 10]);
  // The check itself: same store object or another handle on the same place; a different store.
  assert.throws(() => assertNoOverlap({ store, path: "a/b" }, { store, path: "a" }), InvalidArgumentError);
  assert.doesNotThrow(() => assertNoOverlap({ store, path: "a" }, { store: new MemoryStore(), path: "a" }));
  const dir = scratchDir("parzarr-overlap-");
  assert.throws(() => assertNoOverlap({ store: new FileSystemStore(join(dir, "x")), path: "" }, { store: new FileSystemStore(dir), path: "x" }), /same node/);
  assert.doesNotThrow(() => assertNoOverlap({ store: new FileSystemStore(dir), path: "ab" }, { store: new FileSystemStore(dir), path: "a" }));
});
