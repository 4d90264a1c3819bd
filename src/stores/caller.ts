/**
 * The store contract users implement, after zarrita.js's: any object with `get` is a store.
 * Keys are absolute, as zarrita gives them ("/a/zarr.json"); `getRange`, `set`, `delete`, `list`
 * and `listDir` are optional. Such an object is wrapped once, where the API takes a store, into
 * a CallerStore: the internal store interface, with a descriptor no worker can open ("caller"),
 * so the calling thread moves its bytes and workers only decode and encode (parallel/execution/coordinator.ts).
 * A store whose `descriptor()` has a kind registered with a module (registerStoreKind in
 * stores/kinds.ts) keeps that descriptor: workers open it from the module and do its I/O.
 */
import { StoreError, UnsupportedError } from "../errors.js";
import { platform } from "../platform/current.js";
import { childrenOf, sliceRange, validateKey, validatePrefix, validateRange } from "./keys.js";
import type { RangeRequest, Store, StoreDescriptor, StoreReadOptions, WritableStore } from "./types.js";
import { storeAsIs } from "./store-modules.js";

/** @inline */
type Maybe<T> = T | Promise<T>;
/** @inline */
type Bytes = Uint8Array | undefined | null;

/** What a user's store offers (zarrita's Readable and Writable, plus optional listing). */
export interface UserStore {
  /** The value of an absolute key ("/a/zarr.json"), or undefined (or null) when it does not exist. */
  get(key: string, opts?: StoreReadOptions): Maybe<Bytes>;
  /** A byte range of the value; without it, parzarr reads the whole value and slices it. */
  getRange?(key: string, range: { offset: number; length: number } | { suffixLength: number }, opts?: StoreReadOptions): Maybe<Bytes>;
  /** Stores the value; without it the store is read-only. */
  set?(key: string, value: Uint8Array): Maybe<void>;
  /** Removes the key; without it, chunks that become empty are written rather than deleted. */
  delete?(key: string): Maybe<unknown>;
  /** Every key under a prefix ("/" or "/a/"), with or without the leading "/". */
  list?(prefix: string): Maybe<Iterable<string>>;
  /** Children as keys and sub-prefixes; bare names (Icechunk's, zarr-python's) are ignored for `list`. */
  listDir?(prefix: string): Maybe<{ keys: string[]; prefixes: string[] } | string[]>;
  /** Default: true exactly when there is no `set`; only a boolean counts (Icechunk's store answers a promise here: its session says). */
  readonly readOnly?: boolean | Promise<boolean>;
  /** Plain data of a kind registered with registerStoreKind, from which workers reopen the store. */
  descriptor?(): { kind: string };
}

/** One wrapper per user object, so that locks and caches (keyed by the descriptor) agree. */
const wrappers = new WeakMap<object, CallerStore>();

/** A store as the API takes it: internal stores as they are, any other object with `get` wrapped. */
export function asStore(input: Store | UserStore): Store {
  const store = storeAsIs(input);
  if (store) return store;
  let w = wrappers.get(input);
  if (!w) wrappers.set(input, (w = new CallerStore(input as UserStore)));
  return w;
}

const abs = (key: string): string => `/${key}`;
const rel = (key: string): string => key.replace(/^\/+/, "");
function copy(key: string, b: Bytes): Uint8Array | undefined {
  if (b == null) return undefined;
  if (!(b instanceof Uint8Array)) throw new StoreError(`the store's get("/${key}") answered ${typeof b}, not a Uint8Array`);
  return new Uint8Array(b);
}

export class CallerStore implements WritableStore {
  readonly readOnly: boolean;
  /** Whether the user's store can delete (else empty chunks are written: see ZarrArray.set). */
  readonly canDelete: boolean;
  private readonly id = `caller-${platform().randomUUID()}`;

  constructor(private readonly user: UserStore) {
    this.readOnly = typeof user.readOnly === "boolean" ? user.readOnly : typeof user.set !== "function";
    this.canDelete = typeof user.delete === "function";
  }

  // Reads hand out copies: the bytes go to workers (transferred) and decode in place, and neither
  // may touch a buffer the user's store keeps.
  async get(key: string, opts?: StoreReadOptions): Promise<Uint8Array | undefined> {
    return copy(key, await this.user.get(abs(validateKey(key)), opts));
  }

  async getRange(key: string, range: RangeRequest, opts?: StoreReadOptions): Promise<Uint8Array | undefined> {
    validateRange(range);
    // zarrita's ranges have a length or count from the end; "to the end" reads the whole value.
    const query = range.offset < 0 ? { suffixLength: -range.offset } : range.length === undefined ? null : { offset: range.offset, length: range.length };
    if (this.user.getRange && query) return copy(key, await this.user.getRange(abs(validateKey(key)), query, opts));
    const whole = await this.get(key, opts);
    return whole && sliceRange(whole, range);
  }

  async has(key: string): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  async list(prefix: string): Promise<string[]> {
    validatePrefix(prefix);
    if (!this.user.list) throw new UnsupportedError("the store cannot list its keys (it has no list method)");
    const keys = [...(await this.user.list(abs(prefix)))].map(rel);
    return keys.filter((k) => k.startsWith(prefix)).sort();
  }

  async listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    validatePrefix(prefix);
    const dir = this.user.listDir && (await this.user.listDir(abs(prefix)));
    // Bare names cannot tell a key from a folder ("a" may be either): derive both from `list`.
    if (!dir || Array.isArray(dir)) return childrenOf(await this.list(prefix), prefix);
    const { keys, prefixes } = dir;
    return { keys: keys.map(rel), prefixes: prefixes.map((p) => rel(p).replace(/\/+$/, "")) };
  }

  async set(key: string, value: Uint8Array): Promise<void> {
    if (!this.user.set) throw new UnsupportedError("the store cannot be written (it has no set method)");
    await this.user.set(abs(validateKey(key)), value);
  }

  async delete(key: string): Promise<void> {
    // Without delete, a value that is not there is still "deleted"; one that is cannot be.
    if (!this.user.delete) {
      if (await this.has(key)) throw new UnsupportedError(`the store cannot delete "${key}" (it has no delete method)`);
      return;
    }
    try {
      await this.user.delete(abs(validateKey(key)));
    } catch (err) {
      // Some stores refuse to delete what is not there (@zarrita/storage's FileSystemStore
      // rejects with ENOENT); a key that is gone is deleted, whatever the store said.
      if (await this.has(key)) throw err;
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    for (const key of await this.list(prefix)) await this.delete(key);
  }

  descriptor(): StoreDescriptor {
    // A registered kind's data is the user's: the union of built-in descriptors does not list it.
    return (this.user.descriptor?.() as StoreDescriptor | undefined) ?? { kind: "caller", id: this.id };
  }
}
