/**
 * Reads end in bounded memory and can be cancelled: an HTTP body that never ends stops being read
 * once it passes what the request can legitimately get (a range's length, the chunk limit for a
 * whole value) and fails TOO_LARGE, without retries; a chunk file that is a named pipe, or a
 * reference to /dev/zero, is refused as not a regular file instead of hanging or reading forever;
 * a store read that never settles does not keep an aborted `get` waiting; a custom store that
 * rejects with the signal's DOMException gives ABORTED.
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { closeSync, constants, openSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import {
  createArray,
  FetchStore,
  FileSystemStore,
  getMaxChunkBytes,
  MemoryStore,
  openArray,
  ReferenceStore,
  setMaxChunkBytes,
} from "../src/index.js";
import type { StoreReadOptions } from "../src/stores/types.js";
import { ForwardingStore } from "./helpers/forwarding-store.js";
import { scratchDir } from "./helpers/paths.js";
import { rejection } from "./helpers/rejection.js";

/** Generous: these only stop a broken read from hanging the run. */
const NO_HANG = { timeout: 60_000 };
const HTTP = { timeoutMs: 2000, retries: 1, backoffMs: 1, maxBackoffMs: 2 };


let server: Server;
let base: string;
/** Requests per path, and the bytes the server managed to send for each. */
const requests = new Map<string, number>();
const sent = new Map<string, number>();

/** Writes 64 KiB blocks for as long as the client reads them. */
function endless(res: import("node:http").ServerResponse, path: string): void {
  const block = Buffer.alloc(64 * 1024, 1);
  const pump = () => {
    while (!res.destroyed) {
      sent.set(path, (sent.get(path) ?? 0) + block.length);
      if (!res.write(block)) return void res.once("drain", pump);
    }
  };
  res.on("close", () => res.destroy());
  pump();
}

