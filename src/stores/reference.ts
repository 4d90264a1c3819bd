/**
 * ReferenceStore: a read-only store over a kerchunk reference document, which maps Zarr keys to
 * inline data or to byte ranges of other files (HDF5, NetCDF-4, TIFF...), so that those files
 * read as Zarr without being copied. Documents of versions 0 and 1 (reference-document.ts);
 * targets on local files, http(s) and S3 (reference-targets.ts).
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
import { InvalidReferenceError, NotFoundError, ReadOnlyError, ReferenceTargetError, StoreError } from "../errors.js";
import { parseJsonBytes, parseJsonText, type JsonValue } from "../metadata/json.js";
import { platform } from "../platform/current.js";
import { coalesceRanges } from "./ranges.js";
import { childrenOf, rangeBounds, sliceRange, validateKey, validatePrefix, validateRange } from "./keys.js";
import { OverlayStore } from "./overlay.js";
import { parseReferences, type Reference } from "./reference-document.js";
import {
  checkTarget,
  documentScope,
  locate,
  locationText,
  resolveTargetAccess,
  TargetStores,
  type Location,
  type TargetAccess,
  type TargetAccessOptions,
} from "./reference-targets.js";
import type { RangeRequest, ReadableStore, StoreDescriptor, StoreReadOptions } from "./types.js";

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

interface Target {
  store: ReadableStore;
  key: string;
  /** The target as a path or URL, for messages. */
  text: string;
}

/** A read-only store over a kerchunk reference document: HDF5, NetCDF-4 or TIFF bytes read as Zarr chunks without copying. */
export class ReferenceStore implements ReadableStore {
  readonly readOnly = true;
  private readonly source: ReferenceSource;
  private readonly access: TargetAccess;
  private readonly instance: string;
  private readonly stores: TargetStores;
  private readonly base: Location | undefined;
  /** What targets may reach besides allowTargets (a remote document's origin); undefined: anything. */
  private readonly scope: string | undefined;
  private readonly targets = new Map<string, Target>();
  private readonly loaded: Promise<Map<string, Reference>>;

