/**
 * Start-up cost: importing the library must not load what only some calls need. zod (≈ 0.3 s of
 * CPU here) loads with the `parzarr/zom` schemas or the first model checked, not with `parzarr`.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

const ROOT = new URL("../", import.meta.url).pathname;

/** The npm packages a fresh process resolves while it runs `code`. */
function packagesLoaded(code: string): Set<string> {
  // A resolve hook in the child names every package a module is resolved into.
  const hook = `export async function resolve(s, c, next) {
    const r = await next(s, c);
    const m = r.url.match(/node_modules\\/((@[^/]+\\/)?[^/]+)\\//);
    if (m) process.stderr.write("PKG " + m[1] + "\\n");
    return r;
  }`;
  const register = `import { register } from "node:module"; register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hook)}));`;
  const r = spawnSync(process.execPath, ["--import", "tsx", "--import", `data:text/javascript,${encodeURIComponent(register)}`, "--input-type=module", "-e", code], {
    cwd: ROOT,
    encoding: "utf8",
  });
  assert.equal(r.status, 0, r.stderr);
  return new Set([...r.stderr.matchAll(/^PKG (\S+)$/gm)].map((m) => m[1]!));
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
