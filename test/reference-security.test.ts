/**
 * What a kerchunk reference document fetched from a server may make parzarr read: targets on the
 * document's own origin (relative or absolute, however the host is written), and what the caller
 * allows with `allowTargets`; never local files, never another origin, not through a redirect
 * either. Two real servers on 127.0.0.1: the document's, and "elsewhere" (another port, so another
 * origin), which counts the requests that reach it: a refused target must not be requested at all.
 * Also: FetchStore's own redirects, and gs:// targets.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { AccessDeniedError, FetchStore, ReferenceStore } from "../src/index.js";
import { storeFromDescriptor } from "../src/stores/kinds.js";
import { locate } from "../src/stores/reference-targets.js";
import { scratchDir } from "./helpers/paths.js";
import { rejection } from "./helpers/rejection.js";

/** Quick failures: a target that was wrongly requested must not hold the test up for minutes. */
const HTTP = { timeoutMs: 3000, retries: 0 };

interface TestServer {
  server: Server;
  port: number;
  origin: string;
  /** Paths requested, in order. */
  requests: string[];
  /** The Authorization header of each request ("" when none). */
  authorizations: string[];
  /** Documents and files served, by path. */
  files: Map<string, string>;
  /** Redirects, by path: the Location answered. */
  redirects: Map<string, string>;
}

async function serve(): Promise<TestServer> {
  const t = { requests: [] as string[], authorizations: [] as string[], files: new Map<string, string>(), redirects: new Map<string, string>() } as TestServer;
  t.server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    t.requests.push(path);
    t.authorizations.push(req.headers.authorization ?? "");
    const to = t.redirects.get(path);
    if (to !== undefined) return void res.writeHead(302, { Location: to }).end();
    const body = t.files.get(path);
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { "Content-Type": "application/octet-stream" }).end(req.method === "HEAD" ? undefined : body);
  });
  await new Promise<void>((resolve) => t.server.listen(0, "127.0.0.1", resolve));
  t.port = (t.server.address() as AddressInfo).port;
  t.origin = `http://127.0.0.1:${t.port}`;
  return t;
}


const text = (b: Uint8Array | null | undefined) => (b == null ? undefined : new TextDecoder().decode(b));

let home: TestServer;
let elsewhere: TestServer;
let secretPath: string;

before(async () => {
  home = await serve();
  elsewhere = await serve();
  const dir = scratchDir();
  secretPath = join(dir, "secret.txt");
  writeFileSync(secretPath, "local secret");
  home.files.set("/data/file.bin", "home bytes");
  elsewhere.files.set("/x", "elsewhere bytes");
  elsewhere.files.set("/ok/file.bin", "allowed bytes");
  home.redirects.set("/data/away.bin", `${elsewhere.origin}/x`);
  home.redirects.set("/data/moved.bin", "/data/file.bin");
});

after(() => {
  home.server.close();
  elsewhere.server.close();
});

/** Serves a version-0 document with one reference per entry of `refs` (a whole-file target each). */
function document(name: string, refs: Record<string, string>): string {
  const doc: Record<string, unknown> = {};
  for (const [key, url] of Object.entries(refs)) doc[key] = [url];
  home.files.set(`/${name}`, JSON.stringify(doc));
  return `${home.origin}/${name}`;
}

