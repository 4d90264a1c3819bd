/**
 * Comlink workers on Node's worker_threads, through comlink's Node adapter: how the browser
 * executor is exercised under Node. The worker is unref'd whenever it has nothing to do.
 */
import { Worker } from "node:worker_threads";
import { wrap } from "comlink";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import type { BrowserWorkerApi } from "../../workers/worker-api.js";
import type { ComlinkWorker, ComlinkWorkerFactory } from "./comlink-executor.js";
import { workerUrl } from "./worker-files.js";

export const nodeComlinkWorkers: ComlinkWorkerFactory = (): ComlinkWorker => {
  const worker = new Worker(workerUrl("comlink-node-worker"));
  worker.unref();
  const api = wrap<BrowserWorkerApi>(nodeEndpoint(worker as unknown as Parameters<typeof nodeEndpoint>[0]));
  return {
    api,
    onFailure: (listener) => worker.on("error", listener),
    terminate: () => worker.terminate(),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
};
