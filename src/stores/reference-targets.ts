/**
 * Where a kerchunk reference's bytes live, and the store that reads them. A target URL is a
 * local path (absolute, or relative to the reference document's own folder), a `file:` URL, an
 * http(s) URL (read through FetchStore, so the HTTP policy applies), `s3://bucket/key` (S3Store)
 * or `gs://`/`gcs://` (Google Cloud Storage's public HTTPS endpoint). Each target is a key of a
 * store opened on its folder; stores are opened once per folder and reused.
 *
 * No Node built-ins here: local paths go through the platform's file-system store, so the module
 * also loads in browsers (where only URLs work).
 */
import { InvalidReferenceError, UnsupportedError } from "../errors.js";
import { FetchStore } from "./fetch.js";
import { httpPolicy, type HttpOptions, type HttpPolicy } from "./http.js";
import { platform } from "../platform/current.js";
import { parseS3Url, resolveS3Config, S3Store, type S3StoreDescriptor, type S3StoreOptions } from "./s3.js";
import type { ReadableStore } from "./types.js";

export type Location =
  | { kind: "local"; path: string }
  | { kind: "http"; url: string }
  | { kind: "s3"; bucket: string; key: string };

/** How targets (and the document itself) are reached; everything resolved, so workers match. */
export interface TargetAccess {
  headers: Record<string, string>;
  http: HttpPolicy;
  s3: Pick<S3StoreDescriptor, "endpoint" | "region" | "credentials">;
}

export interface TargetAccessOptions {
  /** Sent with every HTTP(S) request (the document's and the targets'). */
  headers?: Record<string, string>;
  /** Timeouts and retries for HTTP(S) and S3 (see http.ts). */
  http?: HttpOptions;
  /** For s3:// URLs: endpoint, region, credentials; what is missing comes from the environment. */
  s3?: Pick<S3StoreOptions, "endpoint" | "region" | "credentials" | "useEnvironment">;
}

export function resolveTargetAccess(options: TargetAccessOptions): TargetAccess {
  return { headers: { ...options.headers }, http: httpPolicy(options.http), s3: resolveS3Config(options.s3 ?? {}) };
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

function folderOf(path: string): string {
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
      return { kind: "http", url: new URL(url.replace(/^gcs?:\/\//i, ""), "https://storage.googleapis.com/").href };
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

/** A store on a location's folder, and the location's key in it. */
export class TargetStores {
  private readonly stores = new Map<string, ReadableStore>();

  constructor(private readonly access: TargetAccess) {}

  open(loc: Location): { store: ReadableStore; key: string } {
    let folder: string;
    let name: string;
    let make: () => ReadableStore;
    switch (loc.kind) {
      case "local": {
        folder = folderOf(loc.path) || ".";
        name = loc.path.slice(folderOf(loc.path).length);
        const local = platform().localStore;
        if (!local) throw new UnsupportedError(`${JSON.stringify(loc.path)} is a local path, and there are no local paths in a browser: use http(s) or s3 targets`);
        // A target is a key directly in its folder's store, so no symbolic-link check applies.
        make = () => local(folder, { readOnly: true }) as ReadableStore;
        break;
      }
      case "http": {
        const u = new URL(loc.url);
        const search = u.search;
        u.search = "";
        u.hash = "";
        folder = folderOf(u.href);
        name = decodeURIComponent(u.href.slice(folder.length));
        make = () => new FetchStore(folder + search, { headers: this.access.headers, http: this.access.http });
        folder += search;
        break;
      }
      case "s3": {
        folder = `s3://${loc.bucket}/${folderOf(loc.key)}`;
        name = loc.key.slice(folderOf(loc.key).length);
        make = () => new S3Store(folder, { ...this.access.s3, readOnly: true, http: this.access.http, useEnvironment: false });
        break;
      }
    }
    const cacheKey = `${loc.kind}\0${folder}`;
    let store = this.stores.get(cacheKey);
    if (!store) {
      store = make();
      this.stores.set(cacheKey, store);
    }
    return { store, key: name };
  }
}