describe("targets of a document fetched from a server", () => {
  test("relative targets, and absolute ones on the document's origin however written, are read", async () => {
    const port = home.port;
    const url = document("same.json", {
      rel: "data/file.bin",
      abs: `${home.origin}/data/file.bin`,
      // 2130706433 is 127.0.0.1 as one decimal number; the URL parser normalises it.
      decimal: `http://2130706433:${port}/data/file.bin`,
      upper: `HTTP://127.0.0.1:${port}/data/./x/../file.bin`,
    });
    const store = await ReferenceStore.open(url, { http: HTTP });
    for (const key of ["rel", "abs", "decimal", "upper"]) assert.equal(text(await store.get(key)), "home bytes", key);
  });

  test("a local path or file: URL target is refused, and the file is not read", async () => {
    const url = document("local.json", { abs: secretPath, file: `file://${secretPath}` });
    const store = await ReferenceStore.open(url, { http: HTTP });
    for (const key of ["abs", "file"]) {
      const err = await rejection(store.get(key));
      assert.equal(err.code, "ACCESS_DENIED", `${key}: ${err.message}`);
      assert.ok(err instanceof AccessDeniedError && err.key === key, err.message);
      assert.match(err.message, /allowTargets/);
    }
  });

  test("targets on another origin are refused before any request, in every spelling of the host", async () => {
    const before = elsewhere.requests.length;
    const port = elsewhere.port;
    const url = document("away.json", {
      plain: `${elsewhere.origin}/x`,
      decimal: `http://2130706433:${port}/x`,
      mapped: `http://[::ffff:127.0.0.1]:${port}/x`,
      mappedHex: `http://[::ffff:7f00:1]:${port}/x`,
      metadata: "http://169.254.169.254/latest/meta-data/",
      metadataDecimal: "http://2852039166/latest/meta-data/",
      metadataMapped: "http://[::ffff:a9fe:a9fe]/latest/meta-data/",
      s3: "s3://bucket/key",
      gs: "gs://bucket/key",
    });
    const store = await ReferenceStore.open(url, { http: HTTP });
    for (const key of ["plain", "decimal", "mapped", "mappedHex", "metadata", "metadataDecimal", "metadataMapped", "s3", "gs"]) {
      const err = await rejection(store.get(key));
      assert.equal(err.code, "ACCESS_DENIED", `${key}: ${err.message}`);
      // getSize and has reach targets too (getSize does); nothing may slip through there.
      assert.equal((await rejection(store.getSize(key))).code, "ACCESS_DENIED", key);
    }
    assert.equal(elsewhere.requests.length, before, "no request reached the other origin");
  });

  test("a redirect to another origin is refused; one on the same origin is followed", async () => {
    const before = elsewhere.requests.length;
    const url = document("redirects.json", { away: "data/away.bin", moved: "data/moved.bin" });
    const store = await ReferenceStore.open(url, { http: HTTP });
    const err = await rejection(store.get("away"));
    assert.equal(err.code, "ACCESS_DENIED", err.message);
    assert.equal(elsewhere.requests.length, before, "the redirect was not followed");
    assert.equal(text(await store.get("moved")), "home bytes");
  });

  test("allowTargets opens what it names, and only that", async () => {
    const before = elsewhere.requests.length;
    const url = document("allowed.json", { ok: `${elsewhere.origin}/ok/file.bin`, other: `${elsewhere.origin}/x`, local: secretPath });
    const store = await ReferenceStore.open(url, { http: HTTP, allowTargets: [`${elsewhere.origin}/ok/`] });
    assert.equal(text(await store.get("ok")), "allowed bytes");
    assert.equal((await rejection(store.get("other"))).code, "ACCESS_DENIED");
    assert.equal((await rejection(store.get("local"))).code, "ACCESS_DENIED");
    assert.deepEqual(elsewhere.requests.slice(before), ["/ok/file.bin"]);
    // An origin allows all of it; the rule travels to workers in the descriptor.
    const wide = storeFromDescriptor((await ReferenceStore.open(url, { http: HTTP, allowTargets: [elsewhere.origin] })).descriptor());
    assert.equal(text(await wide.get("other")), "elsewhere bytes");
    // A local folder, as a file: URL or a path.
    const dirUrl = `file://${secretPath.slice(0, secretPath.lastIndexOf("/") + 1)}`;
    const local = await ReferenceStore.open(url, { http: HTTP, allowTargets: [dirUrl] });
    assert.equal(text(await local.get("local")), "local secret");
  });

  test("a local document keeps local and remote targets", async () => {
    const dir = scratchDir();
    const docPath = join(dir, "refs.json");
    writeFileSync(docPath, JSON.stringify({ local: [secretPath], remote: [`${elsewhere.origin}/x`] }));
    const store = await ReferenceStore.open(docPath, { http: HTTP });
    assert.equal(text(await store.get("local")), "local secret");
    assert.equal(text(await store.get("remote")), "elsewhere bytes");
  });

  test("allowTargets entries that are not URLs or absolute paths are refused at open", () => {
    assert.throws(() => ReferenceStore.at(`${home.origin}/same.json`, { allowTargets: ["relative/folder"] }), { code: "INVALID_ARGUMENT" });
  });
});

describe("FetchStore redirects", () => {
  test("a redirect to another origin is refused with ACCESS_DENIED and not followed", async () => {
    const before = elsewhere.requests.length;
    const store = new FetchStore(`${home.origin}/data`, { http: HTTP });
    const err = await rejection(store.get("away.bin"));
    assert.equal(err.code, "ACCESS_DENIED", err.message);
    assert.match(err.message, new RegExp(elsewhere.origin.replace(/[.]/g, "\\.")));
    assert.equal((await rejection(store.getRange("away.bin", { offset: 0, length: 4 }))).code, "ACCESS_DENIED");
    assert.equal((await rejection(store.has("away.bin"))).code, "ACCESS_DENIED");
    assert.equal(elsewhere.requests.length, before);
  });

  test("same-origin redirects are followed; allowRedirects opens other origins", async () => {
    const store = new FetchStore(`${home.origin}/data`, { http: HTTP });
    assert.equal(text(await store.get("moved.bin")), "home bytes");
    assert.equal(text(await store.getRange("moved.bin", { offset: 5, length: 5 })), "bytes");
    const open = new FetchStore(`${home.origin}/data`, { http: HTTP, allowRedirects: [elsewhere.origin] });
    assert.equal(text(await open.get("away.bin")), "elsewhere bytes");
    // Credentials are the store's origin's: a redirect to another origin does not carry them on.
    const withAuth = new FetchStore(`${home.origin}/data`, { http: HTTP, allowRedirects: [elsewhere.origin], headers: { Authorization: "Bearer home" } });
    const seen = elsewhere.authorizations.length;
    assert.equal(text(await withAuth.get("away.bin")), "elsewhere bytes");
    assert.deepEqual(elsewhere.authorizations.slice(seen), [""]);
    assert.equal(home.authorizations.at(-1), "Bearer home");
    // The allowance travels in the descriptor.
    const copy = storeFromDescriptor(open.descriptor());
    assert.equal(text(await copy.get("away.bin")), "elsewhere bytes");
  });
});

test("gs:// targets map to Google Cloud Storage's HTTPS endpoint, as gcs:// do", () => {
  for (const scheme of ["gs", "gcs", "GS"]) {
    assert.deepEqual(locate(`${scheme}://bucket/path/to/file.nc`, undefined, "k"), {
      kind: "http",
      url: "https://storage.googleapis.com/bucket/path/to/file.nc",
    });
  }
});
