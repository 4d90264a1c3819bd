/**
 * The one HTTP policy of the network stores (FetchStore, S3Store): how long an attempt may take,
 * which failures are worth another attempt, and how long to wait before it.
 *
 * - Every attempt has a timeout (on by default), and the caller's `signal` cancels it at once.
 * - Idempotent requests (every request these stores make: GET, HEAD, a PUT of a whole object,
 *   DELETE, a listing) are retried on dropped connections, timeouts, 408, 429 and 5xx but 501/505,
 *   a bounded number of times, with "full jitter" exponential backoff (a random wait between 0 and
 *   min(cap, base * 2^attempt)) so that many clients throttled together do not come back together.
 *   A `Retry-After` header (seconds or a date) is honoured, up to `maxRetryAfterMs`.
 * - 401 and 403 are an AccessDeniedError naming the key: an authorisation failure must not read as
 *   a missing chunk (that would silently return fill values). 404 is left to the store: a missing key.
 *
 * The body is read inside the attempt, so a connection dropped mid-body is retried like one
 * dropped before the headers, and the timeout covers the whole exchange. It is read only as far
 * as it can be legitimate (`bodyLimit`): an endless body fails TOO_LARGE, in bounded memory.
 */
import { AbortError, AccessDeniedError, InvalidArgumentError, StoreError, TooLargeError, ZarrError } from "../errors.js";
import { maxStoredBytes } from "../limits.js";

/** Timeouts and retries of HTTP(S) requests. */
export interface HttpOptions {
  /** Milliseconds one attempt (request and body) may take; 0 turns the timeout off. Default 30000. */
  timeoutMs?: number;
  /** Attempts after the first for a failure worth retrying. Default 4; 0 turns retries off. */
  retries?: number;
  /** The first backoff's upper bound in milliseconds, doubled each attempt. Default 100. */
  backoffMs?: number;
  /** The most one backoff waits, in milliseconds. Default 5000. */
  maxBackoffMs?: number;
  /** A longer `Retry-After` than this is not waited for: the request fails. Default 30000. */
  maxRetryAfterMs?: number;
}

export type HttpPolicy = Required<HttpOptions>;

export const DEFAULT_HTTP_POLICY: HttpPolicy = Object.freeze({
  timeoutMs: 30_000,
  retries: 4,
  backoffMs: 100,
  maxBackoffMs: 5000,
  maxRetryAfterMs: 30_000,
});

/** The options filled in from the defaults, each checked: a clear error beats a hung request. */
export function httpPolicy(options: HttpOptions = {}): HttpPolicy {
  const p = { ...DEFAULT_HTTP_POLICY };
  for (const name of Object.keys(DEFAULT_HTTP_POLICY) as (keyof HttpPolicy)[]) {
    const v = options[name];
    if (v === undefined) continue;
    const integer = name === "retries";
    if (typeof v !== "number" || !(v >= 0) || (integer ? !Number.isSafeInteger(v) : !Number.isFinite(v))) {
      throw new InvalidArgumentError(`http.${name} must be a non-negative ${integer ? "integer" : "number"}, got ${String(v)}`);
    }
    p[name] = v;
  }
  return p;
}

/** A whole response: status, headers and the body already read. */
export interface HttpReply {
  status: number;
  statusText: string;
  headers: Headers;
  body: Uint8Array;
}

/**
 * How far an answer's body is read: past `max` bytes, reading stops and the request fails with a
 * TooLargeError (not retried), or, with `stop`, the bytes so far are all the caller needs.
 */
export interface BodyLimit {
  max: number;
  stop?: boolean;
}

/** An error answer's body is read this far: enough for the detail it gives (serverDetail). */
const ERROR_BODY_BYTES = 64 * 1024;

export interface HttpRequest {
  method: string;
  /** For messages only: the URL that `send` requests (without credentials). */
  url: string;
  /** The store key the request is about, named in errors ("" for a listing). */
  key: string;
  /** Makes one attempt; must pass `signal` on to fetch. */
  send: (signal: AbortSignal) => Promise<Response>;
  /** The caller's cancellation. */
  signal?: AbortSignal;
  /** Whether the request may be repeated (every request of parzarr's stores is). */
  idempotent: boolean;
  /** How far a 2xx answer's body is read. Default: a whole stored value's limit (maxStoredBytes). */
  bodyLimit?: (status: number) => BodyLimit;
}

