/**
 * The platform is installed by an entry point, never defaulted from inside the module graph: a
 * default meant current.ts imported the browser platform, whose executor imports reach back to
 * current.ts through chunk tasks and stores (an import cycle, with a ReferenceError in
 * ECMAScript order). Each case runs in a fresh process, since this one has a platform installed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolvedInChild } from "./helpers/resolved-in-child.js";

/** Runs `code` as an ES module in a fresh Node (with tsx); its stdout and the src/ files it loaded. */
function run(code: string): { stdout: string; loaded: string[] } {
  const { stdout, resolved } = resolvedInChild(code, /\/(src\/[^?]+)$/);
  return { stdout, loaded: [...resolved] };
}

test("platform/current.ts loads no other module at run time", () => {
  const { loaded } = run(`await import("./src/platform/current.ts");`);
  assert.deepEqual(loaded, ["src/platform/current.ts"]);
});

test("platform() before any entry installed one is an internal error that says so", () => {
  const { stdout } = run(`
    const { platform } = await import("./src/platform/current.ts");
    try { console.log("returned " + platform().name); } catch (e) { console.log("threw " + e.constructor.name + ": " + e.message); }`);
  assert.match(stdout, /^threw Error: .*no platform installed/);
});

test("an internal module imported after the Node platform runs on it", () => {
  const { stdout } = run(`
    await import("./src/platform/node.ts");
    const { MemoryStore } = await import("./src/stores/memory.ts");
    const { platform } = await import("./src/platform/current.ts");
    await new MemoryStore().set("k", new Uint8Array([1]));
    console.log(platform().name);`);
  assert.equal(stdout, "node");
});
