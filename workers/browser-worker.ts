/**
 * The comlink worker entry: exposes `runChunkTask`. In a browser it talks to its Worker scope;
 * under Node (where the comlink executor is tested over worker_threads) to the parent port
 * through comlink's Node adapter.
 */
import { expose } from "comlink";
import { runTaskMessage } from "../src/parallel/worker-task.js";
import type { TaskMessage, TaskOutcome } from "../src/parallel/task-outcome.js";

const api = {
  runChunkTask(message: TaskMessage): Promise<TaskOutcome> {
    return runTaskMessage(message);
  },
};
export type BrowserWorkerApi = typeof api;

const isNode = typeof process !== "undefined" && typeof process.versions?.node === "string";
if (isNode) {
  const { parentPort } = await import("node:worker_threads");
  const { default: nodeEndpoint } = await import("comlink/dist/esm/node-adapter.mjs");
  if (!parentPort) throw new Error("browser-worker must run in a worker thread");
  expose(api, nodeEndpoint(parentPort));
} else {
  expose(api);
}
