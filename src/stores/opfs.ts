/**
 * OPFSStore: a writable store in the browser's Origin Private File System, one file per key under
 * a root folder (keys' `/` are folders, as in FileSystemStore). The page uses the asynchronous
 * API (`getFile`, `createWritable`, which commits a new file atomically on close); workers open the
 * same store from its descriptor and use synchronous access handles, the fast path the platform
 * offers only to workers. A sync handle is exclusive per file: while one worker writes a chunk no
 * other handle opens on it, so a reader retries and then sees the old bytes or the new, never a mix.
 */
import { InvalidArgumentError, ReadOnlyError, StoreError } from "../errors.js";
import { childrenOf, sliceRange, validateKey, validatePrefix, validateRange } from "./keys.js";
import type { RangeRequest, StoreDescriptor, WritableStore } from "./types.js";
import { addStoreKind, type StoreKind } from "./kinds.js";

// The parts of the File System API used here, typed locally: the DOM and webworker libs disagree
// on which scopes have sync access handles, and parzarr's own tsconfig targets neither alone.
interface SyncAccessHandle {
  getSize(): number;
  read(buffer: Uint8Array, options?: { at?: number }): number;
  write(buffer: Uint8Array, options?: { at?: number }): number;
  truncate(size: number): void;
  flush(): void;
  close(): void;
}
interface Writable {
  write(data: Uint8Array): Promise<void>;
  close(): Promise<void>;
}
interface FileHandle {
  kind: "file";
  name: string;
  getFile(): Promise<Blob>;
  createWritable?(): Promise<Writable>;
  createSyncAccessHandle?(): Promise<SyncAccessHandle>;
}
interface DirHandle {
  kind: "directory";
  name: string;
  getDirectoryHandle(name: string, options?: { create?: boolean }): Promise<DirHandle>;
  getFileHandle(name: string, options?: { create?: boolean }): Promise<FileHandle>;
  removeEntry(name: string, options?: { recursive?: boolean }): Promise<void>;
  entries(): AsyncIterable<[string, FileHandle | DirHandle]>;
}

function storageRoot(): Promise<DirHandle> {
  const storage = (globalThis as unknown as { navigator?: { storage?: { getDirectory?: () => Promise<DirHandle> } } }).navigator?.storage;
  if (!storage?.getDirectory) throw new StoreError("this platform has no Origin Private File System (navigator.storage.getDirectory)");
  return storage.getDirectory();
}

/** Whether this is a worker, where sync access handles exist (a function: a page that makes no OPFSStore keeps none of this module). */
const inWorker = (): boolean => typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== "undefined";

const isNotFound = (e: unknown): boolean => e instanceof Error && (e.name === "NotFoundError" || e.name === "TypeMismatchError");
/** What opening a sync handle throws while another handle holds the file. */
const isBusy = (e: unknown): boolean => e instanceof Error && (e.name === "NoModificationAllowedError" || e.name === "InvalidStateError");

/**
 * Runs `op`, again while the file is held by a worker's sync handle (which excludes every other
 * access for the few milliseconds one chunk takes); gives up after about 20 seconds.
 */
async function whileBusy<T>(op: () => Promise<T>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await op();
    } catch (e) {
      if (!isBusy(e) || attempt >= 2000) throw e;
      await new Promise((resolve) => setTimeout(resolve, Math.min(1 + attempt, 10)));
    }
  }
}

/** Runs `fn` with a sync handle on the file, waiting while another worker holds it. */
async function withSyncHandle<T>(file: FileHandle, fn: (h: SyncAccessHandle) => T): Promise<T> {
  const handle = await whileBusy(() => file.createSyncAccessHandle!());
  // Nothing is awaited while the handle is open: no other task of this worker interleaves.
  try {
    return fn(handle);
  } finally {
    handle.close();
  }
}

/** Options of an OPFSStore. */
export interface OPFSStoreOptions {
  /** Refuse writes (a ReadOnlyError). */
  readOnly?: boolean;
}

/** A writable store in the browser's Origin Private File System, one file per key; workers open it themselves. */
export class OPFSStore implements WritableStore {
  readonly readOnly: boolean;
  /** The root folder's path in the origin's file system, "" for its top. */
  readonly root: string;

  constructor(root = "", options: OPFSStoreOptions = {}) {
    if (typeof root !== "string") throw new InvalidArgumentError("OPFSStore: the root is a folder path string");
    this.root = root.replace(/^\/+|\/+$/g, "");
    if (this.root !== "") validateKey(this.root);
    this.readOnly = options.readOnly ?? false;
  }

  /** The folder holding `parts` (below the root); undefined when missing and `create` is false. */
  private async dir(parts: string[], create: boolean): Promise<DirHandle | undefined> {
    let d = await storageRoot();
    const all = [...(this.root === "" ? [] : this.root.split("/")), ...parts];
    try {
      for (const p of all) d = await d.getDirectoryHandle(p, { create });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw new StoreError(`OPFS: cannot open folder ${all.join("/")}: ${String(e)}`, { cause: e });
    }
    return d;
  }

  private async file(key: string, create: boolean): Promise<FileHandle | undefined> {
    const parts = validateKey(key).split("/");
    const name = parts.pop()!;
    const d = await this.dir(parts, create);
    if (!d) return undefined;
    try {
      return await d.getFileHandle(name, { create });
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw new StoreError(`OPFS: cannot open ${key}: ${String(e)}`, { cause: e });
    }
  }

