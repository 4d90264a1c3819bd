/**
 * What ReferenceStore's reads do (reference.ts): reading the document from its location, and
 * every read of a reference's target, with the stores that reach them. Imported when a store is
 * made, so that a page that names ReferenceStore but never makes one does not load it.
 */
import { AccessDeniedError, InvalidReferenceError, NotFoundError, ReferenceTargetError, UnsupportedError } from "../errors.js";
import { parseJsonBytes } from "../metadata/json-lenient.js";
import { coalesceRanges } from "./ranges.js";
import { childrenOf, rangeBounds, sliceRange, validateKey, validatePrefix, validateRange } from "./keys.js";
import { OverlayStore } from "./overlay.js";
import { parseReferences, type Reference } from "./reference-document.js";
import { platform } from "../platform/current.js";
import { FetchStore } from "./fetch.js";
import { underPrefix } from "./http.js";
import type { S3Store } from "./s3.js";
import { folderOf, locate, locationText, locationUrl, type Location, type TargetAccess } from "./reference-targets.js";
import type { RangeRequest, ReadableStore, StoreReadOptions } from "./types.js";

/** Refuses a target outside what its document may reach (`scope`, allowTargets): ACCESS_DENIED. */
function checkTarget(target: Location, scope: string | undefined, access: TargetAccess, key: string, document: string): void {
  if (scope === undefined) return;
  const url = locationUrl(target);
  if (underPrefix(url, [scope, ...access.allowTargets])) return;
  throw new AccessDeniedError(
    `reference "${key}": its target ${locationText(target)} is outside ${scope}, where the document ${document} was read ` +
      "from; the targets of a document read from a server stay on its origin unless allowTargets allows more",
    key,
    0,
  );
}

/** A store on a location's folder, and the location's key in it. */
class TargetStores {
  private readonly stores = new Map<string, ReadableStore>();

  constructor(private readonly at: Pick<ReferencePlace, "access" | "S3Store">) {}

  open(loc: Location): { store: ReadableStore; key: string } {
    let folder: string;
    let name: string;
    let make: () => ReadableStore;
    switch (loc.kind) {
      case "local": {
        folder = folderOf(loc.path) || ".";
        name = loc.path.slice(folderOf(loc.path).length);
        const local = platform().localStore;
        if (!local) throw new UnsupportedError(`${JSON.stringify(loc.path)} is a local path, and there are no local paths in a browser: use http(s) or s3 targets`);
        // A target is a key directly in its folder's store, so no symbolic-link check applies.
        make = () => local(folder, { readOnly: true }) as ReadableStore;
        break;
      }
      case "http": {
        const u = new URL(loc.url);
        const search = u.search;
        u.search = "";
        u.hash = "";
        folder = folderOf(u.href);
        name = decodeURIComponent(u.href.slice(folder.length));
        // Redirects stay on the target's origin, or go where allowTargets allows.
        const allowRedirects = this.at.access.allowTargets;
        make = () => new FetchStore(folder + search, { headers: this.at.access.headers, http: this.at.access.http, allowRedirects });
        folder += search;
        break;
      }
      case "s3": {
        folder = `s3://${loc.bucket}/${folderOf(loc.key)}`;
        name = loc.key.slice(folderOf(loc.key).length);
        make = () => new this.at.S3Store(folder, { ...this.at.access.s3, readOnly: true, http: this.at.access.http, useEnvironment: false });
        break;
      }
    }
    const cacheKey = `${loc.kind}\0${folder}`;
    let store = this.stores.get(cacheKey);
    if (!store) {
      store = make();
      this.stores.set(cacheKey, store);
    }
    return { store, key: name };
  }
}

/** Where a store's references lead and what they may reach, as its constructor resolved it. */
export interface ReferencePlace {
  /** The ReferenceStore itself (what a prefetch falls back on). */
  store: ReadableStore;
  access: TargetAccess;
  /** Where relative targets resolve. */
  base: Location | undefined;
  /** What targets may reach besides allowTargets (a remote document's origin); undefined: anything. */
  scope: string | undefined;
  /** The document's URL, or "in memory", for messages. */
  document: string;
  /** S3Store, given rather than imported: s3.ts imports this module on first use. */
  S3Store: typeof S3Store;
}

interface Target {
  store: ReadableStore;
  key: string;
  /** The target as a path or URL, for messages. */
  text: string;
}

/** The reads of one ReferenceStore, over its loaded references. */
export class ReferenceReads {
  private readonly targets = new Map<string, Target>();

  constructor(
    private readonly refs: Map<string, Reference>,
    private readonly at: ReferencePlace,
    /** The document's own store is among them: targets beside it reuse it. */
    private readonly stores = new TargetStores(at),
  ) {}

  /** The reads of the document at `url`, once it is read and checked. */
  static async read(url: string, at: ReferencePlace): Promise<ReferenceReads> {
    const loc = locate(url, undefined, "");
    const stores = new TargetStores(at);
    const { store, key } = stores.open(loc);
    const bytes = await store.get(key);
    if (bytes == null) throw new NotFoundError(`reference document ${locationText(loc)} does not exist`);
    let doc: unknown;
    try {
      doc = parseJsonBytes(bytes, `reference document ${locationText(loc)}`);
    } catch (err) {
      throw new InvalidReferenceError((err as Error).message, "", { cause: err });
    }
    return new ReferenceReads(parseReferences(doc, locationText(loc)), at, stores);
  }

  /** Every key of the document (after `gen`). */
  keys(): string[] {
    return [...this.refs.keys()];
  }

  private target(url: string, key: string): Target {
    let t = this.targets.get(url);
    if (!t) {
      const loc = locate(url, this.at.base, key);
      checkTarget(loc, this.at.scope, this.at.access, key, this.at.document);
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
    const ref = this.refs.get(validateKey(key));
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
    const ref = this.refs.get(validateKey(key));
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
    return this.refs.has(validateKey(key));
  }

  async getSize(key: string): Promise<number | undefined> {
    const ref = this.refs.get(validateKey(key));
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
    return [...this.refs.keys()].filter((k) => k.startsWith(prefix)).sort();
  }

  async listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    return childrenOf(this.refs.keys(), validatePrefix(prefix));
  }

  /**
   * The values of `keys` fetched together: the ranges each target file holds for them are
   * coalesced (gaps up to COALESCE_GAP_BYTES, as sharded reads do) into one request per group.
   * Returns a store that answers those keys from the bytes fetched, and the rest from this one.
   */
  async prefetch(keys: readonly string[], opts: StoreReadOptions = {}): Promise<ReadableStore> {
    const refs = this.refs;
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
    if (requests.length === 0) return this.at.store;
    await Promise.all(requests);
    return new OverlayStore(this.at.store, fetched);
  }
}
