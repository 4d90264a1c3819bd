/**
 * WorkerPool: the public handle on a set of worker threads that run chunk tasks. It counts the
 * tasks in flight (so tests and callers can see that an aborted operation left nothing running)
 * and refuses work once closed.
 */
import { InvalidArgumentError, PoolClosedError, WorkerExitError, ZarrError } from "../../errors.js";
import { platform } from "../../platform/current.js";
import type { WorkerLike } from "./comlink-web-workers.js";
import type { Executor } from "./executor.js";
import type { TaskMessage, TaskOutcome } from "./task-outcome.js";

/** Options of a WorkerPool: how many threads, which executor, and where its worker module is. */
export interface WorkerPoolOptions {
  /**
   * Number of worker threads; by default `os.availableParallelism()` on Node,
   * `navigator.hardwareConcurrency` in a browser.
   */
  threads?: number;
  /**
   * "piscina" (Node worker_threads, the default on Node) or "comlink" (Web Workers, the default
   * and only choice in a browser, named for the library it once used; under Node it runs over
   * worker_threads unless `createWorker` is given).
   */
  executor?: "piscina" | "comlink";
  /**
   * comlink: the URL of parzarr's worker module (`parzarr/worker`). By default the file beside the
   * library module (`new URL(..., import.meta.url)`), which Vite and webpack follow.
   */
  workerUrl?: string | URL;
  /** comlink: makes one worker (a module Worker running `parzarr/worker`), for custom setups. */
  createWorker?: () => WorkerLike;
  /**
   * Whether tasks share memory with the workers (SharedArrayBuffer). By default, where the platform
   * has it (Node; a cross-origin isolated page). Without it reads send each decoded chunk back to
   * be placed here, and writes run inline (README, "In the browser").
   */
  sharedMemory?: boolean;
  /**
   * Reads fetch the chunks they read whole on the calling thread and send the bytes to the workers,
   * which then only decode; part of a chunk (of a shard, its index and inner chunks) the worker reads
   * (parallel/execution/fetched-chunks.ts). Off by default: workers read their own chunks,
   * and the calling thread (a page's main thread) does no I/O work. In Chromium it read as fast as
   * Web Workers fetching their own 8 tasks at a time, but gave the page long tasks of 140-240 ms
   * on a loaded machine (bench/browser.ts); it may help where workers are few and fetches slow.
   */
  fetchOnCaller?: boolean;
}

/** Worker threads (Node) or Web Workers (browsers) that decode and encode chunks; share one across operations with the `pool` option, and `close()` it when done. */
export class WorkerPool {
  /** The number of workers. */
  readonly threads: number;
  /** Which executor runs the tasks. */
  readonly executorKind: "piscina" | "comlink";
  /** Whether tasks share memory with the workers (see WorkerPoolOptions.sharedMemory). */
  readonly sharedMemory: boolean;
  private readonly executor: Executor;
  private readonly fetchOnCallerOption: boolean;
  private inFlight = 0;
  private operations = 0;
  private readonly drainWaiters: (() => void)[] = [];
  private closing: Promise<void> | null = null;

  constructor(options: WorkerPoolOptions = {}) {
    const p = platform();
    const threads = options.threads ?? p.availableParallelism();
    if (!Number.isInteger(threads) || threads < 1) {
      throw new InvalidArgumentError(`WorkerPool: threads must be a positive integer, got ${threads}`);
    }
    this.threads = threads;
    this.executorKind = options.executor ?? (p.name === "node" ? "piscina" : "comlink");
    this.sharedMemory = p.sharedMemory() && (options.sharedMemory ?? true);
    this.executor = p.createExecutor(threads, { ...options, executor: this.executorKind });
    this.fetchOnCallerOption = options.fetchOnCaller ?? false;
  }

  /** Whether reads on this pool fetch their chunks on the calling thread (`fetchOnCaller`). */
  get fetchesOnCaller(): boolean {
    return this.fetchOnCallerOption;
  }

  /** Tasks one worker runs at once (see the executors). */
  get tasksPerWorker(): number {
    return this.executor.tasksPerWorker;
  }

  /** Tasks sent to workers and not yet finished. */
  get busy(): number {
    return this.inFlight;
  }

  /** Whether `close()` was called. */
  get closed(): boolean {
    return this.closing !== null;
  }

  /**
   * @internal the coordinator wraps each operation in this: a closed pool refuses new operations,
   * and `close()` waits for the ones already running.
   */
  async operation<T>(body: () => Promise<T>): Promise<T> {
    if (this.closing) throw closedError();
    this.operations++;
    try {
      return await body();
    } finally {
      if (--this.operations === 0) for (const wake of this.drainWaiters.splice(0)) wake();
    }
  }

  /** @internal one task message to some worker, from within `operation`. */
  async run(message: TaskMessage): Promise<TaskOutcome> {
    if (this.closing && this.operations === 0) throw closedError();
    this.inFlight++;
    try {
      return await this.executor.run(message);
    } catch (err) {
      // Chunk failures come back as outcomes; a rejection means the worker itself went away.
      throw err instanceof ZarrError ? err : workerExit(message, err);
    } finally {
      this.inFlight--;
    }
  }

  /**
   * Refuses new operations at once, lets those already running finish, then ends the workers.
   * Later work is refused with a PoolClosedError.
   */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.operations > 0) await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
      await this.executor.close();
    })();
    return this.closing;
  }
}

/** How many chunk keys a WorkerExitError message names before "and N more". */
const KEYS_IN_MESSAGE = 8;

/** A worker that died mid-task, as a typed error naming the chunks of that task. */
function workerExit(message: TaskMessage, err: unknown): WorkerExitError {
  const keys = message.task.items.map((item) => item.key);
  const named = keys.slice(0, KEYS_IN_MESSAGE).map((k) => JSON.stringify(k)).join(", ");
  const more = keys.length > KEYS_IN_MESSAGE ? ` and ${keys.length - KEYS_IN_MESSAGE} more` : "";
  const reason = err instanceof Error ? err.message : String(err);
  return new WorkerExitError(
    `a worker thread died (${reason}) while ${message.task.kind === "write" ? "writing" : "reading"} chunks ${named}${more}`,
    keys,
    { cause: err },
  );
}

function closedError(): PoolClosedError {
  return new PoolClosedError("the worker pool is closed: make a new WorkerPool or pass threads: 0");
}
