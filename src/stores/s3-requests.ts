/**
 * What S3Store's requests do (s3.ts): imported with a store's first request, so that a page that
 * names S3Store but never uses it does not load SigV4 signing, ListObjectsV2 parsing or the
 * conditional-write rules.
 */
import { InvalidArgumentError, StoreError } from "../errors.js";
import { onFirstUse } from "../first-use.js";
import { CONCURRENCY } from "../parallel/execution/concurrency.js";
import {
  conditionalHeaders,
  httpRequest,
  replyVersion,
  statusLine,
  serverDetail,
  type BodyLimit,
  type HttpPolicy,
  type HttpReply,
} from "./http.js";
import { bytesOfRangeReply, rangeBodyLimit, rangeHeader } from "./http-range.js";
import { validateKey, validatePrefix, validateRange } from "./keys.js";
import { parseListPage } from "./s3-xml.js";
import type { ConditionalSetResult, RangeRequest, StoreReadOptions, VersionedRange, VersionedRead, VersionedReadOptions, WriteCondition } from "./types.js";

/** AWS access keys, as the AWS CLI reads them from the environment. */
export interface S3Credentials {
  /** AWS_ACCESS_KEY_ID. */
  accessKeyId: string;
  /** AWS_SECRET_ACCESS_KEY. */
  secretAccessKey: string;
  /** AWS_SESSION_TOKEN, for temporary credentials. */
  sessionToken?: string;
}

/** A store's settings, resolved and checked by S3Store's constructor. */
export interface S3Settings {
  bucket: string;
  /** `s3://bucket/prefix`, for messages. */
  url: string;
  /** An S3-compatible service's URL; undefined for AWS S3. */
  endpoint: string | undefined;
  /** The bucket's URL: path-style under the endpoint, or the virtual host on AWS. */
  bucketUrl: string;
  prefix: string;
  region: string;
  credentials: S3Credentials | undefined;
  readOnly: boolean;
  policy: HttpPolicy;
  doFetch: typeof fetch;
  listPageSize: number | undefined;
}

/** A body fetch takes: it takes no view of shared memory, so such a value is copied once. */
function fetchable(value: Uint8Array): Uint8Array<ArrayBuffer> {
  return value.buffer instanceof ArrayBuffer ? (value as Uint8Array<ArrayBuffer>) : new Uint8Array(value);
}

const signer = onFirstUse(() => import("aws4fetch"));

/** The requests of one S3Store. */
export class S3Requests {
  constructor(private readonly s: S3Settings) {}

  private objectUrl(key: string): string {
    validateKey(key);
    const name = this.s.prefix ? `${this.s.prefix}/${key}` : key;
    return `${this.s.bucketUrl}/${name.split("/").map(encodeURIComponent).join("/")}`;
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
          const credentials = this.s.credentials;
          if (!credentials) return this.s.doFetch(url, { ...req, signal });
          // Signed afresh for each attempt (a SigV4 signature carries its time) by aws4fetch, loaded
          // with the first signed request; its own retries are off: http.ts retries for every store.
          const signed = await signer((m) => new m.AwsClient({ ...credentials, service: "s3", region: this.s.region, retries: 0 }).sign(url, req))();
          return this.s.doFetch(signed, { signal });
        },
      },
      this.s.policy,
    );
  }

  private unexpected(method: string, url: string, reply: HttpReply): StoreError {
    return new StoreError(`${method} ${url} answered ${statusLine(reply)}${serverDetail(reply)}`);
  }

  private writable(): void {
    if (this.s.readOnly) throw new StoreError(`${this.s.url} was opened read-only`);
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
    const full = this.s.prefix ? `${this.s.prefix}/${prefix}` : prefix;
    const strip = this.s.prefix ? this.s.prefix.length + 1 : 0;
    const keys: string[] = [];
    const prefixes: string[] = [];
    let token: string | undefined;
    for (let page = 0; ; page++) {
      const query = new URLSearchParams({ "list-type": "2", prefix: full });
      if (delimiter) query.set("delimiter", delimiter);
      if (this.s.listPageSize !== undefined) query.set("max-keys", String(this.s.listPageSize));
      if (token !== undefined) query.set("continuation-token", token);
      const url = `${this.s.bucketUrl}/?${query.toString().replace(/\+/g, "%20")}`;
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
}
