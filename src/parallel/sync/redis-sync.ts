/**
 * Chunk locks across machines: one lease per (array scope, store key) in Redis, for writers that
 * share an object store (S3) rather than a file system. The same interface as ProcessSynchronizer
 * (`withLock`, `descriptor`), so write tasks carry it as plain data and a worker thread takes the
 * same leases as the main thread would.
 *
 * A lease is `SET key token NX PX leaseMs` with a random token: only one writer gets it. While the
 * write runs the holder renews it every leaseMs / 3 (PEXPIRE, only if the value is still its
 * token), and releases it by deleting it, again only if it is still its token (both as one Lua
 * script, so check and act are atomic). A holder that dies stops renewing, and its lease runs out
 * after at most leaseMs: the next writer goes on. A holder that loses its lease (a pause longer
 * than the lease) finds out on renewal or release, and its write reports the lost lock.
 *
 * One Redis connection per synchronizer per thread, opened on first use and closed after a second
 * without locks, so neither a worker thread nor the process is kept alive by an idle socket.
 */
import { randomBytes } from "node:crypto";
import type { Redis as RedisClient } from "ioredis";
import { InvalidArgumentError, LockTimeoutError, StoreError } from "../../errors.js";
import { connectRedis, redactRedisUrl } from "./redis-connect.js";

/** Options of a RedisSynchronizer. */
export interface RedisSynchronizerOptions {
  /** How long a lease lasts without renewal: a dead holder blocks others this long at most. Default 10000 ms. */
  leaseMs?: number;
  /** How long a writer waits for a chunk lock before a LockTimeoutError. Default 60000 ms. */
  timeoutMs?: number;
  /** Prefix of the lock keys in Redis. Default `parzarr:lock:`. */
  keyPrefix?: string;
}

/** The serialisable form a write task carries. */
export interface RedisSyncDescriptor {
  /** Always "redis". */
  kind: "redis";
  /** The Redis URL. */
  url: string;
  /** As RedisSynchronizerOptions.leaseMs. */
  leaseMs: number;
  /** As RedisSynchronizerOptions.timeoutMs. */
  timeoutMs: number;
  /** As RedisSynchronizerOptions.keyPrefix. */
  keyPrefix: string;
}

