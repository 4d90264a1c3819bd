/**
 * The coordinator: decides where an operation's chunks run (inline or on a pool), batches small
 * chunks into one message, keeps the workers fed, reports progress, and stops on abort or on the
 * first failing chunk. It touches chunk bytes only when the pool asks it to fetch them for the
 * workers (WorkerPoolOptions.fetchOnCaller, fetched-chunks.ts), and then only to pass them on.
 */
import { AbortError, asAbort, InvalidArgumentError, PoolClosedError } from "../../errors.js";
import type { TypedArray } from "../../metadata/dtype.js";
import { workerCanOpen } from "../../stores/kinds.js";
import { storeModules } from "../../stores/store-modules.js";
import type { Store, WritableStore } from "../../stores/types.js";
import { mapPlan, type ChunkPlan } from "../../indexing/projection.js";
import type { ChunkItem, ChunkTask, ChunkVersion } from "../chunk-io/chunk-task.js";
import { placeReturnedChunks, withoutOutput } from "./returned-chunks.js";
import { CONCURRENCY, copyThreads, poolLanes } from "./concurrency.js";
import { FILE_COPY_NS_PER_BYTE, INLINE_FILE_COPIERS } from "../../codecs/decode-cost.js";
import { platform } from "../../platform/current.js";
import { defaultPool, defaultPoolThreads } from "./default-pool.js";
import { runTasksInline } from "./inline-executor.js";
import type { OperationOptions } from "./options.js";
import { reviveError, type TaskMessage } from "./task-outcome.js";
import type { WorkerPool } from "./worker-pool.js";
import { fetchChunks, fetchesChunks, writeOnCaller, type FetchedChunks } from "./fetched-chunks.js";

/**
 * The pool's own cost per byte of chunk data, in ns: a message per task, the staged copy into a
 * private output on the calling thread, a second core's cache traffic. Decoding that costs less
 * (raw chunks: a file read into place, cost 0) gains nothing from more cores, so it runs inline
 * at every size; decoding that costs more shares out its excess. Measured on the 2-core
 * development machine, 256 MiB float32 in 1024^2 chunks read into a reused output: raw inline
 * 74 ms against 86 ms on 2 threads (the file reads split, the pool's cost added), blosc-lz4 (0.32
 * ns/B) 1.06-1.25x faster on 2 threads; both fit a pool cost of about 0.15-0.2 ns/B.
 */
export const POOL_NS_PER_BYTE = 0.15;
/**
 * Each thread of an operation placed by cost gets at least this much decoding beyond the pool's
 * own cost (ns): handing out tasks, waking workers and waiting for the last task cost about a
 * millisecond, which a smaller share would not pay back. A 16 MiB blosc-lz4 read (2.9 ms of such
 * work) stays inline: there 2 threads were no faster on the 2-core VM (`npm run bench:scale --
 * --size 2048`, loaded: medians 10 and 23 ms inline, 12 and 22 ms on 2 threads), where 64 MiB
 * (11 ms of work) ran 2.2x faster on 2 (146 against 66 ms).
 */
export const MIN_WORK_PER_THREAD_NS = 2e6;
/**
 * Encoding costs more than decoding: LZ4 compresses at 1.0-1.3 GB/s per core against 3 GB/s
 * decoding, zlib level 1 and zstd level 3 at a third to a fifth of their decoding speed
 * (`npm run bench`). Writes weigh the chain's decoding cost by this much; raw still costs 0.
 */
export const ENCODE_OVER_DECODE = 3;

/** The costs a raw read of files is placed by (copyThreads). */
const FILE_COPY = { copyPerByte: FILE_COPY_NS_PER_BYTE, poolPerByte: POOL_NS_PER_BYTE, minWork: MIN_WORK_PER_THREAD_NS };

/**
 * How many threads an operation gets when the caller did not say: as many as its decoding beyond
 * the pool's own cost can keep busy (MIN_WORK_PER_THREAD_NS each), at most one per chunk and the
 * pool's size; fewer than 2 means inline. `decodeCost` is the chain's (CodecPipeline.decodeCost).
 */
export function threadsByCost(decodeCost: number, chunkCount: number, chunkBytes: number, poolThreads: number): number {
  const work = chunkCount * chunkBytes * (decodeCost - POOL_NS_PER_BYTE);
  const threads = Math.min(poolThreads, chunkCount, Math.floor(work / MIN_WORK_PER_THREAD_NS));
  return threads < 2 ? 0 : threads;
}

