/**
 * A read-only view of a store with some keys' bytes already in memory: those keys are answered
 * from the bytes (null: known not to be stored), every other read goes to the store itself. A
 * task's chunks fetched together (ReferenceStore.prefetch) or fetched by the caller for a worker
 * (parallel/execution/fetched-chunks.ts) are read through one of these. Without an inner store (a user's
 * store, which a worker cannot reach) every other read is `unsent(key)`'s error.
 */
import { sliceRange, validateRange } from "./keys.js";
import type { RangeRequest, ReadableStore, StoreDescriptor, StoreReadOptions } from "./types.js";

export class OverlayStore implements ReadableStore {
  readonly readOnly: boolean = true;

  constructor(
    private readonly store: ReadableStore | null,
    private readonly bytes: ReadonlyMap<string, Uint8Array | null>,
    private readonly unsent: (key: string) => Error = (key) => new Error(`"${key}" was not sent`),
  ) {}

  private innerFor(key: string): ReadableStore {
    if (this.store === null) throw this.unsent(key);
    return this.store;
  }

  async get(key: string, opts?: StoreReadOptions): Promise<Uint8Array | undefined> {
    const b = this.bytes.get(key);
    return b === undefined ? ((await this.innerFor(key).get(key, opts)) ?? undefined) : (b ?? undefined);
  }

  async getRange(key: string, range: RangeRequest, opts?: StoreReadOptions): Promise<Uint8Array | undefined> {
    const b = this.bytes.get(key);
    if (b === undefined) return (await this.innerFor(key).getRange(key, range, opts)) ?? undefined;
    return b === null ? undefined : sliceRange(b, validateRange(range));
  }

  async has(key: string): Promise<boolean> {
    const b = this.bytes.get(key);
    return b === undefined ? this.innerFor(key).has(key) : b !== null;
  }

  async getSize(key: string): Promise<number | undefined> {
    const b = this.bytes.get(key);
    if (b === undefined) return (await this.innerFor(key).getSize?.(key)) ?? undefined;
    return b?.length;
  }

  list(prefix: string): Promise<string[]> {
    return this.innerFor(prefix).list(prefix);
  }

  listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    return this.innerFor(prefix).listDir(prefix);
  }

  descriptor(): StoreDescriptor {
    return this.innerFor("").descriptor();
  }
}
