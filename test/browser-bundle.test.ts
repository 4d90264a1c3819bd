/**
 * The browser build: esbuild bundles the browser entry and the worker for --platform=browser
 * without errors, and neither graph holds a Node built-in (node:*, or a bare "fs", "path", ...),
 * piscina or proper-lockfile; each file imports nothing but parzarr's chunks beside it (the library's
 * ZEP 6 model chunk imports zod, an optional peer the page supplies).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { builtinModules } from "node:module";
import { readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
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
    // Nothing left external but, in the library, zod (the page's to supply) and numcodecs' zstd,
    // which is the worker's chunk of it.
    const externals = imports.filter((i) => i.external).map((i) => (/^\.\/parzarr-worker-\w+\.js$/.test(i.path) ? "the worker's chunk" : i.path));
    assert.deepEqual(new Set(externals), new Set(name === "worker" ? [] : ["zod", "the worker's chunk"]), `${name}: left external`);
    // Self-contained: no import but parzarr's own chunks beside it (and zod's, in the model's chunk).
    for (const [out, o] of Object.entries(meta.outputs)) {
      if (!out.endsWith(".js")) continue;
      const others = o.imports.filter((i) => !/(^|\/)parzarr-(worker-)?\w+\.js$/.test(i.path) && !(name === "library" && i.path === "zod"));
      assert.deepEqual(others, [], `${name}: ${out} imports nothing else`);
    }
  }
  // The library finds its worker beside itself: parzarr.js or a chunk it imports up front (all lie
  // in one folder; parzarr-stores.js shares them) names the worker's file relative to itself.
  const lib = built.metafiles.library.outputs;
  const upFront = (out: string): string[] => [out, ...lib[out]!.imports.filter((i) => i.kind === "import-statement").flatMap((i) => upFront(i.path))];
  const entry = Object.keys(lib).find((out) => lib[out]!.entryPoint === "src/browser.ts")!;
  const text = [...new Set(upFront(entry))].map((out) => readFileSync(join(dirname(built.library), basename(out)), "utf8")).join("\n");
  assert.match(text, /new URL\("\.\/parzarr-worker\.js", import\.meta\.url\)/);
});

test("dist/browser holds one copy of numcodecs' zstd encoder, and parzarr.js leaves zod to the page", async () => {
  const built = await buildBrowser(scratchDir(), { minify: true, sourcemap: false });
  // Every output that holds numcodecs' zstd build (748 KB of WebAssembly in base64), either build.
  const holders = Object.values(built.metafiles).flatMap((m) =>
    Object.entries(m.outputs).filter(([, o]) => Object.keys(o.inputs).some((i) => i.includes("node_modules/numcodecs/dist/zstd"))).map(([out]) => out),
  );
  assert.equal(holders.length, 1, `outputs holding numcodecs' zstd: ${holders.join(", ")}`);
  // zod (an optional peer, 150 KB minified) is not inlined: the ZEP 6 model imports it on first use.
  const lib = built.metafiles.library;
  const zod = Object.keys(lib.inputs).filter((i) => i.includes("node_modules/zod/"));
  assert.deepEqual(zod, [], "zod inlined in the library");
  const entry = Object.values(lib.outputs).find((o) => o.entryPoint === "src/browser.ts")!;
  assert.ok(!entry.imports.some((i) => i.kind === "import-statement" && i.path === "zod"), "parzarr.js imports zod up front");
});
