/**
 * The comlink worker under Node (how the Web Worker executor is exercised there): the same API
 * as the browser's worker, over worker_threads through comlink's Node adapter.
 */
import "../src/platform/node.js";
import { parentPort } from "node:worker_threads";
import { expose } from "comlink";
import nodeEndpoint from "comlink/dist/esm/node-adapter.mjs";
import { workerApi } from "./worker-api.js";

if (!parentPort) throw new Error("comlink-node-worker must run in a worker thread");
expose(workerApi, nodeEndpoint(parentPort));
