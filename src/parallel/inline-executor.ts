/**
 * The inline executor: runs chunk tasks on this thread through `runChunkTask`. Several tasks are
 * kept in flight so that store latency (HTTP, disk) overlaps with decoding.
 */
import { AbortError } from "../errors.js";
import { runChunkTask, type ChunkTask, type ChunkVersion } from "./chunk-task.js";
import type { OperationOptions } from "./options.js";
import type { Store } from "../stores/types.js";
import type { ChunkPlan } from "../indexing/projection.js";

const IN_FLIGHT = 8;

/**
 * Runs tasks taken one at a time from a lazy plan (made as they are taken, so a plan of a million
 * chunks holds only the tasks in flight). Progress counts chunk items out of `total`: by default
 * `tasks.count`, right when each task holds one item.
 */
export async function runTasksInline(
  tasks: ChunkPlan<ChunkTask>,
  store: Store,
  options: OperationOptions = {},
  onVersions?: (task: ChunkTask, versions: [number, ChunkVersion][]) => void,
  total = tasks.count,
): Promise<void> {
  const { signal, onProgress } = options;
  const queue = tasks[Symbol.iterator]();
  let done = 0;
  let failed = false;
  if (signal?.aborted) throw new AbortError();
  const worker = async (): Promise<void> => {
    // The first failure stops the rest: no runner starts a new task after it.
    while (!failed) {
      if (signal?.aborted) throw new AbortError();
      const next = queue.next();
      if (next.done) return;
      const task = next.value;
      try {
        const versions = await runChunkTask(task, store, signal);
        if (versions !== undefined) onVersions?.(task, versions.map((v, i) => [i, v]));
      } catch (err) {
        failed = true;
        throw err;
      }
      done += task.items.length;
      onProgress?.(done, total);
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(IN_FLIGHT, tasks.count) }, worker));
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (rejected) throw rejected.reason;
}