/** Statuses a later attempt may get past: throttling, time-outs and server-side failures. */
export function retryableStatus(status: number): boolean {
  return status === 408 || status === 429 || (status >= 500 && status !== 501 && status !== 505);
}

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when
 * absent or unreadable.
 */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Full-jitter exponential backoff before attempt `attempt + 1`. */
export function backoffDelay(policy: HttpPolicy, attempt: number, random = Math.random): number {
  return random() * Math.min(policy.maxBackoffMs, policy.backoffMs * 2 ** attempt);
}

/** Why an attempt did not give a usable answer, kept for the message of the final error. */
type Failure = { kind: "status"; reply: HttpReply } | { kind: "network"; error: unknown } | { kind: "timeout" };

function describeFailure(req: HttpRequest, policy: HttpPolicy, f: Failure): string {
  switch (f.kind) {
    case "status":
      return `${req.method} ${req.url} answered ${statusLine(f.reply)}${serverDetail(f.reply)}`;
    case "timeout":
      return `${req.method} ${req.url} timed out after ${policy.timeoutMs} ms`;
    case "network":
      return `${req.method} ${req.url} failed: ${networkReason(f.error)}`;
  }
}

export function statusLine(reply: { status: number; statusText: string }): string {
  return `${reply.status}${reply.statusText ? ` ${reply.statusText}` : ""}`;
}

/** An S3-style `<Code>`/`<Message>` from an error body, which says more than the status line. */
export function serverDetail(reply: HttpReply): string {
  if (reply.body.length === 0 || reply.body.length > 64 * 1024) return "";
  const text = new TextDecoder().decode(reply.body);
  const code = /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];
  const message = /<Message>([^<]{1,300})<\/Message>/.exec(text)?.[1];
  if (!code && !message) return "";
  return ` (${[code, message].filter(Boolean).join(": ")})`;
}

/** undici hides the socket's error (ECONNRESET, ECONNREFUSED) in `cause`: name it. */
function networkReason(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e !== undefined && e !== null && depth < 4; depth++) {
    if (e instanceof Error) {
      const code = (e as NodeJS.ErrnoException).code;
      parts.push(code && !e.message.includes(code) ? `${e.message} (${code})` : e.message);
      e = e.cause;
    } else {
      parts.push(String(e));
      break;
    }
  }
  return parts.join(": ");
}

/** Waits `ms`, or rejects with an AbortError as soon as `signal` fires. */
function sleep(ms: number, signal: AbortSignal | undefined, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new AbortError(`${what} was aborted`));
    const onAbort = () => {
      clearTimeout(timer);
      reject(new AbortError(`${what} was aborted`));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * One attempt with its own controller: aborted by the caller's signal or by the timeout, and
 * cleaned up either way (no timer or listener outlives the attempt).
 */
async function attempt(req: HttpRequest, policy: HttpPolicy): Promise<{ reply: HttpReply } | { failure: Failure }> {
  const controller = new AbortController();
  let timedOut = false;
  const timer =
    policy.timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, policy.timeoutMs)
      : undefined;
  // The caller's signal is one per read, shared by its every request: a signal that depends on it
  // (AbortSignal.any) adds no listener to it, where one listener per request went past Node's
  // limit of 10 and printed a MaxListenersExceededWarning. Runtimes without `any`: a listener.
  const any = typeof AbortSignal.any === "function" && req.signal !== undefined;
  const signal = any ? AbortSignal.any([req.signal!, controller.signal]) : controller.signal;
  const onAbort = () => controller.abort();
  if (!any) req.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const res = await req.send(signal);
    const ok = res.status >= 200 && res.status <= 299;
    const limit = !ok ? { max: ERROR_BODY_BYTES, stop: true } : (req.bodyLimit?.(res.status) ?? { max: maxStoredBytes() });
    const body = req.method === "HEAD" ? new Uint8Array(0) : await readBody(res, limit, req);
    return { reply: { status: res.status, statusText: res.statusText, headers: res.headers, body } };
  } catch (error) {
    if (req.signal?.aborted) throw new AbortError(`${req.method} ${req.url} was aborted`);
    if (timedOut) return { failure: { kind: "timeout" } };
    // parzarr's own verdicts (too large, a refused redirect) are final: another attempt would repeat them.
    if (error instanceof ZarrError) throw error;
    return { failure: { kind: "network", error } };
  } finally {
    clearTimeout(timer);
    req.signal?.removeEventListener("abort", onAbort);
  }
}

