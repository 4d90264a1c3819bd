/**
 * The store layer on its own: MemoryStore, FileSystemStore and FetchStore (against a real HTTP
 * server started here), key validation, and turning paths, URLs and descriptors into stores.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, relative, resolve, sep } from "node:path";
import { after, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { AccessDeniedError, ZarrError } from "../src/errors.js";
import { FetchStore, FileSystemStore, MemoryStore, joinKey, resolveStore, validateKey, validatePrefix, type WritableStore } from "../src/stores/index.js";
import { DEFAULT_HTTP_POLICY } from "../src/stores/http.js";
import { getMemoryStore } from "../src/stores/memory.js";
import { storeFromDescriptor } from "../src/stores/kinds.js";

const scratchRoot = mkdtempSync(join(tmpdir(), "parzarr-stores-"));
after(() => rmSync(scratchRoot, { recursive: true, force: true }));
let scratchCount = 0;
function scratchDir(): string {
  const dir = join(scratchRoot, String(scratchCount++));
  mkdirSync(dir);
  return dir;
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array | undefined | null): string | undefined => (b == null ? undefined : new TextDecoder().decode(b));

/** An assert.rejects/throws matcher: a ZarrError with this code whose message has every snippet. */
function hasCode(code: string, ...snippets: string[]): (err: unknown) => boolean {
  return (err) => {
    assert.ok(err instanceof ZarrError, `expected a ZarrError, got ${String(err)}`);
    assert.equal(err.code, code, err.message);
    for (const s of snippets) assert.ok(err.message.includes(s), `"${err.message}" should mention "${s}"`);
    return true;
  };
}

