/** Turning what a user passes (a path, a URL, a store) or a task's descriptor into a store. */
import { fileURLToPath } from "node:url";
import { StoreError } from "../errors.js";
import { FetchStore } from "./fetch.js";
import { FileSystemStore } from "./filesystem.js";
import { S3Store } from "./s3.js";
import { getMemoryStore } from "./memory.js";
import type { Store, StoreDescriptor } from "./types.js";
import { ZipStore, getOpenZipStore } from "./zip.js";

export function storeFromDescriptor(d: StoreDescriptor): Store {
  switch (d.kind) {
    case "filesystem":
      return new FileSystemStore(d.root, { readOnly: d.readOnly, followSymlinks: d.followSymlinks });
    case "fetch":
      return new FetchStore(d.url, { headers: d.headers, http: d.http });
    case "s3":
      return S3Store.fromDescriptor(d);
    case "memory": {
      const s = getMemoryStore(d.id);
      // A memory store lives in the thread that made it; tasks for it must run there.
      if (!s) throw new StoreError(`memory store ${d.id} is not reachable from this thread`);
      return s;
    }
    case "zip": {
      if (d.id === undefined) return new ZipStore(d.path, { mode: "r" });
      // An archive being written appends to one file handle in the thread that opened it.
      const s = getOpenZipStore(d.id);
      if (!s) throw new StoreError(`zip store ${d.path} is being written in another thread`);
      return s;
    }
  }
}

/**
 * Whether a worker thread can open this store from its descriptor. A memory store lives in the
 * thread that made it, so its tasks run inline (see parallel/coordinator.ts for the measurement).
 */
export function workerCanOpen(d: StoreDescriptor): boolean {
  switch (d.kind) {
    case "filesystem":
    case "fetch":
    case "s3":
      return true;
    case "memory":
      return false;
    case "zip":
      // A reader's descriptor reopens the archive anywhere; a writer's exists in its thread only.
      return d.id === undefined;
  }
}

/**
 * A string or URL with http(s) gives a (read-only) FetchStore; `s3://bucket/prefix` an S3Store
 * configured from the environment (see stores/s3.ts); a path ending in `.zip` gives a
 * ZipStore (mode "r" when read-only, else "a": call `close()` to finish it); file: URLs and other
 * strings give a FileSystemStore, relative paths against the current folder; a store is returned
 * as it is.
 */
export function resolveStore(input: string | URL | Store, options: { readOnly?: boolean } = {}): Store {
  if (typeof input !== "string" && !(input instanceof URL)) return input;
  const text = String(input);
  if (/^https?:\/\//i.test(text)) return new FetchStore(text);
  // Endpoint, region and credentials come from the environment (AWS_ENDPOINT_URL and the rest).
  if (/^s3:\/\//i.test(text)) return new S3Store(text, { readOnly: options.readOnly });
  if (/^file:/i.test(text)) {
    let path: string;
    try {
      path = fileURLToPath(text);
    } catch (err) {
      throw new StoreError(`cannot use ${text} as a folder: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
    return localStore(path, options);
  }
  return localStore(text, options);
}

function localStore(path: string, options: { readOnly?: boolean }): Store {
  if (/\.zip$/i.test(path)) return new ZipStore(path, { mode: options.readOnly ? "r" : "a" });
  return new FileSystemStore(path, options);
}
