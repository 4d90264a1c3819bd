/**
 * Where a kerchunk reference's bytes live. A target URL is a local path (absolute, or relative to
 * the reference document's own folder), a `file:` URL, an http(s) URL (read through FetchStore,
 * so the HTTP policy applies), `s3://bucket/key` (S3Store) or `gs://`/`gcs://` (Google Cloud
 * Storage's public HTTPS endpoint). The stores that read them, one per folder and reused, are
 * reference-reads.ts's (TargetStores), as is the check of where targets may lead (checkTarget).
 *
 * Where targets may lead depends on where the document came from: a document read from a server
 * (http(s), s3) may reach its own origin (bucket) and what `allowTargets` adds, never local files,
 * never another address (one only this machine reaches: 169.254.169.254), however its host is
 * spelled, since URLs are compared as `new URL` normalises them; redirects likewise (FetchStore's
 * allowRedirects). A local or in-memory document is the user's own: its targets may be anywhere,
 * as the user could read them anyway.
 *
 * No Node built-ins here or in reference-reads.ts: local paths go through the platform's
 * file-system store, so the modules also load in browsers (where only URLs work).
 */
import { InvalidArgumentError, InvalidReferenceError, UnsupportedError } from "../errors.js";
import { httpPolicy, type HttpOptions, type HttpPolicy } from "./http.js";
import { parseS3Url, resolveS3Config } from "./s3-config.js";
import type { S3StoreDescriptor, S3StoreOptions } from "./s3.js";

export type Location =
  | { kind: "local"; path: string }
  | { kind: "http"; url: string }
  | { kind: "s3"; bucket: string; key: string };

/** How targets (and the document itself) are reached; everything resolved, so workers match. */
export interface TargetAccess {
  headers: Record<string, string>;
  http: HttpPolicy;
  s3: Pick<S3StoreDescriptor, "endpoint" | "region" | "credentials">;
  /** allowTargets, each entry normalised as locationUrl writes a location ("*" as it is). */
  allowTargets: string[];
}

export interface TargetAccessOptions {
  /** Sent with every HTTP(S) request (the document's and the targets'). */
  headers?: Record<string, string>;
  /** Timeouts and retries for HTTP(S) and S3 (see http.ts). */
  http?: HttpOptions;
  /** For s3:// URLs: endpoint, region, credentials; what is missing comes from the environment. */
  s3?: Pick<S3StoreOptions, "endpoint" | "region" | "credentials" | "useEnvironment">;
  /**
   * Where targets of a document read from a server may lead besides the document's own origin
   * (its bucket, for s3://): origins (`https://data.example.org`), URL prefixes
   * (`https://data.example.org/netcdf/`, `s3://bucket/prefix/`), local folders (`file:///data/`
   * or `/data/`), or `"*"` for anywhere. Anything else is an AccessDeniedError (ACCESS_DENIED)
   * before it is read, redirects included: a document from a server must not make parzarr read
   * local files or reach addresses only this machine can (169.254.169.254). Documents read from a
   * local path, or built in memory, may reach anything, and redirects of their targets what this
   * allows.
   */
  allowTargets?: string[];
}

export function resolveTargetAccess(options: TargetAccessOptions): TargetAccess {
  return {
    headers: { ...options.headers },
    http: httpPolicy(options.http),
    s3: resolveS3Config(options.s3 ?? {}),
    allowTargets: (options.allowTargets ?? []).map(allowedPrefix),
  };
}

/** An allowTargets entry as locationUrl writes locations, so that the two compare as text. */
function allowedPrefix(entry: string): string {
  if (entry === "*") return entry;
  const bad = (why: string): never => {
    throw new InvalidArgumentError(`allowTargets: ${JSON.stringify(entry)} ${why}`);
  };
  if (typeof entry !== "string" || (!/^[a-z][a-z0-9+.-]+:/i.test(entry) && !entry.startsWith("/"))) {
    bad("is not an origin, a URL prefix or an absolute path");
  }
  try {
    if (/^s3a?:/i.test(entry)) {
      const { bucket, prefix } = parseS3Url(entry.replace(/^s3a:/i, "s3:"));
      return `s3://${bucket}/${prefix}`;
    }
    return locationUrl(locate(entry, undefined, ""));
  } catch (err) {
    return bad(`cannot be read: ${(err as Error).message}`);
  }
}

/** A location as one URL, comparable with allowTargets entries: a local path as a file: URL. */
export function locationUrl(loc: Location): string {
  return loc.kind === "local" ? `file://${loc.path}` : locationText(loc);
}

/**
 * What the targets of a document at `doc` may reach without allowTargets: its origin (bucket) for
 * a document read from a server; undefined, meaning anything, for a local one.
 */
export function documentScope(doc: Location): string | undefined {
  if (doc.kind === "http") return `${new URL(doc.url).origin}/`;
  if (doc.kind === "s3") return `s3://${doc.bucket}/`;
  return undefined;
}

/** A location as text, for messages and as a cache key: a path, or a URL. */
export function locationText(loc: Location): string {
  switch (loc.kind) {
    case "local":
      return loc.path;
    case "http":
      return loc.url;
    case "s3":
      return `s3://${loc.bucket}/${loc.key}`;
  }
}

/** `.` and `..` segments of a `/`-separated path resolved; a leading and a trailing `/` are kept. */
function normalizePath(path: string): string {
  const abs = path.startsWith("/");
  const out: string[] = [];
  for (const seg of path.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === ".." && out.length > 0 && out[out.length - 1] !== "..") out.pop();
    else if (seg === ".." && abs) continue;
    else out.push(seg);
  }
  const folder = path.endsWith("/") && out.length > 0 ? "/" : "";
  return (abs ? "/" : "") + out.join("/") + folder;
}

/** The folder part of a `/`-separated path, with its trailing `/` ("" when none). */
export function folderOf(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash === -1 ? "" : path.slice(0, slash + 1);
}

/**
 * Where `url` points, relative ones resolved against `base` (the reference document's location;
 * without one, against the current folder). `key` names the reference in errors.
 */
export function locate(url: string, base: Location | undefined, key: string): Location {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(url)?.[1]?.toLowerCase();
  // One letter before ":" is a Windows drive, not a scheme.
  if (scheme !== undefined && scheme.length > 1) {
    if (scheme === "http" || scheme === "https") return { kind: "http", url: new URL(url).href };
    if (scheme === "file") return { kind: "local", path: decodeURIComponent(new URL(url).pathname) };
    if (scheme === "s3" || scheme === "s3a") {
      const { bucket, prefix } = parseS3Url(url.replace(/^s3a:/i, "s3:"));
      if (prefix === "") throw new InvalidReferenceError(`reference "${key}": target ${JSON.stringify(url)} names a bucket, not an object`, key);
      return { kind: "s3", bucket, key: prefix };
    }
    if (scheme === "gs" || scheme === "gcs") {
      return { kind: "http", url: new URL(url.replace(/^gc?s:\/\//i, ""), "https://storage.googleapis.com/").href };
    }
    throw new UnsupportedError(`reference "${key}": target ${JSON.stringify(url)}: parzarr reads targets on local files, http(s), s3 and gs, not "${scheme}:"`);
  }
  if (url.startsWith("/") || base === undefined) return { kind: "local", path: normalizePath(url) };
  switch (base.kind) {
    case "local":
      return { kind: "local", path: normalizePath(folderOf(base.path) + url) };
    case "http":
      return { kind: "http", url: new URL(url, base.url).href };
    case "s3":
      return { kind: "s3", bucket: base.bucket, key: normalizePath(folderOf(base.key) + url).replace(/^\/+/, "") };
  }
}