/** Every file under a folder, relative, with `/`: what a listing should never hide. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else out.push(relative(dir, join(d, e.name)).split(sep).join("/"));
    }
  };
  walk(dir);
  return out.sort();
}

const BAD_KEYS = ["", "..", "a/../b", "../escape", "/abs", "a//b", "a/", "./a", "a/.", "C:/x", "c:x", "a\\b", "a\0b"];

describe("keys", () => {
  test("validateKey accepts relative keys, including v2 metadata names", () => {
    for (const k of ["a", "a/b/zarr.json", ".zarray", "data/.zattrs", "c/0/1", "0.0.1", "a..b", "...x"]) {
      assert.equal(validateKey(k), k);
    }
  });

  test("validateKey refuses bad keys with INVALID_KEY, quoting the key", () => {
    for (const k of BAD_KEYS) {
      assert.throws(() => validateKey(k), hasCode("INVALID_KEY", JSON.stringify(k)), JSON.stringify(k));
    }
  });

  test("validatePrefix wants '' or a valid key followed by '/'", () => {
    for (const p of ["", "a/", "a/b/", ".zgroup/"]) assert.equal(validatePrefix(p), p);
    for (const p of ["a", "/", "a//", "../", "a/../", "/a/", "a\\b/"]) {
      assert.throws(() => validatePrefix(p), hasCode("INVALID_KEY"), JSON.stringify(p));
    }
  });

  test("joinKey skips empty parts and never makes empty segments", () => {
    assert.equal(joinKey("", "a", "", "b/c", "zarr.json"), "a/b/c/zarr.json");
    assert.equal(joinKey("a/", "/b"), "a/b");
    assert.equal(joinKey("", ""), "");
    assert.equal(joinKey("group", ".zattrs"), "group/.zattrs");
  });
});

/** The behaviour every writable store shares, run against each of them. */
function writableStoreSuite(name: string, make: () => WritableStore): void {
  describe(`${name}: the common contract`, () => {
    test("get/set/has/delete", async () => {
      const s = make();
      assert.equal(await s.get("a/b"), undefined);
      assert.equal(await s.has("a/b"), false);
      await s.set("a/b", enc("hello"));
      assert.equal(dec(await s.get("a/b")), "hello");
      assert.equal(await s.has("a/b"), true);
      await s.set("a/b", enc("bye"));
      assert.equal(dec(await s.get("a/b")), "bye", "set replaces");
      await s.delete("a/b");
      assert.equal(await s.get("a/b"), undefined);
      assert.equal(await s.has("a/b"), false);
      await s.delete("a/b");
      await s.delete("never/was");
    });

    test("a folder is not a key", async () => {
      const s = make();
      await s.set("g/arr/c/0", enc("x"));
      assert.equal(await s.get("g/arr"), undefined);
      assert.equal(await s.has("g/arr"), false);
      assert.equal(await s.getRange("g/arr", { offset: 0 }), undefined);
    });

    test("empty values round-trip", async () => {
      const s = make();
      await s.set("empty", new Uint8Array(0));
      assert.deepEqual(await s.get("empty"), new Uint8Array(0));
      assert.equal(await s.has("empty"), true);
    });

    test("getRange: positive, suffix, past the end, missing key", async () => {
      const s = make();
      await s.set("r", enc("0123456789"));
      assert.equal(dec(await s.getRange("r", { offset: 2, length: 3 })), "234");
      assert.equal(dec(await s.getRange("r", { offset: 7 })), "789");
      assert.equal(dec(await s.getRange("r", { offset: 0 })), "0123456789");
      assert.equal(dec(await s.getRange("r", { offset: -3 })), "789", "suffix");
      assert.equal(dec(await s.getRange("r", { offset: -4, length: 2 })), "67", "suffix with a length");
      assert.equal(dec(await s.getRange("r", { offset: -50 })), "0123456789", "suffix longer than the value");
      assert.equal(dec(await s.getRange("r", { offset: 8, length: 10 })), "89", "length past the end");
      assert.equal(dec(await s.getRange("r", { offset: 10 })), "", "starting at the end");
      assert.equal(dec(await s.getRange("r", { offset: 25, length: 4 })), "", "starting past the end");
      assert.equal(dec(await s.getRange("r", { offset: 3, length: 0 })), "");
      assert.equal(await s.getRange("nope", { offset: 0, length: 2 }), undefined);
      await assert.rejects(s.getRange("r", { offset: 1.5 }), hasCode("BAD_SELECTION"));
      await assert.rejects(s.getRange("r", { offset: 0, length: -1 }), hasCode("BAD_SELECTION"));
    });

    test("list and listDir", async () => {
      const s = make();
      for (const k of ["zarr.json", "g/zarr.json", "g/a/zarr.json", "g/a/c/0/0", "g/a/c/0/1", "g/b/.zarray", "h"]) {
        await s.set(k, enc(k));
      }
      assert.deepEqual(await s.list(""), ["g/a/c/0/0", "g/a/c/0/1", "g/a/zarr.json", "g/b/.zarray", "g/zarr.json", "h", "zarr.json"]);
      assert.deepEqual(await s.list("g/a/"), ["g/a/c/0/0", "g/a/c/0/1", "g/a/zarr.json"]);
      assert.deepEqual(await s.list("nothing/"), []);
      assert.deepEqual(await s.list("h/"), [], "a key is not a folder");
      assert.deepEqual(await s.listDir(""), { keys: ["h", "zarr.json"], prefixes: ["g"] });
      assert.deepEqual(await s.listDir("g/"), { keys: ["zarr.json"], prefixes: ["a", "b"] });
      assert.deepEqual(await s.listDir("g/a/c/0/"), { keys: ["0", "1"], prefixes: [] });
      assert.deepEqual(await s.listDir("nothing/"), { keys: [], prefixes: [] });
      await assert.rejects(s.list("g"), hasCode("INVALID_KEY"));
      await assert.rejects(s.listDir("../"), hasCode("INVALID_KEY"));
    });

    test("deletePrefix removes a folder and nothing beside it", async () => {
      const s = make();
      for (const k of ["a/x", "a/b/y", "ab", "a2/z"]) await s.set(k, enc(k));
      await s.deletePrefix("a/");
      assert.deepEqual(await s.list(""), ["a2/z", "ab"]);
      await s.deletePrefix("missing/");
      await s.deletePrefix("");
      assert.deepEqual(await s.list(""), []);
    });

    test("bad keys are refused with INVALID_KEY by every method", async () => {
      const s = make();
      for (const k of BAD_KEYS) {
        await assert.rejects(s.set(k, enc("x")), hasCode("INVALID_KEY"), JSON.stringify(k));
        await assert.rejects(s.get(k), hasCode("INVALID_KEY"), JSON.stringify(k));
        await assert.rejects(s.getRange(k, { offset: 0 }), hasCode("INVALID_KEY"), JSON.stringify(k));
        await assert.rejects(s.has(k), hasCode("INVALID_KEY"), JSON.stringify(k));
        await assert.rejects(s.delete(k), hasCode("INVALID_KEY"), JSON.stringify(k));
      }
      assert.deepEqual(await s.list(""), []);
    });

    test("set keeps its own copy of the bytes", async () => {
      const s = make();
      const buf = enc("abc");
      await s.set("k", buf);
      buf[0] = 0x7a;
      assert.equal(dec(await s.get("k")), "abc");
      const got = await s.get("k");
      assert.ok(got);
      got[1] = 0x7a;
      assert.equal(dec(await s.get("k")), "abc", "changing what get returned changes nothing stored");
    });

    test("concurrent writes and deletes in one folder all land", async () => {
      // Arrays delete all-fill chunks while writing their neighbours: a delete that empties a
      // folder (and prunes it) must not pull the folder out from under a write into it.
      const s = make();
      for (let round = 0; round < 50; round++) {
        const dir = `d/c/${round}/`;
        await Promise.all([1, 3, 5, 7].map((i) => s.set(`${dir}${i}`, enc("old"))));
        await Promise.all([0, 1, 2, 3, 4, 5, 6, 7].map((i) => (i % 2 === 0 ? s.set(`${dir}${i}`, enc("new")) : s.delete(`${dir}${i}`))));
        assert.deepEqual(await s.list(dir), [0, 2, 4, 6].map((i) => `${dir}${i}`));
      }
    });
  });
}

