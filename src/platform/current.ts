/**
 * The platform in use. An entry point installs its own (src/index.ts the Node one, src/browser.ts
 * the browser one, each worker entry its thread's) before anything runs; until then the browser
 * implementation serves, since it only uses web-standard globals that Node has too. Code that
 * imports parzarr's modules directly on Node, without an entry (a test's worker, say), imports
 * platform/node.ts first: without it worker threads all look like the main thread to the locks.
 */
import { browserPlatform } from "./browser.js";
import type { Platform } from "./types.js";

// Read at call time, not when this module loads: browser.ts's own imports reach this module, so
// in that cycle browserPlatform is not yet initialised here (webpack, and Node itself, follow the
// ECMAScript order and would throw a ReferenceError at `let current = browserPlatform`).
let current: Platform | undefined;

export function platform(): Platform {
  return current ?? browserPlatform;
}

/** Makes `p` the platform of this thread; entry points call it once, first thing. */
export function installPlatform(p: Platform): void {
  current = p;
}
