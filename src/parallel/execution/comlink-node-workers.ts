/**
 * Comlink workers on Node's worker_threads, through comlink's Node adapter: how the browser
 * executor is exercised under Node. The worker is unref'd whenever it has nothing to do.
 */
import { Worker } from "node:worker_threads";
import { wrap } from "comlink";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import type { BrowserWorkerApi } from "../../../workers/worker-api.js";
import type { ComlinkWorker, ComlinkWorkerFactory } from "./comlink-executor.js";
import { workerUrl } from "./worker-files.js";

export const nodeComlinkWorkers: ComlinkWorkerFactory = (): ComlinkWorker => {
  const worker = new Worker(workerUrl("comlink-node-worker"));
  worker.unref();
  const api = wrap<BrowserWorkerApi>(nodeEndpoint(worker as unknown as Parameters<typeof nodeEndpoint>[0]));
  // Read now: a Worker's threadId is -1 once it has exited.
  const threadId = worker.threadId;
  return {
    api,
    threadId,
    onFailure: (listener) => {
      worker.on("error", listener);
      // An exit we did not ask for (terminate from elsewhere, process.exit in the worker, out of
      // memory) leaves comlink's pending call unanswered: report it as a failure too.
      // The executor ignores the exits of its own close().
      worker.on("exit", (code) => listener(new Error(`worker exited with code ${code}`)));
    },
    terminate: () => worker.terminate(),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
};