writableStoreSuite("MemoryStore", () => new MemoryStore());
writableStoreSuite("FileSystemStore", () => new FileSystemStore(scratchDir()));

describe("MemoryStore", () => {
  test("readOnly refuses every write with READ_ONLY", async () => {
    const s = new MemoryStore({ readOnly: true });
    assert.equal(s.readOnly, true);
    await assert.rejects(s.set("a", enc("x")), hasCode("READ_ONLY"));
    await assert.rejects(s.delete("a"), hasCode("READ_ONLY"));
    await assert.rejects(s.deletePrefix("a/"), hasCode("READ_ONLY"));
    assert.equal(await s.get("a"), undefined);
  });

  test("descriptors are unique and find the same store again in this thread", async () => {
    const a = new MemoryStore();
    const b = new MemoryStore();
    const da = a.descriptor();
    const db = b.descriptor();
    assert.equal(da.kind, "memory");
    assert.notDeepEqual(da, db);
    assert.equal(da.kind === "memory" && getMemoryStore(da.id), a);
    assert.equal(storeFromDescriptor(da), a);
    assert.equal(storeFromDescriptor(db), b);
    assert.equal(getMemoryStore("memory-nope"), undefined);
    assert.throws(() => storeFromDescriptor({ kind: "memory", id: "memory-nope" }), hasCode("STORE_ERROR", "memory-nope"));
  });

  test("a Node Buffer passed to set is copied, not viewed", async () => {
    const s = new MemoryStore();
    const buf = Buffer.from("abc");
    await s.set("k", buf);
    buf[0] = 0x7a;
    assert.equal(dec(await s.get("k")), "abc");
  });
});

