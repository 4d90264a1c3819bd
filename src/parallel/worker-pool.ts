/**
 * WorkerPool: the public handle on a set of worker threads that run chunk tasks. It counts the
 * tasks in flight (so tests and callers can see that an aborted operation left nothing running)
 * and refuses work once closed.
 */
import { availableParallelism } from "node:os";
import { InvalidArgumentError, PoolClosedError } from "../errors.js";
import { ComlinkExecutor } from "./comlink-executor.js";
import { nodeComlinkWorkers } from "./comlink-node-workers.js";
import type { Executor } from "./executor.js";
import { PiscinaExecutor } from "./piscina-executor.js";
import type { TaskMessage, TaskOutcome } from "./task-outcome.js";

export interface WorkerPoolOptions {
  /** Number of worker threads; by default `os.availableParallelism()`. */
  threads?: number;
  /**
   * "piscina" (Node worker_threads, the default) or "comlink" (the Web Worker bridge; under Node
   * it runs over worker_threads through comlink's Node adapter).
   */
  executor?: "piscina" | "comlink";
}

export class WorkerPool {
  readonly threads: number;
  readonly executorKind: "piscina" | "comlink";
  private readonly executor: Executor;
  private inFlight = 0;
  private closing: Promise<void> | null = null;

  constructor(options: WorkerPoolOptions = {}) {
    const threads = options.threads ?? availableParallelism();
    if (!Number.isInteger(threads) || threads < 1) {
      throw new InvalidArgumentError(`WorkerPool: threads must be a positive integer, got ${threads}`);
    }
    this.threads = threads;
    this.executorKind = options.executor ?? "piscina";
    this.executor =
      this.executorKind === "comlink" ? new ComlinkExecutor(threads, nodeComlinkWorkers) : new PiscinaExecutor(threads);
  }

  /** Tasks sent to workers and not yet finished. */
  get busy(): number {
    return this.inFlight;
  }

  get closed(): boolean {
    return this.closing !== null;
  }

  /** @internal the coordinator's way in: one task message to some worker. */
  async run(message: TaskMessage): Promise<TaskOutcome> {
    if (this.closing) throw new PoolClosedError("the worker pool is closed: make a new WorkerPool or pass threads: 0");
    this.inFlight++;
    try {
      return await this.executor.run(message);
    } finally {
      this.inFlight--;
    }
  }

  /** Lets running tasks finish, then ends the workers. Later work is refused with a PoolClosedError. */
  close(): Promise<void> {
    this.closing ??= this.executor.close();
    return this.closing;
  }
}
