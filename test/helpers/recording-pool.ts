/** A 2-thread pool that records every message it ran with its outcome (which tasks went to the workers, and what came back). */
import { after } from "node:test";
import { WorkerPool } from "../../src/index.js";
import type { TaskMessage, TaskOutcome } from "../../src/parallel/execution/task-outcome.js";

export function recordingPool(threads = 2): { pool: WorkerPool; ran: { message: TaskMessage; outcome: TaskOutcome }[] } {
  const pool = new WorkerPool({ threads });
  after(() => pool.close());
  const ran: { message: TaskMessage; outcome: TaskOutcome }[] = [];
  const run = pool.run.bind(pool);
  pool.run = async (message) => {
    const outcome = await run(message);
    ran.push({ message, outcome });
    return outcome;
  };
  return { pool, ran };
}
