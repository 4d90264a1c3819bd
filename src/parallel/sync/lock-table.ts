/**
 * Chunk locks for partial-chunk read-modify-write, so that concurrent `set` calls whose regions
 * share a chunk without covering it lose nothing (docs/ARCHITECTURE.md, "Locking, level by level").
 *
 * Level 2, one process: a lock table, an Int32Array over one process-wide SharedArrayBuffer. A
 * slot is chosen by a hash of (array scope, store key); several keys may share a slot, which only
 * costs some needless waiting. The SharedArrayBuffer travels inside each write task
 * (`WriteTask.lock.table`), so a worker thread that receives the task structured-cloned works on
 * the very same memory as the main thread and every other worker.
 *
 * Level 3, several processes: after the slot, the task takes a lock file through the task's
 * ProcessSynchronizer (process-sync.ts), or a lease in Redis through a RedisSynchronizer
 * (redis-sync.ts) when the writers are on several machines. The slot is taken first: it is cheap, and it means one
 * process never asks the file system for a lock that one of its own threads already holds.
 *
 * Shards: the API takes a store key and nothing more. A sharded array locks the key of the
 * shard (the chunk of its outer grid) by naming it; the inner chunks need no lock of their own,
 * since a partial shard write rewrites the whole shard object under that one lock.
 *
 * Deadlock freedom:
 * - a task holds at most one lock at a time and never waits on anything else while holding it
 *   except its own store I/O, so there is no cycle to make;
 * - a waiter never blocks a thread that may be running a holder. The main thread never blocks:
 *   it waits with Atomics.waitAsync. A worker blocks with Atomics.wait only while its thread
 *   holds no lock and has no other wait in progress (several tasks interleave on one worker's
 *   event loop: a blocked worker would otherwise starve its own holder, or swallow a wake-up
 *   meant for its other waiter); otherwise it too waits asynchronously. Whoever holds the lock,
 *   main thread or another worker, keeps running.
 *
 * A slot holds 0 when free, otherwise `owner << 1 | waiters`: the owner is the holder's thread id
 * plus one, so that `releaseThreadLocks` (lock-owners.ts) can free the slots of a worker that was
 * terminated in the middle of a task (the pool calls it when it ends a worker by force). The
 * waiters bit asks the releaser to notify; it is set conservatively, so a release may wake nobody,
 * never too few.
 */
import { UnsupportedError } from "../../errors.js";
import { platform } from "../../platform/current.js";
import type { SyncDescriptor } from "./synchronizer.js";
import type { StoreDescriptor } from "../../stores/types.js";
import { LOCK_TABLE_KEY, WAITERS } from "./lock-owners.js";

/** What runs `fn` under a cross-process lock file: process-sync.ts, which registers itself (Node only). */
type FileLocker = (d: SyncDescriptor, scope: string, key: string, fn: () => Promise<unknown>) => Promise<unknown>;
let fileLocker: FileLocker | null = null;

/** @internal process-sync.ts hands over its lock files here as it loads, keeping it out of browser bundles. */
export function registerFileLocker(locker: FileLocker): void {
  fileLocker = locker;
}

function withFileLock<T>(d: SyncDescriptor, scope: string, key: string, fn: () => Promise<T>): Promise<T> {
  if (fileLocker === null) throw new UnsupportedError("a ProcessSynchronizer's lock files need Node (parzarr's Node entry)");
  return fileLocker(d, scope, key, fn) as Promise<T>;
}

/** How a write task locks: the in-process table, and optionally the cross-process synchronizer. */
export interface ChunkLockRef {
  /**
   * The process-wide lock table, or null to take no in-process lock (benchmarks only). A plain
   * ArrayBuffer where memory cannot be shared (a browser page that is not cross-origin isolated):
   * then writes run inline only (parallel/execution/coordinator.ts), and this thread alone uses it.
   */
  table: SharedArrayBuffer | ArrayBuffer | null;
  /** What tells this array's locks from another array's with the same key (store and path). */
  scope: string;
  /** Locks shared with other processes: lock files, or leases in Redis shared across machines. */
  files?: SyncDescriptor;
}

