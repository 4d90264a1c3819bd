/**
 * `parzarr cp --queue` and `parzarr worker`: a planned copy (copy.ts) spread over machines through
 * a BullMQ queue in Redis. The planner enqueues one job per slab; any number of workers run them,
 * each on its machine's worker-thread pool, reading the source and writing the destination
 * themselves (stores that every machine reaches: S3, HTTP, a shared file system).
 *
 * A slab writes whole destination chunks (or shards), so running it twice writes the same bytes:
 * that is what makes BullMQ's at-least-once delivery safe. A worker that dies mid-job (SIGKILL, a
 * lost machine) stops renewing the job's lock; BullMQ's stalled-job check hands the job to another
 * worker. A job that throws is retried a bounded number of times with exponential backoff.
 */
import { randomBytes } from "node:crypto";
import { isAbsolute, resolve } from "node:path";
import type { Job, Worker } from "bullmq";
import type { Redis } from "ioredis";
import { isWritable } from "../stores/types.js";
import { openArray, resolveStore, ZarrError, type Store, type ZarrArray } from "../index.js";
import type { Target } from "./args.js";
import { copySlab, joinPath, prepareDestination, slabsOf, type CopyPlan, type CopySettings } from "../copy/engine.js";
import { SlabBuffer } from "../copy/slab-buffer.js";
import { connectRedis } from "../parallel/sync/redis-connect.js";
import { loadOptional } from "../optional-deps.js";

export const DEFAULT_QUEUE_NAME = "parzarr-cp";

/** Everything a worker needs to run one slab, as plain JSON. */
export interface SlabJobData {
  /** Which copy (one `cp --queue` run) the slab belongs to. */
  copy: string;
  /** Stores as text every worker can open (absolute paths, URLs), with the node paths in them. */
  source: { store: string; path: string };
  dest: { store: string; path: string };
  /** The array's path relative to the copy's root. */
  rel: string;
  index: number;
  box: { start: number[]; stop: number[] };
  threads?: number;
}

export interface QueueOptions {
  /** `redis://host:port`. */
  url: string;
  /** Default `parzarr-cp`. */
  name?: string;
}

/** BullMQ and ioredis are optional peer dependencies: loaded only by the queue's commands. */
function loadBullmq(): Promise<typeof import("bullmq")> {
  return loadOptional(["bullmq", "ioredis"], "the copy queue (cp --queue, parzarr worker)", () => import("bullmq"));
}

/**
 * A connection for BullMQ, connected first so that a wrong password, an untrusted certificate or
 * no server at all fails at once with the reason (BullMQ would wait for ever).
 */
function queueConnection(url: string): Promise<Redis> {
  // BullMQ's blocking commands need ioredis to retry forever rather than fail a request.
  return connectRedis(url, { maxRetriesPerRequest: null }, "for the copy queue");
}

/** Both connections, or none left open. */
async function queueConnections(url: string, n: number): Promise<Redis[]> {
  const made = await Promise.allSettled(Array.from({ length: n }, () => queueConnection(url)));
  const failed = made.find((m) => m.status === "rejected");
  if (failed) {
    for (const m of made) if (m.status === "fulfilled") m.value.disconnect();
    throw failed.reason;
  }
  return made.map((m) => (m as PromiseFulfilledResult<Redis>).value);
}

/** A store path every machine can open: local paths made absolute, URLs kept. */
function portable(store: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(store) || isAbsolute(store) ? store : resolve(store);
}

export interface QueuedCopyResult {
  slabs: number;
  failed: { rel: string; index: number; reason: string }[];
}

export interface QueuedCopyHooks {
  /** Slabs done (chunks and bytes written) out of the totals, as workers finish them. */
  progress?: (chunks: number, bytes: number, totals: { chunks: number; bytes: number }) => void;
}

/** Bounded retries of a failing slab: 3 attempts, 1 s, 2 s apart. */
const ATTEMPTS = 3;
const BACKOFF_MS = 1000;

/**
 * What BullMQ keeps of finished jobs. The planner removes its own jobs once it has their outcome
 * (`copyOnQueue`); these bounds only catch what a planner that died before then leaves behind:
 * completed jobs for an hour, failed ones (their reasons) for a week, at most 1000 of each.
 */
