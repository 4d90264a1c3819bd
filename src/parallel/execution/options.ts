/** Options every read and write takes. */
import type { WorkerPool } from "./worker-pool.js";
import { InvalidArgumentError } from "../../errors.js";

/** Options every read and write takes: cancellation, progress, and where chunks run. */
export interface OperationOptions {
  /** Cancels the operation; chunks already written stay written. Rejects with an AbortError. */
  signal?: AbortSignal;
  /** Called as chunks finish with the number of chunks done and the total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * 0 runs every chunk inline on this thread. Any other number uses a worker pool (`pool`, or the
   * process-wide default pool) with at most that many tasks in flight; unset lets the coordinator
   * choose from the codecs' decoding cost (inline for raw chunks and small reads, else as many
   * threads as the decoding keeps busy).
   */
  threads?: number;
  /** The pool to run on; by default a process-wide pool of `os.availableParallelism()` threads. */
  pool?: WorkerPool;
}

/**
 * The option names every read and write takes. A record over `keyof OperationOptions`, so that a
 * new option added above and not here is a compile error rather than an option refused at run time.
 */
const OPERATION_OPTION_KEYS: Record<keyof OperationOptions, true> = { signal: true, onProgress: true, threads: true, pool: true };
export const OPERATION_OPTION_NAMES: readonly string[] = Object.keys(OPERATION_OPTION_KEYS);

/**
 * Refuses option names that `what` does not take, so that a typo (`{ thread: 0 }`) is an
 * INVALID_ARGUMENT instead of an option silently ignored. Options that are not a plain object
 * are refused the same way.
 */
export function checkOptionNames(options: unknown, allowed: readonly string[], what: string): void {
  if (options === undefined) return;
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new InvalidArgumentError(`${what}: options must be an object, got ${options === null ? "null" : Array.isArray(options) ? "an array" : typeof options}`);
  }
  const unknown = Object.keys(options).filter((k) => !allowed.includes(k));
  if (unknown.length > 0) {
    throw new InvalidArgumentError(`${what}: unknown option${unknown.length > 1 ? "s" : ""} ${unknown.map((k) => JSON.stringify(k)).join(", ")} (known: ${allowed.join(", ")})`);
  }
}
