/**
 * What a Web Worker executor's worker serves (worker-rpc.ts), the same in a browser's Web Worker
 * and in a Node worker thread: runs one task message. Chunks a read sends back without shared
 * memory are transferred, not copied (see src/parallel/execution/returned-chunks.ts).
 */
import { platform } from "../src/platform/current.js";
// Tasks carry parsed metadata of any data type: every such worker (parzarr's Web Worker, a
// caller's worker entry, bench/browser's tracing one) has the rare ones' code from the start.
import "../src/metadata/rare-types.js";
import { runTaskMessage } from "../src/parallel/execution/worker-task.js";
import { transfer } from "../src/parallel/execution/worker-rpc.js";
import { outcomeTransferables, type TaskMessage, type TaskOutcome } from "../src/parallel/execution/task-outcome.js";

export const workerApi = {
  /** The id this worker's chunk locks are held under (see Platform.adoptThreadId); sent first. */
  adoptThreadId(id: number): void {
    platform().adoptThreadId(id);
  },
  async runChunkTask(message: TaskMessage): Promise<TaskOutcome> {
    const outcome = await runTaskMessage(message);
    return transfer(outcome, outcomeTransferables(outcome));
  },
};
export type BrowserWorkerApi = typeof workerApi;
