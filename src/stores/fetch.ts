/**
 * FetchStore: a read-only store over HTTP(S). `get` is a GET, `getRange` a GET with a Range
 * header; 404 (and 403, which S3 answers for missing keys without list rights) means missing.
 */
import { AbortError, StoreError } from "../errors.js";
import { rangeBounds, sliceRange, validateKey, validateRange } from "./keys.js";
import type { RangeRequest, ReadableStore, StoreDescriptor, StoreReadOptions } from "./types.js";

export interface FetchStoreOptions {
  /** Sent with every request (authorisation, for instance); they travel in the descriptor. */
  headers?: Record<string, string>;
  /** A fetch implementation; the global one by default. Not part of the descriptor. */
  fetch?: typeof fetch;
}

type Method = "GET" | "HEAD";

export class FetchStore implements ReadableStore {
  readonly readOnly = true;
  /** The base URL without trailing slashes, with its query string if it had one. */
  readonly url: string;
  /** Base path without query: keys are appended to it, the query (a signed URL's) after them. */
  private readonly base: string;
  private readonly search: string;
  private readonly headers: Record<string, string>;
  private readonly doFetch: typeof fetch;

  constructor(url: string | URL, options: FetchStoreOptions = {}) {
    let parsed: URL;
    try {
      parsed = new URL(String(url));
    } catch (err) {
      throw new StoreError(`invalid store URL ${JSON.stringify(String(url))}`, { cause: err });
    }
    this.search = parsed.search;
    parsed.search = "";
    parsed.hash = "";
    this.base = parsed.href.replace(/\/+$/, "");
    this.url = this.base + this.search;
    this.headers = { ...options.headers };
    this.doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  private urlOf(key: string): string {
    const path = validateKey(key).split("/").map(encodeURIComponent).join("/");
    return `${this.base}/${path}${this.search}`;
  }

  /**
   * One request. Missing keys (404, 403) give undefined; statuses in `accept` and 2xx give the
   * response; anything else, and network failures, give a StoreError naming the URL.
   */
  private async request(
    key: string,
    method: Method,
    extra: Record<string, string> = {},
    accept: number[] = [],
    signal?: AbortSignal,
  ): Promise<Response | undefined> {
    const url = this.urlOf(key);
    let res: Response;
    try {
      if (signal?.aborted) throw new AbortError();
      res = await this.doFetch(url, { method, headers: { ...this.headers, ...extra }, signal });
    } catch (err) {
      // The caller's own cancellation is an AbortError, not a store failure.
      if (signal?.aborted) throw new AbortError(`${method} ${url} was aborted`);
      const reason = err instanceof Error ? err.message : String(err);
      throw new StoreError(`${method} ${url} failed: ${reason}`, { cause: err });
    }
    if (res.status === 404 || res.status === 403) {
      await discard(res);
      return undefined;
    }
    if (!res.ok && !accept.includes(res.status)) {
      await discard(res);
      throw new StoreError(`${method} ${url} answered ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`);
    }
    return res;
  }

  private async body(res: Response, key: string, signal?: AbortSignal): Promise<Uint8Array> {
    try {
      return new Uint8Array(await res.arrayBuffer());
    } catch (err) {
      if (signal?.aborted) throw new AbortError(`reading the body of ${this.urlOf(key)} was aborted`);
      const reason = err instanceof Error ? err.message : String(err);
      throw new StoreError(`reading the body of ${this.urlOf(key)} failed: ${reason}`, { cause: err });
    }
  }

  async get(key: string, opts: StoreReadOptions = {}): Promise<Uint8Array | undefined> {
    const res = await this.request(key, "GET", {}, [], opts.signal);
    return res && this.body(res, key, opts.signal);
  }

  async getRange(key: string, range: RangeRequest, opts: StoreReadOptions = {}): Promise<Uint8Array | undefined> {
    validateKey(key);
    validateRange(range);
    // "bytes=5-4" is not a range HTTP can express; an empty range only needs to know the key exists.
    if (range.length === 0) return (await this.has(key)) ? new Uint8Array(0) : undefined;
    const header =
      range.offset < 0
        ? `bytes=${range.offset}`
        : `bytes=${range.offset}-${range.length === undefined ? "" : range.offset + range.length - 1}`;
    // Ranges count encoded bytes, so ask for the bytes as stored, not gzip-compressed in transit.
    const res = await this.request(key, "GET", { Range: header, "Accept-Encoding": "identity" }, [416], opts.signal);
    if (!res) return undefined;
    if (res.status === 416) {
      // The key exists but the range starts past its end: empty, as the other stores answer.
      await discard(res);
      return new Uint8Array(0);
    }
    const body = await this.body(res, key, opts.signal);
    // A server that ignores Range answers 200 with everything: cut the range out ourselves.
    if (res.status !== 206) return sliceRange(body, range);
    return this.fromPartial(key, res, body, range);
  }

  /** The requested bytes out of a 206 body, checked against its Content-Range when it has one. */
  private fromPartial(key: string, res: Response, body: Uint8Array, range: RangeRequest): Uint8Array {
    const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(res.headers.get("content-range")?.trim() ?? "");
    if (!m) {
      // Without Content-Range trust the body; a suffix request still needs its length applied.
      return range.length === undefined ? body : body.subarray(0, range.length);
    }
    const first = Number(m[1]);
    const size = m[3] === "*" ? undefined : Number(m[3]);
    const want =
      size !== undefined
        ? rangeBounds(size, range)
        : range.offset >= 0
          ? { start: range.offset, end: range.length === undefined ? Infinity : range.offset + range.length }
          : { start: first, end: range.length === undefined ? Infinity : first + range.length };
    if (want.start < first || want.start - first > body.length) {
      throw new StoreError(`GET ${this.urlOf(key)} answered bytes ${m[1]}-${m[2]} for a request of ${JSON.stringify(range)}`);
    }
    return body.subarray(want.start - first, Math.min(body.length, want.end - first));
  }

  async has(key: string): Promise<boolean> {
    // Some servers (and presigned GET URLs) refuse HEAD: ask with GET and drop the body instead.
    const head = await this.request(key, "HEAD", {}, [405, 501]);
    if (head === undefined) return false;
    if (head.status !== 405 && head.status !== 501) return true;
    const res = await this.request(key, "GET");
    if (res === undefined) return false;
    await discard(res);
    return true;
  }

  private unlistable(): never {
    throw new StoreError(
      `cannot list ${this.url}: listing is not supported over HTTP, which has no way to enumerate keys; ` +
        "open the hierarchy through its consolidated metadata, or open arrays and groups by path",
    );
  }

  async list(_prefix: string): Promise<string[]> {
    this.unlistable();
  }

  async listDir(_prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    this.unlistable();
  }

  descriptor(): StoreDescriptor {
    return { kind: "fetch", url: this.url, headers: { ...this.headers } };
  }
}

/** Releases a response's connection without reading what nobody needs. */
async function discard(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined);
}
