/**
 * ChunkCache: decoded chunks kept on the calling thread, shared by every array opened with it
 * (TensorStore's `cache_pool` with its `total_bytes_limit`), least recently used first out.
 *
 * It lives where the coordinator runs, not in workers or shared memory: the coordinator answers
 * hits before it plans any task, so a fully cached read dispatches nothing, and workers stay
 * stateless (a pool serves many arrays and may be shared by many caches). Misses are still
 * decoded on the pool; their tasks return each whole decoded chunk with the version of the bytes
 * read (cached-read.ts), which is the only cost caching adds to a cold read.
 */
import { InvalidArgumentError } from "../../errors.js";
import type { TypedArray } from "../../metadata/dtype.js";
import type { ArrayMetadata } from "../../metadata/array-metadata.js";
import type { Store } from "../../stores/types.js";

/** A chunk as cached: its decoded values (C order, the whole chunk), or the fact it is missing. */
export type CachedChunk =
  | { state: "stored"; data: TypedArray; version: string; checkedAt: number }
  | { state: "missing"; checkedAt: number };

/** Options of a ChunkCache. */
export interface ChunkCacheOptions {
  /** The most bytes of decoded chunks held; a chunk larger than this is never cached. */
  maxBytes: number;
}

/** What `cache.stats()` reports: what it holds now and its counts so far. */
export interface ChunkCacheStats {
  /** Bytes of decoded chunks held now. */
  bytes: number;
  /** Chunks held now (missing chunks count, at no bytes). */
  entries: number;
  /** Chunks served from the cache without reading their bytes: fresh, or found unchanged. */
  hits: number;
  /** Chunks read and decoded because they were not cached or had changed. */
  misses: number;
  /** Conditional reads that found a cached chunk unchanged (an HTTP 304, an unchanged file). */
  revalidated: number;
  /** The cache's limit in bytes. */
  maxBytes: number;
}

/**
 * Every ChunkCache made (subclasses' too), for isChunkCache: a check that never names the class,
 * so a page that opens arrays without a cache holds none of its code.
 */
const made = new WeakSet<object>();

/** Whether `v` was made by `new ChunkCache` (what openArray's `cache` option must be). */
export function isChunkCache(v: unknown): v is ChunkCache {
  return typeof v === "object" && v !== null && made.has(v);
}

/** Decoded chunks kept in memory, shared by every array opened with it (`cache` option), least recently used evicted first. */
export class ChunkCache {
  /** The most bytes of decoded chunks held. */
  readonly maxBytes: number;
  /** Insertion order is recency order: a hit moves its entry to the end. */
  private readonly entries = new Map<string, CachedChunk>();
  private held = 0;
  private counts = { hits: 0, misses: 0, revalidated: 0 };

  constructor(options: ChunkCacheOptions) {
    const maxBytes = (options as Partial<ChunkCacheOptions> | undefined)?.maxBytes;
    if (typeof maxBytes !== "number" || !(maxBytes >= 0) || !Number.isFinite(maxBytes)) {
      throw new InvalidArgumentError(`ChunkCache: maxBytes must be a non-negative number, got ${String(maxBytes)}`);
    }
    this.maxBytes = maxBytes;
    made.add(this);
  }

  /** Bytes of decoded chunks held now. */
  get size(): number {
    return this.held;
  }

  /** Bytes and entries held, hits, misses and revalidations so far. */
  stats(): ChunkCacheStats {
    return { bytes: this.held, entries: this.entries.size, ...this.counts, maxBytes: this.maxBytes };
  }

  /** Drops every chunk; the counters stay. */
  clear(): void {
    this.entries.clear();
    this.held = 0;
  }

  /** @internal A cached chunk, made the most recently used. */
  lookup(id: string): CachedChunk | undefined {
    const entry = this.entries.get(id);
    if (entry !== undefined) {
      this.entries.delete(id);
      this.entries.set(id, entry);
    }
    return entry;
  }

  /** @internal Holds a chunk, evicting the least recently used ones to stay within maxBytes. */
  store(id: string, entry: CachedChunk): void {
    this.drop(id);
    const bytes = entry.state === "stored" ? entry.data.byteLength : 0;
    if (bytes > this.maxBytes) return;
    this.entries.set(id, entry);
    this.held += bytes;
    for (const [oldest, old] of this.entries) {
      if (this.held <= this.maxBytes) break;
      this.entries.delete(oldest);
      if (old.state === "stored") this.held -= old.data.byteLength;
    }
  }

  /** @internal Forgets a chunk (a write through a handle using this cache changed it). */
  drop(id: string): void {
    const old = this.entries.get(id);
    if (old === undefined) return;
    this.entries.delete(id);
    if (old.state === "stored") this.held -= old.data.byteLength;
  }

  /** @internal */
  count(what: "hits" | "misses" | "revalidated", n = 1): void {
    this.counts[what] += n;
  }
}

/**
 * TensorStore's CacheRevalidationBound: `true` revalidates before every use, `false` never,
 * `"open"` once per handle (entries checked since it was opened are fresh), a number of seconds
 * bounds an entry's age since it was last checked.
 */
export type Recheck = boolean | "open" | number;

export function checkRecheck(value: unknown, name: string): Recheck | undefined {
  if (value === undefined || typeof value === "boolean" || value === "open") return value;
  if (typeof value === "number" && value >= 0 && Number.isFinite(value)) return value;
  throw new InvalidArgumentError(`${name} must be true, false, "open" or a number of seconds, got ${JSON.stringify(value)}`);
}

/** Whether something last checked at `checkedAt` may be used without a check now. */
export function isFresh(recheck: Recheck, checkedAt: number, openedAt: number, now = Date.now()): boolean {
  if (recheck === true) return false;
  if (recheck === false) return true;
  if (recheck === "open") return checkedAt >= openedAt;
  return now - checkedAt <= recheck * 1000;
}

/**
 * The cache's name for a chunk: the store, the layout its decoded values depend on, and the key.
 * Two handles on one array share entries; a handle that sees another layout never does.
 */
export function cacheId(store: Store, meta: ArrayMetadata, key: string): string {
  return JSON.stringify([store.descriptor(), meta.dtype, meta.chunks, meta.rectilinear ?? null, meta.codecs, meta.fillValue, key]);
}
