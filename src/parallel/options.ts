/** Options every read and write takes. */
import type { WorkerPool } from "./worker-pool.js";

export interface OperationOptions {
  /** Cancels the operation; chunks already written stay written. Rejects with an AbortError. */
  signal?: AbortSignal;
  /** Called as chunks finish with the number of chunks done and the total. */
  onProgress?: (done: number, total: number) => void;
  /**
   * 0 runs every chunk inline on this thread. Any other number uses a worker pool (`pool`, or the
   * process-wide default pool) with at most that many tasks in flight; unset lets the coordinator
   * choose (inline for tiny requests, the whole pool otherwise).
   */
  threads?: number;
  /** The pool to run on; by default a process-wide pool of `os.availableParallelism()` threads. */
  pool?: WorkerPool;
}
