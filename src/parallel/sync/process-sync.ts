/**
 * Chunk locks across processes that share a file system: one lock per (array, store key), held
 * as a lock directory made by proper-lockfile (mkdir is atomic on local file systems and NFS).
 * While held, proper-lockfile touches the lock's mtime every staleMs / 2; a holder that dies
 * (SIGKILL, power loss) stops touching it, and after `staleMs` the next writer removes it and
 * goes on. So a crashed writer blocks others for at most about `staleMs`.
 *
 * Only partial-chunk read-modify-writes take these locks (see lock-table.ts, which takes the
 * in-process slot first). The synchronizer is plain data (`descriptor()`): write tasks carry it,
 * and a worker thread takes the same lock files as the main thread would.
 */
import { mkdir } from "node:fs/promises";
import { join, resolve } from "node:path";
import lockfile from "proper-lockfile";
import { LockTimeoutError, StoreError } from "../../errors.js";

/** Options of a ProcessSynchronizer. */
export interface ProcessSynchronizerOptions {
  /**
   * A lock whose holder stopped refreshing it for this long is taken as abandoned (its process
   * died) and removed. proper-lockfile's floor is 2000 ms. Default 10000 ms.
   */
  staleMs?: number;
  /** How long a writer waits for a chunk lock before a LockTimeoutError. Default 60000 ms. */
  timeoutMs?: number;
}

/** The serialisable form a write task carries. */
export interface ProcessSyncDescriptor {
  /** Always "lockfile". */
  kind: "lockfile";
  /** The lock folder, absolute. */
  dir: string;
  /** As ProcessSynchronizerOptions.staleMs. */
  staleMs: number;
  /** As ProcessSynchronizerOptions.timeoutMs. */
  timeoutMs: number;
}

const MIN_STALE_MS = 2000;

function checkMs(v: number | undefined, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
    throw new RangeError(`ProcessSynchronizer: ${name} must be a positive number of milliseconds, got ${String(v)}`);
  }
  return v;
}

/** A short, stable, file-name-safe tag for an array scope (FNV-1a, two rounds for 64 bits). */
function scopeTag(scope: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ scope.length;
  for (let i = 0; i < scope.length; i++) {
    const c = scope.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function errno(err: unknown): string | undefined {
  return err instanceof Error ? (err as NodeJS.ErrnoException).code : undefined;
}

/** Chunk locks across processes sharing a file system: lock files in a folder, freed `staleMs` after their holder dies. */
export class ProcessSynchronizer {
  /** The lock folder, absolute. */
  readonly dir: string;
  /** After this many milliseconds without refresh, a lock counts as abandoned (at least 2000). */
  readonly staleMs: number;
  /** How long a writer waits for a lock before a LockTimeoutError. */
  readonly timeoutMs: number;
  private ready: Promise<unknown> | undefined;

  constructor(dir: string, options: ProcessSynchronizerOptions = {}) {
    if (typeof dir !== "string" || dir === "") throw new RangeError("ProcessSynchronizer: a lock folder is required");
    this.dir = resolve(dir);
    this.staleMs = Math.max(MIN_STALE_MS, checkMs(options.staleMs, "staleMs", 10_000));
    this.timeoutMs = checkMs(options.timeoutMs, "timeoutMs", 60_000);
  }

  /** The plain data write tasks carry, from which a worker takes the same locks. */
  descriptor(): ProcessSyncDescriptor {
    return { kind: "lockfile", dir: this.dir, staleMs: this.staleMs, timeoutMs: this.timeoutMs };
  }

  /** The lock file of one key: `<dir>/<scope tag>.<key, URI-encoded>.lock`. */
  lockPath(scope: string, key: string): string {
    return join(this.dir, `${scopeTag(scope)}.${encodeURIComponent(key)}.lock`);
  }

  /** Runs `fn` holding the lock file of (scope, key); waits up to timeoutMs for it. */
  async withLock<T>(scope: string, key: string, fn: () => Promise<T>): Promise<T> {
    this.ready ??= mkdir(this.dir, { recursive: true });
    await this.ready;
    const path = this.lockPath(scope, key);
    let compromised: Error | undefined;
    const options = {
      stale: this.staleMs,
      retries: 0,
      realpath: false,
      lockfilePath: path,
      // The default throws from a timer and kills the process; report it from the write instead.
      onCompromised: (err: Error) => {
        compromised = err;
      },
    };
    const deadline = Date.now() + this.timeoutMs;
    let release: () => Promise<void>;
    for (let attempt = 0; ; attempt++) {
      try {
        release = await lockfile.lock(path, options);
        break;
      } catch (err) {
        if (errno(err) !== "ELOCKED") {
          throw new StoreError(`cannot lock chunk "${key}" in ${this.dir}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        }
        if (Date.now() >= deadline) {
          throw new LockTimeoutError(`timed out after ${this.timeoutMs} ms waiting for the lock on chunk "${key}" (${path})`, key);
        }
        // Polling, with jitter so that waiters spread out; capped low because a chunk's
        // read-modify-write takes milliseconds and each poll is only a mkdir and a stat.
        await sleep(Math.min(1 + attempt, 4) * (0.5 + Math.random()));
      }
    }
    let result: T;
    try {
      result = await fn();
    } finally {
      await release().catch((err: unknown) => {
        compromised ??= err instanceof Error ? err : new Error(String(err));
      });
    }
    // The write went through, but another process may have taken the lock as stale meanwhile.
    if (compromised) {
      throw new StoreError(`the lock on chunk "${key}" was lost while writing it (${compromised.message})`, { cause: compromised });
    }
    return result;
  }
}

const perThread = new Map<string, ProcessSynchronizer>();

/** The synchronizer for a descriptor, one per thread (workers rebuild it from the task). */
export function fileLockFor(d: ProcessSyncDescriptor): ProcessSynchronizer {
  const k = `${d.dir}\0${d.staleMs}\0${d.timeoutMs}`;
  let s = perThread.get(k);
  if (!s) {
    s = new ProcessSynchronizer(d.dir, { staleMs: d.staleMs, timeoutMs: d.timeoutMs });
    perThread.set(k, s);
  }
  return s;
}
