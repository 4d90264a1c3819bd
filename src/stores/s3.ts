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
 *
 * The class checks and resolves its configuration at once; what requests do (s3-requests.ts)
 * loads with its first request (lazy-features.ts), so a page that only names S3Store never loads it.
 */
import { InvalidArgumentError } from "../errors.js";
import { parseS3Url, resolveS3Config } from "./s3-config.js";
import { platform } from "../platform/current.js";
import { httpPolicy, type HttpOptions, type HttpPolicy } from "./http.js";
import { addStoreKind, type StoreKind } from "./kinds.js";
import type { S3Credentials, S3Requests, S3Settings } from "./s3-requests.js";
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

export type { S3Credentials } from "./s3-requests.js";

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

// The requests' implementation (in lazy-features.ts, which holds this class too: the platform
// hands over its loader), imported with any store's first request; the class below checks and
// resolves its configuration at once, so a bad option is still the constructor's error.

/** A read/write store on an S3-compatible service over `fetch`, signed with SigV4 (unsigned without credentials); works in Node and browsers. */
export class S3Store implements WritableStore {
  /** The one record of the configuration: the getters below and the requests read it. */
  private readonly settings: S3Settings;
  /** Made with the first request. */
  private requests: S3Requests | undefined;

  /** `s3://bucket/prefix`, or the bucket and prefix themselves. */
  constructor(location: string | { bucket: string; prefix?: string }, options: S3StoreOptions = {}) {
    const { bucket, prefix } =
      typeof location === "string" ? parseS3Url(location) : parseS3Url(`s3://${location.bucket}/${location.prefix ?? ""}`);
    const { endpoint, region, credentials } = resolveS3Config(options);
    const pageSize = options.listPageSize;
    if (pageSize !== undefined && !(Number.isSafeInteger(pageSize) && pageSize >= 1 && pageSize <= 1000)) {
      throw new InvalidArgumentError(`listPageSize must be an integer from 1 to 1000, got ${String(pageSize)}`);
    }
    this.settings = {
      bucket,
      prefix,
      url: `s3://${bucket}${prefix ? `/${prefix}` : ""}`,
      endpoint,
      bucketUrl: endpoint ? `${endpoint}/${encodeURIComponent(bucket)}` : `https://${bucket}.s3.${region}.amazonaws.com`,
      region,
      credentials,
      readOnly: options.readOnly ?? false,
      policy: httpPolicy(options.http),
      doFetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      listPageSize: pageSize,
    };
  }

  /** Whether the store refuses writes. */
  get readOnly(): boolean {
    return this.settings.readOnly;
  }
  /** The bucket. */
  get bucket(): string {
    return this.settings.bucket;
  }
  /** The object-name prefix of the hierarchy ("" for the bucket root). */
  get prefix(): string {
    return this.settings.prefix;
  }
  /** The service's URL; undefined for AWS S3. */
  get endpoint(): string | undefined {
    return this.settings.endpoint;
  }
  /** The signing region. */
  get region(): string {
    return this.settings.region;
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
    return this.settings.url;
  }

  /** `fn` on this store's requests: synchronously once their module is loaded (no extra await per call). */
  private run<R>(fn: (r: S3Requests) => Promise<R>): Promise<R> {
    return platform().lazyFeatures((m) => fn((this.requests ??= new m.S3Requests(this.settings))))() as Promise<R>;
  }

  get(key: string, opts?: StoreReadOptions): Promise<Uint8Array | undefined> {
    return this.run((r) => r.get(key, opts));
  }

  getVersioned(key: string, opts?: VersionedReadOptions): Promise<VersionedRead> {
    return this.run((r) => r.getVersioned(key, opts));
  }

  getRange(key: string, range: RangeRequest, opts?: StoreReadOptions): Promise<Uint8Array | undefined> {
    return this.run((r) => r.getRange(key, range, opts));
  }

  getRangeVersioned(key: string, range: RangeRequest, opts?: StoreReadOptions): Promise<VersionedRange | undefined> {
    return this.run((r) => r.getRangeVersioned(key, range, opts));
  }

  has(key: string): Promise<boolean> {
    return this.run((r) => r.has(key));
  }

  getSize(key: string): Promise<number | undefined> {
    return this.run((r) => r.getSize(key));
  }

  lastModified(key: string): Promise<Date | undefined> {
    return this.run((r) => r.lastModified(key));
  }

  set(key: string, value: Uint8Array): Promise<void> {
    return this.run((r) => r.set(key, value));
  }

  /** A conditional PUT: see S3Requests.setIf. */
  setIf(key: string, value: Uint8Array, condition: WriteCondition): Promise<ConditionalSetResult> {
    return this.run((r) => r.setIf(key, value, condition));
  }

  delete(key: string): Promise<void> {
    return this.run((r) => r.delete(key));
  }

  deletePrefix(prefix: string): Promise<void> {
    return this.run((r) => r.deletePrefix(prefix));
  }

  list(prefix: string): Promise<string[]> {
    return this.run((r) => r.list(prefix));
  }

  listDir(prefix: string): Promise<{ keys: string[]; prefixes: string[] }> {
    return this.run((r) => r.listDir(prefix));
  }

  descriptor(): StoreDescriptor {
    // Whoever has this descriptor in this thread can now open it (stores/kinds.ts).
    addStoreKind("s3", S3_KIND);
    const { bucket, prefix, endpoint, region, credentials, readOnly, policy } = this.settings;
    const d: S3StoreDescriptor = { kind: "s3", bucket, prefix, region, readOnly, http: { ...policy } };
    if (endpoint !== undefined) d.endpoint = endpoint;
    if (credentials) d.credentials = { ...credentials };
    return d;
  }
}

/** How S3 descriptors open: added in a thread by its first descriptor, and by workers as they start. */
export const S3_KIND: StoreKind<"s3"> = { open: (d) => S3Store.fromDescriptor(d), workerCanOpen: () => true };
