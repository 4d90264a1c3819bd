/**
 * parzarr's Web Worker with tracing (bench/browser/trace.ts), for the bench's profiled run only:
 * the same worker API, with each fetch and each chunk task recorded, and `takeSpans` to collect
 * them. The worker's name comes in its URL's hash ("#worker 1").
 */
import "../../src/platform/browser-install.js";
import { workerApi } from "../../workers/worker-api.js";
import { serveWorkerApi, type Endpoint } from "../../src/parallel/execution/worker-rpc.js";
import type { TaskMessage } from "../../src/parallel/execution/task-outcome.js";
import { now, record, setTracing, takeSpans, traceFetch } from "./trace.js";

const thread = decodeURIComponent(self.location.hash.slice(1)) || "worker";
traceFetch(thread);
setTracing(true);

serveWorkerApi(self as unknown as Endpoint, {
  ...workerApi,
  async runChunkTask(message: TaskMessage) {
    const start = now();
    try {
      return await workerApi.runChunkTask(message);
    } finally {
      record("task", thread, start, now());
    }
  },
  takeSpans,
});
