/**
 * The process-wide pool: `os.availableParallelism()` threads, made on first need. Its idle
 * workers are unref'd, so it never keeps a process alive and needs no closing.
 */
import { WorkerPool } from "./worker-pool.js";

let shared: WorkerPool | null = null;

export function defaultPool(): WorkerPool {
  // A caller may have closed it (it is reachable through options); a fresh one replaces it.
  if (shared === null || shared.closed) shared = new WorkerPool();
  return shared;
}