  private async readAll(file: FileHandle): Promise<Uint8Array> {
    if (inWorker() && file.createSyncAccessHandle) {
      return withSyncHandle(file, (h) => {
        const out = new Uint8Array(h.getSize());
        h.read(out, { at: 0 });
        return out;
      });
    }
    return whileBusy(async () => new Uint8Array(await (await file.getFile()).arrayBuffer()));
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const f = await this.file(key, false);
    return f === undefined ? undefined : this.readAll(f);
  }

  async getRange(key: string, range: RangeRequest): Promise<Uint8Array | undefined> {
    validateRange(range);
    const f = await this.file(key, false);
    if (f === undefined) return undefined;
    if (inWorker() && f.createSyncAccessHandle) {
      return withSyncHandle(f, (h) => {
        const size = h.getSize();
        const start = range.offset < 0 ? Math.max(0, size + range.offset) : Math.min(range.offset, size);
        const end = range.length === undefined ? size : Math.min(size, start + range.length);
        const out = new Uint8Array(Math.max(0, end - start));
        h.read(out, { at: start });
        return out;
      });
    }
    return whileBusy(async () => {
      const blob = await f.getFile();
      // Blob.slice reads only the range, without loading the whole file.
      const size = blob.size;
      const start = range.offset < 0 ? Math.max(0, size + range.offset) : Math.min(range.offset, size);
      const end = range.length === undefined ? size : Math.min(size, start + range.length);
      return new Uint8Array(await blob.slice(start, end).arrayBuffer());
    });
  }

  async has(key: string): Promise<boolean> {
    return (await this.file(key, false)) !== undefined;
  }

  async getSize(key: string): Promise<number | undefined> {
    const f = await this.file(key, false);
    return f === undefined ? undefined : whileBusy(async () => (await f.getFile()).size);
  }

  private async walk(d: DirHandle, prefix: string, out: string[]): Promise<void> {
    for await (const [name, h] of d.entries()) {
      if (h.kind === "directory") await this.walk(h, `${prefix}${name}/`, out);
      else out.push(prefix + name);
    }
  }

  async list(prefix: string): Promise<string[]> {
    validatePrefix(prefix);
    const parts = prefix === "" ? [] : prefix.slice(0, -1).split("/");
    const d = await this.dir(parts, false);
    const out: string[] = [];
    if (d) await this.walk(d, prefix, out);
    return out.sort();
  }

  async listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    validatePrefix(prefix);
    const parts = prefix === "" ? [] : prefix.slice(0, -1).split("/");
    const d = await this.dir(parts, false);
    const names: string[] = [];
    if (d) for await (const [name, h] of d.entries()) names.push(h.kind === "directory" ? `${prefix}${name}/x` : prefix + name);
    return childrenOf(names, prefix);
  }

  private writable(): void {
    if (this.readOnly) throw new ReadOnlyError("the OPFS store is read-only");
  }

  async set(key: string, value: Uint8Array): Promise<void> {
    this.writable();
    const f = (await this.file(key, true))!;
    if (inWorker() && f.createSyncAccessHandle) {
      // A shared value (a view of the write value) cannot go to write(): copy only then.
      const bytes = value.buffer instanceof ArrayBuffer ? value : new Uint8Array(value);
      await withSyncHandle(f, (h) => {
        h.truncate(0);
        h.write(bytes, { at: 0 });
        h.flush();
      });
      return;
    }
    if (!f.createWritable) throw new StoreError("OPFS: this browser cannot write files from the page; write from a worker (a WorkerPool)");
    const create = f.createWritable.bind(f);
    const w = await whileBusy(create);
    await w.write(value.buffer instanceof ArrayBuffer ? value : new Uint8Array(value));
    await w.close();
  }

  async delete(key: string): Promise<void> {
    this.writable();
    const parts = validateKey(key).split("/");
    const name = parts.pop()!;
    const d = await this.dir(parts, false);
    if (!d) return;
    try {
      await d.removeEntry(name);
    } catch (e) {
      if (!isNotFound(e)) throw new StoreError(`OPFS: cannot delete ${key}: ${String(e)}`, { cause: e });
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    this.writable();
    validatePrefix(prefix);
    if (prefix === "") {
      const d = await this.dir([], false);
      if (d) for await (const [name] of d.entries()) await d.removeEntry(name, { recursive: true });
      return;
    }
    const parts = prefix.slice(0, -1).split("/");
    const name = parts.pop()!;
    const d = await this.dir(parts, false);
    if (!d) return;
    try {
      await d.removeEntry(name, { recursive: true });
    } catch (e) {
      if (!isNotFound(e)) throw new StoreError(`OPFS: cannot delete ${prefix}: ${String(e)}`, { cause: e });
    }
  }

  descriptor(): StoreDescriptor {
    // Whoever has this descriptor in this thread can now open it (stores/kinds.ts).
    addStoreKind("opfs", OPFS_KIND);
    return { kind: "opfs", root: this.root, readOnly: this.readOnly };
  }
}

/** How OPFS descriptors open: added in a thread by its first descriptor, and by workers as they start. */
export const OPFS_KIND: StoreKind<"opfs"> = { open: (d) => new OPFSStore(d.root, { readOnly: d.readOnly }), workerCanOpen: () => true };
