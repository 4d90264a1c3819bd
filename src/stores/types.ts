/**
 * The store layer: bytes by key, nothing about arrays or codecs.
 *
 * Keys are relative, `/`-separated paths such as `a/b/zarr.json` or `data/.zarray`; the root of
 * the store is the empty prefix. Every store validates keys with `validateKey` before use.
 */
import type { HttpOptions } from "./http.js";
import type { ReferenceStoreDescriptor } from "./reference.js";
import type { S3StoreDescriptor } from "./s3.js";

/**
 * A serialisable description of a store, from which a worker thread can open the same store
 * itself, so its bytes need not pass through the calling thread (docs/ARCHITECTURE.md, "How data
 * flows"). A user's store that no worker can reopen has kind "caller": that thread moves its bytes.
 */
export type StoreDescriptor =
  | { kind: "filesystem"; root: string; readOnly: boolean; followSymlinks?: boolean }
  | { kind: "fetch"; url: string; headers?: Record<string, string>; http?: HttpOptions; allowRedirects?: string[] }
  | S3StoreDescriptor
  /** Kerchunk references (stores/reference.ts): the document's location, or a small document itself. */
  | ReferenceStoreDescriptor
  | { kind: "memory"; id: string }
  /** A folder of the browser's Origin Private File System (stores/opfs.ts), reachable from workers. */
  | { kind: "opfs"; root: string; readOnly: boolean }
  /**
   * A zip file. With `id`: a ZipStore being written, reachable only in the thread that writes it.
   * Without: read-only, opened from `path`; `instance` differs per ZipStore object, so a worker's
   * store cache never serves a file handle opened before the archive was replaced.
   */
  | { kind: "zip"; path: string; id?: string; instance?: string }
  /** A NetCDF or HDF5 file read as Zarr (archival/archive-store.ts); `instance` is its size and mtime. */
  | { kind: "archive"; path: string; instance: string }
  /** A user's store object (stores/caller.ts): no worker can open it; the calling thread moves its bytes. */
  | { kind: "caller"; id: string };

/** A byte range of one value, as `getRange` takes it. */
export interface RangeRequest {
  /** Byte offset; a negative offset counts from the end (a suffix request). */
  offset: number;
  /** Number of bytes; omitted means "to the end". */
  length?: number;
}

/**
 * Options of one read. `signal` cancels it: a store that waits on something slow (the network)
 * passes it on and rejects with an AbortError once it fires; a store whose reads are quick may
 * ignore it, since the chunk loop checks the signal between chunks anyway.
 * @inline
 */
export interface StoreReadOptions {
  signal?: AbortSignal;
}

/**
 * A read that says which version of the value it got, for caches that revalidate (ChunkCache):
 * `version` is an opaque validator (an HTTP ETag or Last-Modified, a file's size, mtime and inode);
 * "" when the store has none, and then a conditional read always reads.
 */
export type VersionedRead = { kind: "missing" } | { kind: "unchanged" } | { kind: "value"; bytes: Uint8Array; version: string };

/** A range read with its value's size and version ("" where the store has no validator). */
export type VersionedRange = { bytes: Uint8Array; size?: number; version: string };

/** @inline */
export interface VersionedReadOptions extends StoreReadOptions {
  /** A version from an earlier read: answer "unchanged" (without the bytes) when it still holds. */
  ifChanged?: string;
}