  private constructor(source: ReferenceSource, access: TargetAccess, instance: string, refs?: Map<string, Reference>) {
    this.source = source;
    this.access = access;
    this.instance = instance;
    this.stores = new TargetStores(access);
    if (source.kind === "url") this.base = locate(source.url, undefined, "");
    else if (source.base !== undefined) this.base = locate(source.base, undefined, "");
    // A document read from a server is not the user's own: its targets stay near it. One built
    // in memory is (whatever its base), like a local file.
    this.scope = source.kind === "url" ? documentScope(this.base!) : undefined;
    if (refs) this.loaded = Promise.resolve(refs);
    else if (source.kind === "url") this.loaded = this.readDocument(source.url);
    else if (source.kind === "document") this.loaded = Promise.resolve(parseReferences(source.document, "the reference document"));
    else throw new StoreError(`reference store ${source.id} is not reachable from this thread`);
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

  /** Reopens a store from its descriptor (in a worker: see stores/open.ts). */
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

  private async readDocument(url: string): Promise<Map<string, Reference>> {
    const loc = locate(url, undefined, "");
    const { store, key } = this.stores.open(loc);
    const bytes = await store.get(key);
    if (bytes == null) throw new NotFoundError(`reference document ${locationText(loc)} does not exist`);
    let doc: unknown;
    try {
      doc = parseJsonBytes(bytes, `reference document ${locationText(loc)}`);
    } catch (err) {
      throw new InvalidReferenceError((err as Error).message, "", { cause: err });
    }
    return parseReferences(doc, locationText(loc));
  }

  /** Every key of the document (after `gen`), loaded. */
  async keys(): Promise<string[]> {
    return [...(await this.loaded).keys()];
  }

  private target(url: string, key: string): Target {
    let t = this.targets.get(url);
    if (!t) {
      const loc = locate(url, this.base, key);
      checkTarget(loc, this.scope, this.access, key, this.source.kind === "url" ? this.source.url : "in memory");
      t = { ...this.stores.open(loc), text: locationText(loc) };
      this.targets.set(url, t);
    }
    return t;
  }

  private missing(key: string, t: Target): ReferenceTargetError {
    return new ReferenceTargetError(`reference "${key}": its target ${t.text} does not exist`, key, t.text, "missing");
  }

  private short(key: string, t: Target, offset: number, length: number, got: number): ReferenceTargetError {
    return new ReferenceTargetError(
      `reference "${key}": bytes ${offset}-${offset + length} of ${t.text} run past the file's end (it ends at ${offset + got})`,
      key,
      t.text,
      "short",
    );
  }

  /** `length` bytes at `offset` of the reference's target, all of them or an error. */
  private async readTarget(key: string, url: string, offset: number, length: number, opts: StoreReadOptions): Promise<Uint8Array> {
    const t = this.target(url, key);
    if (length === 0) return new Uint8Array(0);
    const got = await t.store.getRange(t.key, { offset, length }, opts);
    if (got == null) throw this.missing(key, t);
    if (got.length < length) throw this.short(key, t, offset, length, got.length);
    return got;
  }

  private async whole(key: string, url: string, opts: StoreReadOptions): Promise<Uint8Array> {
    const t = this.target(url, key);
    const got = await t.store.get(t.key, opts);
    if (got == null) throw this.missing(key, t);
    return got;
  }

  async get(key: string, opts: StoreReadOptions = {}): Promise<Uint8Array | undefined> {
    const ref = (await this.loaded).get(validateKey(key));
    if (ref === undefined) return undefined;
    switch (ref.kind) {
      case "inline":
        // A copy: decoders may hand out views of the bytes they were given.
        return ref.bytes.slice();
      case "whole":
        return this.whole(key, ref.url, opts);
      case "range":
        return this.readTarget(key, ref.url, ref.offset, ref.length, opts);
    }
  }

  async getRange(key: string, range: RangeRequest, opts: StoreReadOptions = {}): Promise<Uint8Array | undefined> {
    const ref = (await this.loaded).get(validateKey(key));
    validateRange(range);
    if (ref === undefined) return undefined;
    switch (ref.kind) {
      case "inline":
        return sliceRange(ref.bytes, range).slice();
      case "whole": {
        const t = this.target(ref.url, key);
        const got = await t.store.getRange(t.key, range, opts);
        if (got == null) throw this.missing(key, t);
        return got;
      }
      case "range": {
        const { start, end } = rangeBounds(ref.length, range);
        return this.readTarget(key, ref.url, ref.offset + start, end - start, opts);
      }
    }
  }

  async has(key: string): Promise<boolean> {
    return (await this.loaded).has(validateKey(key));
  }

  async getSize(key: string): Promise<number | undefined> {
    const ref = (await this.loaded).get(validateKey(key));
    if (ref === undefined) return undefined;
    if (ref.kind === "inline") return ref.bytes.length;
    if (ref.kind === "range") return ref.length;
    const t = this.target(ref.url, key);
    const size = t.store.getSize ? await t.store.getSize(t.key) : (await t.store.get(t.key))?.length;
    if (size == null) throw this.missing(key, t);
    return size;
  }

  async list(prefix: string): Promise<string[]> {
    validatePrefix(prefix);
    return [...(await this.loaded).keys()].filter((k) => k.startsWith(prefix)).sort();
  }

  async listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    return childrenOf((await this.loaded).keys(), validatePrefix(prefix));
  }

  /**
   * The values of `keys` fetched together: the ranges each target file holds for them are
   * coalesced (gaps up to COALESCE_GAP_BYTES, as sharded reads do) into one request per group.
   * Returns a store that answers those keys from the bytes fetched, and the rest from this one.
   */
  async prefetch(keys: readonly string[], opts: StoreReadOptions = {}): Promise<ReadableStore> {
    const refs = await this.loaded;
    const byTarget = new Map<Target, { key: string; offset: number; length: number }[]>();
    for (const key of keys) {
      const ref = refs.get(key);
      if (ref?.kind !== "range" || ref.length === 0) continue;
      const t = this.target(ref.url, key);
      let list = byTarget.get(t);
      if (!list) byTarget.set(t, (list = []));
      list.push({ key, offset: ref.offset, length: ref.length });
    }
    const fetched = new Map<string, Uint8Array>();
    const requests: Promise<void>[] = [];
    for (const [t, ranges] of byTarget) {
      for (const group of coalesceRanges(ranges)) {
        // A lone range is read when its key is asked for, as without prefetching.
        if (group.members.length < 2) continue;
        requests.push(
          (async () => {
            const first = ranges[group.members[0]!]!;
            const got = await t.store.getRange(t.key, { offset: group.offset, length: group.length }, opts);
            if (got == null) throw this.missing(first.key, t);
            for (const m of group.members) {
              const r = ranges[m]!;
              const at = r.offset - group.offset;
              if (at + r.length > got.length) throw this.short(r.key, t, r.offset, r.length, Math.max(0, got.length - at));
              fetched.set(r.key, got.subarray(at, at + r.length));
            }
          })(),
        );
      }
    }
    if (requests.length === 0) return this;
    await Promise.all(requests);
    return new OverlayStore(this, fetched);
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
    return { kind: "reference", source: this.source, access: this.access, instance: this.instance };
  }
}
