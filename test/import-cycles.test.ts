/**
 * No runtime import circle in src/ or workers/ (issue 27): a module on a circle may be evaluated
 * before what it imports has run, and the layers in docs/ARCHITECTURE.md only hold when imports
 * point one way. Imports of types alone are skipped (.madgerc, which `npx madge --circular
 * --extensions ts src workers` reads too): TypeScript erases them.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import madge from "madge";

const ROOT = new URL("../", import.meta.url).pathname;

test("src/ and workers/ import no module that imports them back", { timeout: 300_000 }, async () => {
  const rc = JSON.parse(readFileSync(`${ROOT}.madgerc`, "utf8")) as { detectiveOptions: Record<string, Record<string, unknown>> };
  const graph = await madge([`${ROOT}src`, `${ROOT}workers`], { baseDir: ROOT, fileExtensions: ["ts"], detectiveOptions: rc.detectiveOptions });
  // A relative import madge cannot follow would hide any circle through it.
  assert.deepEqual(graph.warnings().skipped.filter((s) => s.startsWith(".")), []);
  const cycles = graph.circular().map((c) => c.join(" > "));
  assert.deepEqual(cycles, [], `${cycles.length} import cycles:\n${cycles.join("\n")}`);
});
