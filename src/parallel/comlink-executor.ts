/**
 * The Web Worker executor: a fixed set of workers, each running parzarr's worker module behind
 * comlink, one task at a time per worker, in the order they were asked for. Workers come from a
 * factory so that the same executor drives browser Workers and (in tests) Node worker_threads.
 */
import type { Remote } from "comlink";
import type { BrowserWorkerApi } from "../../workers/worker-api.js";
import type { Executor } from "./executor.js";
import { releaseLocksOfExitedThread } from "./lock-table.js";
import type { TaskMessage, TaskOutcome } from "./task-outcome.js";

export interface ComlinkWorker {
  api: Remote<BrowserWorkerApi>;
  /**
   * Called with an error when the worker dies: an uncaught error, or an exit that nobody asked for
   * (a Node worker's "error" and "exit" events). May be called more than once for one death.
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

interface Job {
  message: TaskMessage;
  resolve: (o: TaskOutcome) => void;
  reject: (e: unknown) => void;
}

export class ComlinkExecutor implements Executor {
  private readonly workers: ComlinkWorker[] = [];
  private readonly idle: ComlinkWorker[] = [];
  private readonly queue: Job[] = [];
  private readonly running = new Map<ComlinkWorker, Job>();
  private readonly drainWaiters: (() => void)[] = [];
  private closed = false;

  constructor(
    readonly threads: number,
    private readonly spawn: ComlinkWorkerFactory,
  ) {}

  run(message: TaskMessage): Promise<TaskOutcome> {
    return new Promise<TaskOutcome>((resolve, reject) => {
      this.queue.push({ message, resolve, reject });
      this.pump();
    });
  }

  private start(): ComlinkWorker {
    const w = this.spawn();
    this.workers.push(w);
    w.onFailure((err) => {
      // A dead worker fails its task and leaves the set; the next task starts a fresh one.
      const at = this.workers.indexOf(w);
      if (at < 0 || this.closed) return; // already handled ("error" is followed by "exit")
      this.workers.splice(at, 1);
      // Ended before its locks are freed: a worker that only reported an error may still be
      // running its task, and must not write a chunk whose lock another writer now holds.
      void Promise.resolve(w.terminate()).catch(() => {});
      if (w.threadId !== undefined) releaseLocksOfExitedThread(w.threadId);
      const job = this.running.get(w);
      this.running.delete(w);
      const idleAt = this.idle.indexOf(w);
      if (idleAt >= 0) this.idle.splice(idleAt, 1);
      job?.reject(err);
      this.pump();
      this.notifyIfDrained();
    });
    return w;
  }

  private pump(): void {
    while (this.queue.length > 0) {
      let w = this.idle.pop();
      if (!w) {
        if (this.workers.length >= this.threads) return;
        try {
          w = this.start();
        } catch (err) {
          // No worker can be had (a bad script URL, a CSP refusal): fail the job rather than
          // leave it queued, where close() would wait on it forever.
          this.queue.shift()!.reject(err);
          this.notifyIfDrained();
          continue;
        }
      }
      const job = this.queue.shift()!;
      const worker = w;
      this.running.set(worker, job);
      worker.ref?.();
      worker.api.runChunkTask(job.message).then(
        (outcome) => this.finish(worker, job, () => job.resolve(outcome)),
        (err: unknown) => this.finish(worker, job, () => job.reject(err)),
      );
    }
  }

  private finish(worker: ComlinkWorker, job: Job, settle: () => void): void {
    if (this.running.get(worker) !== job) return; // already failed through onFailure
    this.running.delete(worker);
    worker.unref?.();
    this.idle.push(worker);
    settle();
    this.pump();
    this.notifyIfDrained();
  }

  private notifyIfDrained(): void {
    if (this.queue.length > 0 || this.running.size > 0) return;
    for (const wake of this.drainWaiters.splice(0)) wake();
  }

  async close(): Promise<void> {
    // The pool refuses new work before it closes the executor; what was asked for still runs.
    if (this.queue.length > 0 || this.running.size > 0) {
      await new Promise<void>((resolve) => this.drainWaiters.push(resolve));
    }
    this.closed = true;
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
    this.idle.length = 0;
  }
}
