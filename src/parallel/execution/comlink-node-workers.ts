/**
 * The Web Worker executor's workers on Node's worker_threads (worker-rpc.ts over nodeEndpoint):
 * how the browser executor is exercised under Node. The worker is unref'd whenever it has nothing to do.
 */
import { Worker } from "node:worker_threads";
import type { BrowserWorkerApi } from "../../../workers/worker-api.js";
import { WORKER_METHODS, type ComlinkWorker, type ComlinkWorkerFactory } from "./comlink-executor.js";
import { nodeEndpoint } from "./node-endpoint.js";
import { WorkerClient } from "./worker-rpc.js";
import { workerUrl } from "./worker-files.js";

export const nodeComlinkWorkers: ComlinkWorkerFactory = (): ComlinkWorker => {
  const worker = new Worker(workerUrl("comlink-node-worker"));
  worker.unref();
  const client = new WorkerClient<BrowserWorkerApi>(nodeEndpoint(worker), WORKER_METHODS);
  // Read now: a Worker's threadId is -1 once it has exited.
  const threadId = worker.threadId;
  // A worker that died, sent what cannot be read, or exited when nobody asked (terminate from
  // elsewhere, process.exit in the worker, out of memory) answers no more: its pending calls fail with why.
  const failed = (err: Error): void => client.close(err);
  const exited = (code: number): Error => new Error(`worker exited with code ${code}`);
  worker.on("error", failed);
  // A message that cannot be deserialised: its call would never be answered.
  worker.on("messageerror", failed);
  worker.on("exit", (code) => failed(exited(code)));
  return {
    api: client.api,
    threadId,
    onFailure: (listener) => {
      worker.on("error", listener);
      worker.on("messageerror", listener);
      // The executor ignores the exits of its own close().
      worker.on("exit", (code) => listener(exited(code)));
    },
    // Its "exit" closes the client (above), after the executor has seen it: not closed here.
    terminate: () => worker.terminate(),
    ref: () => worker.ref(),
    unref: () => worker.unref(),
  };
};
