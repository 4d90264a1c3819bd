/**
 * Workers that die: a worker terminated while it holds a chunk lock fails its write with a typed
 * WORKER_EXITED error naming the chunk, and its lock is released so later writers go on (piscina
 * and comlink); a comlink worker factory that throws fails the task instead of hanging close();
 * every ZarrError subclass keeps its class and fields across the thread boundary.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import {
  AbortError,
  AlreadyExistsError,
  BadSelectionError,
  CorruptChunkError,
  InvalidArgumentError,
  InvalidKeyError,
  InvalidMetadataError,
  LockTimeoutError,
  NodeTypeError,
  NotFoundError,
  PoolClosedError,
  ProcessSynchronizer,
  ReadOnlyError,
  ShapeMismatchError,
  StoreError,
  TooLargeError,
  UnknownCodecError,
  UnsupportedError,
  WorkerExitError,
  WorkerPool,
  ZarrError,
  createArray,
  slice,
  type NDArray,
} from "../src/index.js";
import { Worker } from "node:worker_threads";
import { ComlinkExecutor } from "../src/parallel/execution/comlink-executor.js";
import type { WorkerLike } from "../src/parallel/execution/comlink-web-workers.js";
import { workerUrl } from "../src/parallel/execution/worker-files.js";
import { lockScopeOf, lockSlot, processLockTable } from "../src/parallel/sync/lock-table.js";
import { reviveError, serialiseError } from "../src/parallel/execution/task-outcome.js";
import { scratchDir } from "./helpers/paths.js";

/**
 * A worker made by the caller (`createWorker`), as in a browser: the pool gets only a message
 * endpoint, no thread id. Here a worker thread behind an adapter that reports, like a Web Worker,
 * messages and errors; an exit nobody asked for is reported as the "error" a crashed worker gives.
 */
const callersThreads: Worker[] = [];
function callersWorker(): WorkerLike {
  const w = new Worker(workerUrl("comlink-node-worker"));
  callersThreads.push(w);
  let ending = false;
  const handlers = new Map<unknown, { event: string; h: (x: unknown) => void }>();
  const call = (l: EventListenerOrEventListenerObject, ev: unknown) => (typeof l === "function" ? l(ev as Event) : l.handleEvent(ev as Event));
  return {
    postMessage: (m: unknown, transfer?: Transferable[]) => w.postMessage(m, transfer as never),
    addEventListener(type: string, l: EventListenerOrEventListenerObject) {
      const entry =
        type === "message"
          ? { event: "message", h: (data: unknown) => call(l, { data }) }
          : type === "error"
            ? { event: "exit", h: () => void (ending || call(l, { type: "error", message: "the worker died" })) }
            : undefined;
      if (!entry) return;
      handlers.set(l, entry);
      w.on(entry.event, entry.h);
    },
    removeEventListener(_type: string, l: EventListenerOrEventListenerObject) {
      const entry = handlers.get(l);
      if (entry) w.off(entry.event, entry.h);
    },
    terminate() {
      ending = true;
      void w.terminate();
    },
  } as WorkerLike;
}

const pools = {
  piscina: new WorkerPool({ threads: 1, executor: "piscina" }),
  comlink: new WorkerPool({ threads: 1, executor: "comlink" }),
  "comlink (createWorker)": new WorkerPool({ threads: 1, executor: "comlink", createWorker: callersWorker }),
};
after(async () => {
  await Promise.all(Object.values(pools).map((p) => p.close()));
});

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Ends every worker thread of a pool from outside, as a crash or an out-of-memory kill would. */
async function killWorkers(kind: keyof typeof pools): Promise<void> {
  const pool = pools[kind];
  const executor = (pool as unknown as { executor: unknown }).executor as {
    piscina?: { threads: { terminate(): Promise<number> }[] };
    workers?: { terminate(): Promise<unknown> | void }[];
  };
  if (kind === "comlink (createWorker)") {
    // The pool's own terminate() is a requested end; a crash is not: end the threads under it.
    assert.ok(callersThreads.length > 0, "the pool has no worker to end");
    await Promise.all(callersThreads.splice(0).map((w) => w.terminate()));
    return;
  }
  const threads = executor.piscina ? executor.piscina.threads : executor.workers ?? [];
  assert.ok(threads.length > 0, "the pool has no worker to end");
  await Promise.all(threads.map((w) => w.terminate()));
}

/**
 * Holds a chunk's lock file from this thread until `release` is called, so that a writer on the
 * pool takes the in-process slot and then waits on the file: it holds the slot when killed.
 */
async function holdFileLock(sync: ProcessSynchronizer, scope: string, key: string) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let held!: Promise<void>;
  await new Promise<void>((acquired) => {
    held = sync.withLock(scope, key, async () => {
      acquired();
      await released;
    });
  });
  return { release: () => (release(), held) };
}