/** Slots in the table: 16 KiB of shared memory; collisions among unrelated busy chunks are rare. */
export const LOCK_SLOTS = 4096;

/** How long one asynchronous wait lasts before the slot is looked at again (a safety net). */
const WAIT_SLICE_MS = 1000;

type GlobalWithTable = typeof globalThis & { [LOCK_TABLE_KEY]?: SharedArrayBuffer | ArrayBuffer };

/**
 * This process's table. Made once, on the main thread, and kept on `globalThis` so that two copies
 * of this module (a bundle and a source import) still share one. A worker calling this gets a
 * table of its own, which is why tasks carry the main thread's table instead.
 */
export function processLockTable(): SharedArrayBuffer | ArrayBuffer {
  const g = globalThis as GlobalWithTable;
  // Made on first need, not on load: an unisolated page has no SharedArrayBuffer to make.
  const bytes = LOCK_SLOTS * Int32Array.BYTES_PER_ELEMENT;
  g[LOCK_TABLE_KEY] ??= platform().sharedMemory() ? new SharedArrayBuffer(bytes) : new ArrayBuffer(bytes);
  return g[LOCK_TABLE_KEY];
}

let lockingEnabled = true;

/**
 * @internal Turns the in-process table off for tasks planned from now on: only the lost-writes
 * benchmark uses it, to show what the locks prevent. Not exported from the package.
 */
export function setChunkLockingForBenchmark(enabled: boolean): void {
  lockingEnabled = enabled;
}

/** The lock reference a `set` puts in its write tasks. */
export function chunkLockRef(scope: string, files?: SyncDescriptor): ChunkLockRef {
  const table = lockingEnabled ? processLockTable() : null;
  return files ? { table, scope, files } : { table, scope };
}

/**
 * The array-independent part of a lock's identity: which store. Store keys already include the
 * array's path. It must come out the same in every process that opens the same store (a
 * filesystem root is absolute), since lock files are named after it.
 */
export function lockScopeOf(d: StoreDescriptor): string {
  switch (d.kind) {
    case "filesystem":
      return `file:${d.root}`;
    case "fetch":
      return `url:${d.url}`;
    case "memory":
      return `memory:${d.id}`;
    // The bucket and prefix name the data wherever it is reached from (endpoints and credentials
    // may differ between machines sharing it).
    case "s3":
      return `s3:${d.bucket}/${d.prefix}`;
    case "zip":
      return `zip:${d.path}`;
    case "opfs":
      return `opfs:${d.root}`;
    case "archive":
      return `archive:${d.path}`;
    case "caller":
      return `caller:${d.id}`;
    // Read-only: nothing is ever locked in it.
    case "reference":
      return `reference:${d.instance}`;
  }
}

/** FNV-1a over the UTF-16 code units: cheap, and spreads similar chunk keys well enough. */
export function lockSlot(scope: string, key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < scope.length; i++) h = Math.imul(h ^ scope.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ 0x0a, 0x01000193);
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return (h >>> 0) % LOCK_SLOTS;
}

/** This thread's owner mark, asked of the platform on first lock (worker entries install theirs first). */
let ownerMark = 0;
function owner(): number {
  if (ownerMark === 0) ownerMark = (platform().threadId() + 1) << 1;
  return ownerMark;
}

/** Locks this thread holds now, over all its tasks. */
let heldHere = 0;
/**
 * Asynchronous waits in progress on this thread. One of them may already have been woken by a
 * release (the wake-up is queued behind this thread's current task): blocking the thread now would
 * swallow that wake-up, and nobody else would be told the lock is free.
 */
let waitingHere = 0;

const views = new WeakMap<SharedArrayBuffer | ArrayBuffer, Int32Array>();

function viewOf(table: SharedArrayBuffer | ArrayBuffer): Int32Array {
  let v = views.get(table);
  if (!v) {
    v = new Int32Array(table);
    views.set(table, v);
  }
  return v;
}

