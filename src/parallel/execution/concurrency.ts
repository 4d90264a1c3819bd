/**
 * How much runs at once, in one place: every executor, the coordinator, the worker tasks, the copy
 * engine's memory plan and the stores that fan out read these numbers, so that a change to one is
 * seen by everything that depends on it. Imports nothing, so any module (a worker's too) can.
 */
export interface ConcurrencyPolicy {
  /**
   * Tasks the inline executor keeps in flight, so that store latency (HTTP, disk) overlaps with
   * decoding. The copy engine plans its memory for this many chunk buffers per slab when inline.
   */
  readonly inlineInFlight: number;
  /**
   * Chunks of one read task a worker runs at once, so that one chunk's store I/O overlaps another's
   * decoding where the worker awaits its store (HTTP, S3; a worker reads local files blocking, see
   * FileSystemStore.dedicateThread, and blockingReadInFlight at a time) (writes run theirs one at a time). 8 was tried in bench/browser.ts: the fetches open at
   * once stayed at about 12 and the times did not change (docs/benchmarks.md).
   */
  readonly workerReadInFlight: number;
  /**
   * The same where the worker reads its store blocking (local files, FileSystemStore.dedicateThread):
   * a read overlaps nothing there, and every chunk in flight holds its bytes. 1 and 4 measured the
   * same CPU and time on 2 threads (blosc-lz4 and blosc-zstd, tasks of 5 ms of decoding).
   */
  readonly blockingReadInFlight: number;
  /**
   * Tasks one piscina worker runs at once: with one, a worker sat idle between tasks for the
   * message round trip, and (when workers read files asynchronously) for every file read of a
   * one-chunk task; with two, one task's message or store read is under way while the other
   * decodes (reads into a shared `out` on 2 threads went from 1.5x to 1.7-2x inline, measured
   * with asynchronous reads; workers now read local files blocking, where the second task hides
   * the round trip and an object store's latency).
   */
  readonly piscinaTasksPerWorker: number;
  /**
   * Tasks one Web Worker runs at once. It fetches its own chunks and reads a response body only
   * between decodes, so it needs many fetches open: Chromium's loopback fetch is slow and at one
   * task per worker the 2-worker read of bench/browser.ts waited on fetches 1.7x to 3.2x as long as
   * fetching alone. Measured there (64 MiB, 512 x 512 float32 chunks, 2 workers, loaded 2-core
   * machine, ms blosc-lz4 / zstd): 4 tasks 4315 / 6491, 8 tasks 4118 / 5131, 16 tasks 3996 / 5220.
   */
  readonly webWorkerTasksPerWorker: number;
  /**
   * Tasks one comlink worker runs at once on Node (worker_threads, or a caller's Worker factory):
   * the piscina executor is the measured default there; this one keeps a task per worker.
   */
  readonly nodeComlinkTasksPerWorker: number;
  /**
   * Where chunks are fetched on the calling thread for the workers (WorkerPoolOptions.fetchOnCaller):
   * tasks whose fetches start ahead of the lanes taking them, so that the network stays busy while
   * workers decode. Chromium opens at most 6 connections per host over HTTP/1.1; a few more keep
   * them all busy.
   */
  readonly callerFetchesAhead: number;
  /** Conditional reads in flight at once while a chunk cache revalidates its stale chunks. */
  readonly revalidateInFlight: number;
  /** Deletes of an S3 `deletePrefix` in flight at once (one request each). */
  readonly s3DeletesInFlight: number;
}

export const CONCURRENCY: ConcurrencyPolicy = Object.freeze({
  inlineInFlight: 8,
  workerReadInFlight: 4,
  blockingReadInFlight: 1,
  piscinaTasksPerWorker: 2,
  webWorkerTasksPerWorker: 8,
  nodeComlinkTasksPerWorker: 1,
  callerFetchesAhead: 8,
  revalidateInFlight: 16,
  s3DeletesInFlight: 8,
});

/**
 * Tasks the coordinator keeps in flight on a pool. With every thread asked for (`threads` unset or
 * at least the pool's), one extra task per worker waits in the queue so that a worker finishing a
 * task starts the next at once; fewer threads means exactly that many in flight.
 */
export function poolLanes(pool: { threads: number; tasksPerWorker: number }, threads: number | undefined): number {
  return threads === undefined || threads >= pool.threads ? pool.threads * (pool.tasksPerWorker + 1) : threads;
}

/**
 * Threads for a read that only copies files into place (raw chunks: nothing to decode), or 0 for
 * inline. Inline, `inlineCopiers` threads copy in effect (decode-cost.ts INLINE_FILE_COPIERS); on
 * the pool each of n threads reads its own chunks blocking and pays the pool's cost as well. So n
 * threads take (copy + pool) / n per byte against copy / inlineCopiers inline, and win when n >
 * inlineCopiers x (1 + pool / copy): from 2 threads on (2-core machine, 256 MiB: inline 47-51 ms,
 * 2 threads 42-45). Each thread gets at least `minWork` of copying.
 */
export function copyThreads(
  bytes: number,
  chunkCount: number,
  threads: { pool: number; cores: number; inlineCopiers: number },
  ns: { copyPerByte: number; poolPerByte: number; minWork: number },
): number {
  const inline = Math.min(threads.inlineCopiers, threads.cores);
  const n = Math.min(threads.pool, threads.cores, chunkCount, Math.floor((bytes * ns.copyPerByte) / ns.minWork));
  return n >= 2 && n * ns.copyPerByte > inline * (ns.copyPerByte + ns.poolPerByte) ? n : 0;
}
