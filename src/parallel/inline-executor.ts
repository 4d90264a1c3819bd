/**
 * The inline executor: runs chunk tasks on this thread through `runChunkTask`. Several tasks are
 * kept in flight so that store latency (HTTP, disk) overlaps with decoding.
 */
import { AbortError } from "../errors.js";
import { runChunkTask, type ChunkTask } from "./chunk-task.js";
import type { OperationOptions } from "./options.js";
import type { Store } from "../stores/types.js";

const IN_FLIGHT = 8;

export async function runTasksInline(tasks: ChunkTask[], store: Store, options: OperationOptions = {}): Promise<void> {
  const { signal, onProgress } = options;
  const total = tasks.reduce((n, t) => n + t.items.length, 0);
  let done = 0;
  let next = 0;
  let failed = false;
  if (signal?.aborted) throw new AbortError();
  const worker = async (): Promise<void> => {
    // The first failure stops the rest: no runner starts a new task after it.
    while (next < tasks.length && !failed) {
      if (signal?.aborted) throw new AbortError();
      const task = tasks[next++];
      try {
        await runChunkTask(task, store, signal);
      } catch (err) {
        failed = true;
        throw err;
      }
      done += task.items.length;
      onProgress?.(done, total);
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(IN_FLIGHT, tasks.length) }, worker));
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (rejected) throw rejected.reason;
}
