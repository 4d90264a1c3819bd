/**
 * The platform in use. An entry point installs its own before anything runs: src/index.ts (and
 * the Node-only stores barrel) the Node one, src/browser.ts the browser one, each worker entry its
 * thread's. This module imports none itself, so no module inside the graph picks a default (the
 * browser platform's executors reach back here through chunk tasks and stores: an import cycle).
 * Code that imports parzarr's modules directly, without an entry, imports platform/node.ts first.
 */
import type { Platform } from "./types.js";

let current: Platform | undefined;

export function platform(): Platform {
  // A plain Error: a missing install is parzarr's own fault (an entry point's), not the caller's.
  if (!current) throw new Error("parzarr internal error: no platform installed (import src/index.ts, src/browser.ts or platform/node.ts first)");
  return current;
}

/** Makes `p` the platform of this thread; entry points call it once, first thing. */
export function installPlatform(p: Platform): void {
  current = p;
}
