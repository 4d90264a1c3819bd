/**
 * parzarr as bundlers ship it: minified bundles keep the error classes' names (callers and the
 * worker protocol read `err.name`).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { scratchDir } from "./helpers/paths.js";

const ROOT = new URL("../", import.meta.url).pathname;

test("error classes keep their names in a minified bundle, and across the worker protocol", async () => {
  const dir = scratchDir("parzarr-bundle-");
  const entry = join(dir, "entry.ts");
  writeFileSync(
    entry,
    `export * from ${JSON.stringify(join(ROOT, "src/errors.ts"))};\n` +
      `export { serialiseError, reviveError } from ${JSON.stringify(join(ROOT, "src/parallel/task-outcome.ts"))};\n`,
  );
  const outfile = join(dir, "errors.min.js");
  await build({ entryPoints: [entry], outfile, bundle: true, minify: true, format: "esm", platform: "node", logLevel: "silent" });
  const mod = (await import(pathToFileURL(outfile).href)) as Record<string, unknown>;
  const classes = Object.entries(mod).filter(([name]) => /^[A-Z]\w*Error$/.test(name));
  assert.ok(classes.length >= 20, `error classes exported: ${classes.map(([n]) => n).join(", ")}`);
  for (const [name, Ctor] of classes) {
    const err = name === "ZarrError" ? new (Ctor as new (c: string, m: string) => Error)("NOT_FOUND", "m") : new (Ctor as new (...a: unknown[]) => Error)("m", "k", "u", "missing");
    assert.equal(err.name, name, `${name}'s name after minification`);
    assert.match(String(err), new RegExp(`^${name}: m`));
  }
  // A reference error crosses back from a worker as its own class, which travels by name.
  const { InvalidReferenceError, serialiseError, reviveError } = mod as {
    InvalidReferenceError: new (m: string, k: string) => Error & { code: string; key: string };
    serialiseError(e: unknown): unknown;
    reviveError(e: unknown): Error & { code?: string; key?: string };
  };
  const back = reviveError(serialiseError(new InvalidReferenceError("bad ref", "a/0")));
  assert.ok(back instanceof InvalidReferenceError, `revived as ${back.name}`);
  assert.equal(back.name, "InvalidReferenceError");
  assert.equal(back.code, "INVALID_METADATA");
  assert.equal(back.key, "a/0");
});
