/**
 * FetchStore: a read-only store over HTTP(S). `get` is a GET, `getRange` a GET with a Range
 * header. Every request goes through the HTTP policy of http.ts: a timeout per attempt (on by
 * default), retries with backoff honouring Retry-After, 401/403 as an AccessDeniedError naming the
 * key. 404 means missing. Redirects are followed on the store's own origin only (and where
 * `allowRedirects` says); a body is read only as far as the request can legitimately get.
 */
import { StoreError } from "../errors.js";
import {
  conditionalHeaders,
  fetchFollowing,
  httpPolicy,
  httpRequest,
  replyVersion,
  serverDetail,
  statusLine,
  underPrefix,
  urlPrefix,
  type BodyLimit,
  type HttpOptions,
  type HttpPolicy,
  type HttpReply,
} from "./http.js";
import { bytesOfRangeReply, rangeBodyLimit, rangeHeader } from "./http-range.js";
import { validateKey, validateRange } from "./keys.js";
import type { RangeRequest, ReadableStore, StoreDescriptor, StoreReadOptions, VersionedRange, VersionedRead, VersionedReadOptions } from "./types.js";

/** Options of a FetchStore. @inline */
export interface FetchStoreOptions {
  /** Sent with every request (authorisation, for instance); they travel in the descriptor. */
  headers?: Record<string, string>;
  /** Timeouts and retries (http.ts); they travel in the descriptor. */
  http?: HttpOptions;
  /**
   * Origins (`https://cdn.example.org`) or URL prefixes a redirect may lead to besides the store's
   * own origin, or `["*"]` for anywhere. A redirect elsewhere is an AccessDeniedError (ACCESS_DENIED),
   * never followed: a server must not send parzarr to addresses only this machine can reach.
   * They travel in the descriptor.
   */
  allowRedirects?: string[];
  /** A fetch implementation; the global one by default. Not part of the descriptor. */
  fetch?: typeof fetch;
}

type Method = "GET" | "HEAD";

/** A read-only store over HTTP(S): GET and Range requests under a base URL, with timeouts, retries and same-origin redirects. */
export class FetchStore implements ReadableStore {
  readonly readOnly = true;
  /** The base URL without trailing slashes, with its query string if it had one. */
  readonly url: string;
  /** Base path without query: keys are appended to it, the query (a signed URL's) after them. */
  private readonly base: string;
  private readonly search: string;
  private readonly headers: Record<string, string>;
  private readonly policy: HttpPolicy;
  private readonly doFetch: typeof fetch;
  private readonly allowRedirects: string[];
  private readonly origin: string;

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
    this.policy = httpPolicy(options.http);
    this.doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.allowRedirects = (options.allowRedirects ?? []).map((p) => urlPrefix(p, "allowRedirects"));
    this.origin = parsed.origin;
  }

  private redirectAllowed(url: string): boolean {
    return new URL(url).origin === this.origin || underPrefix(url, this.allowRedirects);
  }

  private urlOf(key: string): string {
    const path = validateKey(key).split("/").map(encodeURIComponent).join("/");
    return `${this.base}/${path}${this.search}`;
  }

  /**
   * One request under the policy. A missing key (404) gives undefined; 2xx and the statuses in
   * `accept` give the reply; anything else a StoreError naming the URL.
   */
  private async request(
    key: string,
    method: Method,
    extra: Record<string, string> = {},
    accept: number[] = [],
    signal?: AbortSignal,
    bodyLimit?: (status: number) => BodyLimit,
  ): Promise<HttpReply | undefined> {
    const url = this.urlOf(key);
    const headers = { ...this.headers, ...extra };
    const allowed = (u: string) => this.redirectAllowed(u);
    const send = (s: AbortSignal) => fetchFollowing(this.doFetch, url, { method, headers, signal: s }, allowed, key);
    const reply = await httpRequest({ method, url, key, signal, idempotent: true, send, bodyLimit }, this.policy);
    if (reply.status === 404) return undefined;
    if ((reply.status < 200 || reply.status > 299) && !accept.includes(reply.status)) {
      throw new StoreError(`${method} ${url} answered ${statusLine(reply)}${serverDetail(reply)}`);
    }
    return reply;
  }

  async get(key: string, opts: StoreReadOptions = {}): Promise<Uint8Array | undefined> {
    return (await this.request(key, "GET", {}, [], opts.signal))?.body;
  }

  async getVersioned(key: string, opts: VersionedReadOptions = {}): Promise<VersionedRead> {
    const reply = await this.request(key, "GET", conditionalHeaders(opts.ifChanged), [304], opts.signal);
    if (reply === undefined) return { kind: "missing" };
    if (reply.status === 304) return { kind: "unchanged" };
    return { kind: "value", bytes: reply.body, version: replyVersion(reply) };
  }

  async getRange(key: string, range: RangeRequest, opts: StoreReadOptions = {}): Promise<Uint8Array | undefined> {
    return (await this.getRangeVersioned(key, range, opts))?.bytes;
  }

  async getRangeVersioned(key: string, range: RangeRequest, opts: StoreReadOptions = {}): Promise<VersionedRange | undefined> {
    validateKey(key);
    validateRange(range);
    // "bytes=5-4" is not a range HTTP can express; an empty range only needs to know the key exists.
    if (range.length === 0) return (await this.has(key)) ? { bytes: new Uint8Array(0), version: "" } : undefined;
    let asked = range;
    // At most one second request: when the first answer missed the bytes but told the size.
    for (let round = 0; round < 2; round++) {
      // Ranges count encoded bytes, so ask for the bytes as stored, not gzip-compressed in transit.
      const headers = { Range: rangeHeader(asked), "Accept-Encoding": "identity" };
      const reply = await this.request(key, "GET", headers, [416], opts.signal, (status) => rangeBodyLimit(asked, status));
      if (!reply) return undefined;
      // The key exists but the range starts past its end: empty, as the other stores answer.
      if (reply.status === 416) return { bytes: new Uint8Array(0), version: "" };
      const got = bytesOfRangeReply(reply, asked, `GET ${this.urlOf(key)}`);
      if ("bytes" in got) return got;
      asked = got.reask;
    }
    throw new StoreError(`GET ${this.urlOf(key)} did not answer ${rangeHeader(asked)} when asked twice`);
  }

  async has(key: string): Promise<boolean> {
    // Some servers (and presigned GET URLs) refuse HEAD: ask with GET and drop the body instead.
    const head = await this.request(key, "HEAD", {}, [405, 501]);
    if (head === undefined) return false;
    if (head.status !== 405 && head.status !== 501) return true;
    return (await this.request(key, "GET")) !== undefined;
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
    const d: StoreDescriptor = { kind: "fetch", url: this.url, headers: { ...this.headers }, http: { ...this.policy } };
    return this.allowRedirects.length > 0 ? { ...d, allowRedirects: [...this.allowRedirects] } : d;
  }
}
