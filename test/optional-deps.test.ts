/**
 * Optional peer dependencies (issue 30): zod, bullmq, ioredis, h5wasm, @napi-rs/lzma and @earthmover/icechunk are not
 * installed with parzarr. The sources run here from a copy whose node_modules lacks exactly those
 * packages, as in an app that installed parzarr alone: arrays are read and written (inline and on
 * worker threads), a plain `parzarr cp` copies, and each feature that needs a missing package fails
 * with MISSING_DEPENDENCY naming the `npm install` command, not with Node's module error.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { missingDependency } from "../src/optional-deps.js";
import { MissingDependencyError } from "../src/errors.js";
import { scratchDir } from "./helpers/paths.js";

const ROOT = new URL("../", import.meta.url).pathname;
const PEERS = ["zod", "bullmq", "ioredis", "h5wasm", "@napi-rs/lzma", "@earthmover/icechunk"];

/** A copy of src/, workers/ and browser/ beside a node_modules of links to every installed package but the peers. */
function treeWithoutPeers(): string {
  const tmp = scratchDir("parzarr-no-peers-");
  for (const d of ["src", "workers", "browser"]) cpSync(join(ROOT, d), join(tmp, d), { recursive: true });
  // ES modules, as in the package (tsx would read the .ts files as CommonJS without it).
  writeFileSync(join(tmp, "package.json"), JSON.stringify({ name: "app", type: "module" }));
  // An lzma array zarr-python wrote, to read.
  cpSync(join(ROOT, "test/fixtures/zarr-python-2.13/hierarchy.zarr/compressors/lzma_C"), join(tmp, "lzma.zarr"), { recursive: true });
  const modules = join(ROOT, "node_modules");
  const link = (name: string) => {
    if (PEERS.includes(name)) return;
    mkdirSync(join(tmp, "node_modules", name, ".."), { recursive: true });
    symlinkSync(join(modules, name), join(tmp, "node_modules", name));
  };
  for (const name of readdirSync(modules)) {
    if (name.startsWith(".")) continue;
    if (name.startsWith("@")) for (const sub of readdirSync(join(modules, name))) link(`${name}/${sub}`);
    else link(name);
  }
  return tmp;
}

const PROBE = `
import { writeFileSync } from "node:fs";
const p = await import("./src/index.ts");
const out = {};
const outcome = async (name, f) => {
  try { out[name] = { ok: await f() }; } catch (e) { out[name] = { code: e.code ?? null, name: e.name, message: e.message, packages: e.packages }; }
};
await outcome("core", async () => {
  const a = await p.createArray("plain.zarr", { shape: [64], chunks: [16], dtype: "int32", zarrFormat: 2, compressor: { id: "zlib", level: 1 } });
  await a.set(null, Int32Array.from({ length: 64 }, (_, i) => i), { threads: 2 });
  const r = await a.get(null, { threads: 0 });
  return Array.from(r.data).reduce((s, v) => s + v, 0);
});
await outcome("zom", () => p.fromZarr("plain.zarr"));
for (const threads of [0, 2]) {
  await outcome("lzma" + threads, async () => {
    const a = await p.createArray("lzma" + threads + ".zarr", { shape: [8], chunks: [8], dtype: "uint8", zarrFormat: 2, compressor: { id: "lzma", format: 1, check: -1, preset: null, filters: null } });
    await a.set(null, 1, { threads });
  });
}
await outcome("lzmaRead", async () => (await p.openArray("lzma.zarr")).get(null, { threads: 0 }));
writeFileSync("fake.h5", Buffer.from([0x89, 0x48, 0x44, 0x46, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0]));
await outcome("hdf5", () => p.openArchive("fake.h5"));
await outcome("redis", async () => {
  const s = new p.RedisSynchronizer("redis://127.0.0.1:1");
  try { return await s.withLock("a", "0", async () => 1); } finally { await s.close(); }
});
await outcome("icechunk", () => p.icechunkStorage(new p.FileSystemStore("repo")));
console.log(JSON.stringify(out));
`;

