/**
 * The API reference (`npm run docs`, TypeDoc over the package's entry points, typedoc.json) builds
 * with warnings as errors: every public export has a TSDoc comment, every `{@link}` resolves, and
 * no exported signature names a type the reference leaves out. CI runs `npm test`, so this is how
 * CI builds the reference. And every entry in package.json's "exports" is an entry point of the
 * reference, so a new subpath cannot ship undocumented; the built reference (docs/api/) is not
 * packed, though package.json's "files" ships docs/.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { scratchDir } from "./helpers/paths.js";

const ROOT = new URL("../", import.meta.url).pathname;

test("every package.json export is an entry point of the API reference", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, string | { types?: string }> };
  // typedoc.json has comments, as TypeDoc reads it (through TypeScript's JSON reader).
  const config = ts.parseConfigFileTextToJson("typedoc.json", readFileSync(join(ROOT, "typedoc.json"), "utf8")).config as { entryPoints: string[] };
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === "string" || target.types === undefined) continue; // package.json itself
    // The build maps src/x.ts to dist/src/x.d.ts (tsconfig.build.json's rootDir is the checkout).
    const source = target.types.replace(/^\.\/dist\//, "").replace(/\.d\.ts$/, ".ts");
    assert.ok(existsSync(join(ROOT, source)), `${subpath}: ${source} does not exist`);
    assert.ok(config.entryPoints.includes(source), `export "${subpath}" (${source}) is not an entry point in typedoc.json`);
  }
});

test("npm run docs builds the API reference with no warning", { timeout: 300_000 }, () => {
  const out = scratchDir("parzarr-api-docs-");
  const r = spawnSync("npm", ["run", "docs", "--", "--out", out], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 2 ** 20, env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" } });
  // treatWarningsAsErrors makes any warning a failed run; show all of them.
  const warnings = `${r.stdout}${r.stderr}`.split("\n").filter((l) => /\[(warning|error)\]/.test(l));
  assert.equal(r.status, 0, `npm run docs failed (${warnings.length} warnings and errors):\n${warnings.join("\n") || r.stderr}`);
  assert.deepEqual(warnings, []);
  assert.ok(existsSync(join(out, "index.html")), "the reference has an index page");
});

test("npm pack leaves the built reference (docs/api/) out", { timeout: 120_000 }, () => {
  // A file of our own stands for a built reference when there is none, and goes again after.
  const dir = join(ROOT, "docs/api");
  const made = !existsSync(dir);
  if (made) {
    mkdirSync(dir);
    writeFileSync(join(dir, "index.html"), "");
  }
  try {
    const r = spawnSync("npm", ["pack", "--dry-run", "--ignore-scripts", "--json"], { cwd: ROOT, encoding: "utf8", maxBuffer: 64 * 2 ** 20 });
    assert.equal(r.status, 0, r.stderr);
    const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0]!.files.map((f) => f.path);
    assert.ok(files.includes("docs/ARCHITECTURE.md"), "docs/ ships");
    assert.deepEqual(files.filter((f) => f.startsWith("docs/api/")), []);
  } finally {
    if (made) rmSync(dir, { recursive: true, force: true });
  }
});
