/**
 * The platform in use. An entry point installs its own (src/index.ts the Node one, src/browser.ts
 * the browser one, each worker entry its thread's) before anything runs; until then the browser
 * implementation serves, since it only uses web-standard globals that Node has too.
 */
import { browserPlatform } from "./browser.js";
import type { Platform } from "./types.js";

let current: Platform = browserPlatform;

export function platform(): Platform {
  return current;
}

/** Makes `p` the platform of this thread; entry points call it once, first thing. */
export function installPlatform(p: Platform): void {
  current = p;
}
