/**
 * The Node executor: worker_threads through piscina. Piscina unrefs idle workers, so a pool that
 * has nothing to do never keeps the process alive.
 */
import { Piscina } from "piscina";
import { CONCURRENCY } from "./concurrency.js";
import type { Executor } from "./executor.js";
import { releaseLocksOfExitedThread } from "../sync/lock-owners.js";
import type { TaskMessage, TaskOutcome } from "./task-outcome.js";
import { workerUrl } from "./worker-files.js";

export class PiscinaExecutor implements Executor {
  private readonly piscina: Piscina<TaskMessage, TaskOutcome>;
  /**
   * Thread ids of the workers piscina started, taken when each starts: a Worker's threadId reads
   * -1 once it has exited, and piscina's worker handles are new objects at every event.
   */
  private readonly threadIds = new Set<number>();
  /** Tasks one worker runs at once (CONCURRENCY.piscinaTasksPerWorker says why). */
  readonly tasksPerWorker = CONCURRENCY.piscinaTasksPerWorker;

  constructor(readonly threads: number) {
    this.piscina = new Piscina<TaskMessage, TaskOutcome>({
      filename: workerUrl("node-worker").href,
      // Workers start on first need and then stay (idle and unref'd) for the next operation:
      // starting one costs tens of milliseconds, more than most reads.
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
      concurrentTasksPerWorker: this.tasksPerWorker,
    });
    this.piscina.on("workerCreate", (w: { id: number }) => void this.threadIds.add(w.id));
    // Piscina reports a worker that died with no task as an "error" event: with no listener that
    // would crash the process. The tasks it was running already failed (see WorkerPool.run).
    this.piscina.on("error", () => undefined);
  }

  async run(message: TaskMessage): Promise<TaskOutcome> {
    try {
      return await this.piscina.run(message);
    } catch (err) {
      this.releaseDeadWorkersLocks();
      throw err;
    }
  }

  /**
   * A worker that died mid-write (crash, out of memory, terminate) cannot release the chunk locks
   * it held: free them for it, or later writers of those chunks would wait forever. Piscina fails
   * a dead worker's tasks only after dropping it from its threads, so here every started thread
   * id that is no longer among them belongs to a worker that has exited.
   */
  private releaseDeadWorkersLocks(): void {
    const alive = new Set(this.piscina.threads.map((w) => w.threadId));
    for (const id of this.threadIds) {
      if (alive.has(id)) continue;
      releaseLocksOfExitedThread(id);
      this.threadIds.delete(id);
    }
  }

  async close(): Promise<void> {
    await this.piscina.close();
  }
}
