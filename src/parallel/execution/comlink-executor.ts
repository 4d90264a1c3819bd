/**
 * The Web Worker executor (the pool's `executor: "comlink"`, named for the library it once used):
 * a fixed set of workers, each running parzarr's worker module behind worker-rpc.ts, up to `tasksPerWorker` tasks at a time per worker, in the order they were asked for. Workers come from a
 * factory so that the same executor drives browser Workers and (in tests) Node worker_threads.
 */
import { transfer, type Remote } from "./worker-rpc.js";
import { fetchedTransferables } from "./fetched-chunks.js";
import type { BrowserWorkerApi } from "../../../workers/worker-api.js";
import type { Executor } from "./executor.js";
import { releaseLocksOfExitedThread } from "../sync/lock-owners.js";
import type { TaskMessage, TaskOutcome } from "./task-outcome.js";

export interface ComlinkWorker {
  api: Remote<BrowserWorkerApi>;
  /**
   * Called with an error when the worker dies: an uncaught error, or an exit that nobody asked for
   * (a Node worker's "error", "messageerror" and "exit" events; a Web Worker's "error" and
   * "messageerror"). May be called more than once for one death.
   */
  onFailure(listener: (err: Error) => void): void;
  /**
   * The id the worker's chunk locks carry (a Node thread id, or the one a Web Worker was given
   * at its start), whose locks are released when it dies.
   */
  readonly threadId?: number;
  terminate(): Promise<unknown> | void;
  /** Node only: whether the worker may keep the process alive (only while it has work). */
  ref?(): void;
  unref?(): void;
}

export type ComlinkWorkerFactory = () => ComlinkWorker;

/** The worker API's methods the executor calls (a type import only: the page loads none of it). */
export const WORKER_METHODS = ["adoptThreadId", "runChunkTask"] as const satisfies readonly (keyof BrowserWorkerApi)[];

interface Job {
  message: TaskMessage;
  resolve: (o: TaskOutcome) => void;
  reject: (e: unknown) => void;
}

export class ComlinkExecutor implements Executor {
  private readonly workers: ComlinkWorker[] = [];
  private readonly queue: Job[] = [];
  /** The jobs each live worker is running (at most `tasksPerWorker`). */
  private readonly running = new Map<ComlinkWorker, Set<Job>>();
  private readonly drainWaiters: (() => void)[] = [];
  private closed = false;

  /**
   * `tasksPerWorker`: how many tasks one worker runs at once. A worker's tasks are async (store
   * I/O), so with more than one its next chunk's fetch is open while it decodes the last.
   */
  constructor(
    readonly threads: number,
    private readonly spawn: ComlinkWorkerFactory,
    readonly tasksPerWorker: number,
  ) {}

  run(message: TaskMessage): Promise<TaskOutcome> {
    return new Promise<TaskOutcome>((resolve, reject) => {
      this.queue.push({ message, resolve, reject });
      this.pump();
    });
  }

  private get busyJobs(): number {
    let n = 0;
    for (const jobs of this.running.values()) n += jobs.size;
    return n;
  }

  private start(): ComlinkWorker {
    const w = this.spawn();
    this.workers.push(w);
    this.running.set(w, new Set());
    w.onFailure((err) => {
      // A dead worker fails its tasks and leaves the set; the next task starts a fresh one.
      const at = this.workers.indexOf(w);
      if (at < 0 || this.closed) return; // already handled ("error" is followed by "exit")
      this.workers.splice(at, 1);
      // Ended before its locks are freed: a worker that only reported an error may still be
      // running its task, and must not write a chunk whose lock another writer now holds.
      void Promise.resolve(w.terminate()).catch(() => {});
      if (w.threadId !== undefined) releaseLocksOfExitedThread(w.threadId);
      const jobs = this.running.get(w) ?? new Set<Job>();
      this.running.delete(w);
      for (const job of jobs) job.reject(err);
      this.pump();
      this.notifyIfDrained();
    });
    return w;
  }

  /** The worker for the next task: the least loaded one with room, or a new one while all are busy. */
  private pick(): ComlinkWorker | undefined {
    let best: ComlinkWorker | undefined;
    for (const w of this.workers) {
      const n = this.running.get(w)!.size;
      if (n < this.tasksPerWorker && (best === undefined || n < this.running.get(best)!.size)) best = w;
    }
    const allBusy = best === undefined || this.running.get(best)!.size > 0;
    if (allBusy && this.workers.length < this.threads) return this.start();
    return best;
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let worker: ComlinkWorker | undefined;
      try {
        worker = this.pick();
      } catch (err) {
        // No worker can be had (a bad script URL, a CSP refusal): fail the job rather than
        // leave it queued, where close() would wait on it forever.
        this.queue.shift()!.reject(err);
        this.notifyIfDrained();
        continue;
      }
      if (worker === undefined) return;
      const job = this.queue.shift()!;
      const w = worker;
      this.running.get(w)!.add(job);
      w.ref?.();
      // Chunk bytes the caller fetched move to the worker; they are not used here again.
      w.api.runChunkTask(transfer(job.message, fetchedTransferables(job.message.fetched))).then(
        (outcome) => this.finish(w, job, () => job.resolve(outcome)),
        (err: unknown) => this.finish(w, job, () => job.reject(err)),
      );
    }
  }

  private finish(worker: ComlinkWorker, job: Job, settle: () => void): void {
    const jobs = this.running.get(worker);
    if (!jobs?.delete(job)) return; // already failed through onFailure
    if (jobs.size === 0) worker.unref?.();
    settle();
    this.pump();
    this.notifyIfDrained();
  }

  private notifyIfDrained(): void {
    if (this.queue.length > 0 || this.busyJobs > 0) return;
    for (const wake of this.drainWaiters.splice(0)) wake();
  }

  async close(): Promise<void> {
    // The pool refuses new work before it closes the executor; what was asked for still runs.
    if (this.queue.length > 0 || this.busyJobs > 0) {
      await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    }
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
    this.running.clear();
  }
}
