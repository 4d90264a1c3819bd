/** MemoryStore: keys and bytes in a Map, for tests, scratch arrays and worker-free pipelines. */
import { ReadOnlyError } from "../errors.js";
import { platform } from "../platform/current.js";
import { childrenOf, sliceRange, validateKey, validatePrefix, validateRange } from "./keys.js";
import type { RangeRequest, StoreDescriptor, VersionedRange, VersionedRead, VersionedReadOptions, WritableStore } from "./types.js";

/**
 * Stores reachable by descriptor in this thread, so a chunk task can name a memory store. Weak
 * references: registering a store must not keep its bytes alive after the caller drops it.
 */
const registry = new Map<string, WeakRef<MemoryStore>>();
const cleanup = new FinalizationRegistry<string>((id) => {
  if (registry.get(id)?.deref() === undefined) registry.delete(id);
});

export function getMemoryStore(id: string): MemoryStore | undefined {
  return registry.get(id)?.deref();
}

/** Keys and bytes in a Map (tests, scratch arrays); its chunk tasks run on the calling thread, which alone holds it. */
export class MemoryStore implements WritableStore {
  readonly readOnly: boolean;
  private readonly map = new Map<string, Uint8Array>();
  /** Each key's version for getVersioned: the write's number, unique within this store. */
  private readonly versions = new Map<string, number>();
  private writes = 0;
  // A UUID rather than a counter: counters restart in every worker thread and would collide.
  private readonly id = `memory-${platform().randomUUID()}`;

  constructor(options: { readOnly?: boolean } = {}) {
    this.readOnly = options.readOnly ?? false;
    registry.set(this.id, new WeakRef(this));
    cleanup.register(this, this.id);
  }

  // Reads hand out copies too: the bytes codec decodes without copying, so a view into the Map
  // would let a caller who writes into a decoded chunk change what the store holds.
  async get(key: string): Promise<Uint8Array | undefined> {
    const v = this.map.get(validateKey(key));
    return v === undefined ? undefined : new Uint8Array(v);
  }

  async getVersioned(key: string, opts: VersionedReadOptions = {}): Promise<VersionedRead> {
    const v = this.map.get(validateKey(key));
    if (v === undefined) return { kind: "missing" };
    const version = String(this.versions.get(key));
    return opts.ifChanged === version ? { kind: "unchanged" } : { kind: "value", bytes: new Uint8Array(v), version };
  }

  async getRange(key: string, range: RangeRequest): Promise<Uint8Array | undefined> {
    return (await this.getRangeVersioned(key, range))?.bytes;
  }

  async getRangeVersioned(key: string, range: RangeRequest): Promise<VersionedRange | undefined> {
    const v = this.map.get(validateKey(key));
    validateRange(range);
    return v === undefined ? undefined : { bytes: new Uint8Array(sliceRange(v, range)), size: v.length, version: String(this.versions.get(key)) };
  }

  async has(key: string): Promise<boolean> {
    return this.map.has(validateKey(key));
  }

  async getSize(key: string): Promise<number | undefined> {
    return this.map.get(validateKey(key))?.length;
  }

  async list(prefix: string): Promise<string[]> {
    validatePrefix(prefix);
    return [...this.map.keys()].filter((k) => k.startsWith(prefix)).sort();
  }

  async listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    return childrenOf(this.map.keys(), validatePrefix(prefix));
  }

  private writable(): void {
    if (this.readOnly) throw new ReadOnlyError("the memory store is read-only");
  }

  async set(key: string, value: Uint8Array): Promise<void> {
    this.writable();
    // A copy: callers may reuse their buffer, and stored bytes must not change under readers.
    // `new Uint8Array(value)` rather than `value.slice()`, which on a Node Buffer is a view.
    this.map.set(validateKey(key), new Uint8Array(value));
    this.versions.set(key, ++this.writes);
  }

  async delete(key: string): Promise<void> {
    this.writable();
    this.map.delete(validateKey(key));
  }

  async deletePrefix(prefix: string): Promise<void> {
    this.writable();
    validatePrefix(prefix);
    for (const k of [...this.map.keys()]) if (k.startsWith(prefix)) this.map.delete(k);
  }

  descriptor(): StoreDescriptor {
    // The registry entry is made in the constructor, so any descriptor ever handed out resolves.
    return { kind: "memory", id: this.id };
  }
}
