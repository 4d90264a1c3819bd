/**
 * The store backends: MemoryStore and FileSystemStore semantics (ranges, listing, atomic writes,
 * read-only), and FetchStore against an HTTP server started here on 127.0.0.1, including reading
 * whole arrays over HTTP by path string.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, normalize } from "node:path";
import { FetchStore, FileSystemStore, MemoryStore, createArray, openArray, type NDArray, type WritableStore } from "../src/index.js";
import { scratchDir } from "./helpers/paths.js";

const bytes = (...xs: number[]) => new Uint8Array(xs);

async function commonContract(store: WritableStore): Promise<void> {
  await store.set("a/b/c", bytes(1, 2, 3, 4, 5));
  await store.set("a/top", bytes(9));
  await store.set("z", bytes());
  assert.deepEqual(await store.get("a/b/c"), bytes(1, 2, 3, 4, 5));
  assert.equal(await store.get("a/b/missing"), undefined);
  assert.equal(await store.get("a/b"), undefined, "a folder is not a key");
  assert.deepEqual(await store.getRange("a/b/c", { offset: 1, length: 2 }), bytes(2, 3));
  assert.deepEqual(await store.getRange("a/b/c", { offset: -2 }), bytes(4, 5));
  assert.deepEqual(await store.getRange("a/b/c", { offset: 3, length: 10 }), bytes(4, 5));
  assert.equal(await store.getRange("nope", { offset: 0 }), undefined);
  assert.deepEqual(await store.list(""), ["a/b/c", "a/top", "z"]);
  assert.deepEqual(await store.list("a/"), ["a/b/c", "a/top"]);
  assert.deepEqual(await store.listDir("a/"), { keys: ["top"], prefixes: ["b"] });
  assert.ok(await store.has("z"));
  await store.delete("a/b/c");
  await store.delete("a/b/c"); // deleting a missing key is fine
  assert.deepEqual(await store.list(""), ["a/top", "z"]);
  await store.deletePrefix("a/");
  assert.deepEqual(await store.list(""), ["z"]);
}

test("MemoryStore follows the store contract and copies what it is given", async () => {
  const store = new MemoryStore();
  await commonContract(store);
  const buf = bytes(1, 2);
  await store.set("k", buf);
  buf[0] = 99;
  assert.deepEqual(await store.get("k"), bytes(1, 2));
  await assert.rejects(new MemoryStore({ readOnly: true }).set("k", buf), { code: "READ_ONLY" });
});

test("FileSystemStore follows the store contract, writes atomically and hides temporary files", async () => {
  const dir = scratchDir();
  const store = new FileSystemStore(dir);
  await commonContract(store);
  assert.deepEqual(readdirSync(dir), ["z"], "deleting the last key of a folder removes the folder");
  // A writer that died mid-write leaves a temporary file: it is never listed or read as a key.
  writeFileSync(join(dir, ".z.1234.abcdef.tmp~"), "partial");
  assert.deepEqual(await store.list(""), ["z"]);
  await store.set("z", bytes(7, 7));
  assert.deepEqual(readdirSync(dir).sort(), [".z.1234.abcdef.tmp~", "z"], "no temporary file of our own is left");
  await assert.rejects(new FileSystemStore(dir, { readOnly: true }).set("z", bytes()), { code: "READ_ONLY" });
  await assert.rejects(new FileSystemStore(dir, { readOnly: true }).delete("z"), { code: "READ_ONLY" });
});

function serve(root: string, options: { ignoreRange?: boolean; failWith?: number } = {}): Promise<{ url: string; server: Server; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url} ${req.headers.range ?? ""}`.trim());
    if (options.failWith) {
      res.writeHead(options.failWith).end();
      return;
    }
    const path = normalize(join(root, decodeURIComponent(new URL(req.url!, "http://x").pathname)));
    let body: Buffer;
    try {
      if (!path.startsWith(root) || !statSync(path).isFile()) throw new Error("not a file");
      body = readFileSync(path);
    } catch {
      res.writeHead(404).end();
      return;
    }
    const m = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? "");
    if (m && !options.ignoreRange) {
      const start = m[1] === "" ? Math.max(0, body.length - Number(m[2])) : Number(m[1]);
      const end = m[1] === "" || m[2] === "" ? body.length - 1 : Math.min(Number(m[2]), body.length - 1);
      res.writeHead(206, { "Content-Range": `bytes ${start}-${end}/${body.length}` });
      res.end(req.method === "HEAD" ? undefined : body.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, { "Content-Length": body.length });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => {
    const { port } = server.address() as { port: number };
    resolve({ url: `http://127.0.0.1:${port}`, server, requests });
  }));
}

test("FetchStore: GET, Range, suffix ranges, 404 as missing, errors for other statuses", async () => {
  const dir = scratchDir();
  writeFileSync(join(dir, "blob"), Buffer.from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]));
  const { url, server, requests } = await serve(dir);
  try {
    const store = new FetchStore(`${url}/`);
    assert.deepEqual(await store.get("blob"), bytes(0, 1, 2, 3, 4, 5, 6, 7, 8, 9));
    assert.equal(await store.get("missing"), undefined);
    assert.deepEqual(await store.getRange("blob", { offset: 2, length: 3 }), bytes(2, 3, 4));
    assert.deepEqual(await store.getRange("blob", { offset: -3 }), bytes(7, 8, 9));
    assert.ok(requests.includes("GET /blob bytes=2-4") && requests.includes("GET /blob bytes=-3"), requests.join("\n"));
    assert.ok(await store.has("blob"));
    assert.equal(await store.has("missing"), false);
    await assert.rejects(store.list(""), { code: "STORE_ERROR" });
    await assert.rejects(store.get("../etc/passwd"), { code: "INVALID_KEY" });
  } finally {
    server.close();
  }
  const ignoring = await serve(dir, { ignoreRange: true });
  try {
    assert.deepEqual(await new FetchStore(ignoring.url).getRange("blob", { offset: 4, length: 2 }), bytes(4, 5));
  } finally {
    ignoring.server.close();
  }
  const failing = await serve(dir, { failWith: 500 });
  try {
    await assert.rejects(new FetchStore(failing.url).get("blob"), { code: "STORE_ERROR" });
  } finally {
    failing.server.close();
  }
});

test("arrays open over HTTP from a URL string, read-only", async () => {
  const dir = scratchDir();
  const a = await createArray(join(dir, "web.zarr"), { shape: [20, 20], chunks: [8, 8], dtype: "uint16", zarrFormat: 2, compressor: { id: "zlib", level: 1 } });
  await a.set(null, { data: Uint16Array.from({ length: 400 }, (_, i) => i), shape: [20, 20] });
  const { url, server } = await serve(dir);
  try {
    const remote = await openArray(`${url}/web.zarr`);
    assert.equal(remote.readOnly, true);
    const part = (await remote.get("5:15, 10")) as NDArray<Uint16Array>;
    assert.deepEqual(Array.from(part.data), Array.from({ length: 10 }, (_, i) => (i + 5) * 20 + 10));
    await assert.rejects(remote.set([0, 0], 1), { code: "READ_ONLY" });
    await assert.rejects(openArray(`${url}/web.zarr`, { mode: "r+" }), { code: "READ_ONLY" });
  } finally {
    server.close();
  }
});
