/**
 * What pools need of the chunk lock table (lock-table.ts), which only writes load: owner ids for
 * the workers they start, and the release of a dead worker's slots. Apart so that a page that
 * only reads on a pool holds no lock code: the table is made by the first write that locks, and
 * where none was made no worker can hold a slot in it.
 */

/** Where the process's table lives: on `globalThis`, so that two copies of parzarr share one. */
export const LOCK_TABLE_KEY = Symbol.for("parzarr.lockTable.v1");

/** A slot's bit that asks its releaser to notify waiters; the rest is the holder's owner mark. */
export const WAITERS = 1;

/**
 * Frees every slot held by a thread that can no longer release it (a worker terminated mid-task).
 * Returns how many were freed. Only the owner of a pool calls this, after the worker has exited.
 */
export function releaseThreadLocks(table: SharedArrayBuffer | ArrayBuffer, deadThreadId: number): number {
  const slots = new Int32Array(table);
  const owner = (deadThreadId + 1) << 1;
  let freed = 0;
  for (let i = 0; i < slots.length; i++) {
    const v = Atomics.load(slots, i);
    if (v !== 0 && (v & ~WAITERS) === owner && Atomics.compareExchange(slots, i, v, 0) === v) {
      Atomics.notify(slots, i);
      freed++;
    }
  }
  return freed;
}

/**
 * Lock owner ids the pools of this thread give the workers they start (workers take them with
 * `adoptThreadId`), so that a pool knows whose slots to free when a worker dies. From [2^28,
 * 2^29): above any Node thread id and the random ids browser workers have until told theirs,
 * within the table's 30 bits. A random start keeps two copies of this module apart.
 */
let nextOwnerId = 2 ** 28 + Math.floor(Math.random() * 2 ** 27);
export function ownerIdForWorker(): number {
  const id = nextOwnerId;
  nextOwnerId = nextOwnerId + 1 >= 2 ** 29 ? 2 ** 28 : nextOwnerId + 1;
  return id;
}

/**
 * What an executor calls when one of its worker threads has exited: frees the slots that thread
 * held in this process's table (the table every write task planned here carries). No table made
 * yet: no write has locked, so there is nothing to free.
 */
export function releaseLocksOfExitedThread(deadThreadId: number): number {
  const table = (globalThis as { [LOCK_TABLE_KEY]?: SharedArrayBuffer | ArrayBuffer })[LOCK_TABLE_KEY];
  if (deadThreadId < 0 || table === undefined) return 0;
  return releaseThreadLocks(table, deadThreadId);
}
