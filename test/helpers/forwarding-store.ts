/**
 * A writable store that hands every call to another one: tests subclass it and override the one
 * or two methods they watch or disturb (a competing write before a conditional PUT, a log of
 * chunk reads), instead of writing out the whole store interface each time.
 */
import type {
  ConditionalSetResult,
  RangeRequest,
  StoreDescriptor,
  StoreReadOptions,
  VersionedRead,
  VersionedReadOptions,
  WritableStore,
  WriteCondition,
} from "../../src/stores/types.js";

export class ForwardingStore<S extends WritableStore = WritableStore> implements WritableStore {
  readonly readOnly = false;

  constructor(readonly inner: S) {}

  get(key: string, opts?: StoreReadOptions): Promise<Uint8Array | undefined | null> {
    return this.inner.get(key, opts);
  }
  getRange(key: string, range: RangeRequest, opts?: StoreReadOptions): Promise<Uint8Array | undefined | null> {
    return this.inner.getRange(key, range, opts);
  }
  getVersioned(key: string, opts?: VersionedReadOptions): Promise<VersionedRead> {
    if (!this.inner.getVersioned) throw new Error("the inner store has no versioned reads");
    return this.inner.getVersioned(key, opts);
  }
  has(key: string): Promise<boolean> {
    return this.inner.has(key);
  }
  list(prefix: string): Promise<string[]> {
    return this.inner.list(prefix);
  }
  listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    return this.inner.listDir(prefix);
  }
  set(key: string, value: Uint8Array): Promise<void> {
    return this.inner.set(key, value);
  }
  setIf(key: string, value: Uint8Array, condition: WriteCondition): Promise<ConditionalSetResult> {
    if (!this.inner.setIf) throw new Error("the inner store has no conditional writes");
    return this.inner.setIf(key, value, condition);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
  deletePrefix(prefix: string): Promise<void> {
    return this.inner.deletePrefix(prefix);
  }
  descriptor(): StoreDescriptor {
    return this.inner.descriptor();
  }
}
