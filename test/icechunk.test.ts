/**
 * Icechunk repositories (issue 28, item 3), against the real @earthmover/icechunk 2.2.2 (its
 * WebAssembly build here: the native addon needs glibc 2.38) and zarrita 0.7.5. parzarr reads and
 * writes a session's arrays on a 2-thread pool (the calling thread moves the bytes through the
 * session store, workers decode and encode), the user commits, and zarrita reads back the same
 * values through Icechunk, and the reverse. Conflicts of two writers on one branch arrive as
 * CONFLICT; repositories persist through Storage.newCustom over parzarr's FileSystemStore and S3Store
 * (moto, which checks conditional PUTs; s3rver, which does not, is refused); `parzarr cp` commits
 * once, so a copy killed midway leaves the branch as it was.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { conditionalPutFor } from "../src/icechunk/storage.js";
import { Repository, Storage } from "@earthmover/icechunk";
import * as zarrita from "zarrita";
import { ConflictError, FileSystemStore, commit, createArray, createGroup, icechunkStorage, openArray, openGroup, openIcechunk, slice, type CodecConfig, type NDArray } from "../src/index.js";
import { S3Store } from "../src/stores/s3.js";
import { motoSkip, startMoto } from "./helpers/moto.js";
import { startS3 } from "./helpers/s3.js";
import { scratchDir } from "./helpers/paths.js";
import { ICECHUNK_README_SNIPPET, runSnippet } from "./helpers/readme-snippets.js";

const T = { threads: 2 };
const VALUES = Float32Array.from({ length: 30 * 20 }, (_, i) => Math.sin(i / 9) * 100);
const ZSTD: CodecConfig[] = [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }];

async function memoryRepo() {
  return Repository.create(await Storage.newInMemory());
}

/** zarrita's values of a 2-d array, flattened in C order. */
/** Icechunk's store as zarrita takes it (its type says null for missing keys, zarrita's undefined). */
const forZarrita = (store: unknown) => store as zarrita.Mutable;

async function zarritaValues(store: unknown, path: string): Promise<number[]> {
  const arr = await zarrita.open(zarrita.root(forZarrita(store)).resolve(path), { kind: "array" });
  const { data, shape, stride } = (await zarrita.get(arr)) as { data: ArrayLike<number>; shape: number[]; stride: number[] };
  const out: number[] = [];
  for (let i = 0; i < shape[0]!; i++) for (let j = 0; j < shape[1]!; j++) out.push(data[i * stride[0]! + j * stride[1]!]!);
  return out;
}

test("parzarr writes an array into a writable session on 2 threads; after the user's commit zarrita reads it back equal", async () => {
  const repo = await memoryRepo();
  const store = await openIcechunk(repo, { branch: "main", writable: true });
  const root = await createGroup(store, { attributes: { title: "parzarr" } });
  const a = await root.createArray("temp", { shape: [30, 20], chunks: [7, 6], dtype: "float32", fillValue: 0, codecs: ZSTD });
  await a.set(null, VALUES, T);
  // Partial writes read-modify-write chunks through the session on the pool too.
  await a.set([3, null], new Float32Array(20).fill(-5), T);
  const expected = Array.from(VALUES, (v, i) => (Math.floor(i / 20) === 3 ? -5 : v));
  const id = await commit(store.session, "parzarr wrote temp");
  assert.match(id, /^[0-9A-Z]{20}$/);

  const ro = await repo.readonlySession({ branch: "main" });
  assert.deepEqual(await zarritaValues(ro.store, "/temp"), Array.from(Float32Array.from(expected)));
  // And parzarr, reading the committed snapshot by id on the pool.
  const again = await openArray(await openIcechunk(repo, { snapshot: id }), { path: "temp" });
  assert.deepEqual(Array.from((await again.get(null, T)).data as Float32Array), Array.from(Float32Array.from(expected)));
  const group = await openGroup(await openIcechunk(repo, { branch: "main" }));
  assert.deepEqual(group.attrs, { title: "parzarr" });
  assert.deepEqual(await group.arrayKeys(), ["temp"]);
});