/** The interface of parzarr's built-in stores: keys (`a/zarr.json`, `a/c/0/0`) to bytes. Your own store need only be a UserStore. */
export interface ReadableStore {
  /**
   * The whole value, or undefined when the key does not exist. Callers take null as missing too:
   * stores written for other libraries (Icechunk's, zarrita's adapters) answer null.
   */
  get(key: string, opts?: StoreReadOptions): Promise<Uint8Array | undefined | null>;
  /** A byte range of the value, or undefined (or null) when the key does not exist. */
  getRange(key: string, range: RangeRequest, opts?: StoreReadOptions): Promise<Uint8Array | undefined | null>;
  /** Whether the key exists. */
  has(key: string): Promise<boolean>;
  /**
   * The size in bytes of a value without reading it, or undefined when the key does not exist.
   * Optional: callers fall back to `get` where a store cannot tell cheaply.
   */
  getSize?(key: string): Promise<number | undefined | null>;
  /** Optional: when the value was last written, or undefined when the key does not exist (Icechunk checks its clock against it). */
  lastModified?(key: string): Promise<Date | undefined>;
  /**
   * Optional: reads the value into `dest` (at most its length; or into runs, filled in order) and
   * returns the value's full size, or undefined when the key does not exist. Lets raw chunks skip
   * an intermediate buffer: a chunk whose rows are runs of the output is read into those rows.
   */
  readInto?(key: string, dest: Uint8Array | readonly Uint8Array[], opts?: StoreReadOptions): Promise<number | undefined | null>;
  /**
   * Optional: the value with its version, or, given `ifChanged`, "unchanged" when that version is
   * still current (a conditional read: an HTTP 304, a file's unchanged status). See readVersioned.
   */
  getVersioned?(key: string, opts?: VersionedReadOptions): Promise<VersionedRead>;
  /** Optional: a range with its value's size and version, read together: ranges of one version tell so. */
  getRangeVersioned?(key: string, range: RangeRequest, opts?: StoreReadOptions): Promise<VersionedRange | undefined>;
  /**
   * Optional: fetches the values of `keys` together and returns a store that answers them from
   * memory (and everything else as this one does). A read task calls it for its chunks' keys, so
   * a store that can merge requests (ReferenceStore: nearby byte ranges of one file) does so.
   */
  prefetch?(keys: readonly string[], opts?: StoreReadOptions): Promise<ReadableStore>;
  /** Every key that starts with `prefix` (a folder prefix ends with `/`; "" lists everything). */
  list(prefix: string): Promise<string[]>;
  /** The immediate children of a folder prefix: keys and sub-folders (without trailing `/`). */
  listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }>;
  /** True when the store refuses writes (a ReadOnlyError). */
  readonly readOnly: boolean;
  /** How a worker reopens this store; kind "caller" where none can, and then the calling thread moves its bytes. */
  descriptor(): StoreDescriptor;
}

/**
 * The condition of a conditional write (`setIf`): `ifMatch`, a version from `getVersioned` that
 * must still be current; `ifNoneMatch: "*"`, the key must not exist (S3's If-Match and
 * If-None-Match on PUT).
 */
export type WriteCondition = { ifMatch: string } | { ifNoneMatch: "*" };

/** What `setIf` answers: written, with the new value's version, or not written (the condition failed). */
export type ConditionalSetResult = { ok: true; version: string } | { ok: false };

/** A built-in store that also writes and deletes keys. */
export interface WritableStore extends ReadableStore {
  /** Atomic per key: a reader sees the old value or the new one, never a mix. */
  set(key: string, value: Uint8Array): Promise<void>;
  /**
   * Optional: true when `set` keeps no reference to `value` once its promise settles (it wrote
   * the bytes out), so writers may pass a reused buffer. Stores that keep the value (in memory,
   * queued for later) leave it unset.
   */
  readonly setReleasesValue?: boolean;
  /**
   * Optional: writes the value only while `condition` holds, atomically with the check (a
   * compare-and-swap). `{ ok: false }` when it does not hold; other failures throw as `set` does.
   * Only stores whose server checks the condition offer it (S3Store); whether a given server
   * does is found out by a probe (parallel/sync/conditional-writes.ts), since some ignore the headers.
   */
  setIf?(key: string, value: Uint8Array, condition: WriteCondition): Promise<ConditionalSetResult>;
  /** Deleting a key that does not exist is not an error. */
  delete(key: string): Promise<void>;
  /** Deletes every key under a folder prefix. */
  deletePrefix(prefix: string): Promise<void>;
}

/** Any built-in store, readable or writable. */
export type Store = ReadableStore | WritableStore;

export function isWritable(store: Store): store is WritableStore {
  return !store.readOnly && typeof (store as WritableStore).set === "function";
}

/** A versioned read from any store: stores without `getVersioned` give version "" (no validator). */
export async function readVersioned(store: Store, key: string, opts: VersionedReadOptions = {}): Promise<VersionedRead> {
  if (store.getVersioned) return store.getVersioned(key, opts);
  const bytes = await store.get(key, { signal: opts.signal });
  return bytes == null ? { kind: "missing" } : { kind: "value", bytes, version: "" };
}
