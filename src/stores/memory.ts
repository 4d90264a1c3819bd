/** MemoryStore: keys and bytes in a Map, for tests, scratch arrays and worker-free pipelines. */
import { ReadOnlyError } from "../errors.js";
import { childrenOf, validateKey, validatePrefix } from "./keys.js";
import type { RangeRequest, StoreDescriptor, WritableStore } from "./types.js";

/** Stores reachable by descriptor in this thread, so chunk tasks can name a memory store. */
const registry = new Map<string, WeakRef<MemoryStore>>();
let nextId = 0;

export function getMemoryStore(id: string): MemoryStore | undefined {
  return registry.get(id)?.deref();
}

export function sliceRange(bytes: Uint8Array, range: RangeRequest): Uint8Array {
  const n = bytes.length;
  const start = range.offset < 0 ? Math.max(0, n + range.offset) : Math.min(range.offset, n);
  const end = range.length === undefined ? n : Math.min(n, start + range.length);
  return bytes.subarray(start, end);
}

export class MemoryStore implements WritableStore {
  readonly readOnly: boolean;
  private readonly map = new Map<string, Uint8Array>();
  private readonly id = `memory-${process.pid}-${nextId++}`;

  constructor(options: { readOnly?: boolean } = {}) {
    this.readOnly = options.readOnly ?? false;
    registry.set(this.id, new WeakRef(this));
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.map.get(validateKey(key));
  }

  async getRange(key: string, range: RangeRequest): Promise<Uint8Array | undefined> {
    const v = this.map.get(validateKey(key));
    return v === undefined ? undefined : sliceRange(v, range);
  }

  async has(key: string): Promise<boolean> {
    return this.map.has(validateKey(key));
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
    this.map.set(validateKey(key), value.slice());
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
    return { kind: "memory", id: this.id };
  }
}
