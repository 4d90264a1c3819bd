/**
 * Symbolic links cannot lead a FileSystemStore out of its folder: reads and writes whose real path
 * leaves the root fail with INVALID_KEY (inline and in workers, which open the store from its
 * descriptor), `list` stays inside and ends on link loops, and a metadata file linked to a file
 * elsewhere is refused without echoing it. Links inside the root keep working, and
 * `followSymlinks: true` allows links across folders for those who want them.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FileSystemStore, InvalidKeyError, WorkerPool, ZarrError, createArray, openArray, type NDArray } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

const pool = new WorkerPool({ threads: 1 });
after(() => pool.close());

const codeOf = (p: Promise<unknown>): Promise<string> =>
  p.then(
    () => "resolved",
    (e: unknown) => (e instanceof ZarrError ? e.code : `untyped: ${String(e)}`),
  );

test("a chunk linked to a file outside the store is refused, inline and on the pool; followSymlinks reads it", async () => {
  const root = scratchDir();
  const elsewhere = scratchDir();
  const a = await createArray(root, { shape: [4], chunks: [4], dtype: "uint8", zarrFormat: 2, compressor: null, fillValue: 0 });
  writeFileSync(join(elsewhere, "data"), Uint8Array.of(9, 8, 7, 6));
  symlinkSync(join(elsewhere, "data"), join(root, "0"));
  assert.equal(await codeOf(a.get(null, { threads: 0 })), "INVALID_KEY");
  assert.equal(await codeOf(a.get(null, { threads: 1, pool })), "INVALID_KEY");
  const store = new FileSystemStore(root);
  await assert.rejects(store.get("0"), InvalidKeyError);
  await assert.rejects(store.getRange("0", { offset: 1, length: 2 }), InvalidKeyError);
  await assert.rejects(store.has("0"), InvalidKeyError);
  const open = await openArray(new FileSystemStore(root, { followSymlinks: true }), { mode: "r" });
  for (const options of [{ threads: 0 }, { threads: 1, pool }]) {
    assert.deepEqual(Array.from(((await open.get(null, options)) as NDArray).data as Uint8Array), [9, 8, 7, 6]);
  }
});

test("a write through a linked folder is refused and nothing lands outside", async () => {
  const root = scratchDir();
  const elsewhere = scratchDir();
  const a = await createArray(root, { shape: [4, 4], chunks: [2, 2], dtype: "uint8", zarrFormat: 3, fillValue: 0 });
  symlinkSync(elsewhere, join(root, "c"));
  assert.equal(await codeOf(a.set(null, 1, { threads: 0 })), "INVALID_KEY");
  assert.equal(await codeOf(a.set(null, 1, { threads: 1, pool })), "INVALID_KEY");
  assert.deepEqual(readdirSync(elsewhere), [], "no folder or chunk was made outside the store");
  const store = new FileSystemStore(root);
  await assert.rejects(store.set("c/0/0", Uint8Array.of(1)), InvalidKeyError);
  await assert.rejects(store.delete("c/0/0"), InvalidKeyError);
  await assert.rejects(store.deletePrefix("c/0/"), InvalidKeyError);
});

test("list stays inside the root and ends on link loops; links inside the root work", async () => {
  const root = scratchDir();
  const elsewhere = scratchDir();
  mkdirSync(join(elsewhere, "deep"));
  writeFileSync(join(elsewhere, "deep", "secret"), "s");
  mkdirSync(join(root, "g"));
  writeFileSync(join(root, "g", "k"), "v");
  symlinkSync(elsewhere, join(root, "out"));
  symlinkSync("/usr/share", join(root, "share"));
  symlinkSync(root, join(root, "g", "loop"));
  symlinkSync(join(root, "g", "k"), join(root, "alias"));
  const store = new FileSystemStore(root);
  // "g/loop" leads back to the root, already walked: it adds nothing (before: endless recursion).
  assert.deepEqual(await store.list(""), ["alias", "g/k"]);
  assert.deepEqual(await store.listDir(""), { keys: ["alias"], prefixes: ["g"] });
  assert.deepEqual(new TextDecoder().decode(await store.get("alias")), "v");
  await assert.rejects(store.list("out/"), InvalidKeyError);
});

test("a .zarray linked to a file outside is refused without echoing its content", async () => {
  const root = scratchDir();
  const elsewhere = scratchDir();
  writeFileSync(join(elsewhere, "hostname"), "secret-host-name-1234\n");
  symlinkSync(join(elsewhere, "hostname"), join(root, ".zarray"));
  const err = await openArray(root, { mode: "r" }).then(() => null, (e: unknown) => e);
  assert.ok(err instanceof InvalidKeyError, `expected INVALID_KEY, got ${String(err)}`);
  assert.doesNotMatch(err.message, /secret-host-name/);
});
