/**
 * The Web Worker executor's worker under Node (how that executor is exercised there): the same
 * API as the browser's worker, served over worker_threads (worker-rpc.ts through nodeEndpoint).
 * Its file keeps the executor's public name, "comlink", for the library it once used.
 */
import "../src/platform/node.js";
import { parentPort } from "node:worker_threads";
import { nodeEndpoint } from "../src/parallel/execution/node-endpoint.js";
import { serveWorkerApi } from "../src/parallel/execution/worker-rpc.js";
import { workerApi } from "./worker-api.js";

if (!parentPort) throw new Error("comlink-node-worker must run in a worker thread");
serveWorkerApi(nodeEndpoint(parentPort), workerApi);
