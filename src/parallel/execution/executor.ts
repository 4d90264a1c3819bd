/** What the pool needs from an executor: run one task message on some worker, and shut down. */
import type { TaskMessage, TaskOutcome } from "./task-outcome.js";

export interface Executor {
  readonly threads: number;
  /** Tasks one worker runs at once (the platform's number in CONCURRENCY, parallel/execution/concurrency.ts). */
  readonly tasksPerWorker: number;
  run(message: TaskMessage): Promise<TaskOutcome>;
  /** Finishes the tasks already started, then ends every worker. */
  close(): Promise<void>;
}