test("zarrita writes through a session; parzarr reads it by branch and by tag on 2 threads", async () => {
  const repo = await memoryRepo();
  const session = await repo.writableSession("main");
  const root = await zarrita.create(zarrita.root(forZarrita(session.store)));
  await zarrita.create(root.resolve("/a"));
  const arr = await zarrita.create(root.resolve("/a/b"), { shape: [30, 20], chunkShape: [8, 8], dtype: "float32", fillValue: 0 });
  await zarrita.set(arr, null, { data: VALUES, shape: [30, 20], stride: [20, 1] });
  const snap = await session.commit("zarrita wrote a/b");
  await repo.createTag("v1", snap);

  for (const ref of [{ branch: "main" }, { tag: "v1" }]) {
    const a = await openArray(await openIcechunk(repo, ref), { path: "a/b" });
    const r = (await a.get(null, T)) as NDArray<Float32Array>;
    assert.deepEqual(Array.from(r.data), Array.from(VALUES), JSON.stringify(ref));
  }
  const g = await openGroup(await openIcechunk(repo, { tag: "v1" }));
  assert.deepEqual(await g.groupKeys(), ["a"]);
});

test("a read-only session refuses writes with READ_ONLY, and a missing branch or tag is NOT_FOUND", async () => {
  const repo = await memoryRepo();
  const w = await openIcechunk(repo, { branch: "main", writable: true });
  await createArray(w, { path: "x", shape: [4], chunks: [2], dtype: "int32" });
  await commit(w.session, "x");
  const ro = await openIcechunk(repo, { branch: "main" });
  const x = await openArray(ro, { path: "x" });
  await assert.rejects(x.set(null, 1, T), { code: "READ_ONLY" });
  await assert.rejects(openIcechunk(repo, { tag: "nope" }), { code: "NOT_FOUND" });
  await assert.rejects(openIcechunk(repo, { branch: "nope", writable: true }), { code: "NOT_FOUND" });
  await assert.rejects(openIcechunk(repo, { tag: "v1", writable: true }), { code: "INVALID_ARGUMENT" });
});

test("two writers on one branch: the second commit is a CONFLICT naming the branch and both snapshots; rebase resolves disjoint chunks", async () => {
  const repo = await memoryRepo();
  const setup = await openIcechunk(repo, { branch: "main", writable: true });
  await createArray(setup, { path: "v", shape: [8], chunks: [4], dtype: "int32", fillValue: 0 });
  const base = await commit(setup.session, "create v");

  const one = await openIcechunk(repo, { branch: "main", writable: true });
  const two = await openIcechunk(repo, { branch: "main", writable: true });
  await (await openArray(one, { path: "v" })).set([slice(0, 4)], 1, T);
  await (await openArray(two, { path: "v" })).set([slice(0, 4)], 2, T);
  const first = await commit(one.session, "one");
  const err = await commit(two.session, "two").then(
    () => assert.fail("the second commit went through"),
    (e: unknown) => e,
  );
  assert.ok(err instanceof ConflictError, String(err));
  assert.equal(err.code, "CONFLICT");
  assert.equal(err.branch, "main");
  assert.equal(err.expected, base);
  assert.equal(err.actual, first);
  assert.match(err.message, new RegExp(`main.*${base}.*${first}`));
  // Rebase cannot resolve it: both wrote chunk 0.
  await assert.rejects(commit(two.session, "two", { rebase: true }), { code: "CONFLICT", branch: "main" });

  // Disjoint chunks: the rebase carries the second writer onto the first one's snapshot.
  const three = await openIcechunk(repo, { branch: "main", writable: true });
  const four = await openIcechunk(repo, { branch: "main", writable: true });
  await (await openArray(three, { path: "v" })).set([slice(0, 4)], 3, T);
  await (await openArray(four, { path: "v" })).set([slice(4, 8)], 4, T);
  await commit(three.session, "three");
  await commit(four.session, "four", { rebase: true });
  const v = await openArray(await openIcechunk(repo, { branch: "main" }), { path: "v" });
  assert.deepEqual(Array.from((await v.get(null, T)).data as Int32Array), [3, 3, 3, 3, 4, 4, 4, 4]);
});

/** Writes through one Repository, reopens the storage from scratch, reads back; checks two writers conflict through the storage. */
async function persists(makeStorage: () => Promise<Parameters<typeof Repository.create>[0]>) {
  const repo = await Repository.create(await makeStorage());
  const w = await openIcechunk(repo, { branch: "main", writable: true });
  const a = await createArray(w, { path: "p", shape: [30, 20], chunks: [7, 6], dtype: "float32", codecs: ZSTD });
  await a.set(null, VALUES, T);
  const snap = await commit(w.session, "persist");

  // Two Repository objects over the same objects, as two processes would have.
  const other = await Repository.open(await makeStorage());
  assert.equal(await other.lookupBranch("main"), snap);
  const r = await openArray(await openIcechunk(other, { branch: "main" }), { path: "p" });
  assert.deepEqual(Array.from((await r.get(null, T)).data as Float32Array), Array.from(VALUES));
  assert.deepEqual(await zarritaValues((await other.readonlySession({ branch: "main" })).store, "/p"), Array.from(VALUES));

  const x = await openIcechunk(repo, { branch: "main", writable: true });
  const y = await openIcechunk(other, { branch: "main", writable: true });
  await (await openArray(x, { path: "p" })).set([0, 0], 1, T);
  await (await openArray(y, { path: "p" })).set([0, 0], 2, T);
  const won = await commit(x.session, "x");
  await assert.rejects(commit(y.session, "y"), { code: "CONFLICT", expected: snap, actual: won });
  assert.equal(await (await Repository.open(await makeStorage())).lookupBranch("main"), won);
}

