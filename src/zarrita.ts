/**
 * `parzarr/zarrita` in Node: the Node platform (worker_threads pools), then `get` and `set` for
 * zarrita.js arrays (zarrita-adapter.ts). Browsers get src/zarrita-browser.ts (package.json
 * `exports` condition "browser").
 */
import "./platform/node.js";

export { get, set } from "./zarrita-adapter.js";
export type { ZarritaSelection, ZarritaResult } from "./zarrita-adapter.js";
