/**
 * ReferenceStore: a read-only store over a kerchunk reference document, which maps Zarr keys to
 * inline data or to byte ranges of other files (HDF5, NetCDF-4, TIFF...), so that those files
 * read as Zarr without being copied. Documents of versions 0 and 1 (reference-document.ts);
 * targets on local files, http(s) and S3 (reference-targets.ts). The class checks what it is given
 * at once; its reads (reference-reads.ts) load with the store, on first use (lazy-features.ts).
 *
 * Workers reopen it from its descriptor: the document's path or URL (each worker reads and parses
 * it once), or a small document built in memory, carried whole. A large in-memory document is
 * reachable only in the thread that made it, and its tasks run inline, as a MemoryStore's do.
 *
 * A read task's chunks are fetched together (`prefetch`): ranges of one target file that lie
 * close together become one request (ranges.ts, as a sharded read coalesces inner chunks).
 * A reference whose target is missing, or whose range runs past the target's end, is an error
 * naming the key: a chunk must never read as missing (fill values) or short.
 */
import { InvalidReferenceError, ReadOnlyError, StoreError } from "../errors.js";
import type { JsonValue } from "../metadata/json.js";
import { parseJsonText } from "../metadata/json-lenient.js";
import { platform } from "../platform/current.js";
import { parseReferences, type Reference } from "./reference-document.js";
import { S3Store } from "./s3.js";
import type { ReferencePlace, ReferenceReads } from "./reference-reads.js";
import { documentScope, locate, resolveTargetAccess, type TargetAccess, type TargetAccessOptions } from "./reference-targets.js";
import type { RangeRequest, ReadableStore, StoreDescriptor, StoreReadOptions } from "./types.js";
import { addStoreKind, type StoreKind } from "./kinds.js";

// The reads (reference-reads.ts) load when a store is made: a page that only names ReferenceStore
// never loads them. A store's checks (its options, a document in memory) stay synchronous here.
// They are in lazy-features.ts, which holds this class too: the platform hands over its loader.

/** Where a ReferenceStore's document comes from, as its descriptor carries it. */
export type ReferenceSource =
  /** A document to read from a path or URL (file, http(s), s3). */
  | { kind: "url"; url: string }
  /** A document built in memory, small enough to travel to workers; `base` as in the options. */
  | { kind: "document"; document: JsonValue; base?: string }
  /** A large document built in memory: only the thread that made the store reaches it. */
  | { kind: "in-thread"; id: string; base?: string };

/** A ReferenceStore as a worker reopens it. */
export interface ReferenceStoreDescriptor {
  /** Always "reference". */
  kind: "reference";
  /** The reference document, or where to read it. */
  source: ReferenceSource;
  /** The options' headers, HTTP policy, S3 settings and allowed targets, resolved. */
  access: TargetAccess;
  /** Differs per ReferenceStore object: a worker's cached store never outlives a re-read document. */
  instance: string;
}

/** Options of a ReferenceStore: where relative targets resolve, and which targets may be read. */
export interface ReferenceStoreOptions extends TargetAccessOptions {
  /**
   * Where relative target paths of an in-memory document resolve: the document's would-be path or
   * URL, or a folder ending in `/`. Default: the current folder. A document read with `open`
   * resolves them against its own location.
   */
  base?: string;
}

/** In-memory documents up to this many characters of JSON travel in the descriptor to workers. */
export const MAX_TRAVELLING_DOCUMENT_CHARS = 1 << 20;

/** Stores of large in-memory documents, reachable by id in their own thread only. */
const inThread = new Map<string, WeakRef<ReferenceStore>>();
const cleanup = new FinalizationRegistry<string>((id) => {
  if (inThread.get(id)?.deref() === undefined) inThread.delete(id);
});

/** A read-only store over a kerchunk reference document: HDF5, NetCDF-4 or TIFF bytes read as Zarr chunks without copying. */
export class ReferenceStore implements ReadableStore {
  readonly readOnly = true;
  private readonly source: ReferenceSource;
  private readonly access: TargetAccess;
  private readonly instance: string;
  /** The reads over the references, once the document is read (and their module loaded). */
  private readonly loaded: Promise<ReferenceReads>;

  private constructor(source: ReferenceSource, access: TargetAccess, instance: string, refs?: Map<string, Reference>) {
    this.source = source;
    this.access = access;
    this.instance = instance;
    const base =
      source.kind === "url" ? locate(source.url, undefined, "") : source.base !== undefined ? locate(source.base, undefined, "") : undefined;
    // A document read from a server is not the user's own: its targets stay near it. One built
    // in memory is (whatever its base), like a local file.
    const scope = source.kind === "url" ? documentScope(base!) : undefined;
    const at: ReferencePlace = { store: this, access, base, scope, document: source.kind === "url" ? source.url : "in memory", S3Store };
    if (source.kind === "url") this.loaded = Promise.resolve(platform().lazyFeatures((m) => m.ReferenceReads.read(source.url, at))());
    else {
      if (source.kind === "in-thread" && !refs) throw new StoreError(`reference store ${source.id} is not reachable from this thread`);
      const parsed = refs ?? parseReferences((source as { document: JsonValue }).document, "the reference document");
      this.loaded = Promise.resolve(platform().lazyFeatures((m) => new m.ReferenceReads(parsed, at))());
    }
    // Reported by the operation that needs the references; unobserved until then.
    this.loaded.catch(() => undefined);
  }

