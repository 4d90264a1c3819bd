/**
 * The function both worker entry points call: runs a task's chunks one at a time through
 * `runChunkTask`, checking the operation's cancel flag between chunks, and reports an outcome
 * instead of throwing so that the error's class and code survive the trip back.
 */
import { runChunkTask } from "./chunk-task.js";
import { serialiseError, type TaskMessage, type TaskOutcome } from "./task-outcome.js";

export async function runTaskMessage(message: TaskMessage): Promise<TaskOutcome> {
  const { task, cancel } = message;
  let chunks = 0;
  for (const item of task.items) {
    if (Atomics.load(cancel, 0) !== 0) return { status: "cancelled", chunks };
    try {
      // A copy of the task with one item: every other field (a lock table, say) stays as sent.
      await runChunkTask({ ...task, items: [item] });
    } catch (err) {
      return { status: "failed", chunks, error: serialiseError(err) };
    }
    chunks++;
  }
  return { status: "done", chunks };
}
