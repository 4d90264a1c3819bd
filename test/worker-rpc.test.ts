/**
 * The Web Worker executor's messaging (src/parallel/execution/worker-rpc.ts): concurrent calls
 * answered by id, errors thrown in the worker reaching the caller as plain Errors (never revived as
 * a chunk's error), transfer lists both ways, one message listener per worker, and calls pending
 * on a worker that dies or is ended rejected rather than left waiting forever.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { MessageChannel } from "node:worker_threads";
import { CorruptChunkError, ZarrError } from "../src/index.js";
import { WorkerClient, serveWorkerApi, transfer, type Endpoint } from "../src/parallel/execution/worker-rpc.js";
import { nodeComlinkWorkers } from "../src/parallel/execution/comlink-node-workers.js";
import { webWorkers, type WorkerLike } from "../src/parallel/execution/comlink-web-workers.js";
import { ComlinkExecutor } from "../src/parallel/execution/comlink-executor.js";
import type { TaskMessage } from "../src/parallel/execution/task-outcome.js";

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

const api = {
  async echoAfter(value: number, ms: number): Promise<number> {
    await sleep(ms);
    return value;
  },
  fail(kind: string): never {
    if (kind === "corrupt") throw new CorruptChunkError("bad bytes in the worker");
    if (kind === "type") throw new TypeError("a fault of the worker");
    throw { reason: kind };
  },
  sizeOf(buffer: ArrayBuffer): number {
    return buffer.byteLength;
  },
  kept: new ArrayBuffer(0),
  makeBuffer(n: number, transferred: boolean): ArrayBuffer {
    const buffer = new ArrayBuffer(n);
    api.kept = buffer;
    return transferred ? transfer(buffer, [buffer]) : buffer;
  },
};
type Api = typeof api;
const METHODS = ["echoAfter", "fail", "sizeOf", "makeBuffer"] as const;

/** One client and one served API over a MessageChannel; counts the client side's listeners. */
function connected(): { client: WorkerClient<Api>; endpoint: Endpoint; listeners: () => number; close: () => void } {
  const { port1, port2 } = new MessageChannel();
  serveWorkerApi(port2 as unknown as Endpoint, api);
  let listeners = 0;
  const endpoint: Endpoint = {
    postMessage: (m, t) => port1.postMessage(m, t as never),
    addEventListener: (type, l) => (listeners++, port1.addEventListener(type, l as never)),
    removeEventListener: (type, l) => (listeners--, port1.removeEventListener(type, l as never)),
    start: () => port1.start(),
  };
  const client = new WorkerClient<Api>(endpoint, METHODS);
  return { client, endpoint, listeners: () => listeners, close: () => (port1.close(), port2.close()) };
}

test("concurrent calls each get their own answer, whatever order the worker answers in, over one listener", async () => {
  const { client, listeners, close } = connected();
  try {
    // The first call answers last.
    const calls = Array.from({ length: 20 }, (_, i) => client.api.echoAfter(i, (20 - i) * 2));
    assert.equal(listeners(), 1);
    assert.deepEqual(await Promise.all(calls), Array.from({ length: 20 }, (_, i) => i));
    client.close(new Error("done"));
    assert.equal(listeners(), 0, "close() removes the listener");
  } finally {
    close();
  }
});

test("two clients of one worker do not take each other's answers", async () => {
  const { port1, port2 } = new MessageChannel();
  serveWorkerApi(port2 as unknown as Endpoint, api);
  const a = new WorkerClient<Api>(port1 as unknown as Endpoint, METHODS);
  const b = new WorkerClient<Api>(port1 as unknown as Endpoint, METHODS);
  try {
    const answers = await Promise.all([a.api.echoAfter(1, 5), b.api.echoAfter(2, 1), a.api.echoAfter(3, 1), b.api.echoAfter(4, 5)]);
    assert.deepEqual(answers, [1, 2, 3, 4]);
  } finally {
    port1.close();
    port2.close();
  }
});

test("an error thrown in the worker reaches the caller as a plain Error with its name, message and stack", async () => {
  const { client, endpoint, close } = connected();
  try {
    const corrupt = await client.api.fail("corrupt").then(() => null, (e: unknown) => e);
    assert.ok(corrupt instanceof Error);
    // Not revived into parzarr's classes: the pool makes a WorkerExitError of it, never a chunk's error.
    assert.ok(!(corrupt instanceof ZarrError));
    assert.equal(corrupt.name, "CorruptChunkError");
    assert.equal(corrupt.message, "bad bytes in the worker");
    assert.match(corrupt.stack ?? "", /fail/);
    await assert.rejects(client.api.fail("type"), (e: unknown) => e instanceof Error && e.name === "TypeError" && e.message === "a fault of the worker");
    await assert.rejects(client.api.fail("thrown"), (e: unknown) => !(e instanceof Error) && (e as { reason: string }).reason === "thrown");
    // A method the worker does not have fails that call only.
    const other = new WorkerClient<{ nothing(): void }>(endpoint, ["nothing"]);
    await assert.rejects(other.api.nothing(), (e: unknown) => e instanceof Error && e.name === "TypeError" && /no method "nothing"/.test(e.message));
    other.close(new Error("done"));
    assert.equal(await client.api.echoAfter(7, 0), 7);
  } finally {
    close();
  }
});