before(async () => {
  server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    if (path === "/partial") {
      res.writeHead(206, { "Content-Range": "bytes 0-15/*" });
      return endless(res, path);
    }
    if (path === "/whole") {
      res.writeHead(200);
      return endless(res, path);
    }
    if (path === "/declared") {
      // Says how long before sending any of it: refused from the headers alone.
      res.writeHead(200, { "Content-Length": String(64 * 1024 * 1024 * 1024) });
      return endless(res, path);
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

describe("HTTP bodies are read only as far as they can be legitimate", () => {
  const MiB = 1024 * 1024;

  test("a 206 that runs past the range asked for: TOO_LARGE, not retried", NO_HANG, async () => {
    const store = new FetchStore(base, { http: HTTP });
    const err = await rejection(store.getRange("partial", { offset: 0, length: 16 }));
    assert.equal(err.code, "TOO_LARGE", err.message);
    assert.equal(requests.get("/partial"), 1, "a too-large answer is not asked for again");
    assert.ok(sent.get("/partial")! < 64 * MiB, `the server sent ${sent.get("/partial")} bytes before the client stopped`);
  });

  test("a 200 to a range request is read only up to the range's end", NO_HANG, async () => {
    const store = new FetchStore(base, { http: HTTP });
    const got = await store.getRange("whole", { offset: 10, length: 16 });
    assert.deepEqual([...got!], new Array(16).fill(1));
    assert.ok(sent.get("/whole")! < 64 * MiB, `the server sent ${sent.get("/whole")} bytes`);
  });

  test("a whole value is read up to the chunk limit, then TOO_LARGE", NO_HANG, async () => {
    const old = getMaxChunkBytes();
    setMaxChunkBytes(MiB);
    try {
      sent.delete("/whole");
      requests.delete("/whole");
      const store = new FetchStore(base, { http: HTTP });
      const err = await rejection(store.get("whole"));
      assert.equal(err.code, "TOO_LARGE", err.message);
      assert.equal(requests.get("/whole"), 1);
      assert.ok(sent.get("/whole")! < 64 * MiB, `the server sent ${sent.get("/whole")} bytes`);
      assert.equal((await rejection(store.get("declared"))).code, "TOO_LARGE");
    } finally {
      setMaxChunkBytes(old);
    }
  });

  test("a reference's range on an endless body: TOO_LARGE", NO_HANG, async () => {
    const store = ReferenceStore.fromDocument({ c: [`${base}/partial`, 0, 16] }, { http: HTTP });
    assert.equal((await rejection(store.get("c"))).code, "TOO_LARGE");
  });
});

describe("local files: only regular ones, only as large as a stored value may be", () => {
  let dir: string;
  let fifo: string;

  before(async () => {
    dir = scratchDir();
    const a = await createArray(new FileSystemStore(join(dir, "a")), { shape: [4], chunks: [4], dtype: "uint8", fillValue: 0, zarrFormat: 2 });
    await a.set(null, 5);
    fifo = join(dir, "a", "0");
    rmSync(fifo);
    execFileSync("mkfifo", [fifo]);
  });

  after(() => {
    // Before the fix a reader sits blocked in open(2) on a libuv thread: a writer lets it go, so
    // this file's process can end even then.
    try {
      closeSync(openSync(fifo, constants.O_RDWR | constants.O_NONBLOCK));
    } catch {
      // Nothing was waiting.
    }
  });

  test("a chunk file that is a named pipe is refused, not waited on", NO_HANG, async () => {
    const a = await openArray(new FileSystemStore(join(dir, "a")), { mode: "r" });
    const err = await rejection(a.get(null));
    assert.equal(err.code, "STORE_ERROR", err.message);
    assert.match(err.message, /not a regular file/);
    const store = new FileSystemStore(join(dir, "a"));
    assert.match((await rejection(store.get("0"))).message, /not a regular file/);
    assert.match((await rejection(store.getRange("0", { offset: 0, length: 2 }))).message, /not a regular file/);
  });

  test("a file larger than a stored value may be is TOO_LARGE, not allocated", NO_HANG, async () => {
    const old = getMaxChunkBytes();
    setMaxChunkBytes(1024 * 1024);
    try {
      writeFileSync(join(dir, "big"), new Uint8Array(4 * 1024 * 1024));
      const store = new FileSystemStore(dir);
      assert.equal((await rejection(store.get("big"))).code, "TOO_LARGE");
      // A range of it is as small as it says.
      assert.equal((await store.getRange("big", { offset: 1000, length: 10 }))?.length, 10);
    } finally {
      setMaxChunkBytes(old);
    }
  });

  test("a reference to /dev/zero is refused as not a regular file", NO_HANG, async () => {
    const docPath = join(dir, "refs.json");
    writeFileSync(docPath, JSON.stringify({ whole: ["/dev/zero"], range: ["/dev/zero", 0, 16] }));
    const store = await ReferenceStore.open(docPath);
    for (const key of ["whole", "range"]) {
      const err = await rejection(store.get(key));
      assert.equal(err.code, "STORE_ERROR", `${key}: ${err.message}`);
      assert.match(err.message, /not a regular file/, key);
    }
  });
});

describe("abort", () => {
  /** A store whose chunk reads (the keys under c/ of a version 3 array) never settle and never look at the signal. */
  class StuckStore extends ForwardingStore {
    override get(key: string, opts?: StoreReadOptions): Promise<Uint8Array | null | undefined> {
      if (!key.startsWith("c/")) return super.get(key, opts);
      return new Promise(() => {});
    }
  }

  /** A store that rejects chunk reads with the signal's own reason once it fires, as fetch does. */
  class SignalStore extends ForwardingStore {
    override get(key: string, opts?: StoreReadOptions): Promise<Uint8Array | null | undefined> {
      if (!key.startsWith("c/")) return super.get(key, opts);
      return new Promise((_, reject) => {
        const signal = opts?.signal;
        if (!signal) return;
        if (signal.aborted) return reject(signal.reason);
        signal.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    }
  }

  async function array(store: ForwardingStore) {
    const a = await createArray(store, { shape: [8], chunks: [4], dtype: "int16", fillValue: 0 });
    await a.set(null, 3);
    return openArray(store, { mode: "r" });
  }

  test("abort ends a get whose store read never settles", NO_HANG, async () => {
    const a = await array(new StuckStore(new MemoryStore()));
    const controller = new AbortController();
    const read = a.get(null, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    assert.equal((await rejection(read)).code, "ABORTED");
  });

  for (const [name, reason] of [
    ["AbortError", () => new DOMException("stopped", "AbortError")],
    ["TimeoutError", () => new DOMException("too slow", "TimeoutError")],
  ] as const) {
    test(`a custom store rejecting with a DOMException ${name} gives ABORTED`, NO_HANG, async () => {
      const a = await array(new SignalStore(new MemoryStore()));
      const controller = new AbortController();
      const read = a.get(null, { signal: controller.signal });
      setTimeout(() => controller.abort(reason()), 20);
      const err = await rejection(read);
      assert.equal(err.code, "ABORTED", err.message);
    });
  }
});