const KEEP_COMPLETED = { age: 3600, count: 1000 };
const KEEP_FAILED = { age: 7 * 24 * 3600, count: 1000 };

type SlabJobOptions = {
  jobId: string;
  attempts: number;
  backoff: { type: "exponential"; delay: number };
  removeOnComplete: typeof KEEP_COMPLETED;
  removeOnFail: typeof KEEP_FAILED;
};

/**
 * Creates the destination's nodes, enqueues one job per slab of the plan, and waits until every
 * slab is done or has failed all its attempts. Returns the failed slabs (none: the copy is whole).
 */
export async function copyOnQueue(
  plan: CopyPlan,
  source: Target,
  dest: Target,
  destStore: Store,
  s: CopySettings,
  queue: QueueOptions,
  hooks: QueuedCopyHooks = {},
): Promise<QueuedCopyResult> {
  if (!isWritable(destStore)) throw new ZarrError("READ_ONLY", `${dest.text} cannot be written`);
  if (s.resume) throw new ZarrError("INVALID_ARGUMENT", "--resume does not apply to a queued copy: BullMQ retries failed slabs itself");
  // Its packages, then Redis: nothing is written to the destination for a queue that cannot be reached.
  const { Queue, QueueEvents } = await loadBullmq();
  const connections = await queueConnections(queue.url, 2);
  let journal: Awaited<ReturnType<typeof prepareDestination>>;
  try {
    journal = await prepareDestination({ store: destStore, path: dest.path, text: dest.text }, plan, s, source.text);
  } catch (err) {
    for (const c of connections) c.disconnect();
    throw err;
  }
  const copy = randomBytes(6).toString("hex");
  const jobs: { name: string; data: SlabJobData; opts: SlabJobOptions }[] = [];
  const sizes = new Map<string, { units: number; bytes: number }>();
  const totals = { chunks: 0, bytes: 0 };
  for (const j of plan.jobs) {
    for (const [index, { box, units, bytes }] of slabsOf(j).entries()) {
      const jobId = `${copy}-${jobs.length}`;
      sizes.set(jobId, { units, bytes });
      totals.chunks += units;
      totals.bytes += bytes;
      jobs.push({
        name: "slab",
        data: {
          copy,
          source: { store: portable(source.store), path: source.path },
          dest: { store: portable(dest.store), path: dest.path },
          rel: j.rel,
          index,
          box,
          threads: s.threads,
        },
        opts: {
          jobId,
          attempts: ATTEMPTS,
          backoff: { type: "exponential", delay: BACKOFF_MS },
          removeOnComplete: KEEP_COMPLETED,
          removeOnFail: KEEP_FAILED,
        },
      });
    }
  }
  const name = queue.name ?? DEFAULT_QUEUE_NAME;
  const q = new Queue<SlabJobData>(name, { connection: connections[0] });
  const events = new QueueEvents(name, { connection: connections[1] });
  const failed: QueuedCopyResult["failed"] = [];
  try {
    await events.waitUntilReady();
    const added = await q.addBulk(jobs);
    let chunks = 0;
    let bytes = 0;
    hooks.progress?.(chunks, bytes, totals);
    await Promise.all(
      added.map(async (job: Job<SlabJobData>) => {
        try {
          await job.waitUntilFinished(events);
          const size = sizes.get(job.id!)!;
          chunks += size.units;
          bytes += size.bytes;
          hooks.progress?.(chunks, bytes, totals);
        } catch (err) {
          failed.push({ rel: job.data.rel, index: job.data.index, reason: err instanceof Error ? err.message : String(err) });
        }
      }),
    );
    // Every outcome is known (and failures are reported to the caller): nothing of this copy
    // needs to stay in Redis. Removed here rather than by `removeOnComplete: true`, which would
    // let a job finish and vanish before `waitUntilFinished` looks, and read as missing.
    await Promise.allSettled(added.map((job) => job.remove()));
  } finally {
    await Promise.allSettled([q.close(), events.close()]);
    // Connections handed to BullMQ as instances are ours to close.
    for (const c of connections) c.disconnect();
  }
  // The journal marks an unfinished copy; a queued one is finished when no slab failed.
  if (failed.length === 0) await journal.remove();
  failed.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : a.index - b.index));
  return { slabs: jobs.length, failed };
}

