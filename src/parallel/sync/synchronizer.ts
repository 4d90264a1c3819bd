/**
 * What `synchronizer` accepts: lock files on a shared file system (ProcessSynchronizer) or leases
 * in Redis across machines (RedisSynchronizer). Both run a partial-chunk write under a per-key
 * lock and describe themselves as plain data, which write tasks carry to worker threads.
 */
import { registerFileLocker } from "./lock-table.js";
import { fileLockFor, ProcessSynchronizer, type ProcessSyncDescriptor } from "./process-sync.js";
import { redisLockFor, RedisSynchronizer, type RedisSyncDescriptor } from "./redis-sync.js";

/** What the `synchronizer` option takes: lock files (one file system) or Redis leases (several machines). */
export type Synchronizer = ProcessSynchronizer | RedisSynchronizer;

/** A synchronizer as plain data, as write tasks carry it to workers. */
export type SyncDescriptor = ProcessSyncDescriptor | RedisSyncDescriptor;

export function isSynchronizer(v: unknown): v is Synchronizer {
  return v instanceof ProcessSynchronizer || v instanceof RedisSynchronizer;
}

/** This thread's synchronizer for a task's descriptor. */
export function synchronizerFor(d: SyncDescriptor): { withLock<T>(scope: string, key: string, fn: () => Promise<T>): Promise<T> } {
  switch (d.kind) {
    case "lockfile":
      return fileLockFor(d);
    case "redis":
      return redisLockFor(d);
  }
}

// Write tasks that name a synchronizer reach it through the lock table, which does not import this
// module (a browser bundle must not): loading it, as the Node platform does, registers it.
registerFileLocker((d, scope, key, fn) => synchronizerFor(d).withLock(scope, key, fn));
