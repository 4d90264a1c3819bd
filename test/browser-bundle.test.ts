/**
 * The browser build: esbuild bundles the browser entry and the worker for --platform=browser
 * without errors, and neither graph holds a Node built-in (node:*, or a bare "fs", "path", ...),
 * piscina or proper-lockfile; the worker file is self-contained (no import left in it but its lazy
 * parts beside it).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { builtinModules } from "node:module";
import { readFileSync } from "node:fs";
import type { Metafile } from "esbuild";
import { buildBrowser } from "../tools/build-browser.js";
import { scratchDir } from "./helpers/paths.js";

const NODE_ONLY_PACKAGES = ["piscina", "proper-lockfile", "graceful-fs", "@napi-rs/lzma"];

/** Every import esbuild resolved anywhere in the graph: the path it was asked for and where it went. */
function importsOf(meta: Metafile): { from: string; path: string; external: boolean }[] {
  return Object.entries(meta.inputs).flatMap(([from, input]) =>
    input.imports.map((imp) => ({ from, path: imp.original ?? imp.path, external: imp.external === true })),
  );
}

test("the browser entry and worker bundle for the browser with no Node module in their graphs", async () => {
  const built = await buildBrowser(scratchDir());
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
  for (const [name, meta] of Object.entries(built.metafiles)) {
    const imports = importsOf(meta);
    assert.ok(imports.length > 50, `${name}: the graph was read (${imports.length} imports)`);
    const nodeImports = imports.filter((i) => i.path.startsWith("node:") || builtins.has(i.path));
    assert.deepEqual(nodeImports, [], `${name}: imports of Node built-ins`);
    const inputs = Object.keys(meta.inputs);
    for (const pkg of NODE_ONLY_PACKAGES) {
      assert.deepEqual(inputs.filter((p) => p.includes(`node_modules/${pkg}/`)), [], `${name}: ${pkg} in the graph`);
    }
    for (const src of ["src/platform/node.ts", "src/stores/filesystem.ts", "src/stores/zip.ts", "src/parallel/sync/process-sync.ts", "src/parallel/execution/piscina-executor.ts"]) {
      assert.ok(!inputs.includes(src), `${name}: ${src} is Node-only`);
    }
    assert.deepEqual(imports.filter((i) => i.external), [], `${name}: nothing left external`);
    // Self-contained: no import but the worker's lazy parts, which lie beside it.
    for (const [out, o] of Object.entries(meta.outputs)) {
      if (!out.endsWith(".js")) continue;
      const lazy = o.imports.filter((i) => i.kind === "dynamic-import" && /\/parzarr-worker-\w+\.js$/.test(i.path));
      assert.deepEqual(o.imports, name === "worker" ? lazy : [], `${name}: ${out} imports nothing else`);
    }
  }
  // The one-file library finds its worker beside itself.
  const lib = readFileSync(built.library, "utf8");
  assert.match(lib, /new URL\("\.\/parzarr-worker\.js", import\.meta\.url\)/);
});
