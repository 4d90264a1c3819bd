/**
 * `parzarr/zarrita` in browsers: the browser platform (Web Worker pools), then `get` and `set` for
 * zarrita.js arrays (zarrita-adapter.ts).
 */
import "./platform/browser-install.js";

export { get, set } from "./zarrita-adapter.js";
export type { ZarritaSelection, ZarritaResult } from "./zarrita-adapter.js";
