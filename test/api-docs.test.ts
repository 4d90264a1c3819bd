/**
 * The API reference (`npm run docs`, TypeDoc over the package's entry points, typedoc.json) builds
 * with warnings as errors: every public export has a TSDoc comment, every `{@link}` resolves, and
 * no exported signature names a type the reference leaves out. CI runs `npm test`, so this is how
 * CI builds the reference. And every entry in package.json's "exports" is an entry point of the
 * reference, so a new subpath cannot ship undocumented.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { scratchDir } from "./helpers/paths.js";

const ROOT = new URL("../", import.meta.url).pathname;

test("every package.json export is an entry point of the API reference", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, string | { types?: string }> };
  const config = JSON.parse(readFileSync(join(ROOT, "typedoc.json"), "utf8")) as { entryPoints: string[] };
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