  /**
   * The store of the reference document at `pathOrUrl` (a local path or file: URL, http(s), or
   * s3://), read and checked before it returns. Relative targets resolve against its location.
   */
  static async open(pathOrUrl: string | URL, options: ReferenceStoreOptions = {}): Promise<ReferenceStore> {
    const store = ReferenceStore.at(pathOrUrl, options);
    await store.loaded;
    return store;
  }

  /**
   * The same store as `open`, returned at once: the document is read on first use, and a
   * problem with it is reported by the first read (how paths given to openArray/openGroup and the
   * command line open it).
   */
  static at(pathOrUrl: string | URL, options: ReferenceStoreOptions = {}): ReferenceStore {
    return new ReferenceStore({ kind: "url", url: String(pathOrUrl) }, resolveTargetAccess(options), platform().randomUUID());
  }

  /** The store of a document already in memory: its JSON text, or the parsed object. */
  static fromDocument(document: string | object, options: ReferenceStoreOptions = {}): ReferenceStore {
    const text = typeof document === "string" ? document : JSON.stringify(document);
    let doc: unknown;
    try {
      doc = typeof document === "string" ? parseJsonText(document, "the reference document") : document;
    } catch (err) {
      throw new InvalidReferenceError(`reference document: ${(err as Error).message}`, "", { cause: err });
    }
    const refs = parseReferences(doc, "the reference document");
    const access = resolveTargetAccess(options);
    const instance = platform().randomUUID();
    const base = options.base === undefined ? {} : { base: options.base };
    if (text.length <= MAX_TRAVELLING_DOCUMENT_CHARS) {
      return new ReferenceStore({ kind: "document", document: doc as JsonValue, ...base }, access, instance, refs);
    }
    const id = `reference-${instance}`;
    const store = new ReferenceStore({ kind: "in-thread", id, ...base }, access, instance, refs);
    inThread.set(id, new WeakRef(store));
    cleanup.register(store, id);
    return store;
  }

  /** Reopens a store from its descriptor (in a worker: see stores/kinds.ts). */
  static fromDescriptor(d: ReferenceStoreDescriptor): ReferenceStore {
    if (d.source.kind === "in-thread") {
      const s = inThread.get(d.source.id)?.deref();
      if (!s) throw new StoreError(`reference store ${d.source.id} is not reachable from this thread`);
      return s;
    }
    return new ReferenceStore(d.source, d.access, d.instance);
  }

  /** Whether a worker can open the store from this descriptor. */
  static workerCanOpen(d: ReferenceStoreDescriptor): boolean {
    return d.source.kind !== "in-thread";
  }

  /** Every key of the document (after `gen`), loaded. */
  async keys(): Promise<string[]> {
    return (await this.loaded).keys();
  }

  async get(key: string, opts?: StoreReadOptions): Promise<Uint8Array | undefined> {
    return (await this.loaded).get(key, opts);
  }

  async getRange(key: string, range: RangeRequest, opts?: StoreReadOptions): Promise<Uint8Array | undefined> {
    return (await this.loaded).getRange(key, range, opts);
  }

  async has(key: string): Promise<boolean> {
    return (await this.loaded).has(key);
  }

  async getSize(key: string): Promise<number | undefined> {
    return (await this.loaded).getSize(key);
  }

  async list(prefix: string): Promise<string[]> {
    return (await this.loaded).list(prefix);
  }

  async listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    return (await this.loaded).listDir(prefix);
  }

  /**
   * The values of `keys` fetched together: the ranges each target file holds for them are
   * coalesced (gaps up to COALESCE_GAP_BYTES, as sharded reads do) into one request per group.
   * Returns a store that answers those keys from the bytes fetched, and the rest from this one.
   */
  async prefetch(keys: readonly string[], opts: StoreReadOptions = {}): Promise<ReadableStore> {
    return (await this.loaded).prefetch(keys, opts);
  }

  private readOnlyError(): never {
    throw new ReadOnlyError(`a reference store (${this.describe()}) is read-only`);
  }

  private describe(): string {
    return this.source.kind === "url" ? `kerchunk references ${this.source.url}` : "kerchunk references in memory";
  }

  /** Always a ReadOnlyError: references are read-only. */
  async set(_key: string, _value: Uint8Array): Promise<void> {
    this.readOnlyError();
  }

  /** Always a ReadOnlyError. */
  async delete(_key: string): Promise<void> {
    this.readOnlyError();
  }

  /** Always a ReadOnlyError. */
  async deletePrefix(_prefix: string): Promise<void> {
    this.readOnlyError();
  }

  descriptor(): StoreDescriptor {
    // Whoever has this descriptor in this thread can now open it (stores/kinds.ts).
    addStoreKind("reference", REFERENCE_KIND);
    return { kind: "reference", source: this.source, access: this.access, instance: this.instance };
  }
}

/** How reference descriptors open: added in a thread by its first descriptor, and by workers as they start. */
export const REFERENCE_KIND: StoreKind<"reference"> = { open: (d) => ReferenceStore.fromDescriptor(d), workerCanOpen: (d) => ReferenceStore.workerCanOpen(d) };