describe("FileSystemStore", () => {
  test("one file per key under the root, descriptor with the absolute root", async () => {
    const dir = scratchDir();
    const s = new FileSystemStore(relative(process.cwd(), dir));
    assert.equal(s.root, dir);
    assert.deepEqual(s.descriptor(), { kind: "filesystem", root: dir, readOnly: false });
    await s.set("g/a/.zarray", enc("{}"));
    assert.equal(readFileSync(join(dir, "g", "a", ".zarray"), "utf8"), "{}");
    const again = storeFromDescriptor(s.descriptor());
    assert.ok(again instanceof FileSystemStore);
    assert.equal(dec(await again.get("g/a/.zarray")), "{}");
  });

  test("set is atomic: no temporary files are left behind", async () => {
    const dir = scratchDir();
    const s = new FileSystemStore(dir);
    await Promise.all(Array.from({ length: 30 }, (_, i) => s.set(`c/${i % 3}/${i}`, new Uint8Array(1000).fill(i))));
    await Promise.all(Array.from({ length: 30 }, (_, i) => s.set(`c/${i % 3}/${i}`, new Uint8Array(10).fill(i))));
    const files = filesUnder(dir);
    assert.equal(files.length, 30);
    assert.ok(files.every((f) => /^c\/\d\/\d+$/.test(f)), files.join(", "));
    assert.deepEqual(await s.get("c/1/4"), new Uint8Array(10).fill(4));
  });

  test("an interrupted write (a temp file left behind) is invisible", async () => {
    const dir = scratchDir();
    const s = new FileSystemStore(dir);
    await s.set("arr/c/0", enc("old"));
    // What a crash between writeFile and rename leaves: a temp file beside the real one.
    const tmpName = ".0.4242.0123456789ab.tmp";
    writeFileSync(join(dir, "arr", "c", tmpName), "half of the new val");
    writeFileSync(join(dir, "arr", `.zarray.4242.abcdefabcdef.tmp`), "{");
    assert.deepEqual(await s.list(""), ["arr/c/0"]);
    assert.deepEqual(await s.listDir("arr/c/"), { keys: ["0"], prefixes: [] });
    assert.deepEqual(await s.listDir("arr/"), { keys: [], prefixes: ["c"] });
    assert.equal(dec(await s.get("arr/c/0")), "old");
    assert.equal(await s.get("arr/.zarray"), undefined);
    // The temp name itself cannot be used as a key, so nothing can read half-written bytes.
    await assert.rejects(s.get(`arr/c/${tmpName}`), hasCode("INVALID_KEY", "temporary"));
    await assert.rejects(s.set(`arr/c/${tmpName}`, enc("x")), hasCode("INVALID_KEY"));
    // Keys that merely look a bit like temp files are fine.
    await s.set("arr/.zattrs", enc("{}"));
    await s.set("x.tmp", enc("1"));
    assert.deepEqual(await s.list(""), ["arr/.zattrs", "arr/c/0", "x.tmp"]);
  });

  test("delete prunes emptied folders up to, not including, the root", async () => {
    const dir = scratchDir();
    const root = join(dir, "store");
    const s = new FileSystemStore(root);
    await s.set("g/a/c/0/0", enc("x"));
    await s.set("g/zarr.json", enc("{}"));
    await s.delete("g/a/c/0/0");
    assert.equal(existsSync(join(root, "g", "a")), false, "g/a is gone");
    assert.equal(existsSync(join(root, "g", "zarr.json")), true);
    await s.delete("g/zarr.json");
    assert.equal(existsSync(join(root, "g")), false);
    assert.equal(statSync(root).isDirectory(), true, "the root stays");
    await s.set("p/q/r", enc("1"));
    await s.deletePrefix("p/q/");
    assert.deepEqual(readdirSync(root), [], "deletePrefix prunes too");
    await s.delete("g/a");
  });

  test("a folder removed behind the store's back (after the store made it) is made again by the next write", async () => {
    const root = join(scratchDir(), "store");
    const s = new FileSystemStore(root);
    await s.set("g/c/0/0", enc("a"));
    // Another process prunes the folder this store wrote into last: the store's note that it
    // exists is stale, and the write must not fail on it.
    rmSync(join(root, "g"), { recursive: true });
    await s.set("g/c/0/1", enc("b"));
    assert.equal(readFileSync(join(root, "g", "c", "0", "1"), "utf8"), "b");
    rmSync(join(root, "g", "c"), { recursive: true });
    await s.set("g/c/0/0", enc("c"));
    assert.deepEqual(readdirSync(join(root, "g", "c", "0")), ["0"]);
  });

  test("deletePrefix('a/') leaves a file named 'a' alone", async () => {
    const s = new FileSystemStore(scratchDir());
    await s.set("a", enc("key a"));
    await s.deletePrefix("a/");
    assert.equal(dec(await s.get("a")), "key a");
    await s.delete("a/b");
    assert.equal(dec(await s.get("a")), "key a");
  });

  test("readOnly refuses every write with READ_ONLY and writes nothing", async () => {
    const dir = scratchDir();
    writeFileSync(join(dir, "k"), "v");
    const s = new FileSystemStore(dir, { readOnly: true });
    assert.equal(s.readOnly, true);
    assert.deepEqual(s.descriptor(), { kind: "filesystem", root: dir, readOnly: true });
    await assert.rejects(s.set("new/key", enc("x")), hasCode("READ_ONLY", dir));
    await assert.rejects(s.delete("k"), hasCode("READ_ONLY"));
    await assert.rejects(s.deletePrefix(""), hasCode("READ_ONLY"));
    assert.deepEqual(filesUnder(dir), ["k"]);
    assert.equal(dec(await s.get("k")), "v");
  });

  test("bad keys write nothing on disk, not even the root folder", async () => {
    const dir = scratchDir();
    const s = new FileSystemStore(join(dir, "inside"));
    for (const k of BAD_KEYS) {
      await assert.rejects(s.set(k, enc("x")), hasCode("INVALID_KEY"), JSON.stringify(k));
    }
    assert.deepEqual(readdirSync(dir), []);
  });

  test("I/O failures become STORE_ERROR naming the key, with the cause attached", async () => {
    const dir = scratchDir();
    const s = new FileSystemStore(dir);
    await s.set("a", enc("file"));
    // "a" is a file, so "a/b" cannot be made.
    await assert.rejects(s.set("a/b", enc("x")), (err: unknown) => {
      hasCode("STORE_ERROR", '"a/b"', dir)(err);
      assert.ok(err instanceof Error && err.cause instanceof Error);
      return true;
    });
    // A folder where a key should be a file cannot be overwritten by a rename.
    await s.set("f/g", enc("1"));
    await assert.rejects(s.set("f", enc("x")), hasCode("STORE_ERROR", '"f"'));
    assert.deepEqual(filesUnder(dir), ["a", "f/g"], "the failed writes left no temp files");
  });

  test("a store on a folder that does not exist yet reads as empty", async () => {
    const s = new FileSystemStore(join(scratchDir(), "not", "yet"));
    assert.deepEqual(await s.list(""), []);
    assert.deepEqual(await s.listDir(""), { keys: [], prefixes: [] });
    assert.equal(await s.get("zarr.json"), undefined);
    await s.deletePrefix("");
    await s.set("zarr.json", enc("{}"));
    assert.deepEqual(await s.list(""), ["zarr.json"]);
  });
});

