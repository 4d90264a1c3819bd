/** A store wrapper that records every call, to prove how many reads an operation makes. */
import type { RangeRequest, ReadableStore, StoreDescriptor } from "../../src/index.js";

export class CountingStore implements ReadableStore {
  readonly readOnly = true;
  /** Every call as `method key`, in order. */
  readonly calls: string[] = [];

  constructor(private readonly inner: ReadableStore) {}

  reset(): void {
    this.calls.length = 0;
  }
  count(method: string): number {
    return this.calls.filter((c) => c.startsWith(`${method} `)).length;
  }
  keys(method: string): string[] {
    return this.calls.filter((c) => c.startsWith(`${method} `)).map((c) => c.slice(method.length + 1));
  }

  get(key: string): Promise<Uint8Array | undefined | null> {
    this.calls.push(`get ${key}`);
    return this.inner.get(key);
  }
  getRange(key: string, range: RangeRequest): Promise<Uint8Array | undefined | null> {
    this.calls.push(`getRange ${key}`);
    return this.inner.getRange(key, range);
  }
  has(key: string): Promise<boolean> {
    this.calls.push(`has ${key}`);
    return this.inner.has(key);
  }
  list(prefix: string): Promise<string[]> {
    this.calls.push(`list ${prefix}`);
    return this.inner.list(prefix);
  }
  listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    this.calls.push(`listDir ${prefix}`);
    return this.inner.listDir(prefix);
  }
  descriptor(): StoreDescriptor {
    return this.inner.descriptor();
  }
}