for (const kind of ["piscina", "comlink", "comlink (createWorker)"] as const) {
  test(`a ${kind} worker killed while holding a chunk lock: typed error, lock released, next write goes on`, { timeout: 60_000 }, async () => {
    const pool = pools[kind];
    const root = scratchDir();
    const sync = new ProcessSynchronizer(scratchDir(), { timeoutMs: 60_000 });
    const a = await createArray(root, { shape: [4], chunks: [4], dtype: "int32", fillValue: 0, synchronizer: sync });
    const key = a.chunkKey([0]);
    const scope = lockScopeOf(a.store.descriptor());
    const hold = await holdFileLock(sync, scope, key);

    const write = a.set([slice(0, 2)], Int32Array.of(1, 2), { threads: 1, pool });
    const outcome = write.then(() => null, (err: unknown) => err);
    // Wait until the worker holds the in-process slot (and sits waiting for the lock file).
    const slots = new Int32Array(processLockTable());
    const slot = lockSlot(scope, key);
    while (Atomics.load(slots, slot) === 0) await sleep(5);
    await killWorkers(kind);

    const err = await outcome;
    assert.ok(err instanceof WorkerExitError, `expected a WorkerExitError, got ${String(err)}`);
    assert.equal(err.code, "WORKER_EXITED");
    assert.deepEqual(err.keys, [key]);
    assert.match(err.message, new RegExp(JSON.stringify(key).replace(/[.]/g, "\\.")));
    assert.equal(Atomics.load(slots, slot), 0, "the dead worker's slot is free");
    assert.equal(pool.busy, 0);

    await hold.release();
    // Before the fix this write waited forever on the dead worker's slot.
    await a.set([slice(2, 4)], Int32Array.of(3, 4), { threads: 0 });
    assert.deepEqual(Array.from(((await a.get()) as NDArray).data as Int32Array), [0, 0, 3, 4]);
    // The pool replaced its worker: it still works.
    await a.set([slice(0, 2)], Int32Array.of(5, 6), { threads: 1, pool });
    assert.deepEqual(Array.from(((await a.get(null, { threads: 1, pool })) as NDArray).data as Int32Array), [5, 6, 3, 4]);
  });
}

test("a comlink worker factory that throws fails the task, and close() settles", { timeout: 30_000 }, async () => {
  const executor = new ComlinkExecutor(
    2,
    () => {
      throw new Error("no worker can be made here");
    },
    1,
  );
  const message = { task: { kind: "read", items: [] }, cancel: new Int32Array(1) } as unknown as Parameters<ComlinkExecutor["run"]>[0];
  await assert.rejects(executor.run(message), /no worker can be made here/);
  await assert.rejects(executor.run(message), /no worker can be made here/);
  await executor.close();
});

test("a lock timeout on the pool arrives as a LockTimeoutError with its key", { timeout: 60_000 }, async () => {
  const root = scratchDir();
  const sync = new ProcessSynchronizer(scratchDir(), { timeoutMs: 300 });
  const a = await createArray(root, { shape: [4], chunks: [4], dtype: "int32", fillValue: 0, synchronizer: sync });
  const key = a.chunkKey([0]);
  const hold = await holdFileLock(sync, lockScopeOf(a.store.descriptor()), key);
  try {
    for (const pool of Object.values(pools)) {
      const err = await a.set([slice(0, 2)], Int32Array.of(1, 2), { threads: 1, pool }).then(() => null, (e: unknown) => e);
      assert.ok(err instanceof LockTimeoutError, `expected a LockTimeoutError, got ${String(err)}`);
      assert.equal(err.key, key);
    }
  } finally {
    await hold.release();
  }
});

test("every ZarrError subclass survives serialisation with its class, code and fields", () => {
  const errors: ZarrError[] = [
    new NotFoundError("m"),
    new AlreadyExistsError("m"),
    new NodeTypeError("m"),
    new InvalidMetadataError("m"),
    new UnknownCodecError("m"),
    new UnsupportedError("m"),
    new CorruptChunkError("m"),
    new BadSelectionError("m"),
    new ShapeMismatchError("m"),
    new ReadOnlyError("m"),
    new InvalidKeyError("m"),
    new StoreError("m"),
    new AbortError("m"),
    new LockTimeoutError("m", "a/c/0"),
    new PoolClosedError("m"),
    new InvalidArgumentError("m"),
    new TooLargeError("m"),
    new WorkerExitError("m", ["c/0", "c/1"]),
  ];
  for (const err of errors) {
    // structuredClone is what postMessage does to the outcome.
    const back = reviveError(structuredClone(serialiseError(err)));
    assert.equal(back.constructor, err.constructor, err.name);
    assert.equal((back as ZarrError).code, err.code);
    assert.equal(back.message, err.message);
    assert.equal(back.name, err.name);
  }
  const lock = reviveError(structuredClone(serialiseError(errors[13]))) as LockTimeoutError;
  assert.equal(lock.key, "a/c/0");
  const exit = reviveError(structuredClone(serialiseError(errors[17]))) as WorkerExitError;
  assert.deepEqual(exit.keys, ["c/0", "c/1"]);
});
