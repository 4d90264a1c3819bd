/**
 * The request/response protocol between the page (or a Node thread) and parzarr's Web Worker
 * executor's workers: method calls sent by postMessage, answered by id, with transfer lists. It
 * replaces comlink, of which parzarr used only `wrap`, `expose` and `transfer` (4 KB minified on a
 * page that reads on workers; see docs/ARCHITECTURE.md, "Dependencies and why").
 *
 * Both sides import this one module, the caller through `WorkerClient` and the worker through
 * `serveWorkerApi`. A thrown error crosses as a plain Error with its name, message and stack (not
 * revived into parzarr's error classes: a failure of the worker itself must not pass for a chunk's).
 */

/**
 * A message port on either side of a worker: a Web Worker, its global scope, a MessagePort, or a
 * Node worker thread or its parentPort behind `nodeEndpoint`. The same shape as comlink's Endpoint,
 * so that a caller's `createWorker` keeps working unchanged.
 */
export interface Endpoint {
  /**
   * Sends a message to the other side, moving the buffers in `transfer`. Its type is `any`, as
   * the DOM's own postMessage is: a Worker and a worker's scope must both fit.
   */
  postMessage(message: any, transfer?: Transferable[]): void;
  /** Listens for "message" (replies and calls) and, on a Worker, "error" and "messageerror". */
  addEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: object): void;
  /** Stops a listener that addEventListener added (a closed client stops hearing replies). */
  removeEventListener(type: string, listener: EventListenerOrEventListenerObject, options?: object): void;
  /** A MessagePort delivers nothing until started. */
  start?: () => void;
}

/** Tells this protocol's messages from any other a worker or page may exchange. */
const TAG = "parzarr-rpc";

interface Call {
  tag: typeof TAG;
  id: number;
  method: string;
  args: unknown[];
}

/** What an Error becomes on the wire (its class is lost, as with structured clone). */
interface WireError {
  name: string;
  message: string;
  stack?: string;
}

type Reply = { tag: typeof TAG; id: number } & (
  | { ok: true; value: unknown }
  | { ok: false; error: WireError; isError: true }
  | { ok: false; error: unknown; isError: false }
);

/**
 * Call ids, unique across every client of this module: two clients of one worker (the pool's and
 * a caller's own, as bench/browser has) each see the other's answers, and must not take them.
 */
let lastId = 0;

const transferLists = new WeakMap<object, Transferable[]>();

/**
 * Marks `value` to be sent with `list` transferred, not copied, when it is a call's argument or a
 * method's result; returns `value` itself.
 */
export function transfer<T extends object>(value: T, list: Transferable[]): T {
  transferLists.set(value, list);
  return value;
}

function transferListOf(value: unknown): Transferable[] {
  return (typeof value === "object" && value !== null && transferLists.get(value)) || [];
}

function isOurs(data: unknown): boolean {
  return typeof data === "object" && data !== null && (data as { tag?: unknown }).tag === TAG;
}

/** The caller's view of a worker's API: each method returns a promise of its result. */
export type Remote<Api> = {
  [K in keyof Api]: Api[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

interface Pending {
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
}

/**
 * The calling side of one worker: `api` sends calls, matched to their answers by id. One message
 * listener for the worker's whole life, however many calls are in flight.
 */
export class WorkerClient<Api> {
  readonly api: Remote<Api>;
  private readonly pending = new Map<number, Pending>();
  private closedWith: Error | undefined;
  private readonly onMessage = (ev: Event): void => {
    const data = (ev as MessageEvent).data as Reply;
    if (!isOurs(data)) return;
    const call = this.pending.get(data.id);
    if (call === undefined) return;
    this.pending.delete(data.id);
    if (data.ok) call.resolve(data.value);
    else if (data.isError) call.reject(Object.assign(new Error(data.error.message), data.error));
    else call.reject(data.error);
  };

  /** `methods`: the names of Api's methods, the only calls `api` offers (the worker serves its own methods only). */
  constructor(
    private readonly endpoint: Endpoint,
    methods: readonly (keyof Api & string)[],
  ) {
    endpoint.addEventListener("message", this.onMessage);
    endpoint.start?.();
    const api: Record<string, (...args: unknown[]) => Promise<unknown>> = {};
    for (const method of methods) api[method] = (...args) => this.call(method, args);
    this.api = api as Remote<Api>;
  }

  private call(method: string, args: unknown[]): Promise<unknown> {
    if (this.closedWith !== undefined) return Promise.reject(this.closedWith);
    return new Promise((resolve, reject) => {
      const id = ++lastId;
      this.pending.set(id, { resolve, reject });
      const request: Call = { tag: TAG, id, method, args };
      try {
        this.endpoint.postMessage(request, args.flatMap(transferListOf));
      } catch (err) {
        // An argument that cannot be cloned (or a transfer of a detached buffer): this call only.
        this.pending.delete(id);
        reject(err);
      }
    });
  }

  /**
   * The worker died or was ended: every call still waiting is rejected with `reason`, so are later
   * ones, and the listener is removed.
   */
  close(reason: Error): void {
    if (this.closedWith !== undefined) return;
    this.closedWith = reason;
    this.endpoint.removeEventListener("message", this.onMessage);
    const calls = [...this.pending.values()];
    this.pending.clear();
    for (const call of calls) call.reject(reason);
  }
}

function wireError(err: unknown): Reply & { ok: false } {
  if (err instanceof Error) {
    const error: WireError = { name: err.name, message: err.message };
    if (err.stack !== undefined) error.stack = err.stack;
    return { tag: TAG, id: -1, ok: false, isError: true, error };
  }
  return { tag: TAG, id: -1, ok: false, isError: false, error: err };
}

/**
 * The worker's side: answers each call that arrives on `endpoint` with what `api`'s method
 * returns (awaited), or with what it throws. Calls run concurrently; answers go in the order they
 * finish.
 */
export function serveWorkerApi(endpoint: Endpoint, api: object): void {
  const methods = api as Record<string, unknown>;
  endpoint.addEventListener("message", (ev: Event) => {
    const call = (ev as MessageEvent).data as Call;
    if (!isOurs(call)) return;
    void answer(endpoint, methods, call);
  });
  endpoint.start?.();
}

async function answer(endpoint: Endpoint, methods: Record<string, unknown>, request: Call): Promise<void> {
  let reply: Reply;
  try {
    const method = Object.hasOwn(methods, request.method) ? methods[request.method] : undefined;
    if (typeof method !== "function") throw new TypeError(`the worker has no method ${JSON.stringify(request.method)}`);
    const value: unknown = await (method as (...args: unknown[]) => unknown).apply(methods, request.args);
    reply = { tag: TAG, id: request.id, ok: true, value };
  } catch (err) {
    reply = { ...wireError(err), id: request.id };
  }
  try {
    endpoint.postMessage(reply, reply.ok ? transferListOf(reply.value) : []);
  } catch (err) {
    // A result (or thrown value) that cannot be cloned: the caller gets why, not a call that never ends.
    try {
      endpoint.postMessage({ ...wireError(err), id: request.id });
    } catch {
      // The port itself is gone (closed, or its worker ended): nobody is left to tell.
    }
  }
}
