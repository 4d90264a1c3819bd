/**
 * The process-wide pool: `os.availableParallelism()` threads, made on first need. Its idle
 * workers are unref'd, so it never keeps a process alive and needs no closing.
 */
import { WorkerPool } from "./worker-pool.js";

let shared: WorkerPool | null = null;

export function defaultPool(): WorkerPool {
  if (shared === null) shared = new WorkerPool();
  return shared;
}
