/**
 * The process-wide pool: `os.availableParallelism()` threads, made on first need. Its idle
 * workers are unref'd, so it never keeps a process alive and needs no closing.
 */
import { platform } from "../../platform/current.js";
import { WorkerPool } from "./worker-pool.js";

let shared: WorkerPool | null = null;

export function defaultPool(): WorkerPool {
  if (shared === null) shared = new WorkerPool();
  return shared;
}

/** The default pool's size, without making it (placement asks before it knows it needs one). */
export function defaultPoolThreads(): number {
  return shared?.threads ?? platform().availableParallelism();
}