/** Renews the lease if it is still ours: 1 renewed, 0 lost. */
const RENEW = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("pexpire", KEYS[1], ARGV[2]) else return 0 end`;
/** Deletes the lease if it is still ours: 1 released, 0 it was no longer ours. */
const RELEASE = `if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end`;

/** How long a connection stays open with no lock held or awaited. */
const IDLE_CLOSE_MS = 1000;
const MIN_LEASE_MS = 100;

function checkMs(v: number | undefined, name: string, fallback: number): number {
  if (v === undefined) return fallback;
  if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) {
    throw new InvalidArgumentError(`RedisSynchronizer: ${name} must be a positive number of milliseconds, got ${String(v)}`);
  }
  return v;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Chunk locks for writers on several machines: leases in Redis that lapse `leaseMs` after their holder dies. */
export class RedisSynchronizer {
  /** The Redis URL (`redis://host:6379`, `rediss://` for TLS). */
  readonly url: string;
  /** How long a lease lasts without renewal. */
  readonly leaseMs: number;
  /** How long a writer waits for a lock before a LockTimeoutError. */
  readonly timeoutMs: number;
  /** The prefix of the lock keys in Redis. */
  readonly keyPrefix: string;
  private client: Promise<RedisClient> | undefined;
  /** Locks held or awaited through this synchronizer now. */
  private busy = 0;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(url: string, options: RedisSynchronizerOptions = {}) {
    if (typeof url !== "string" || !/^rediss?:\/\//i.test(url)) {
      throw new InvalidArgumentError(`RedisSynchronizer: expected a redis:// or rediss:// URL, got ${JSON.stringify(url)}`);
    }
    this.url = url;
    this.leaseMs = Math.max(MIN_LEASE_MS, checkMs(options.leaseMs, "leaseMs", 10_000));
    this.timeoutMs = checkMs(options.timeoutMs, "timeoutMs", 60_000);
    this.keyPrefix = options.keyPrefix ?? "parzarr:lock:";
  }

  /** The server as messages name it: the URL without its password. */
  private get where(): string {
    return redactRedisUrl(this.url);
  }

  /** The plain data write tasks carry, from which a worker takes the same locks. */
  descriptor(): RedisSyncDescriptor {
    return { kind: "redis", url: this.url, leaseMs: this.leaseMs, timeoutMs: this.timeoutMs, keyPrefix: this.keyPrefix };
  }

  /** The Redis key of one chunk's lock. Scopes name the store (lock-table.ts), keys the chunk. */
  lockKey(scope: string, key: string): string {
    return `${this.keyPrefix}${scope}\0${key}`;
  }

  private connect(): Promise<RedisClient> {
    this.client ??= connectRedis(
      this.url,
      {
        // Fail a command instead of queueing it forever when Redis cannot be reached.
        maxRetriesPerRequest: 2,
        retryStrategy: (times) => (times > 5 ? null : Math.min(50 * times, 500)),
      },
      "for chunk locks",
    ).catch((err: unknown) => {
      this.client = undefined;
      throw err;
    });
    return this.client;
  }

  private enter(): void {
    this.busy++;
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }

  private leave(): void {
    if (--this.busy > 0) return;
    this.idleTimer = setTimeout(() => void this.close(), IDLE_CLOSE_MS);
  }

  /** Closes the connection (a later lock opens a new one). */
  async close(): Promise<void> {
    clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
    const pending = this.client;
    this.client = undefined;
    if (!pending) return;
    const client = await pending.catch(() => undefined);
    await client?.quit().catch(() => client.disconnect());
  }

  /** Runs `fn` holding the lease of (scope, key); waits up to timeoutMs for it. */
  async withLock<T>(scope: string, key: string, fn: () => Promise<T>): Promise<T> {
    this.enter();
    try {
      const redis = await this.connect();
      const name = this.lockKey(scope, key);
      const token = randomBytes(16).toString("hex");
      const deadline = Date.now() + this.timeoutMs;
      for (let attempt = 0; ; attempt++) {
        const got = await redis.set(name, token, "PX", this.leaseMs, "NX").catch((err: unknown) => {
          throw new StoreError(`cannot lock chunk "${key}" in Redis at ${this.where}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
        });
        if (got === "OK") break;
        if (Date.now() >= deadline) {
          throw new LockTimeoutError(`timed out after ${this.timeoutMs} ms waiting for the lock on chunk "${key}" (Redis ${this.where})`, key);
        }
        // Polling with jitter, so that waiters spread out; a chunk's read-modify-write is short.
        await sleep(Math.min(2 + attempt, 20) * (0.5 + Math.random()));
      }
      let lost: string | undefined;
      const renewer = setInterval(() => {
        redis.eval(RENEW, 1, name, token, String(this.leaseMs)).then(
          (r) => {
            if (r !== 1) lost ??= "another writer holds it now";
          },
          (err: unknown) => {
            lost ??= `renewing it failed: ${err instanceof Error ? err.message : String(err)}`;
          },
        );
      }, Math.max(10, Math.floor(this.leaseMs / 3)));
      let result: T;
      try {
        result = await fn();
      } finally {
        clearInterval(renewer);
        const released = await redis.eval(RELEASE, 1, name, token).catch((err: unknown) => {
          lost ??= `releasing it failed: ${err instanceof Error ? err.message : String(err)}`;
          return 1;
        });
        if (released !== 1) lost ??= "its lease ran out before the write ended";
      }
      // The write went through, but another writer may have taken the lock meanwhile.
      if (lost) throw new StoreError(`the lock on chunk "${key}" was lost while writing it (${lost})`);
      return result;
    } finally {
      this.leave();
    }
  }
}

const perThread = new Map<string, RedisSynchronizer>();

/** The synchronizer for a descriptor, one per thread (workers rebuild it from the task). */
export function redisLockFor(d: RedisSyncDescriptor): RedisSynchronizer {
  const k = JSON.stringify([d.url, d.leaseMs, d.timeoutMs, d.keyPrefix]);
  let s = perThread.get(k);
  if (!s) {
    s = new RedisSynchronizer(d.url, { leaseMs: d.leaseMs, timeoutMs: d.timeoutMs, keyPrefix: d.keyPrefix });
    perThread.set(k, s);
  }
  return s;
}
