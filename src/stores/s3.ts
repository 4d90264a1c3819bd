/**
 * S3Store: a read/write store on any S3-compatible object store, over `fetch`.
 *
 * Requests are signed with SigV4 by aws4fetch: a few kilobytes with no dependencies, built on
 * `fetch` and WebCrypto only, so the same code signs in Node, in worker threads and in browsers
 * (the AWS SDK's signer pulls in the SDK's runtime packages and Node-flavoured hashing shims).
 * Without credentials requests go unsigned (public buckets).
 *
 * Keys map to objects `<prefix>/<key>` in one bucket; listing is ListObjectsV2, page by page.
 * Every request goes through the HTTP policy of http.ts (timeouts, retries with backoff honouring
 * Retry-After, 401/403 as AccessDeniedError); 404 is a missing key. A PUT replaces an object
 * whole, so a reader sees the old value or the new one, as the store contract asks.
 *
 * Configuration, as AWS tools take it: the options, else the environment (AWS_ENDPOINT_URL_S3 or
 * AWS_ENDPOINT_URL, AWS_REGION or AWS_DEFAULT_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
 * AWS_SESSION_TOKEN). With an endpoint, addressing is path-style (`<endpoint>/<bucket>/<key>`, what
 * MinIO, Ceph and emulators serve); without, virtual-hosted AWS (`https://<bucket>.s3.<region>.amazonaws.com`).
 * The descriptor carries the resolved configuration, so a worker opens the same store without
 * reading its own environment.
 */
import { InvalidArgumentError, StoreError } from "../errors.js";
import { onFirstUse } from "../first-use.js";
import { CONCURRENCY } from "../parallel/execution/concurrency.js";
import {
  conditionalHeaders,
  httpPolicy,
  httpRequest,
  replyVersion,
  statusLine,
  serverDetail,
  type BodyLimit,
  type HttpOptions,
  type HttpPolicy,
  type HttpReply,
} from "./http.js";
import { bytesOfRangeReply, rangeBodyLimit, rangeHeader } from "./http-range.js";
import { validateKey, validatePrefix, validateRange } from "./keys.js";
import { parseListPage } from "./s3-xml.js";
import type {
  ConditionalSetResult,
  RangeRequest,
  StoreDescriptor,
  StoreReadOptions,
  VersionedRange,
  VersionedRead,
  VersionedReadOptions,
  WritableStore,
  WriteCondition,
} from "./types.js";

/** AWS access keys, as the AWS CLI reads them from the environment. */
export interface S3Credentials {
  /** AWS_ACCESS_KEY_ID. */
  accessKeyId: string;
  /** AWS_SECRET_ACCESS_KEY. */
  secretAccessKey: string;
  /** AWS_SESSION_TOKEN, for temporary credentials. */
  sessionToken?: string;
}

/** Options of an S3Store; what is missing comes from the AWS_* environment variables (unless `useEnvironment: false`). */
export interface S3StoreOptions {
  /** An S3-compatible service's URL (`http://127.0.0.1:9000`); addressing is then path-style. */
  endpoint?: string;
  /** The signing region. Default: the environment's, else `us-east-1`. */
  region?: string;
  /** Default: the environment's; none there means unsigned requests. */
  credentials?: S3Credentials;
  /** Refuse writes (a ReadOnlyError). */
  readOnly?: boolean;
  /** Timeouts and retries (http.ts). */
  http?: HttpOptions;
  /** A fetch implementation; the global one by default. Not part of the descriptor. */
  fetch?: typeof fetch;
  /** Keys per ListObjectsV2 page (S3's `max-keys`, at most 1000, the default). */
  listPageSize?: number;
  /** Read configuration from the environment when an option is missing. Default true. */
  useEnvironment?: boolean;
}