describe("resolveStore", () => {
  test("paths and file: URLs give FileSystemStores; stores pass through", () => {
    const dir = scratchDir();
    const fromPath = resolveStore(dir, { readOnly: true });
    assert.ok(fromPath instanceof FileSystemStore);
    assert.deepEqual(fromPath.descriptor(), { kind: "filesystem", root: dir, readOnly: true });
    const fromRelative = resolveStore("some/rel.zarr");
    assert.ok(fromRelative instanceof FileSystemStore);
    assert.equal(fromRelative.root, resolve(process.cwd(), "some/rel.zarr"));
    assert.equal(fromRelative.readOnly, false);
    const fromFileUrl = resolveStore(pathToFileURL(dir));
    assert.ok(fromFileUrl instanceof FileSystemStore);
    assert.equal(fromFileUrl.root, dir);
    const fromFileString = resolveStore(pathToFileURL(dir).href);
    assert.ok(fromFileString instanceof FileSystemStore);
    assert.equal(fromFileString.root, dir);
    const mem = new MemoryStore();
    assert.equal(resolveStore(mem), mem);
  });

  test("http(s) strings and URLs give read-only FetchStores", () => {
    for (const input of ["http://example.com/data.zarr", "HTTPS://example.com/data.zarr/", new URL("https://example.com/data.zarr")]) {
      const s = resolveStore(input);
      assert.ok(s instanceof FetchStore, String(input));
      assert.equal(s.readOnly, true);
    }
  });
});

/** An HTTP server over a folder, with modes chosen by the first path segment. */
interface TestServer {
  base: string;
  requests: { method: string; url: string; headers: IncomingMessage["headers"] }[];
}

function serveFolder(root: string): Promise<TestServer & { server: Server }> {
  const requests: TestServer["requests"] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers });
    const url = new URL(req.url ?? "/", "http://localhost");
    const [mode, ...rest] = url.pathname.slice(1).split("/");
    if (mode === "boom") {
      res.writeHead(500).end("internal error");
      return;
    }
    if (mode === "secret" && req.headers.authorization !== "Bearer token") {
      res.writeHead(401).end();
      return;
    }
    if (mode === "signed" && url.searchParams.get("sig") !== "ok") {
      res.writeHead(403).end();
      return;
    }
    if (mode === "nohead" && req.method === "HEAD") {
      res.writeHead(405).end();
      return;
    }
    const path = resolve(root, ...rest.map(decodeURIComponent));
    let body: Buffer;
    try {
      if (!path.startsWith(root + sep)) throw new Error("outside");
      body = readFileSync(path);
    } catch {
      res.writeHead(404).end("not found");
      return;
    }
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    // The "plain" mode is a server that ignores Range altogether.
    if (!range || mode === "plain") {
      res.writeHead(200, { "Content-Length": body.length });
      res.end(req.method === "HEAD" ? undefined : body);
      return;
    }
    const size = body.length;
    let start: number;
    let end: number;
    if (range[1] === "") {
      start = Math.max(0, size - Number(range[2]));
      end = size - 1;
    } else {
      start = Number(range[1]);
      end = range[2] === "" ? size - 1 : Math.min(size - 1, Number(range[2]));
    }
    if (start >= size) {
      res.writeHead(416, { "Content-Range": `bytes */${size}` }).end();
      return;
    }
    res.writeHead(206, { "Content-Range": `bytes ${start}-${end}/${size}`, "Content-Length": end - start + 1 });
    res.end(req.method === "HEAD" ? undefined : body.subarray(start, end + 1));
  });
  return new Promise((done) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      done({ server, requests, base: `http://127.0.0.1:${port}` });
    });
  });
}