/** A batch aims at this much chunk data, so that per-message costs stay small beside the work. */
export const BATCH_TARGET_BYTES = 1 << 20;
/**
 * A pool's read task of local files aims at least at this much decoding (ns, by the chain's
 * decodeCost), so that what every task costs besides its chunks (the task's message and its
 * outcome, waking a worker, the coordinator's turn: a few hundred microseconds of CPU between
 * the two threads) stays small beside it. At one 4 MiB chunk per task a blosc-lz4 chunk is about
 * 1.3 ms of decoding: on 2 threads (2-core machine, Node 24, 256 MiB into a reused `out`, three
 * rounds alternating) tasks of 5 ms took the reads' CPU from 0.55-0.66 to 0.50-0.58 ms/MiB
 * (blosc-lz4) and 0.71-0.80 to 0.67-0.72 (blosc-zstd), 5-16% faster; raw chunks (nothing to
 * decode) were no faster in tasks of several and keep BATCH_TARGET_BYTES. Only where workers read
 * local files blocking (a task's chunks are read one after another there): elsewhere a longer task
 * would open more fetches at once, and hold more chunks in memory, than it does now; and not for
 * tasks that hold a buffer per chunk until they end: staged reads and chunk-cache fills
 * (PlacementRequest.holdsChunkBuffers), pools without shared memory (chunks return with the
 * task's outcome).
 */
export const TASK_TARGET_NS = 5e6;
/**
 * And holds at most this many chunks: a task of tiny chunks is planned on the calling thread in
 * one go, cloned into one message, and finished (or cancelled) whole before progress is reported.
 * A million one-byte chunks on 2 threads were once 6 tasks: the caller's event loop stood still
 * for seconds and 1.4 GB while they were made, and an abort waited for a sixth of the array.
 */
export const BATCH_MAX_ITEMS = 1024;

/**
 * `shared`: the output (reads) or value (writes) lives in shared memory that workers write or read
 * in place; false only for reads, whose workers then send their chunks back (returned-chunks.ts).
 */
export type Placement =
  | { where: "inline" }
  | {
      where: "pool";
      pool: WorkerPool;
      lanes: number;
      shared: boolean;
      fetchOnCaller: boolean;
      /** The decoding cost tasks are sized by (TASK_TARGET_NS), or 0 where they are sized by bytes alone. */
      taskCost: number;
    };

export interface PlacementRequest {
  store: Store;
  chunkCount: number;
  /** Decoded bytes of one chunk. */
  chunkBytes: number;
  /** The chain's decoding CPU per decoded byte in ns (CodecPipeline.decodeCost), for writes too. */
  decodeCost: number;
  op: "read" | "write";
  /**
   * The value (writes; null for a scalar) or an empty output of the type (reads): workers can only
   * share typed arrays, so data of any other kind (strings, objects) runs inline.
   */
  data: TypedArray | ArrayLike<unknown> | null;
  /**
   * Each chunk of a task holds a buffer of its own until the task ends (a staged read's shared
   * slot, a chunk-cache fill's): its tasks keep BATCH_TARGET_BYTES, since tasks sized by
   * decoding (TASK_TARGET_NS) would hold more chunks' buffers at once.
   */
  holdsChunkBuffers?: boolean;
}

/**
 * Where an operation runs. `threads: 0` is inline; `threads: n` asks for workers and gets them
 * (at most n tasks in flight); left unset, the decoding cost decides (threadsByCost): inline,
 * some of the pool's threads, or all of them. Stores a worker cannot open and data that is not a
 * typed array always run inline.
 */
export function placeOperation(req: PlacementRequest, options: OperationOptions): Placement {
  const { threads, pool } = options;
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 0)) {
    throw new InvalidArgumentError(`threads must be a non-negative integer, got ${threads}`);
  }
  if (pool?.closed) throw new PoolClosedError("the worker pool is closed: make a new WorkerPool or pass threads: 0");
  if (threads === 0 || req.chunkCount === 0) return { where: "inline" };
  if (req.data !== null && !ArrayBuffer.isView(req.data)) return { where: "inline" };
  // A user's store (stores/caller.ts): this thread moves its bytes, workers decode and encode.
  const callerMoves = req.store.descriptor().kind === "caller";
  if (!callerMoves && !workerCanOpen(req.store.descriptor())) return { where: "inline" };
  // The pool's size is known without making the default pool, which a read that stays inline never needs.
  const size = pool?.threads ?? defaultPoolThreads();
  const cost = req.op === "write" ? req.decodeCost * ENCODE_OVER_DECODE : req.decodeCost;
  // Raw chunks of files cost only their copy into place, which more threads than copy inline can
  // share; not on a pool that fetches on the caller, which reads the files here as inline does.
  const copies = cost === 0 && req.op === "read" && req.store.descriptor().kind === "filesystem" && !pool?.fetchesOnCaller;
  const byCost =
    threads ??
    (copies
      ? copyThreads(req.chunkCount * req.chunkBytes, req.chunkCount, { pool: size, cores: platform().availableParallelism(), inlineCopiers: INLINE_FILE_COPIERS }, FILE_COPY)
      : threadsByCost(cost, req.chunkCount, req.chunkBytes, size));
  if (byCost === 0) return { where: "inline" };
  const p = pool ?? defaultPool();
  // Without shared memory a worker's writes could not take the lock table, nor read the value in
  // place: writes then run here, where the table is this thread's own.
  if (!p.sharedMemory && req.op === "write") return { where: "inline" };
  const fetchOnCaller = callerMoves || (req.op === "read" && p.fetchesOnCaller);
  // Workers read local files blocking (FileSystemStore.dedicateThread): a longer task opens no more
  // at once. Without shared memory a task's chunks come back with its outcome: it would hold them all.
  const localReads = req.op === "read" && p.sharedMemory && !fetchOnCaller && req.store.descriptor().kind === "filesystem" && !req.holdsChunkBuffers;
  return { where: "pool", pool: p, lanes: poolLanes(p, byCost), shared: p.sharedMemory, fetchOnCaller, taskCost: localReads ? cost : 0 };
}