test("a repository persists in a folder through Storage.newCustom over FileSystemStore, and two repository objects conflict", async () => {
  const dir = scratchDir("parzarr-icechunk-fs-");
  await persists(() => icechunkStorage(new FileSystemStore(dir)));
});

test("a repository persists in S3 (moto) through Storage.newCustom over S3Store", async (t) => {
  const skip = motoSkip();
  if (skip) return t.skip(skip);
  const s3 = await startMoto("icechunk");
  try {
    await persists(() => icechunkStorage(new S3Store({ bucket: "icechunk", prefix: "repo" }, s3.options)));
  } finally {
    await s3.close();
  }
});

test("an S3 server that ignores conditional writes (s3rver) is refused for a writable repository: two commits could both win", async () => {
  const s3 = await startS3("icechunk");
  try {
    await assert.rejects(icechunkStorage(new S3Store({ bucket: "icechunk", prefix: "repo" }, s3.options)), { code: "UNSUPPORTED" });
    // Reading needs no conditions.
    await icechunkStorage(new S3Store({ bucket: "icechunk", prefix: "repo" }, { ...s3.options, readOnly: true }));
  } finally {
    await s3.close();
  }
});

test("a read-only store gives read-only Icechunk storage: reading works, a writable session is READ_ONLY", async () => {
  const dir = scratchDir("parzarr-icechunk-ro-");
  const repo = await Repository.create(await icechunkStorage(new FileSystemStore(dir)));
  const w = await openIcechunk(repo, { branch: "main", writable: true });
  await createArray(w, { path: "q", shape: [4], chunks: [4], dtype: "uint8" });
  await commit(w.session, "q");
  const ro = await Repository.open(await icechunkStorage(new FileSystemStore(dir, { readOnly: true })));
  const q = await openArray(await openIcechunk(ro, { branch: "main" }), { path: "q" });
  assert.equal(q.shape[0], 4);
  await assert.rejects(openIcechunk(ro, { branch: "main", writable: true }), { code: "READ_ONLY" });
});

test("a session's own store object works as given: writes on the pool, listing, and zarrita reads them", async () => {
  const repo = await memoryRepo();
  const session = await repo.writableSession("main");
  // Icechunk's store answers null for missing keys, `readOnly` as a promise and listDir as bare names.
  const a = await createArray(session.store, { path: "g/raw", shape: [30, 20], chunks: [7, 6], dtype: "float32" });
  await a.set(null, VALUES, T);
  assert.deepEqual(await (await openGroup(session.store, { path: "g" })).arrayKeys(), ["raw"]);
  await session.commit("raw store");
  assert.deepEqual(await zarritaValues((await repo.readonlySession({ branch: "main" })).store, "/g/raw"), Array.from(VALUES));
});

const CLI = [ "--import", "tsx", new URL("../src/cli/main.ts", import.meta.url).pathname];
function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [...CLI, ...args], { encoding: "utf8", env: { ...process.env, ...env }, timeout: 240_000 });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