/** Atomics.waitAsync (ES2024; in Node since 16), typed here since the project targets an older lib. */
type WaitAsync = (
  view: Int32Array,
  index: number,
  value: number,
  timeout?: number,
) => { async: false; value: "not-equal" | "timed-out" } | { async: true; value: Promise<"ok" | "timed-out"> };
const waitAsync = (Atomics as unknown as { waitAsync?: WaitAsync }).waitAsync?.bind(Atomics);

function isSharedTable(slots: Int32Array): boolean {
  return typeof SharedArrayBuffer === "function" && slots.buffer instanceof SharedArrayBuffer;
}

/** Waits until the slot no longer holds `seen` (or a slice of time passes). */
async function waitWhile(slots: Int32Array, slot: number, seen: number): Promise<void> {
  // Atomics.wait and waitAsync need shared memory; a table in plain memory (only this thread
  // uses it) is polled, its holder being another task of this same event loop.
  if (!isSharedTable(slots)) {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return;
  }
  if (!platform().isMainThread() && heldHere === 0 && waitingHere === 0) {
    Atomics.wait(slots, slot, seen, WAIT_SLICE_MS);
    return;
  }
  if (waitAsync) {
    const r = waitAsync(slots, slot, seen, WAIT_SLICE_MS);
    if (!r.async) return;
    // A pending waitAsync does not keep Node's event loop alive, and its own timeout may not
    // fire on an idle loop: a plain timer does both, so a waiter always looks again.
    let timer: ReturnType<typeof setTimeout> | undefined;
    waitingHere++;
    try {
      await Promise.race([r.value, new Promise((resolve) => (timer = setTimeout(resolve, WAIT_SLICE_MS)))]);
    } finally {
      waitingHere--;
      clearTimeout(timer);
    }
    return;
  }
  // No waitAsync (older browsers): poll without blocking the thread.
  await new Promise((resolve) => setTimeout(resolve, 1));
}

/**
 * Takes a slot. The thread's `heldHere` count moves in the same synchronous step as the slot
 * itself: counted one microtask later, another task of this thread could block in between while
 * this thread holds the lock.
 */
async function acquireSlot(slots: Int32Array, slot: number): Promise<void> {
  // Uncontended: one compare-exchange.
  const OWNER = owner();
  if (Atomics.compareExchange(slots, slot, 0, OWNER) === 0) {
    heldHere++;
    return;
  }
  for (;;) {
    const seen = Atomics.load(slots, slot);
    if (seen === 0) {
      // Others may still be waiting behind us: keep the bit so our release wakes one of them.
      if (Atomics.compareExchange(slots, slot, 0, OWNER | WAITERS) === 0) {
        heldHere++;
        return;
      }
      continue;
    }
    if ((seen & WAITERS) === 0 && Atomics.compareExchange(slots, slot, seen, seen | WAITERS) !== seen) continue;
    await waitWhile(slots, slot, seen | WAITERS);
  }
}

/**
 * Frees a slot and wakes every waiter, not just one: an asynchronous wait whose safety timer won
 * the race stays registered with V8 until its own timeout, and a wake-one could go to such a
 * forgotten waiter while a live one sleeps on. Contention is rare, so the herd is small.
 */
function releaseSlot(slots: Int32Array, slot: number): void {
  heldHere--;
  const was = Atomics.exchange(slots, slot, 0);
  if (was & WAITERS && isSharedTable(slots)) Atomics.notify(slots, slot);
}

/**
 * Runs `fn` holding the lock of one store key: the in-process slot, then the lock file when the
 * reference names a synchronizer. `ref` undefined means the process-wide table of this thread
 * (right inline; a worker always receives the main thread's table in its task).
 */
export async function withChunkLock<T>(ref: ChunkLockRef | undefined, key: string, fn: () => Promise<T>): Promise<T> {
  const table = ref === undefined ? processLockTable() : ref.table;
  const scope = ref?.scope ?? "";
  const files = ref?.files;
  if (table === null) return files ? withFileLock(files, scope, key, fn) : fn();
  const slots = viewOf(table);
  const slot = lockSlot(scope, key);
  await acquireSlot(slots, slot);
  try {
    return files ? await withFileLock(files, scope, key, fn) : await fn();
  } finally {
    releaseSlot(slots, slot);
  }
}