/**
 * An answer's body, read chunk by chunk so that it never holds more than `limit.max` bytes: a
 * Content-Length over the limit fails before anything is read, an endless body once it passes it.
 */
async function readBody(res: Response, limit: BodyLimit, req: HttpRequest): Promise<Uint8Array> {
  const tooLarge = (what: string) =>
    new TooLargeError(
      `${req.method} ${req.url} answered ${what}, more than the ${limit.max} bytes it can hold ` +
        "(a range's length, or a stored value's limit: raise it with setMaxChunkBytes if this is intended)",
    );
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (!limit.stop && declared > limit.max) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge(`a body of ${declared} bytes`);
  }
  if (!res.body) return new Uint8Array(0);
  const reader = res.body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  let done = false;
  try {
    while (size < limit.max || !limit.stop) {
      const next = await reader.read();
      if (next.done) {
        done = true;
        break;
      }
      if (size + next.value.length > limit.max) {
        if (!limit.stop) throw tooLarge("a longer body");
        parts.push(next.value.subarray(0, limit.max - size));
        size = limit.max;
        break;
      }
      parts.push(next.value);
      size += next.value.length;
    }
  } finally {
    // The rest of a body not read to its end is not wanted: close the connection's stream.
    if (!done) await reader.cancel().catch(() => undefined);
  }
  // One part that owns its memory is the body; else a copy (callers may transfer body.buffer).
  const only = parts.length === 1 ? parts[0]! : undefined;
  if (only && only.byteOffset === 0 && only.byteLength === only.buffer.byteLength && only.buffer instanceof ArrayBuffer) return only;
  const body = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    body.set(p, at);
    at += p.length;
  }
  return body;
}

/**
 * Makes the request under the policy and returns the first answer that is not worth retrying
 * (2xx, 3xx, 404, 416, any 4xx but 401/403/408/429). Throws an AccessDeniedError for 401/403, an
 * AbortError when the caller cancels, and a StoreError saying what happened on the last attempt
 * (and how many there were) when the retries run out.
 */
export async function httpRequest(req: HttpRequest, policy: HttpPolicy): Promise<HttpReply> {
  const attempts = req.idempotent ? policy.retries + 1 : 1;
  for (let n = 0; ; n++) {
    if (req.signal?.aborted) throw new AbortError(`${req.method} ${req.url} was aborted`);
    const out = await attempt(req, policy);
    let failure: Failure;
    let wait: number | undefined;
    if ("reply" in out) {
      const { reply } = out;
      if (reply.status === 401 || reply.status === 403) {
        throw new AccessDeniedError(
          `${req.method} ${req.url} answered ${statusLine(reply)}${serverDetail(reply)}: access to ${req.key ? `key "${req.key}"` : "the listing"} was refused; check the credentials or headers`,
          req.key,
          reply.status,
        );
      }
      if (!retryableStatus(reply.status)) return reply;
      failure = { kind: "status", reply };
      wait = retryAfterMs(reply.headers.get("retry-after"));
      if (wait !== undefined && wait > policy.maxRetryAfterMs) {
        throw new StoreError(
          `${describeFailure(req, policy, failure)} and asked to retry after ${Math.ceil(wait / 1000)} s, longer than http.maxRetryAfterMs (${policy.maxRetryAfterMs} ms)`,
        );
      }
    } else {
      failure = out.failure;
    }
    if (n + 1 >= attempts) {
      const tries = attempts > 1 ? ` (${attempts} attempts)` : "";
      const cause = failure.kind === "network" ? failure.error : undefined;
      throw new StoreError(`${describeFailure(req, policy, failure)}${tries}`, { cause });
    }
    await sleep(wait ?? backoffDelay(policy, n), req.signal, `${req.method} ${req.url}`);
  }
}

