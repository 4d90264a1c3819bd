/**
 * Icechunk repositories kept in parzarr's own stores, through `Storage.newCustom`: a folder
 * (FileSystemStore), S3 (S3Store), or, read-only, any store (FetchStore over HTTP). The WebAssembly
 * build of @earthmover/icechunk has only in-memory storage of its own; this is how it persists.
 *
 * Icechunk keeps the repository's state (branches, tags, config) in a few objects it replaces by
 * compare-and-swap: a put with the version it read, or "only if absent". Two writers committing to
 * one branch are told apart only by that, so each put is conditional for real: S3Store's `setIf`
 * (If-Match, If-None-Match; a server that ignores them is refused by a probe), and for a folder a lock file per key (ProcessSynchronizer, which other
 * processes on the same file system honour too) around the check and the rename. A writable store
 * that can do neither is refused rather than allowed to lose commits.
 */
import type { Storage, StorageGetModifiedResult, StorageGetObjectResponse, StorageVersionInfo, StorageVersionedUpdateResult } from "@earthmover/icechunk";
import { join } from "node:path";
import { StoreError, UnsupportedError } from "../errors.js";
import { loadOptional } from "../optional-deps.js";
import { requireConditionalWrites } from "../parallel/sync/conditional-probe.js";
import { ProcessSynchronizer } from "../parallel/sync/process-sync.js";
import { readVersioned, type ReadableStore, type Store, type WritableStore, isWritable } from "../stores/types.js";

/** Loads @earthmover/icechunk (its native addon, or the WebAssembly build where the addon does not load). */
export function loadIcechunk(): Promise<typeof import("@earthmover/icechunk")> {
  return loadOptional(["@earthmover/icechunk"], "Icechunk repositories", () => import("@earthmover/icechunk"));
}

/** Icechunk's custom-storage protocol: a missing object is an error whose message says "ObjectNotFound". */
const notFound = (path: string) => new StoreError(`ObjectNotFound: ${path}`);

type Put = (key: string, value: Uint8Array, version: StorageVersionInfo | undefined) => Promise<StorageVersionedUpdateResult>;

/** The conditional put of `store`, or undefined when it has none that holds across processes. @internal */
export async function conditionalPutFor(store: WritableStore): Promise<Put | undefined> {
  const setIf = store.setIf?.bind(store);
  if (setIf) {
    // Some S3 servers ignore the conditions (s3rver): a probe, once per bucket, refuses them.
    await requireConditionalWrites(store, "");
    return async (key, value, version) => {
      const r = await setIf(key, value, version?.etag ? { ifMatch: version.etag } : { ifNoneMatch: "*" });
      return r.ok ? { kind: "updated", newVersion: { etag: r.version } } : { kind: "not_on_latest_version" };
    };
  }
  const d = store.descriptor();
  if (d.kind !== "filesystem") return undefined;
  // Lock folders are empty directories: no listing shows them as objects.
  const locks = new ProcessSynchronizer(join(d.root, ".parzarr-locks"));
  return (key, value, version) =>
    // One scope for the folder: its lock files are in it, so every path that reaches it (a link,
    // another mount) shares them; a scope from the path would give each its own lock.
    locks.withLock("", key, async () => {
      const now = await readVersioned(store, key);
      const current = now.kind === "value" ? now.version : undefined;
      if (current !== (version?.etag || undefined)) return { kind: "not_on_latest_version" };
      await store.set(key, value);
      const after = await readVersioned(store, key);
      return { kind: "updated", newVersion: { etag: after.kind === "value" ? after.version : undefined } };
    });
}

