/**
 * The browser platform, from web-standard globals only: navigator.hardwareConcurrency, Web
 * Workers (parallel/execution/worker-rpc.ts), SharedArrayBuffer where the page is cross-origin isolated.
 */
import { InternalFault, UnsupportedError } from "../errors.js";
import { ComlinkExecutor } from "../parallel/execution/comlink-executor.js";
import { CONCURRENCY } from "../parallel/execution/concurrency.js";
import { webWorkers } from "../parallel/execution/comlink-web-workers.js";
import { lazyFeatures } from "../lazy-features-loader.js";
import type { Platform } from "./types.js";

interface WebGlobals {
  navigator?: { hardwareConcurrency?: number };
  crossOriginIsolated?: boolean;
  WorkerGlobalScope?: unknown;
  crypto?: { getRandomValues<T extends Uint8Array | Uint32Array>(a: T): T; randomUUID?(): string };
}
const g = globalThis as WebGlobals;

/** Worker scopes have WorkerGlobalScope; the page itself does not. */
const inWorker = typeof g.WorkerGlobalScope !== "undefined";

/**
 * Browsers give workers no numeric id. The pool that starts a worker gives it one
 * (`adoptThreadId`, from `ownerIdForWorker` in [2^28, 2^29)); until then, a random one below
 * 2^28 (never 0, the main thread's) tells the owners of lock slots apart.
 */
let ownId = 0;
function workerId(): number {
  if (ownId === 0) {
    const r = new Uint32Array(1);
    if (g.crypto) g.crypto.getRandomValues(r);
    else r[0] = Math.floor(Math.random() * 2 ** 32);
    ownId = 1 + (r[0] % (2 ** 28 - 1));
  }
  return ownId;
}

/** crypto.randomUUID exists only in secure contexts; a page served over plain http has getRandomValues. */
function randomUUID(): string {
  if (g.crypto?.randomUUID) return g.crypto.randomUUID();
  const b = new Uint8Array(16);
  if (g.crypto) g.crypto.getRandomValues(b);
  else for (let i = 0; i < 16; i++) b[i] = Math.floor(Math.random() * 256);
  b[6] = (b[6] & 0x0f) | 0x40; // version 4
  b[8] = (b[8] & 0x3f) | 0x80; // RFC 4122 variant
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Platform.copyBytes. `subarray` clamps a range past `src`'s end (and counts a negative start from
 * it), and `set` refuses only a `dst` too short: the range is checked first, so that a wrong
 * range fails here as on Node rather than copying fewer bytes.
 */
function copyBytes(dst: Uint8Array, at: number, src: Uint8Array, start: number, end: number): void {
  if (!(0 <= start && start <= end && end <= src.length && 0 <= at && at + (end - start) <= dst.length)) {
    throw new InternalFault(`internal error: cannot copy the bytes [${start}, ${end}) of ${src.length} to ${at} of ${dst.length}`);
  }
  dst.set(src.subarray(start, end), at);
}

export const browserPlatform: Platform = {
  name: "browser",
  availableParallelism: () => Math.max(1, g.navigator?.hardwareConcurrency ?? 4),
  // V8's limit on one ArrayBuffer on 64-bit (2^32 bytes in Chromium since 2020); a read larger
  // than this is refused up front rather than failing in the allocator.
  maxBufferBytes: 2 ** 32,
  threadId: () => (inWorker ? workerId() : 0),
  adoptThreadId: (id) => void (ownId = id),
  isMainThread: () => !inWorker,
  randomUUID,
  sharedMemory: () => typeof SharedArrayBuffer === "function" && g.crossOriginIsolated !== false,
  createExecutor(threads, options) {
    if (options.executor === "piscina") throw new UnsupportedError('the "piscina" executor needs Node; in a browser use "comlink"');
    return new ComlinkExecutor(threads, webWorkers(options), CONCURRENCY.webWorkerTasksPerWorker);
  },
  // Browsers have no memmove to call: set, after the range check above (InternalFault).
  copyBytes,
  lazyFeatures,
};
