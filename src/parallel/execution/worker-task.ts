/**
 * The function both worker entry points call: runs a task's chunks through `runChunkTask`, checks
 * the operation's cancel flag before each chunk, and reports an outcome instead of throwing so
 * that the error's class and code survive the trip back. A read runs a few chunks at a time, so
 * that one chunk's store I/O overlaps another's decoding; a write runs its chunks in order, one
 * at a time, so that nothing after a failing chunk (a corrupt one it had to merge into) starts.
 */
import { prefetchedStore, runChunkTask, storeFor, type ChunkVersion } from "../chunk-io/chunk-task.js";
import type { Store } from "../../stores/types.js";
import type { FileSystemStore } from "../../stores/filesystem.js";
import { loadStoreKind } from "../../stores/kinds.js";
import { withFetched, type ReturningStore } from "./returning-store.js";
import { readItemAlone, type ReturnedChunk } from "./returned-chunks.js";
import { serialiseError, type SerialisedError, type TaskMessage, type TaskOutcome } from "./task-outcome.js";
import { CONCURRENCY } from "./concurrency.js";

/** How often a running task looks at the cancel flag to abort store reads already waiting. */
const CANCEL_POLL_MS = 20;

/**
 * An AbortSignal that fires once the operation's cancel flag is set. An AbortSignal cannot cross
 * threads and a SharedArrayBuffer has no change event, so a timer looks at the flag while the
 * task runs: a fetch stuck on a slow server is aborted within a poll, not when it answers.
 */
function signalOf(cancel: Int32Array): { signal: AbortSignal; stop: () => void } {
  const controller = new AbortController();
  const timer = setInterval(() => {
    if (Atomics.load(cancel, 0) !== 0) {
      controller.abort();
      clearInterval(timer);
    }
  }, CANCEL_POLL_MS);
  timer.unref?.();
  return { signal: controller.signal, stop: () => clearInterval(timer) };
}

export async function runTaskMessage(message: TaskMessage): Promise<TaskOutcome> {
  const { task, cancel } = message;
  let chunks = 0;
  let next = 0;
  let error: SerialisedError | null = null;
  let cancelled = false;
  const returned: ReturnedChunk[] | undefined = message.returnChunks && task.kind === "read" ? [] : undefined;
  const versions: [number, ChunkVersion][] = [];
  const { signal, stop } = signalOf(cancel);
  // The task's chunks are read one by one below: a store that fetches them together does it first.
  let store: Store | undefined;
  let caller: ReturningStore | undefined;
  const runner = async (): Promise<void> => {
    while (next < task.items.length && error === null && !cancelled) {
      if (Atomics.load(cancel, 0) !== 0) {
        cancelled = true;
        return;
      }
      const index = next++;
      const item = task.items[index];
      try {
        // A copy of the task with one item: every other field (a lock table, say) stays as sent.
        if (returned !== undefined && task.kind === "read") {
          const chunk = await readItemAlone(task, item, index, signal, store);
          returned.push(chunk);
          if (chunk.version !== undefined) versions.push([index, chunk.version]);
        } else {
          const v = await runChunkTask({ ...task, items: [item] }, store, signal);
          if (v !== undefined) versions.push([index, v[0]]);
        }
        chunks++;
      } catch (err) {
        // A read aborted because the operation was cancelled is not a failure of its own.
        if (signal.aborted) cancelled = true;
        else error ??= serialiseError(err);
      }
    }
  };
  let inFlight = task.kind === "read" ? CONCURRENCY.workerReadInFlight : 1;
  try {
    try {
      // Chunks the caller fetched (fetchOnCaller) are answered from the message. A user's store
      // (stores/caller.ts) only the caller reaches: it sends the bytes, and stores what comes back.
      // A user's registered kind opens here once its module is imported.
      if (message.storeModule !== undefined) await loadStoreKind(task.store.kind, message.storeModule);
      const opened = task.store.kind === "caller" ? null : storeFor(task.store);
      // This thread runs nothing but tasks: a store of local files may read them blocking here.
      const local = opened as Partial<Pick<FileSystemStore, "dedicateThread">> | null;
      if (local?.dedicateThread) {
        local.dedicateThread();
        // Blocking reads overlap nothing: a chunk at a time, whose bytes are all this task holds
        // (a task of local files may be several chunks long, coordinator.ts TASK_TARGET_NS).
        if (task.kind === "read") inFlight = CONCURRENCY.blockingReadInFlight;
      }
      if (opened === null) store = caller = withFetched(null, task, message.fetched);
      else store = await prefetchedStore(task, message.fetched && task.kind === "read" ? withFetched(opened, task, message.fetched) : opened, signal);
    } catch (err) {
      if (signal.aborted) cancelled = true;
      else error = serialiseError(err);
    }
    await Promise.all(Array.from({ length: Math.min(inFlight, task.items.length) }, runner));
  } finally {
    stop();
  }
  const stored = caller && task.kind === "write" ? { stored: caller.stored } : {};
  const extra = { ...(returned === undefined ? {} : { returned }), ...(versions.length > 0 ? { versions } : {}), ...stored };
  if (error !== null) return { status: "failed", chunks, error, ...extra };
  return cancelled ? { status: "cancelled", chunks, ...extra } : { status: "done", chunks, ...extra };
}