/** `prefix` as a folder prefix of parzarr's stores ("" or ending in "/"). */
const folder = (prefix: string) => (prefix === "" ? "" : prefix.replace(/\/*$/, "/"));

/**
 * An Icechunk `Storage` that keeps the repository's objects in `store`: pass it to
 * `Repository.create`, `open` or `openOrCreate`. Writes need a store with real conditional puts
 * (S3Store, FileSystemStore); a read-only store gives storage that reads only.
 */
export async function icechunkStorage(store: Store): Promise<Storage> {
  const { Storage } = await loadIcechunk();
  const writable = isWritable(store) ? store : undefined;
  const put = writable && (await conditionalPutFor(writable));
  if (writable && !put) {
    throw new UnsupportedError(`an Icechunk repository needs conditional writes, which a "${store.descriptor().kind}" store cannot make: use a FileSystemStore or an S3Store, or open it read-only`);
  }
  const mustWrite = (): WritableStore => {
    if (!writable) throw new StoreError("the Icechunk repository's store is read-only");
    return writable;
  };
  const read = async (path: string, start?: number, end?: number): Promise<StorageGetObjectResponse> => {
    if (start === undefined) {
      const r = await readVersioned(store, path);
      if (r.kind !== "value") throw notFound(path);
      return { data: r.bytes as Buffer, version: { etag: r.version || undefined } };
    }
    const range = { offset: start, length: end === undefined ? undefined : end - start };
    const r = store.getRangeVersioned ? await store.getRangeVersioned(path, range) : undefined;
    if (r) return { data: r.bytes as Buffer, version: { etag: r.version || undefined } };
    const bytes = await store.getRange(path, range);
    if (bytes == null) throw notFound(path);
    return { data: bytes as Buffer, version: {} };
  };
  // Icechunk's callbacks take an error-first argument (always null) before their own.
  return Storage.newCustom({
    canWrite: async () => writable !== undefined,
    getObjectRange: (async (_: null, a: { path: string; rangeStart?: number; rangeEnd?: number }) => read(a.path, a.rangeStart, a.rangeEnd)) as never,
    putObject: (async (_: null, a: { path: string; data: Uint8Array; previousVersion?: StorageVersionInfo }) => {
      const w = mustWrite();
      // Without a previous version the object is new and immutable (a chunk, a snapshot): plain put.
      if (a.previousVersion === undefined || a.previousVersion === null) {
        await w.set(a.path, new Uint8Array(a.data));
        return { kind: "updated", newVersion: {} };
      }
      return put!(a.path, new Uint8Array(a.data), a.previousVersion);
    }) as never,
    copyObject: (async (_: null, a: { from: string; to: string; version: StorageVersionInfo }) => {
      const w = mustWrite();
      const r = await readVersioned(store, a.from);
      if (r.kind !== "value") throw notFound(a.from);
      if (a.version.etag && r.version !== a.version.etag) return { kind: "not_on_latest_version" };
      await w.set(a.to, r.bytes);
      return { kind: "updated", newVersion: a.version };
    }) as never,
    listObjects: (async (_: null, prefix: string) => {
      const p = folder(prefix);
      const keys = await store.list(p);
      // parzarr's listings carry no dates: "now" keeps anything from looking old enough to expire.
      const now = new Date();
      return Promise.all(keys.map(async (k) => ({ id: k.slice(p.length), createdAt: now, sizeBytes: (await store.getSize?.(k)) ?? 0 })));
    }) as never,
    deleteBatch: (async (_: null, a: { prefix: string; batch: { id: string; size: number }[] }) => {
      const w = mustWrite();
      for (const item of a.batch) await w.delete(folder(a.prefix) + item.id);
      return { deletedObjects: a.batch.length, deletedBytes: a.batch.reduce((s, i) => s + i.size, 0) };
    }) as never,
    // Icechunk compares a new snapshot's time with its object's, to refuse commits from a skewed clock.
    getObjectLastModified: (async (_: null, path: string) => {
      if (!store.lastModified) throw new UnsupportedError(`a "${store.descriptor().kind}" store does not tell when "${path}" was written, which Icechunk's commits check`);
      const when = await store.lastModified(path);
      if (!when || Number.isNaN(when.getTime())) throw notFound(path);
      return when;
    }) as never,
    getObjectConditional: (async (_: null, a: { path: string; previousVersion?: StorageVersionInfo }): Promise<StorageGetModifiedResult> => {
      const r = await readVersioned(store as ReadableStore, a.path, { ifChanged: a.previousVersion?.etag || undefined });
      if (r.kind === "missing") throw notFound(a.path);
      if (r.kind === "unchanged") return { kind: "on_latest_version" };
      return { kind: "modified", data: r.bytes as Buffer, newVersion: { etag: r.version || undefined } };
    }) as never,
  });
}
