/**
 * The Web Worker executor's workers on Web Workers (worker-rpc.ts): the browser's executor. Each worker runs the self-contained
 * worker module (`parzarr/worker`, built from workers/browser-worker.ts), loaded from `workerUrl`
 * or made by the caller's `createWorker` (bundler recipes, custom headers, a Blob URL).
 */
import { InvalidArgumentError } from "../../errors.js";
import type { BrowserWorkerApi } from "../../../workers/worker-api.js";
import { WORKER_METHODS, type ComlinkWorker, type ComlinkWorkerFactory } from "./comlink-executor.js";
import { WorkerClient, type Endpoint } from "./worker-rpc.js";
import { ownerIdForWorker } from "../sync/lock-owners.js";
import { startDefaultWorker } from "../../../browser/default-worker.js";

/** What parzarr needs of a Web Worker: a message endpoint it can end. */
export interface WorkerLike extends Endpoint {
  /** Ends the worker; the pool calls it when it closes. */
  terminate(): void;
}

export interface WebWorkerOptions {
  workerUrl?: string | URL;
  createWorker?: () => WorkerLike;
}

export function webWorkers(options: WebWorkerOptions): ComlinkWorkerFactory {
  const { createWorker } = options;
  const make =
    createWorker ??
    ((): WorkerLike => {
      if (typeof Worker === "undefined") {
        throw new InvalidArgumentError("this platform has no Web Worker: pass createWorker, or use threads: 0");
      }
      return options.workerUrl === undefined ? startDefaultWorker() : new Worker(options.workerUrl, { type: "module" });
    });
  return (): ComlinkWorker => {
    const worker = make();
    const client = new WorkerClient<BrowserWorkerApi>(worker, WORKER_METHODS);
    const api = client.api;
    // Sent before any task (messages keep their order): the id this worker's chunk locks carry,
    // so that the executor can free them if the worker dies holding one.
    const threadId = ownerIdForWorker();
    api.adoptThreadId(threadId).catch(() => {
      // A worker that cannot take it fails its first task too, which reports why.
    });
    // A worker script that fails to load or throws at the top level fires "error"; a message
    // that cannot be deserialised fires "messageerror". Either way the worker is unusable, and
    // its pending calls fail with why.
    const failureOf = (ev: Event): Error =>
      new Error((ev as ErrorEvent).message || `worker ${ev.type} (is the worker URL right and served as JavaScript?)`);
    const listen = (fail: (ev: Event) => void, add: boolean): void => {
      for (const type of ["error", "messageerror"]) {
        if (add) worker.addEventListener(type, fail);
        else worker.removeEventListener(type, fail);
      }
    };
    // The client is closed by the last listener, after the executor's: a browser drains
    // microtasks between listeners, and a client closed first would reject the running call,
    // whose settling hands the queue to this dead worker (not yet removed), failing every call.
    const closeClient = (ev: Event): void => client.close(failureOf(ev));
    listen(closeClient, true);
    const onFailure = (listener: (err: Error) => void): void => {
      listen(closeClient, false);
      listen((ev) => listener(failureOf(ev)), true);
      listen(closeClient, true);
    };
    return {
      api,
      threadId,
      onFailure,
      terminate: () => {
        client.close(new Error("the worker was ended"));
        worker.terminate();
      },
    };
  };
}
