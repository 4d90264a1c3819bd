/**
 * The default Web Worker. This module is compiled to dist/browser/, beside the worker module that
 * tools/build-browser.ts writes there, so the one literal "./parzarr-worker.js" is right wherever
 * it is read from: unbundled (dist/browser/), by bundlers that resolve
 * `new Worker(new URL(literal, import.meta.url), { type: "module" })` (Vite, webpack 5: they emit
 * the worker with the app, no configuration), in the one-file dist/browser/parzarr.js, and in an
 * esbuild bundle, which leaves the URL as it is: the worker file is then copied beside the bundle.
 */

/** Where the worker module lies: beside this module, or beside the bundle that holds it. */
export function defaultWorkerUrl(): URL {
  return new URL("./parzarr-worker.js", import.meta.url);
}

/** Starts a worker on the default URL, written in the one pattern bundlers recognise. */
export function startDefaultWorker(): Worker {
  return new Worker(new URL("./parzarr-worker.js", import.meta.url), { type: "module" });
}