test("without the optional peers: arrays read and write, and each peer's feature names its install command", { timeout: 300_000 }, () => {
  const tmp = treeWithoutPeers();
  writeFileSync(join(tmp, "probe.mts"), PROBE);
  const node = (args: string[]) => spawnSync(process.execPath, ["--import", "tsx", ...args], { cwd: tmp, encoding: "utf8", timeout: 240_000 });
  const r = node(["probe.mts"]);
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout.trim().split("\n").at(-1)!) as Record<string, { ok?: unknown; code?: string; message?: string; packages?: string[] }>;
  assert.deepEqual(out.core, { ok: (63 * 64) / 2 }, JSON.stringify(out.core));
  const expectMissing = (name: string, install: string) => {
    const o = out[name]!;
    assert.equal(o.code, "MISSING_DEPENDENCY", `${name}: ${JSON.stringify(o)}`);
    assert.ok(o.message!.includes(`npm install ${install}`), `${name}: ${o.message}`);
    assert.deepEqual(o.packages, install.split(" "), name);
  };
  expectMissing("zom", "zod");
  // Inline, and revived with its class and packages from a worker thread.
  expectMissing("lzma0", "@napi-rs/lzma");
  expectMissing("lzma2", "@napi-rs/lzma");
  expectMissing("lzmaRead", "@napi-rs/lzma");
  expectMissing("hdf5", "h5wasm");
  expectMissing("redis", "ioredis");
  expectMissing("icechunk", "@earthmover/icechunk");

  // The CLI: a plain copy needs no peer; the copy queue names both of its packages.
  const cli = (args: string[]) => node(["src/cli/main.ts", ...args]);
  const cp = cli(["cp", "plain.zarr", "copy.zarr", "-q"]);
  assert.equal(cp.status, 0, cp.stderr);
  const queued = cli(["cp", "plain.zarr", "queued.zarr", "--queue", "redis://127.0.0.1:1", "-q"]);
  assert.equal(queued.status, 1, queued.stderr);
  assert.match(queued.stderr, /MISSING_DEPENDENCY: .*npm install bullmq ioredis/);
  const ice = cli(["cp", "plain.zarr", "icechunk:repo?branch=main", "-q"]);
  assert.equal(ice.status, 1, ice.stderr);
  assert.match(ice.stderr, /MISSING_DEPENDENCY: .*npm install @earthmover\/icechunk/);
  const worker = cli(["worker", "--queue", "redis://127.0.0.1:1", "-q"]);
  assert.equal(worker.status, 1, worker.stderr);
  assert.match(worker.stderr, /MISSING_DEPENDENCY: .*npm install bullmq ioredis/);
});

test("only a missing optional package itself is MISSING_DEPENDENCY; other load failures pass through", () => {
  const notFound = (message: string, code = "ERR_MODULE_NOT_FOUND") => Object.assign(new Error(message), { code });
  const esm = missingDependency(notFound("Cannot find package 'zod' imported from /app/x.js"), ["zod"], "checking a model");
  assert.ok(esm instanceof MissingDependencyError);
  assert.equal(esm.code, "MISSING_DEPENDENCY");
  assert.deepEqual(esm.packages, ["zod"]);
  assert.match(esm.message, /^checking a model needs zod, which is not installed: run `npm install zod`/);
  // require()'s form, a subpath, and the second of two packages: all name the whole command.
  const cjs = missingDependency(notFound("Cannot find module '@napi-rs/lzma'\nRequire stack:\n- /app/x.js", "MODULE_NOT_FOUND"), ["@napi-rs/lzma"], "lzma");
  assert.ok(cjs instanceof MissingDependencyError);
  assert.ok(missingDependency(notFound("Cannot find package 'h5wasm' imported from /a.js"), ["h5wasm"], "HDF5") instanceof MissingDependencyError);
  assert.match(missingDependency(notFound("Cannot find package 'ioredis' imported from /a.js"), ["bullmq", "ioredis"], "the queue")!.message, /npm install bullmq ioredis/);
  // A package that is installed but broken (its own dependency or file missing), another package
  // with a longer name, or any other error: not this package missing, so not mapped.
  assert.equal(missingDependency(notFound("Cannot find package 'msgpackr' imported from /n/bullmq/x.js"), ["bullmq"], "q"), undefined);
  assert.equal(missingDependency(notFound("Cannot find package 'zod-extra' imported from /a.js"), ["zod"], "q"), undefined);
  assert.equal(missingDependency(notFound("Cannot find module '/n/zod/index.js' imported from /a.js"), ["zod"], "q"), undefined);
  assert.equal(missingDependency(new Error("Cannot find package 'zod'"), ["zod"], "q"), undefined);
  assert.equal(missingDependency("zod", ["zod"], "q"), undefined);
});

test("in a browser, an optional package that no import map names is MISSING_DEPENDENCY too", () => {
  // dist/browser/parzarr.js leaves zod to the page (an import map): browsers reject the bare
  // specifier with a TypeError that has no code, worded per engine.
  const chromium = new TypeError('Failed to resolve module specifier "zod". Relative references must start with either "/", "./", or "../".');
  const firefox = new TypeError("The specifier “zod” was a bare specifier, but was not remapped to anything. Relative module specifiers must start with “./”, “../” or “/”.");
  const safari = new TypeError("Module name, 'zod' does not resolve to a valid URL.");
  for (const err of [chromium, firefox, safari]) {
    const typed = missingDependency(err, ["zod"], "checking a model");
    assert.ok(typed instanceof MissingDependencyError, err.message);
    assert.match(typed.message, /npm install zod/);
  }
  // Another specifier, or a network failure of a chunk: not this package missing.
  assert.equal(missingDependency(new TypeError('Failed to resolve module specifier "zod-extra".'), ["zod"], "q"), undefined);
  assert.equal(missingDependency(new TypeError("Failed to fetch dynamically imported module: https://a/zod.js"), ["zod"], "q"), undefined);
  assert.equal(missingDependency(new Error('Failed to resolve module specifier "zod".'), ["zod"], "q"), undefined);
});