export interface CopyWorkerOptions extends QueueOptions {
  /** Slab jobs run at once by this worker. Default 1. */
  concurrency?: number;
  /** Worker threads per slab (the copy's own setting when absent). */
  threads?: number;
  /**
   * How long a job's lock lasts without renewal: a worker that dies leaves its job to another
   * after about this long (BullMQ's stalled-job check). Default 30000 ms.
   */
  leaseMs?: number;
  /** Called as a slab's chunks are written (done of total in the slab). */
  onSlabProgress?: (info: { data: SlabJobData; done: number; total: number }) => void;
  /** Called when a slab is done or fails (after its last attempt or before a retry). */
  onJob?: (event: { data: SlabJobData; outcome: "done" | "failed"; reason?: string }) => void;
}

/**
 * Runs slab jobs until `close()`: each slab reads its box from the source and writes it, whole
 * chunks only, to the destination. `close()` lets the slabs in progress finish first. Resolves once
 * connected to Redis; a server that cannot be reached or refuses the password is a StoreError.
 */
export async function startCopyWorker(options: CopyWorkerOptions): Promise<{ close(): Promise<void>; worker: Worker<SlabJobData> }> {
  const arrays = new Map<string, Promise<ZarrArray>>();
  const stores = new Map<string, Store>();
  const open = (store: string, path: string, mode: "r" | "r+") => {
    const k = JSON.stringify([store, path, mode]);
    let a = arrays.get(k);
    if (!a) {
      let st = stores.get(`${store}\0${mode}`);
      if (!st) {
        st = resolveStore(store, { readOnly: mode === "r" });
        stores.set(`${store}\0${mode}`, st);
      }
      a = openArray(st, { path, mode });
      a.catch(() => arrays.delete(k));
      // A long-running worker serves many copies: keep the most recent arrays only.
      if (arrays.size >= 64) arrays.delete(arrays.keys().next().value!);
      arrays.set(k, a);
    }
    return a;
  };
  const idleBuffers: SlabBuffer[] = [];
  const leaseMs = options.leaseMs ?? 30_000;
  const { Worker } = await loadBullmq();
  const connection = await queueConnection(options.url);
  const worker = new Worker<SlabJobData>(
    options.name ?? DEFAULT_QUEUE_NAME,
    async (job) => {
      const d = job.data;
      const [src, dst] = await Promise.all([
        open(d.source.store, joinPath(d.source.path, d.rel), "r"),
        open(d.dest.store, joinPath(d.dest.path, d.rel), "r+"),
      ]);
      const threads = options.threads ?? d.threads;
      const onProgress = (done: number, total: number) => options.onSlabProgress?.({ data: d, done, total });
      // Each running job reads into slab memory reused from earlier jobs (see slab-buffer.ts):
      // one buffer per concurrent job, so a worker's memory stays at `concurrency` slabs.
      const buffer = idleBuffers.pop() ?? new SlabBuffer();
      try {
        await copySlab(src, dst, d.box, threads === undefined ? {} : { threads }, {}, onProgress, buffer);
      } finally {
        idleBuffers.push(buffer);
      }
    },
    {
      connection,
      concurrency: options.concurrency ?? 1,
      lockDuration: leaseMs,
      // Stalled jobs are looked for twice per lease; a job may stall twice (two dead workers)
      // before BullMQ gives it up as failed.
      stalledInterval: Math.max(500, Math.floor(leaseMs / 2)),
      maxStalledCount: 2,
    },
  );
  worker.on("completed", (job) => options.onJob?.({ data: job.data, outcome: "done" }));
  worker.on("failed", (job, err) => job && options.onJob?.({ data: job.data, outcome: "failed", reason: err.message }));
  // Errors of the connection are retried by BullMQ; without a listener Node would crash on them.
  worker.on("error", () => {});
  return {
    worker,
    async close() {
      await worker.close();
      connection.disconnect();
    },
  };
}
