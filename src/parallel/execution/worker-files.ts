/**
 * Where the worker entry points are. The build puts `src` at `dist/src` and the entries at
 * `dist/workers`, the same relative layout as the sources, so the entry is three folders up. Run
 * from the .ts sources (under tsx), workers load `workers/<entry>.dev.mjs`, which registers tsx
 * in the worker first: Node 20 does not apply an inherited `--import tsx` in worker threads.
 */
const SOURCE = import.meta.url.endsWith(".ts");

export type WorkerEntry = "node-worker" | "comlink-node-worker";

/**
 * The entries' folder. The build bundles the worker entries (tools/bundle-node-workers.ts): in there
 * this module's URL is the entries' shared chunk, beside them.
 */
const ENTRIES = /\/workers\/[^/]+\.js$/.test(import.meta.url) ? new URL("./", import.meta.url) : new URL("../../../workers/", import.meta.url);

export function workerUrl(entry: WorkerEntry): URL {
  return new URL(`${entry}${SOURCE ? ".dev.mjs" : ".js"}`, ENTRIES);
}
