/**
 * FetchStore: a read-only store over HTTP(S). `get` is a GET, `getRange` a GET with a Range
 * header; 404 (and 403, which S3 answers for missing keys without list rights) means missing.
 */
import { StoreError } from "../errors.js";
import { sliceRange } from "./memory.js";
import { validateKey } from "./keys.js";
import type { RangeRequest, ReadableStore, StoreDescriptor } from "./types.js";

export interface FetchStoreOptions {
  headers?: Record<string, string>;
  /** A fetch implementation; the global one by default. */
  fetch?: typeof fetch;
}

export class FetchStore implements ReadableStore {
  readonly readOnly = true;
  readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly doFetch: typeof fetch;

  constructor(url: string | URL, options: FetchStoreOptions = {}) {
    this.url = String(url).replace(/\/+$/, "");
    this.headers = options.headers ?? {};
    this.doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  private urlOf(key: string): string {
    return `${this.url}/${validateKey(key).split("/").map(encodeURIComponent).join("/")}`;
  }

  private async request(key: string, method: "GET" | "HEAD", extra: Record<string, string> = {}): Promise<Response | undefined> {
    const url = this.urlOf(key);
    let res: Response;
    try {
      res = await this.doFetch(url, { method, headers: { ...this.headers, ...extra } });
    } catch (err) {
      throw new StoreError(`cannot fetch ${url}: ${(err as Error).message}`, { cause: err });
    }
    if (res.status === 404 || res.status === 403) {
      await res.body?.cancel();
      return undefined;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new StoreError(`${method} ${url} answered ${res.status} ${res.statusText}`);
    }
    return res;
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    const res = await this.request(key, "GET");
    return res && new Uint8Array(await res.arrayBuffer());
  }

  async getRange(key: string, range: RangeRequest): Promise<Uint8Array | undefined> {
    if (range.length === 0) return (await this.has(key)) ? new Uint8Array(0) : undefined;
    const header =
      range.offset < 0
        ? `bytes=${range.offset}`
        : `bytes=${range.offset}-${range.length === undefined ? "" : range.offset + range.length - 1}`;
    const res = await this.request(key, "GET", { Range: header });
    if (!res) return undefined;
    const body = new Uint8Array(await res.arrayBuffer());
    // A server that ignores Range answers 200 with everything: cut the range out ourselves.
    return res.status === 206 ? body : sliceRange(body, range);
  }

  async has(key: string): Promise<boolean> {
    const res = await this.request(key, "HEAD");
    return res !== undefined;
  }

  async list(_prefix: string): Promise<string[]> {
    throw new StoreError(`cannot list ${this.url}: plain HTTP has no listing (consolidated metadata is the way to find nodes)`);
  }

  async listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    return this.list(prefix).then(() => ({ keys: [], prefixes: [] }));
  }

  descriptor(): StoreDescriptor {
    return { kind: "fetch", url: this.url, headers: this.headers };
  }
}
