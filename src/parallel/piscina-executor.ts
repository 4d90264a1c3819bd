/**
 * The Node executor: worker_threads through piscina. Piscina unrefs idle workers, so a pool that
 * has nothing to do never keeps the process alive.
 */
import { Piscina } from "piscina";
import type { Executor } from "./executor.js";
import type { TaskMessage, TaskOutcome } from "./task-outcome.js";
import { workerUrl } from "./worker-files.js";

export class PiscinaExecutor implements Executor {
  private readonly piscina: Piscina<TaskMessage, TaskOutcome>;

  constructor(readonly threads: number) {
    this.piscina = new Piscina<TaskMessage, TaskOutcome>({
      filename: workerUrl("node-worker").href,
      // Workers start on first need and then stay (idle and unref'd) for the next operation:
      // starting one costs tens of milliseconds, more than most reads.
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Infinity,
    });
  }

  run(message: TaskMessage): Promise<TaskOutcome> {
    return this.piscina.run(message);
  }

  async close(): Promise<void> {
    await this.piscina.close();
  }
}