describe("FetchStore against a local HTTP server", async () => {
  const dir = scratchDir();
  mkdirSync(join(dir, "data.zarr", "c", "0"), { recursive: true });
  writeFileSync(join(dir, "data.zarr", "zarr.json"), '{"zarr_format":3}');
  writeFileSync(join(dir, "data.zarr", "c", "0", "1"), "0123456789");
  writeFileSync(join(dir, "data.zarr", "empty"), "");
  const { server, requests, base } = await serveFolder(dir);
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const store = new FetchStore(`${base}/ranges/data.zarr`);

  test("get, missing keys, has", async () => {
    assert.equal(dec(await store.get("zarr.json")), '{"zarr_format":3}');
    assert.equal(dec(await store.get("c/0/1")), "0123456789");
    assert.equal(await store.get("c/0/2"), undefined);
    assert.equal(await store.get("c"), undefined, "a folder is not a key");
    assert.equal(await store.has("zarr.json"), true);
    assert.equal(await store.has("nope.json"), false);
    assert.equal(requests.at(-1)?.method, "HEAD");
  });

  test("a base URL with or without a trailing slash", async () => {
    for (const url of [`${base}/ranges/data.zarr/`, `${base}/ranges/data.zarr//`, `${base}/ranges/data.zarr`]) {
      const s = new FetchStore(url);
      assert.equal(s.url, `${base}/ranges/data.zarr`);
      assert.equal(dec(await s.get("zarr.json")), '{"zarr_format":3}');
      assert.equal(requests.at(-1)?.url, "/ranges/data.zarr/zarr.json");
    }
  });

  test("getRange sends Range and uses the 206 answer", async () => {
    assert.equal(dec(await store.getRange("c/0/1", { offset: 2, length: 3 })), "234");
    assert.equal(requests.at(-1)?.headers.range, "bytes=2-4");
    assert.equal(dec(await store.getRange("c/0/1", { offset: 6 })), "6789");
    assert.equal(requests.at(-1)?.headers.range, "bytes=6-");
    assert.equal(dec(await store.getRange("c/0/1", { offset: 8, length: 10 })), "89");
    assert.equal(await store.getRange("c/0/9", { offset: 0, length: 4 }), undefined);
  });

  test("suffix ranges send bytes=-N", async () => {
    assert.equal(dec(await store.getRange("c/0/1", { offset: -4 })), "6789");
    assert.equal(requests.at(-1)?.headers.range, "bytes=-4");
    assert.equal(dec(await store.getRange("c/0/1", { offset: -4, length: 2 })), "67");
    assert.equal(dec(await store.getRange("c/0/1", { offset: -40 })), "0123456789");
  });

  test("ranges past the end (416) and empty ranges are empty, missing keys undefined", async () => {
    assert.deepEqual(await store.getRange("c/0/1", { offset: 10 }), new Uint8Array(0));
    assert.deepEqual(await store.getRange("c/0/1", { offset: 50, length: 2 }), new Uint8Array(0));
    assert.deepEqual(await store.getRange("c/0/1", { offset: 3, length: 0 }), new Uint8Array(0));
    assert.equal(await store.getRange("c/0/9", { offset: 3, length: 0 }), undefined);
  });

  test("a server that ignores Range (200) still gives the right bytes", async () => {
    const plain = new FetchStore(`${base}/plain/data.zarr`);
    assert.equal(dec(await plain.getRange("c/0/1", { offset: 2, length: 3 })), "234");
    assert.equal(dec(await plain.getRange("c/0/1", { offset: -3 })), "789");
    assert.equal(dec(await plain.getRange("c/0/1", { offset: -5, length: 1 })), "5");
    assert.equal(dec(await plain.getRange("c/0/1", { offset: 20 })), "");
  });

  test("a 500 is a STORE_ERROR naming the URL and the status", async () => {
    const broken = new FetchStore(`${base}/boom/data.zarr`);
    await assert.rejects(broken.get("zarr.json"), hasCode("STORE_ERROR", `${base}/boom/data.zarr/zarr.json`, "500"));
    await assert.rejects(broken.getRange("zarr.json", { offset: 0, length: 1 }), hasCode("STORE_ERROR", "500"));
    await assert.rejects(broken.has("zarr.json"), hasCode("STORE_ERROR", "500"));
  });

  test("a server that is not there is a STORE_ERROR, not a crash", async () => {
    const probe = createServer();
    const port = await new Promise<number>((done) => probe.listen(0, "127.0.0.1", () => done((probe.address() as AddressInfo).port)));
    await new Promise((done) => probe.close(done));
    await assert.rejects(new FetchStore(`http://127.0.0.1:${port}/x`).get("zarr.json"), hasCode("STORE_ERROR", "zarr.json"));
  });

  test("has falls back to GET when HEAD answers 405", async () => {
    const noHead = new FetchStore(`${base}/nohead/data.zarr`);
    assert.equal(await noHead.has("zarr.json"), true);
    assert.deepEqual(requests.slice(-2).map((r) => r.method), ["HEAD", "GET"]);
    assert.equal(await noHead.has("missing"), false);
  });

  test("headers go with every request and travel in the descriptor", async () => {
    // An authorisation failure is not a missing key (that would read as fill values).
    await assert.rejects(new FetchStore(`${base}/secret/data.zarr`).get("zarr.json"), hasCode("ACCESS_DENIED", "401", '"zarr.json"'));
    const s = new FetchStore(`${base}/secret/data.zarr/`, { headers: { Authorization: "Bearer token" } });
    assert.equal(dec(await s.get("zarr.json")), '{"zarr_format":3}');
    assert.equal(dec(await s.getRange("c/0/1", { offset: 1, length: 1 })), "1");
    const d = s.descriptor();
    assert.deepEqual(d, { kind: "fetch", url: `${base}/secret/data.zarr`, headers: { Authorization: "Bearer token" }, http: DEFAULT_HTTP_POLICY });
    const again = storeFromDescriptor(d);
    assert.ok(again instanceof FetchStore);
    assert.equal(dec(await again.get("zarr.json")), '{"zarr_format":3}');
  });

  test("a query string (a signed URL) stays after the key; 403 is an AccessDeniedError naming the key", async () => {
    const signed = new FetchStore(`${base}/signed/data.zarr/?sig=ok`);
    assert.equal(dec(await signed.get("c/0/1")), "0123456789");
    assert.equal(requests.at(-1)?.url, "/signed/data.zarr/c/0/1?sig=ok");
    const denied = await new FetchStore(`${base}/signed/data.zarr`).get("c/0/1").then(
      () => assert.fail("a 403 must not read as a value or a missing key"),
      (err: unknown) => err,
    );
    assert.ok(denied instanceof AccessDeniedError);
    assert.equal(denied.key, "c/0/1");
    assert.equal(denied.status, 403);
  });

  test("a custom fetch is used", async () => {
    const seen: string[] = [];
    const s = new FetchStore("https://nowhere.invalid/a.zarr", {
      fetch: async (input) => {
        seen.push(String(input));
        return new Response("hi", { status: 200 });
      },
    });
    assert.equal(dec(await s.get("x/y")), "hi");
    assert.deepEqual(seen, ["https://nowhere.invalid/a.zarr/x/y"]);
  });

  test("read-only, bad keys refused, listing refused with a clear message", async () => {
    assert.equal(store.readOnly, true);
    assert.equal("set" in store, false);
    await assert.rejects(store.get("../secret"), hasCode("INVALID_KEY"));
    await assert.rejects(store.list(""), hasCode("STORE_ERROR", "not supported over HTTP", "consolidated metadata"));
    await assert.rejects(store.listDir("c/"), hasCode("STORE_ERROR", "not supported over HTTP"));
  });

  test("an empty value", async () => {
    assert.deepEqual(await store.get("empty"), new Uint8Array(0));
    assert.equal(await store.has("empty"), true);
  });
});
