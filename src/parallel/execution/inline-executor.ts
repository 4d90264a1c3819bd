/**
 * The inline executor: runs chunk tasks on this thread through `runChunkTask`. Several tasks are
 * kept in flight so that store latency (HTTP, disk) overlaps with decoding.
 */
import { AbortError, asAbort } from "../../errors.js";
import { runChunkTask, type ChunkTask, type ChunkVersion } from "../chunk-io/chunk-task.js";
import type { OperationOptions } from "./options.js";
import type { Store } from "../../stores/types.js";
import type { ChunkPlan } from "../../indexing/projection.js";
import { CONCURRENCY } from "./concurrency.js";

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
        const run = runChunkTask(task, store, signal);
        // A read whose store never settles (a custom store that ignores the signal) must not keep
        // an aborted operation waiting: its task is left behind, its output no longer wanted.
        // Writes are waited for, so that none lands after the operation has returned.
        const versions = await (task.kind === "read" && signal ? untilAborted(run, signal) : run);
        if (versions !== undefined) onVersions?.(task, versions.map((v, i) => [i, v]));
      } catch (err) {
        failed = true;
        throw asAbort(err, signal);
      }
      done += task.items.length;
      onProgress?.(done, total);
    }
  };
  const results = await Promise.allSettled(Array.from({ length: Math.min(CONCURRENCY.inlineInFlight, tasks.count) }, worker));
  const rejected = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (rejected) throw rejected.reason;
}

/** `work`, or an AbortError as soon as `signal` fires, whichever comes first. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  let onAbort = () => {};
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(new AbortError());
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  // The work may fail after the abort has already answered: nobody waits on it then.
  work.catch(() => undefined);
  return Promise.race([work, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}