/** Whether `url` (normalised, as `new URL().href` writes it) lies under one of `prefixes`. */
export function underPrefix(url: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => p === "*" || url === p || url.startsWith(p.endsWith("/") ? p : `${p}/`));
}

/**
 * An origin or URL prefix a user allows, normalised as `new URL` does (host case, default port,
 * decimal or mapped IP addresses), so that it compares with URLs as text; "*" stays as it is.
 */
export function urlPrefix(text: string, option: string): string {
  if (text === "*") return text;
  try {
    return new URL(text).href;
  } catch {
    throw new InvalidArgumentError(`${option}: ${JSON.stringify(text)} is not a URL (an origin such as https://example.org, or a URL prefix)`);
  }
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Headers without those that carry credentials (what fetch itself drops on a cross-origin redirect). */
function withoutCredentials(headers: RequestInit["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  new Headers(headers).forEach((value, name) => {
    if (name !== "authorization" && name !== "cookie" && name !== "proxy-authorization") out[name] = value;
  });
  return out;
}
const MAX_REDIRECTS = 10;

/**
 * Sends a request (GET or HEAD: repeated as it is at each hop) and follows redirects itself, each
 * only where `allowed` says; anywhere else is an AccessDeniedError, before anything is sent there.
 * fetch's own following would go anywhere: a server could send parzarr to an address only this
 * machine reaches (169.254.169.254, say). Where redirects cannot be seen (a browser answers an
 * opaque one), fetch follows them and the final URL is checked instead.
 */
export async function fetchFollowing(
  doFetch: typeof fetch,
  url: string,
  init: RequestInit & { method: string },
  allowed: (url: string) => boolean,
  key: string,
): Promise<Response> {
  let at = url;
  const origin = new URL(url).origin;
  for (let hop = 0; ; hop++) {
    // Credentials are for the store's own origin: not sent on to another one it is allowed to reach.
    const headers = new URL(at).origin === origin ? init.headers : withoutCredentials(init.headers);
    let res = await doFetch(at, { ...init, headers, redirect: "manual" });
    if (res.type === "opaqueredirect") res = await doFetch(at, { ...init, headers, redirect: "follow" });
    const location = REDIRECTS.has(res.status) ? res.headers.get("location") : null;
    const next = location === null ? res.url || at : new URL(location, at).href;
    if (!allowed(next)) {
      await res.body?.cancel().catch(() => undefined);
      throw new AccessDeniedError(
        `${init.method} ${url} was redirected to ${next}, another origin: parzarr follows redirects only on the store's ` +
          "own origin and where allowed (FetchStore's allowRedirects, a reference store's allowTargets)",
        key,
        location === null ? 0 : res.status,
      );
    }
    if (location === null) return res;
    await res.body?.cancel().catch(() => undefined);
    if (hop + 1 >= MAX_REDIRECTS) throw new StoreError(`${init.method} ${url} was redirected more than ${MAX_REDIRECTS} times`);
    at = next;
  }
}

/**
 * Revalidation over HTTP (FetchStore, S3Store): a reply's version is its ETag, else its
 * Last-Modified date ("" when it has neither); a conditional request sends it back as
 * If-None-Match or If-Modified-Since, so an unchanged value costs a 304 without a body.
 */
export function replyVersion(reply: HttpReply): string {
  const etag = reply.headers.get("etag");
  if (etag) return `etag:${etag}`;
  const modified = reply.headers.get("last-modified");
  return modified ? `date:${modified}` : "";
}

export function conditionalHeaders(version: string | undefined): Record<string, string> {
  if (version?.startsWith("etag:")) return { "If-None-Match": version.slice(5) };
  if (version?.startsWith("date:")) return { "If-Modified-Since": version.slice(5) };
  return {};
}
