/** The piscina worker entry: one exported handler that runs a chunk task message. */
import "../src/platform/node.js";
import { runTaskMessage } from "../src/parallel/execution/worker-task.js";
import type { TaskMessage, TaskOutcome } from "../src/parallel/execution/task-outcome.js";

export default function handle(message: TaskMessage): Promise<TaskOutcome> {
  return runTaskMessage(message);
}