/** What a worker needs to open the same store: everything resolved, nothing from its environment. */
export interface S3StoreDescriptor {
  /** Always "s3". */
  kind: "s3";
  /** The bucket. */
  bucket: string;
  /** Object-name prefix without slashes at its ends ("" for the bucket's root). */
  prefix: string;
  /** The service's URL; absent: AWS S3. */
  endpoint?: string;
  /** The signing region. */
  region: string;
  /** Absent: unsigned requests. */
  credentials?: S3Credentials;
  /** Whether the store refuses writes. */
  readOnly: boolean;
  /** Timeouts and retries, resolved. */
  http: HttpPolicy;
}

/** `s3://bucket/some/prefix` into its bucket and prefix. */
export function parseS3Url(url: string): { bucket: string; prefix: string } {
  const m = /^s3:\/\/([^/?#]+)\/?([^?#]*)$/i.exec(url);
  // Bucket names: 3 to 63 of lowercase letters, digits, dots and hyphens (dots allowed for old buckets).
  if (!m || !/^[a-z0-9][a-z0-9.\-_]{1,62}$/i.test(m[1]!)) {
    throw new InvalidArgumentError(`invalid S3 URL ${JSON.stringify(url)}: expected s3://bucket or s3://bucket/prefix`);
  }
  const prefix = m[2]!.replace(/^\/+|\/+$/g, "");
  if (prefix !== "") validateKey(prefix);
  return { bucket: m[1]!, prefix };
}

function environment(): Record<string, string | undefined> {
  // Browsers have no process; there every setting comes from the options.
  return typeof process !== "undefined" && process.env ? process.env : {};
}

/** The options completed from the environment, as the AWS CLI would complete them. */
export function resolveS3Config(options: S3StoreOptions): Pick<S3StoreDescriptor, "endpoint" | "region" | "credentials"> {
  const env = options.useEnvironment === false ? {} : environment();
  const endpoint = options.endpoint ?? env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  const region = options.region ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? "us-east-1";
  let credentials = options.credentials;
  if (!credentials && env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY) {
    credentials = { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY };
    if (env.AWS_SESSION_TOKEN) credentials.sessionToken = env.AWS_SESSION_TOKEN;
  }
  if (endpoint !== undefined) {
    try {
      new URL(endpoint);
    } catch (err) {
      throw new InvalidArgumentError(`invalid S3 endpoint ${JSON.stringify(endpoint)}: not a URL`);
    }
  }
  const out: Pick<S3StoreDescriptor, "endpoint" | "region" | "credentials"> = { region };
  if (endpoint !== undefined) out.endpoint = endpoint.replace(/\/+$/, "");
  if (credentials) out.credentials = { ...credentials };
  return out;
}

/** A body fetch takes: it takes no view of shared memory, so such a value is copied once. */
function fetchable(value: Uint8Array): Uint8Array<ArrayBuffer> {
  return value.buffer instanceof ArrayBuffer ? (value as Uint8Array<ArrayBuffer>) : new Uint8Array(value);
}

const signer = onFirstUse(() => import("aws4fetch"));

/** A read/write store on an S3-compatible service over `fetch`, signed with SigV4 (unsigned without credentials); works in Node and browsers. */
export class S3Store implements WritableStore {
  readonly readOnly: boolean;
  /** The bucket. */
  readonly bucket: string;
  /** The object-name prefix of the hierarchy ("" for the bucket root). */
  readonly prefix: string;
  /** The service's URL; undefined for AWS S3. */
  readonly endpoint: string | undefined;
  /** The signing region. */
  readonly region: string;
  private readonly credentials: S3Credentials | undefined;
  private readonly policy: HttpPolicy;
  private readonly doFetch: typeof fetch;
  private readonly listPageSize: number | undefined;
  /** The bucket's URL: path-style under the endpoint, or the virtual host on AWS. */
  private readonly bucketUrl: string;

  /** `s3://bucket/prefix`, or the bucket and prefix themselves. */
  constructor(location: string | { bucket: string; prefix?: string }, options: S3StoreOptions = {}) {
    const { bucket, prefix } =
      typeof location === "string" ? parseS3Url(location) : parseS3Url(`s3://${location.bucket}/${location.prefix ?? ""}`);
    const config = resolveS3Config(options);
    this.bucket = bucket;
    this.prefix = prefix;
    this.endpoint = config.endpoint;
    this.region = config.region;
    this.credentials = config.credentials;
    this.readOnly = options.readOnly ?? false;
    this.policy = httpPolicy(options.http);
    this.doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    const pageSize = options.listPageSize;
    if (pageSize !== undefined && !(Number.isSafeInteger(pageSize) && pageSize >= 1 && pageSize <= 1000)) {
      throw new InvalidArgumentError(`listPageSize must be an integer from 1 to 1000, got ${String(pageSize)}`);
    }
    this.listPageSize = pageSize;
    this.bucketUrl = this.endpoint
      ? `${this.endpoint}/${encodeURIComponent(bucket)}`
      : `https://${bucket}.s3.${this.region}.amazonaws.com`;
  }

  /** The store a descriptor describes: how a worker reopens it. */
  static fromDescriptor(d: S3StoreDescriptor): S3Store {
    return new S3Store(
      { bucket: d.bucket, prefix: d.prefix },
      { endpoint: d.endpoint, region: d.region, credentials: d.credentials, readOnly: d.readOnly, http: d.http, useEnvironment: false },
    );
  }

  /** `s3://bucket/prefix`. */
  get url(): string {
    return `s3://${this.bucket}${this.prefix ? `/${this.prefix}` : ""}`;
  }

  private objectName(key: string): string {
    return this.prefix ? `${this.prefix}/${key}` : key;
  }

  private objectUrl(key: string): string {
    const name = this.objectName(validateKey(key));
    return `${this.bucketUrl}/${name.split("/").map(encodeURIComponent).join("/")}`;
  }

  /** One request under the policy, signed when there are credentials. */
  private request(
    method: string,
    url: string,
    key: string,
    init: { headers?: Record<string, string>; body?: Uint8Array<ArrayBuffer>; signal?: AbortSignal; bodyLimit?: (status: number) => BodyLimit } = {},
  ): Promise<HttpReply> {
    return httpRequest(
      {
        method,
        url,
        key,
        signal: init.signal,
        idempotent: true,
        bodyLimit: init.bodyLimit,
        send: async (signal) => {
          const req = { method, headers: init.headers, body: init.body };
          const credentials = this.credentials;
          if (!credentials) return this.doFetch(url, { ...req, signal });
          // Signed afresh for each attempt (a SigV4 signature carries its time) by aws4fetch, loaded
          // with the first signed request; its own retries are off: http.ts retries for every store.
          const signed = await signer((m) => new m.AwsClient({ ...credentials, service: "s3", region: this.region, retries: 0 }).sign(url, req))();
          return this.doFetch(signed, { signal });
        },
      },
      this.policy,
    );
  }

  private unexpected(method: string, url: string, reply: HttpReply): StoreError {
    return new StoreError(`${method} ${url} answered ${statusLine(reply)}${serverDetail(reply)}`);
  }

  private writable(): void {
    if (this.readOnly) throw new StoreError(`${this.url} was opened read-only`);
  }

  async get(key: string, opts: StoreReadOptions = {}): Promise<Uint8Array | undefined> {
    const url = this.objectUrl(key);
    const reply = await this.request("GET", url, key, { signal: opts.signal });
    if (reply.status === 404) return undefined;
    if (reply.status !== 200) throw this.unexpected("GET", url, reply);
    return reply.body;
  }

  async getVersioned(key: string, opts: VersionedReadOptions = {}): Promise<VersionedRead> {
    const url = this.objectUrl(key);
    const reply = await this.request("GET", url, key, { headers: conditionalHeaders(opts.ifChanged), signal: opts.signal });
    if (reply.status === 404) return { kind: "missing" };
    if (reply.status === 304) return { kind: "unchanged" };
    if (reply.status !== 200) throw this.unexpected("GET", url, reply);
    return { kind: "value", bytes: reply.body, version: replyVersion(reply) };
  }

  async getRange(key: string, range: RangeRequest, opts: StoreReadOptions = {}): Promise<Uint8Array | undefined> {
    return (await this.getRangeVersioned(key, range, opts))?.bytes;
  }

  async getRangeVersioned(key: string, range: RangeRequest, opts: StoreReadOptions = {}): Promise<VersionedRange | undefined> {
    validateRange(range);
    const url = this.objectUrl(key);
    if (range.length === 0) return (await this.has(key)) ? { bytes: new Uint8Array(0), version: "" } : undefined;
    let asked = range;
    // At most one second request: when the first answer missed the bytes but told the size.
    for (let round = 0; round < 2; round++) {
      const reply = await this.request("GET", url, key, {
        headers: { Range: rangeHeader(asked) },
        signal: opts.signal,
        bodyLimit: (status) => rangeBodyLimit(asked, status),
      });
      if (reply.status === 404) return undefined;
      // The object exists but the range starts past its end: empty, as the other stores answer.
      if (reply.status === 416) return { bytes: new Uint8Array(0), version: "" };
      if (reply.status !== 200 && reply.status !== 206) throw this.unexpected("GET", url, reply);
      const got = bytesOfRangeReply(reply, asked, `GET ${url}`);
      if ("bytes" in got) return got;
      asked = got.reask;
    }
    throw new StoreError(`GET ${url} did not answer ${rangeHeader(asked)} when asked twice`);
  }

  private async head(key: string): Promise<HttpReply | undefined> {
    const url = this.objectUrl(key);
    const reply = await this.request("HEAD", url, key);
    if (reply.status === 404) return undefined;
    if (reply.status !== 200) throw this.unexpected("HEAD", url, reply);
    return reply;
  }

  async has(key: string): Promise<boolean> {
    return (await this.head(key)) !== undefined;
  }

  async getSize(key: string): Promise<number | undefined> {
    const reply = await this.head(key);
    if (!reply) return undefined;
    const size = Number(reply.headers.get("content-length"));
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new StoreError(`HEAD ${this.objectUrl(key)} gave no usable Content-Length (${String(reply.headers.get("content-length"))})`);
    }
    return size;
  }

  async lastModified(key: string): Promise<Date | undefined> {
    const date = (await this.head(key))?.headers.get("last-modified");
    return date ? new Date(date) : undefined;
  }

  async set(key: string, value: Uint8Array): Promise<void> {
    this.writable();
    const url = this.objectUrl(key);
    // A PUT replaces the whole object, so it may be repeated: it is retried like a read.
    const reply = await this.request("PUT", url, key, { body: fetchable(value), headers: { "Content-Type": "application/octet-stream" } });
    if (reply.status !== 200 && reply.status !== 201 && reply.status !== 204) throw this.unexpected("PUT", url, reply);
  }

  /**
   * A conditional PUT (S3's conditional writes, on AWS since 2024): `If-Match` with the ETag of a
   * version `getVersioned` gave, or `If-None-Match: *`. 412 Precondition Failed, 409
   * ConditionalRequestConflict (AWS, when another conditional write of the key is in flight) and,
   * for If-Match, 404 (the key is gone) answer `{ ok: false }`. Retried under the same policy as
   * `set`: a repeat of a PUT that went through but whose answer was lost fails its condition, and
   * the caller's re-read then finds its own value, which a merge writes again unchanged.
   * Servers that ignore the headers (s3rver) write unconditionally; see the probe in
   * parallel/sync/conditional-writes.ts.
   */
  async setIf(key: string, value: Uint8Array, condition: WriteCondition): Promise<ConditionalSetResult> {
    this.writable();
    const url = this.objectUrl(key);
    const headers: Record<string, string> = { "Content-Type": "application/octet-stream" };
    if ("ifMatch" in condition) {
      if (!condition.ifMatch.startsWith("etag:")) {
        throw new StoreError(`PUT ${url}: a conditional write needs the ETag of a read, got version ${JSON.stringify(condition.ifMatch)}`);
      }
      headers["If-Match"] = condition.ifMatch.slice(5);
    } else {
      if (condition.ifNoneMatch !== "*") throw new InvalidArgumentError(`ifNoneMatch must be "*", got ${JSON.stringify(condition.ifNoneMatch)}`);
      headers["If-None-Match"] = "*";
    }
    const reply = await this.request("PUT", url, key, { body: fetchable(value), headers });
    if (reply.status === 412 || reply.status === 409 || (reply.status === 404 && "ifMatch" in condition)) return { ok: false };
    if (reply.status !== 200 && reply.status !== 201 && reply.status !== 204) throw this.unexpected("PUT", url, reply);
    const version = replyVersion(reply);
    if (!version.startsWith("etag:")) throw new StoreError(`PUT ${url} answered ${statusLine(reply)} without an ETag, which conditional writes need`);
    return { ok: true, version };
  }

  async delete(key: string): Promise<void> {
    this.writable();
    const url = this.objectUrl(key);
    const reply = await this.request("DELETE", url, key);
    if (reply.status !== 204 && reply.status !== 200 && reply.status !== 404) throw this.unexpected("DELETE", url, reply);
  }

  async deletePrefix(prefix: string): Promise<void> {
    this.writable();
    const keys = await this.list(prefix);
    let next = 0;
    const worker = async () => {
      while (next < keys.length) await this.delete(keys[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY.s3DeletesInFlight, keys.length) }, worker));
  }

  /**
   * Every page of a ListObjectsV2 under `prefix` (store-relative, "" or ending in "/"), with keys
   * and common prefixes made store-relative again.
   */
  private async listAll(prefix: string, delimiter?: string): Promise<{ keys: string[]; prefixes: string[] }> {
    validatePrefix(prefix);
    const full = this.prefix ? `${this.prefix}/${prefix}` : prefix;
    const strip = this.prefix ? this.prefix.length + 1 : 0;
    const keys: string[] = [];
    const prefixes: string[] = [];
    let token: string | undefined;
    for (let page = 0; ; page++) {
      const query = new URLSearchParams({ "list-type": "2", prefix: full });
      if (delimiter) query.set("delimiter", delimiter);
      if (this.listPageSize !== undefined) query.set("max-keys", String(this.listPageSize));
      if (token !== undefined) query.set("continuation-token", token);
      const url = `${this.bucketUrl}/?${query.toString().replace(/\+/g, "%20")}`;
      const reply = await this.request("GET", url, "");
      if (reply.status !== 200) throw this.unexpected("GET", url, reply);
      const parsed = parseListPage(new TextDecoder().decode(reply.body));
      if (!parsed) throw new StoreError(`GET ${url} (page ${page + 1} of a listing) did not answer a ListObjectsV2 result`);
      for (const k of parsed.keys) if (k.startsWith(full)) keys.push(k.slice(strip));
      for (const p of parsed.prefixes) if (p.startsWith(full)) prefixes.push(p.slice(strip));
      if (parsed.continuationToken === undefined) break;
      if (parsed.continuationToken === token) throw new StoreError(`GET ${url} gave the same continuation token twice`);
      token = parsed.continuationToken;
    }
    return { keys, prefixes };
  }

  async list(prefix: string): Promise<string[]> {
    return (await this.listAll(prefix)).keys.sort();
  }

  async listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    const { keys, prefixes } = await this.listAll(prefix, "/");
    return {
      keys: keys.map((k) => k.slice(prefix.length)).sort(),
      prefixes: prefixes.map((p) => p.slice(prefix.length).replace(/\/$/, "")).sort(),
    };
  }

  descriptor(): StoreDescriptor {
    const d: S3StoreDescriptor = {
      kind: "s3",
      bucket: this.bucket,
      prefix: this.prefix,
      region: this.region,
      readOnly: this.readOnly,
      http: { ...this.policy },
    };
    if (this.endpoint !== undefined) d.endpoint = this.endpoint;
    if (this.credentials) d.credentials = { ...this.credentials };
    return d;
  }
}