/**
 * How many items go into one task: about one task per BATCH_TARGET_BYTES of chunk data, or with a
 * `cost` (ns of decoding per byte) per TASK_TARGET_NS of decoding where that is more (at most
 * BATCH_MAX_ITEMS chunks), and at least one per lane so that every worker has work and a next task
 * waiting. Each message costs a few hundred microseconds, as much as decoding a few hundred KiB,
 * so small chunks travel many to a message.
 */
export function batchSize(count: number, chunkBytes: number, lanes: number, cost = 0): number {
  if (count === 0) return 1;
  const target = cost > 0 ? Math.max(BATCH_TARGET_BYTES, TASK_TARGET_NS / cost) : BATCH_TARGET_BYTES;
  const bySize = Math.ceil((count * chunkBytes) / target);
  const tasks = Math.min(count, Math.max(lanes, bySize));
  return Math.min(Math.ceil(count / tasks), BATCH_MAX_ITEMS);
}

/** Groups items, as they come, into arrays of `size` (the last may be shorter). */
export function* inBatches<T>(items: Iterable<T>, size: number): Generator<T[]> {
  let batch: T[] = [];
  for (const item of items) {
    batch.push(item);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * Runs an operation's items: inline, one item per task; on a pool, batched. Items come from a
 * lazy plan and tasks are made only as runners take them, so memory stays bounded by the tasks
 * in flight however many chunks the operation touches. `makeTask` builds the task for a group of
 * items (everything else in the task is the same for all of them). `onVersions` receives a cache
 * fill's versions (ReadTask.fillCache) once the task's chunks are in its output; `afterTask`, on
 * the pool, is told when a task is done with (finished, failed, cancelled or its message refused).
 */
export async function runOperation(
  placement: Placement,
  plan: ChunkPlan<ChunkItem>,
  chunkBytes: number,
  makeTask: (items: ChunkItem[]) => ChunkTask,
  store: Store,
  options: OperationOptions,
  onVersions?: VersionsCallback,
  afterTask?: AfterTask,
): Promise<void> {
  if (placement.where === "inline") {
    // One item per task, except for stores that fetch a task's chunks together (prefetch): those
    // get tasks of about BATCH_TARGET_BYTES, as on the pool (runTasksInline still keeps several
    // in flight), so that a small read is one task whose nearby ranges merge.
    const inlineSize = store.prefetch ? batchSize(plan.count, chunkBytes, 1) : 1;
    await runTasksInline(batchedTasks(plan, inlineSize, makeTask), store, options, onVersions, plan.count);
    return;
  }
  const { pool, lanes, shared, fetchOnCaller, taskCost } = placement;
  const size = batchSize(plan.count, chunkBytes, lanes, taskCost);
  const tasks = batchedTasks(plan, size, makeTask);
  await pool.operation(() => runOnPool(pool, lanes, tasks, plan.count, options, shared, onVersions, fetchOnCaller ? store : undefined, afterTask));
}

/** A task as a lane takes it: with its chunks' bytes on their way when the caller fetches them. */
interface QueuedTask {
  task: ChunkTask;
  fetched?: Promise<FetchedChunks>;
}

/**
 * The tasks in order; with `fetchFrom`, each read task's chunks are fetched here, starting
 * CONCURRENCY.callerFetchesAhead tasks before a lane takes it. `signal` stops the fetches still open.
 */
function* queuedTasks(tasks: Iterable<ChunkTask>, fetchFrom: Store | undefined, signal: AbortSignal): Generator<QueuedTask> {
  const iterator = tasks[Symbol.iterator]();
  if (fetchFrom === undefined) {
    for (let n = iterator.next(); !n.done; n = iterator.next()) yield { task: n.value };
    return;
  }
  const ahead: QueuedTask[] = [];
  const refill = (): void => {
    while (ahead.length <= CONCURRENCY.callerFetchesAhead) {
      const n = iterator.next();
      if (n.done) return;
      const task = n.value;
      if (task.kind !== "read" || !fetchesChunks(task)) {
        ahead.push({ task });
        continue;
      }
      const fetched = fetchChunks(fetchFrom, task, signal);
      // Awaited by the lane that takes it; a failure of one never taken (the operation stopped
      // first) must not surface as an unhandled rejection.
      fetched.catch(() => {});
      ahead.push({ task, fetched });
    }
  };
  for (refill(); ahead.length > 0; refill()) yield ahead.shift()!;
}

/** The plan's items in tasks of `size` items, made lazily as they are taken. */
function batchedTasks(plan: ChunkPlan<ChunkItem>, size: number, makeTask: (items: ChunkItem[]) => ChunkTask): ChunkPlan<ChunkTask> {
  return mapPlan({ count: Math.ceil(plan.count / size), [Symbol.iterator]: () => inBatches(plan, size) }, makeTask);
}

export type VersionsCallback = (task: ChunkTask, versions: [number, ChunkVersion][]) => void;
/** Told when a pool task is done with: `succeeded` when every chunk of it was read or written. */
export type AfterTask = (task: ChunkTask, succeeded: boolean) => void;

async function runOnPool(
  pool: WorkerPool,
  lanes: number,
  tasks: ChunkPlan<ChunkTask>,
  total: number,
  options: OperationOptions,
  shared: boolean,
  onVersions: VersionsCallback | undefined,
  fetchFrom: Store | undefined,
  afterTask: AfterTask | undefined,
): Promise<void> {
  const { signal, onProgress } = options;
  if (signal?.aborted) throw new AbortError();
  const cancel = new Int32Array(shared ? new SharedArrayBuffer(4) : new ArrayBuffer(4));
  let failure: Error | null = null;
  let aborted = false;
  // Ends the fetches this thread has open for the workers once the operation stops.
  const fetches = new AbortController();
  const queue = queuedTasks(tasks, fetchFrom, fetches.signal);
  let done = 0;
  const stop = (): void => {
    Atomics.store(cancel, 0, 1);
    fetches.abort();
  };
  const onAbort = (): void => {
    aborted = true;
    stop();
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  const lane = async (): Promise<void> => {
    while (failure === null && !aborted) {
      const nextTask = queue.next();
      if (nextTask.done) return;
      const { task, fetched } = nextTask.value;
      let succeeded = false;
      try {
        const message: TaskMessage =
          !shared && task.kind === "read" ? { task: withoutOutput(task), cancel, returnChunks: true } : { task, cancel };
        const storeModule = storeModules.get(task.store.kind);
        if (storeModule !== undefined) message.storeModule = storeModule;
        if (fetched) {
          const bytes = await fetched.catch((err: unknown) => {
            // A fetch ended because the operation stopped is not a failure of its own.
            if (failure !== null || aborted) return null;
            throw err;
          });
          if (bytes === null) return;
          message.fetched = bytes;
        }
        const outcome =
          task.kind === "write" && fetchFrom
            ? await writeOnCaller(fetchFrom as WritableStore, task, (t, f) => pool.run({ ...message, task: t, fetched: f }), fetches.signal)
            : await pool.run(message);
        if (outcome.returned && task.kind === "read") placeReturnedChunks(task, task.out, outcome.returned);
        if (outcome.versions) onVersions?.(task, outcome.versions);
        done += outcome.chunks;
        if (outcome.chunks > 0) onProgress?.(done, total);
        if (outcome.status === "failed") {
          failure ??= reviveError(outcome.error);
          stop();
        } else succeeded = outcome.status === "done";
      } catch (err) {
        // The pool itself failed (closed meanwhile, a worker died), or a fetch made here for the
        // workers did: stop the rest the same way.
        const cause = asAbort(err, signal);
        failure ??= cause instanceof Error ? cause : new Error(String(cause));
        stop();
      } finally {
        afterTask?.(task, succeeded);
      }
    }
  };
  try {
    // Every lane returns only when its task has finished, so on return no worker is still busy
    // with this operation: an abort or failure leaves the pool idle.
    await Promise.all(Array.from({ length: Math.min(lanes, tasks.count) }, lane));
  } finally {
    signal?.removeEventListener("abort", onAbort);
    fetches.abort();
  }
  if (failure !== null) throw failure;
  if (aborted) throw new AbortError();
}