test("transfer(): marked arguments and results are moved, others copied", async () => {
  const { client, close } = connected();
  try {
    const copied = new ArrayBuffer(8);
    assert.equal(await client.api.sizeOf(copied), 8);
    assert.equal(copied.byteLength, 8, "an unmarked argument is copied");
    const moved = new ArrayBuffer(16);
    assert.equal(await client.api.sizeOf(transfer(moved, [moved])), 16);
    assert.equal(moved.byteLength, 0, "a marked argument is transferred away");

    const plain = await client.api.makeBuffer(4, false);
    assert.equal(plain.byteLength, 4);
    assert.equal(api.kept.byteLength, 4, "an unmarked result is copied");
    const sent = await client.api.makeBuffer(32, true);
    assert.equal(sent.byteLength, 32);
    assert.equal(api.kept.byteLength, 0, "a marked result is transferred away");
  } finally {
    close();
  }
});

test("closing a client rejects its pending calls and later ones with the reason", async () => {
  const { client, close } = connected();
  try {
    const pending = client.api.echoAfter(1, 200);
    const reason = new Error("the worker died");
    client.close(reason);
    await assert.rejects(pending, (e: unknown) => e === reason);
    await assert.rejects(client.api.echoAfter(2, 0), (e: unknown) => e === reason);
  } finally {
    close();
  }
});

const message = { task: { kind: "read", items: [] }, cancel: new Int32Array(1) } as unknown as TaskMessage;

test("a call pending on a Node worker thread that is ended rejects instead of waiting forever", { timeout: 30_000 }, async () => {
  const worker = nodeComlinkWorkers();
  // Sent before the worker has even loaded its module: no answer can come.
  const call = assert.rejects(worker.api.runChunkTask(message), /worker exited with code/);
  await worker.terminate();
  await call;
});

test("a call pending on a Web Worker that fires an error rejects with that error", async () => {
  const errors = new EventTarget();
  const { port1, port2 } = new MessageChannel();
  // A worker whose module never serves anything, then fails: the page sees only its "error".
  const fake: WorkerLike = {
    postMessage: (m, t) => port1.postMessage(m, t as never),
    addEventListener: (type, l) => (type === "message" ? port1.addEventListener(type, l as never) : errors.addEventListener(type, l)),
    removeEventListener: (type, l) => (type === "message" ? port1.removeEventListener(type, l as never) : errors.removeEventListener(type, l)),
    start: () => port1.start(),
    terminate: () => (port1.close(), port2.close()),
  };
  const worker = webWorkers({ createWorker: () => fake })();
  const call = worker.api.runChunkTask(message);
  errors.dispatchEvent(Object.assign(new Event("error"), { message: "the worker's module threw" }));
  await assert.rejects(call, /the worker's module threw/);
  await worker.terminate();
});

test("a Web Worker whose error listeners run one per turn (as a browser runs them) fails only its running task; the queue moves to a new worker", async () => {
  const made: { fireError: (message: string) => Promise<void>; close: () => void }[] = [];
  const createWorker = (): WorkerLike => {
    const { port1, port2 } = new MessageChannel();
    const first = made.length === 0;
    // The first worker never answers a task (it dies running it); later ones answer at once.
    serveWorkerApi(port2 as unknown as Endpoint, {
      adoptThreadId: () => {},
      runChunkTask: () => (first ? new Promise(() => {}) : { ok: true }),
    });
    const failureListeners: EventListener[] = [];
    made.push({
      // A browser drains microtasks (and here, other tasks too) between one listener and the next.
      fireError: async (message) => {
        for (const l of [...failureListeners]) {
          l(Object.assign(new Event("error"), { message }));
          await new Promise<void>((r) => setImmediate(r));
        }
      },
      close: () => (port1.close(), port2.close()),
    });
    return {
      postMessage: (m, t) => port1.postMessage(m, t as never),
      addEventListener: (type, l) => {
        if (type === "message") port1.addEventListener(type, l as never);
        else if (type === "error") failureListeners.push(l as EventListener);
      },
      removeEventListener: (type, l) => {
        if (type === "message") port1.removeEventListener(type, l as never);
        else if (failureListeners.includes(l as EventListener)) failureListeners.splice(failureListeners.indexOf(l as EventListener), 1);
      },
      start: () => port1.start(),
      terminate: () => port1.close(),
    };
  };
  const executor = new ComlinkExecutor(1, webWorkers({ createWorker }), 1);
  try {
    const settled = Array.from({ length: 5 }, () =>
      executor.run(message).then(
        () => "done",
        (e: Error) => e.message,
      ),
    );
    await sleep(20);
    assert.equal(made.length, 1);
    await made[0]!.fireError("the worker crashed");
    assert.deepEqual(await Promise.all(settled), ["the worker crashed", "done", "done", "done", "done"]);
    assert.equal(made.length, 2);
  } finally {
    await executor.close();
    for (const m of made) m.close();
  }
});
