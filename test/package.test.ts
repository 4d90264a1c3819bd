/**
 * The package a user installs: built as `npm run build` builds it, laid out from the files
 * `npm pack` would ship, then used from a fresh app: `require("parzarr")` from CommonJS works (it
 * failed with ERR_PACKAGE_PATH_NOT_EXPORTED), every source map points at a file in the package,
 * LICENSE ships, `parzarr bench`'s comparison (bench/compare/) is built and loads, and
 * `parzarr --help` starts without loading the library (the CLI loads each command on first use).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { scratchDir } from "./helpers/paths.js";

const ROOT = new URL("../", import.meta.url).pathname;

function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 64 * 2 ** 20 });
  assert.equal(r.status, 0, `${cmd} ${args.join(" ")}: ${r.stderr}${r.stdout}`);
  return r.stdout;
}

test("the packed package: require() from CommonJS, source maps that resolve, LICENSE, a CLI that loads commands on use", { timeout: 600_000 }, () => {
  const tmp = scratchDir("parzarr-pack-");
  const pkg = join(tmp, "node_modules", "parzarr");
  // What `npm pack` ships from the sources; dist/ is then built there as `npm run build` does.
  const listed = JSON.parse(run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], ROOT))[0].files as { path: string }[];
  const paths = listed.map((f) => f.path);
  assert.ok(paths.includes("LICENSE"), "LICENSE ships");
  assert.ok(paths.includes("docs/ARCHITECTURE.md"));
  for (const p of [...paths, "tsconfig.json", "tsconfig.build.json"]) {
    mkdirSync(dirname(join(pkg, p)), { recursive: true });
    cpSync(join(ROOT, p), join(pkg, p));
  }
  symlinkSync(join(ROOT, "node_modules"), join(pkg, "node_modules"));
  run(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.build.json"], pkg);
  // The build's next step: each Node worker entry bundled into one file (its maps checked below).
  run(process.execPath, [join(ROOT, "node_modules/tsx/dist/cli.mjs"), join(ROOT, "tools/bundle-node-workers.ts"), join(pkg, "dist/workers"), pkg], pkg);
  assert.ok(readFileSync(join(pkg, "dist/workers/node-worker.js"), "utf8").includes("runTaskMessage"), "the worker is one bundled file");
  rmSync(join(pkg, "tsconfig.json"));
  rmSync(join(pkg, "tsconfig.build.json"));
  // Every map's sources lie inside the package, or (the browser bundles' third-party modules,
  // shipped when dist/browser was built before packing) travel inside the map itself.
  const maps: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name.endsWith(".js.map")) maps.push(join(d, e.name));
    }
  };
  walk(join(pkg, "dist"));
  assert.ok(maps.length > 50);
  for (const m of maps) {
    const map = JSON.parse(readFileSync(m, "utf8")) as { sources: string[]; sourcesContent?: (string | null)[] };
    map.sources.forEach((s, i) => {
      const target = resolve(dirname(m), s);
      const embedded = s.includes("node_modules/") && typeof map.sourcesContent?.[i] === "string";
      assert.ok(embedded || (target.startsWith(pkg) && existsSync(target)), `${m.slice(pkg.length)} points at ${s}, not shipped`);
    });
  }
  // A fresh CommonJS app.
  const app = join(tmp, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", type: "commonjs" }));
  writeFileSync(
    join(app, "main.js"),
    `const { createArray, MemoryStore, WorkerPool, slice } = require("parzarr");
(async () => {
  const a = await createArray(new MemoryStore(), { shape: [3], dtype: "int16" });
  await a.set(null, [1, 2, 3]);
  console.log(Array.from((await a.get()).data).join(","));
  // On worker threads, from the bundled worker files: both executors.
  const b = await createArray(require("node:path").join(__dirname, "on-disk.zarr"), { shape: [64, 64], chunks: [16, 16], dtype: "int32", overwrite: true });
  await b.set(null, { data: Int32Array.from({ length: 4096 }, (_, i) => i), shape: [64, 64] }, { threads: 2 });
  const pool = new WorkerPool({ threads: 2, executor: "comlink" });
  for (const opts of [{ threads: 2 }, { pool }]) {
    const r = await b.get([slice(8, 40), slice(3, 61)], opts);
    let ok = r.shape.join() === "32,58";
    r.data.forEach((x, i) => (ok &&= x === (8 + Math.floor(i / 58)) * 64 + 3 + (i % 58)));
    console.log(ok ? "workers ok" : "workers WRONG");
  }
  await pool.close();
})();`,
  );
  assert.equal(run(process.execPath, ["main.js"], app).trim(), "1,2,3\nworkers ok\nworkers ok");
  // `parzarr bench` loads the comparison from bench/compare/, outside src/: it is built and
  // shipped, and its imports of the library resolve in the installed layout.
  const loadBench = `import(${JSON.stringify(join(pkg, "dist/bench/compare/compare.js"))}).then((m) => console.log(typeof m.runCompare))`;
  assert.equal(run(process.execPath, ["-e", loadBench], app).trim(), "function");
  // --help prints every command without loading the library: it still works with the library's
  // modules gone (a static import of any of them would fail to resolve).
  const cli = join(tmp, "cli-only");
  cpSync(join(pkg, "dist"), join(cli, "dist"), { recursive: true });
  for (const gone of ["src/index.js", "src/hierarchy", "src/codecs", "bench"]) rmSync(join(cli, "dist", gone), { recursive: true });
  const help = run(process.execPath, [join(cli, "dist/src/cli/main.js"), "--help"], app);
  assert.match(help, /^  cp +copy, rechunk/m);
  assert.match(help, /^  bench +compare/m);
});
