/**
 * What differs between Node and a browser, behind one interface: the rest of parzarr reaches
 * parallelism, thread identity, buffer limits, worker executors and local-path stores only
 * through `platform()` (current.ts), so the browser entry's module graph holds no Node built-in.
 */
import type { Executor } from "../parallel/execution/executor.js";
import type { WorkerPoolOptions } from "../parallel/execution/worker-pool.js";
import type { Store } from "../stores/types.js";
import type { lazyFeatures } from "../lazy-features-loader.js";

export interface Platform {
  readonly name: "node" | "browser";
  /** Threads a pool gets when none are asked for. */
  availableParallelism(): number;
  /** The largest buffer (bytes) one typed array may take here. */
  readonly maxBufferBytes: number;
  /** This thread's id: 0 on the main thread, distinct on every live worker. */
  threadId(): number;
  /**
   * In a worker: take the id the pool that started it gave it (`ownerIdForWorker`), so that the
   * pool can free the chunk locks this worker held if it dies. Browsers give workers no id the
   * page can see, and a worker the caller made (`createWorker`) is one the pool cannot ask.
   */
  adoptThreadId(id: number): void;
  isMainThread(): boolean;
  /** A random UUID: ids that must not collide across threads (memory stores, zip writers). */
  randomUUID(): string;
  /**
   * Whether memory can be shared with workers (SharedArrayBuffer exists; in a browser only on a
   * cross-origin isolated page). Without it reads on workers send decoded chunks back and writes
   * run inline (see parallel/execution/coordinator.ts).
   */
  sharedMemory(): boolean;
  /** The executor a WorkerPool runs its workers on. */
  createExecutor(threads: number, options: WorkerPoolOptions): Executor;
  /** The store for a local path or file: URL; absent where there is no file system (browsers). */
  localStore?(pathOrFileUrl: string, options: { readOnly?: boolean }): Store;
  /**
   * A local path as `/`-free segments of its real location (symbolic links followed in the part
   * that exists), so two spellings of one folder compare equal; absent where there are no paths.
   */
  realPathSegments?(path: string): string[];
  /**
   * Copies `src[start, end)` into `dst` from `at`; the range must fit both (an InternalFault
   * otherwise, nothing clamped). The blosc scatter copies every decoded byte into the output's rows with
   * it. `TypedArray.prototype.set` copies into or out of shared memory 8 bytes a step with relaxed
   * atomic loads and stores (V8), where Node 24's `Buffer.prototype.copy` uses memmove: 4 KiB rows
   * into a shared 256 MiB output took 47-49 ms of CPU against 28-29 on Node 24, as into an
   * ArrayBuffer (docs/benchmarks.md).
   */
  copyBytes(dst: Uint8Array, at: number, src: Uint8Array, start: number, end: number): void;
  /**
   * The loader of lazy-features.ts (lazy-features-loader.ts), the same on every platform, for the
   * modules that lazy-features.ts holds and that load part of it on first use (S3Store's requests,
   * ReferenceStore's reads): importing the loader would close an import circle through it.
   */
  readonly lazyFeatures: typeof lazyFeatures;
}