test("parzarr cp into and out of an Icechunk repository in a folder commits once; a copy killed midway leaves the branch as it was; info and tree read it", { timeout: 600_000 }, async () => {
  const dir = scratchDir("parzarr-icechunk-cli-");
  const src = join(dir, "src.zarr");
  const a = await createArray(src, { path: "g/temp", shape: [64, 40], chunks: [8, 8], dtype: "float32", codecs: ZSTD, attributes: { units: "K" } });
  const values = Float32Array.from({ length: 64 * 40 }, (_, i) => i / 3);
  await a.set(null, values);
  const repoDir = join(dir, "repo");
  const url = `icechunk:${repoDir}?branch=main`;

  const first = cli(["cp", src, url, "--message", "first copy", "--threads", "2", "-q"]);
  assert.equal(first.code, 0, first.stderr);
  const repo = await Repository.open(await icechunkStorage(new FileSystemStore(repoDir, { readOnly: true })));
  const tip = await repo.lookupBranch("main");
  assert.equal((await repo.lookupSnapshot(tip)).message, "first copy");
  assert.deepEqual(await zarritaValues((await repo.readonlySession({ branch: "main" })).store, "/g/temp"), Array.from(values));

  // Killed in the middle of its second slab, after chunks went into the session: nothing committed.
  const killed = cli(["cp", src, `${url}#again`, "--memory", "8KiB", "--threads", "2", "-q"], { PARZARR_CP_CRASH_AFTER_SLABS: "1" });
  assert.equal(killed.signal, "SIGKILL", `expected the hook to kill the copy: ${killed.stderr}`);
  const after = await Repository.open(await icechunkStorage(new FileSystemStore(repoDir)));
  assert.equal(await after.lookupBranch("main"), tip);
  const group = await openGroup(await openIcechunk(after, { branch: "main" }));
  assert.deepEqual(await group.groupKeys(), ["g"]);

  // Out again, from a tag, into a folder; and info / tree on the repository.
  await after.createTag("v1", tip);
  const out = join(dir, "out.zarr");
  const back = cli(["cp", `icechunk:${repoDir}?tag=v1#g/temp`, out, "--threads", "2", "-q"]);
  assert.equal(back.code, 0, back.stderr);
  assert.deepEqual(Array.from((await (await openArray(out)).get(null)).data as Float32Array), Array.from(values));
  const info = cli(["info", `icechunk:${repoDir}?snapshot=${tip}#g/temp`]);
  assert.equal(info.code, 0, info.stderr);
  assert.match(info.stdout, /64, ?40/);
  const tree = cli(["tree", `icechunk:${repoDir}?branch=main`]);
  assert.equal(tree.code, 0, tree.stderr);
  assert.match(tree.stdout, /temp/);
  const bad = cli(["cp", src, `icechunk:${repoDir}?tag=v1`, "-q"]);
  assert.equal(bad.code, 1, bad.stderr);
  assert.match(bad.stderr, /INVALID_ARGUMENT/);
});

test("README's Icechunk snippet runs as written, twice in one folder (the second run commits on top), and prints what its comment says", () => {
  const dir = scratchDir("parzarr-icechunk-readme-");
  const modules = { "@earthmover/icechunk": import.meta.resolve("@earthmover/icechunk"), parzarr: new URL("../src/index.ts", import.meta.url).href };
  for (let run = 0; run < 2; run++) {
    const r = runSnippet(ICECHUNK_README_SNIPPET, modules, dir);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), "Float32Array(3) [ 20.5, 20.5, 20.5 ]");
  }
});

test("a rebase that fails for another reason than a conflict (a store fault) is that fault, not CONFLICT", async () => {
  let commits = 0;
  const session = {
    readOnly: false,
    snapshotId: "AAAA",
    branch: "main",
    store: {} as never,
    commit: async () => {
      commits++;
      throw new Error("branch update conflict: `(Some(AAAA)) != (Some(BBBB))`");
    },
    rebase: async () => {
      throw new Error("error fetching object: connection reset by peer");
    },
  };
  await assert.rejects(commit(session, "x", { rebase: true }), (e: unknown) => (e as { code?: string }).code === "STORE_ERROR" && /connection reset/.test((e as Error).message));
  assert.equal(commits, 1);
  // Icechunk's own "cannot rebase" is the conflict it is.
  session.rebase = async () => {
    throw new Error("cannot rebase snapshot BBBB on top of the branch");
  };
  await assert.rejects(commit(session, "x", { rebase: true }), { code: "CONFLICT", branch: "main" });
});

test("one folder reached by two paths (a symbolic link) shares one lock: two conditional ref writes cannot both win", async () => {
  const real = scratchDir("parzarr-icechunk-link-");
  const link = `${real}-link`;
  symlinkSync(real, link);
  const [a, b] = await Promise.all([new FileSystemStore(real), new FileSystemStore(link, { followSymlinks: true })].map((s) => conditionalPutFor(s)));
  const value = new TextEncoder().encode("ref");
  for (let round = 0; round < 5; round++) {
    const key = `refs/branch.r${round}/ref.json`;
    const results = await Promise.all([a!(key, value, undefined), b!(key, value, undefined)]);
    assert.deepEqual(results.map((r) => r.kind).sort(), ["not_on_latest_version", "updated"], `round ${round}`);
  }
});
