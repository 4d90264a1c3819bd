/**
 * Start-up cost: importing the library must not load what only some calls need. zod (≈ 0.3 s of
 * CPU here) loads with the `parzarr/zom` schemas or the first model checked, not with `parzarr`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolvedInChild } from "./helpers/resolved-in-child.js";

/** The npm packages a fresh process resolves while it runs `code`. */
function packagesLoaded(code: string): Set<string> {
  return resolvedInChild(code, /node_modules\/((@[^/]+\/)?[^/]+)\//).resolved;
}

test("import of the library does not load zod; the parzarr/zom entry and a model check do", () => {
  const plain = packagesLoaded(`const p = await import("./src/index.ts"); if (typeof p.openArray !== "function") process.exit(3);`);
  assert.ok(!plain.has("zod"), `zod loaded at import: ${[...plain].join(", ")}`);
  const schemas = packagesLoaded(`const z = await import("./src/zom.ts"); if (typeof z.xarraySchema !== "function") process.exit(3);`);
  assert.ok(schemas.has("zod"));
  const checked = packagesLoaded(`
    const { MemoryStore, createGroup, fromZarr } = await import("./src/index.ts");
    const store = new MemoryStore();
    await createGroup(store, { zarrFormat: 2 });
    const model = await fromZarr(store);
    if (!("members" in model)) process.exit(3);`);
  assert.ok(checked.has("zod"));
});
