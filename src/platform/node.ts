/**
 * The Node platform: os.availableParallelism, worker_threads ids, Buffer's size limit, piscina
 * (or the Web Worker executor over worker_threads) for pools, and the file-system and zip stores for paths.
 * Installing it also registers those two stores' descriptors, so workers can open them.
 */
import { Buffer, constants } from "node:buffer";
import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { randomUUID } from "node:crypto";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { isMainThread, threadId } from "node:worker_threads";
import { InternalFault, StoreError, UnsupportedError } from "../errors.js";
import { ComlinkExecutor } from "../parallel/execution/comlink-executor.js";
import { CONCURRENCY } from "../parallel/execution/concurrency.js";
import { nodeComlinkWorkers } from "../parallel/execution/comlink-node-workers.js";
import { webWorkers } from "../parallel/execution/comlink-web-workers.js";
import { PiscinaExecutor } from "../parallel/execution/piscina-executor.js";
// Loading it registers its lock files with the lock table, for write tasks that name them.
import "../parallel/sync/synchronizer.js";
// Node parses every data type from the start (a page loads the rare ones on first use: metadata-json.ts).
import "../metadata/rare-types.js";
import { FileSystemStore } from "../stores/filesystem.js";
import { addStoreKind } from "../stores/kinds.js";
import { S3_KIND } from "../stores/s3.js";
import { REFERENCE_KIND } from "../stores/reference.js";
import type { Store } from "../stores/types.js";
import { ZipStore, getOpenZipStore } from "../stores/zip.js";
// Loads no HDF5 code itself: h5wasm is imported when the first archive is opened.
import { ArchiveStore } from "../archival/archive-store.js";
import { isArchivePath } from "../archival/open-model.js";
import { lazyFeatures } from "../lazy-features-loader.js";
import { installPlatform } from "./current.js";
import type { Platform } from "./types.js";

function localStore(pathOrUrl: string, options: { readOnly?: boolean }): Store {
  let path = pathOrUrl;
  if (/^file:/i.test(pathOrUrl)) {
    try {
      path = fileURLToPath(pathOrUrl);
    } catch (err) {
      throw new StoreError(`cannot use ${pathOrUrl} as a folder: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }
  if (/\.zip$/i.test(path)) return new ZipStore(path, { mode: options.readOnly ? "r" : "a" });
  // NetCDF and HDF5 files read as Zarr v2 (read-only, whatever the options say).
  if (isArchivePath(path)) return new ArchiveStore(path);
  if (options.readOnly && isRegularFile(path)) {
    throw new UnsupportedError(
      `${pathOrUrl} is a file parzarr cannot read as Zarr (by its name): it reads Zarr folders, .zip archives, kerchunk references (.json), NetCDF (.nc, .nc4, .cdf) and HDF5 (.h5, .hdf5, .he5)`,
    );
  }
  return new FileSystemStore(path, options);
}

function isRegularFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

const bufferCopy = Buffer.prototype.copy;

/** Platform.copyBytes: memmove (Buffer.prototype.copy takes any Uint8Array, and clamps a range that does not fit: counted). */
function copyBytes(dst: Uint8Array, at: number, src: Uint8Array, start: number, end: number): void {
  const n = bufferCopy.call(src, dst, at, start, end);
  if (n !== end - start) throw new InternalFault(`internal error: copied ${n} of the bytes [${start}, ${end}) to ${at} of ${dst.length}`);
}

/** The id a pool gave this worker (comlink workers made by `createWorker`), else the thread's own. */
let adoptedThreadId: number | undefined;

/** A folder's real path, following symbolic links in the part that exists. */
function realFolder(path: string): string {
  const abs = resolve(path);
  let head = abs;
  const tail: string[] = [];
  while (!existsSync(head)) {
    const up = dirname(head);
    if (up === head) return abs;
    tail.unshift(head.slice(up.length).replace(/^[\\/]+/, ""));
    head = up;
  }
  try {
    return join(realpathSync(head), ...tail);
  } catch {
    return abs;
  }
}

export const nodePlatform: Platform = {
  name: "node",
  availableParallelism,
  maxBufferBytes: constants.MAX_LENGTH,
  threadId: () => adoptedThreadId ?? threadId,
  adoptThreadId: (id) => void (adoptedThreadId = id),
  isMainThread: () => isMainThread,
  randomUUID,
  sharedMemory: () => true,
  createExecutor(threads, options) {
    if ((options.executor ?? "piscina") === "piscina") return new PiscinaExecutor(threads);
    // A caller's Worker factory (a web-worker polyfill, say) wins; else worker_threads.
    const spawn = options.createWorker ? webWorkers(options) : nodeComlinkWorkers;
    return new ComlinkExecutor(threads, spawn, CONCURRENCY.nodeComlinkTasksPerWorker);
  },
  localStore,
  realPathSegments: (path) => realFolder(path).split(sep).filter((s) => s !== ""),
  copyBytes,
  lazyFeatures,
};

addStoreKind("filesystem", {
  open: (d) => new FileSystemStore(d.root, { readOnly: d.readOnly, followSymlinks: d.followSymlinks }),
  workerCanOpen: () => true,
});
addStoreKind("zip", {
  open(d) {
    if (d.id === undefined) return new ZipStore(d.path, { mode: "r" });
    // An archive being written appends to one file handle in the thread that opened it.
    const s = getOpenZipStore(d.id);
    if (!s) throw new StoreError(`zip store ${d.path} is being written in another thread`);
    return s;
  },
  // A reader's descriptor reopens the archive anywhere; a writer's exists in its thread only.
  workerCanOpen: (d) => d.id === undefined,
});

// Workers open the file themselves and decode (HDF5: decompress) their chunks on their own core.
addStoreKind("archive", { open: (d) => new ArchiveStore(d.path, d.instance), workerCanOpen: () => true });
// A browser page adds these when it first makes such a store; Node, with no page to keep small,
// adds them at once (its workers, which only have descriptors, must have them).
addStoreKind("s3", S3_KIND);
addStoreKind("reference", REFERENCE_KIND);

installPlatform(nodePlatform);
