/**
 * The HTTP policy (src/stores/http.ts) through FetchStore, against a fault-injecting server on
 * 127.0.0.1: retries on 5xx, 429, SlowDown, dropped connections and timeouts, bounded and with
 * Retry-After honoured; 401/403 typed; a 206 without Content-Range said for what it is; the
 * timeout and the caller's signal.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { AbortError, AccessDeniedError, StoreError, ZarrError } from "../src/errors.js";
import { FetchStore } from "../src/stores/index.js";
import { storeFromDescriptor } from "../src/stores/kinds.js";
import { openArray, WorkerPool } from "../src/index.js";
import { backoffDelay, httpPolicy, retryAfterMs, retryableStatus } from "../src/stores/http.js";
import { startFaultServer, type FaultServer } from "./helpers/fault-server.js";

const FAST = { backoffMs: 1, maxBackoffMs: 4 };
const dec = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));

async function rejection(p: Promise<unknown>): Promise<ZarrError> {
  return p.then(
    () => assert.fail("expected a rejection"),
    (err: unknown) => {
      assert.ok(err instanceof ZarrError, `expected a ZarrError, got ${String(err)}`);
      return err;
    },
  );
}

describe("HTTP policy: pure parts", () => {
  test("Retry-After as seconds or as a date; garbage is ignored", () => {
    assert.equal(retryAfterMs("3"), 3000);
    assert.equal(retryAfterMs(" 0 "), 0);
    const now = Date.parse("Wed, 21 Oct 2015 07:28:00 GMT");
    assert.equal(retryAfterMs("Wed, 21 Oct 2015 07:28:02 GMT", now), 2000);
    assert.equal(retryAfterMs("Wed, 21 Oct 2015 07:27:00 GMT", now), 0, "a date in the past: no wait");
    assert.equal(retryAfterMs("soon"), undefined);
    assert.equal(retryAfterMs(null), undefined);
  });

  test("backoff is full jitter under min(cap, base * 2^attempt)", () => {
    const p = httpPolicy({ backoffMs: 100, maxBackoffMs: 1000 });
    assert.deepEqual([0, 1, 2, 3, 4, 10].map((n) => backoffDelay(p, n, () => 1)), [100, 200, 400, 800, 1000, 1000]);
    assert.equal(backoffDelay(p, 3, () => 0), 0);
  });

  test("which statuses are retried", () => {
    assert.deepEqual(
      [200, 206, 404, 408, 416, 429, 500, 501, 502, 503, 504, 505].filter(retryableStatus),
      [408, 429, 500, 502, 503, 504],
    );
  });

  test("bad options are typed errors", () => {
    assert.throws(() => httpPolicy({ retries: -1 }), (e: unknown) => e instanceof ZarrError && e.code === "INVALID_ARGUMENT");
    assert.throws(() => httpPolicy({ retries: 1.5 }), /integer/);
    assert.throws(() => httpPolicy({ timeoutMs: Number.NaN }), /timeoutMs/);
    assert.throws(() => new FetchStore("http://127.0.0.1:1/x", { http: { backoffMs: -5 } }), /backoffMs/);
  });
});

describe("HTTP policy against a fault-injecting server", () => {
  let srv: FaultServer;
  before(async () => {
    srv = await startFaultServer();
  });
  after(() => srv.close());
  const store = (http: object = FAST) => new FetchStore(`${srv.base}/d.zarr`, { http });

  test("5xx twice, then the value: three requests", async () => {
    srv.script("/d.zarr/a", [{ status: 500 }, { status: 502 }, { status: 200, body: "ok" }]);
    assert.equal(dec(await store().get("a")), "ok");
    assert.equal(srv.count("/d.zarr/a"), 3);
  });

  test("S3's 503 SlowDown, then the value", async () => {
    const slowDown = "<Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>";
    srv.script("/d.zarr/b", [{ status: 503, body: slowDown }, { status: 200, body: "ok" }]);
    assert.equal(dec(await store().get("b")), "ok");
    assert.equal(srv.count("/d.zarr/b"), 2);
  });

  test("429 on every attempt: bounded, and the error says how it ended", async () => {
    srv.script("/d.zarr/c", [{ status: 429, body: "<Error><Code>SlowDown</Code></Error>" }]);
    const err = await rejection(store({ ...FAST, retries: 3 }).get("c"));
    assert.ok(err instanceof StoreError);
    assert.match(err.message, /answered 429.*SlowDown.*\(4 attempts\)/);
    assert.equal(srv.count("/d.zarr/c"), 4, "retries + 1 requests, no more");
    srv.script("/d.zarr/c", [{ status: 503 }]);
    await rejection(store({ ...FAST, retries: 0 }).get("c"));
    assert.equal(srv.count("/d.zarr/c"), 1, "retries: 0 makes one request");
  });

  test("Retry-After is honoured", async () => {
    srv.script("/d.zarr/ra", [{ status: 503, headers: { "Retry-After": "1" } }, { status: 200, body: "late" }]);
    const from = srv.requests.length;
    assert.equal(dec(await store().get("ra")), "late");
    const [first, second] = srv.requests.slice(from);
    // The backoff alone would wait at most 4 ms; Retry-After asked for a second.
    assert.ok(second!.at - first!.at >= 900, `waited ${second!.at - first!.at} ms`);
  });

  test("a Retry-After beyond maxRetryAfterMs is not waited for", async () => {
    srv.script("/d.zarr/rl", [{ status: 503, headers: { "Retry-After": "3600" } }, { status: 200, body: "never" }]);
    const err = await rejection(store().get("rl"));
    assert.match(err.message, /retry after 3600 s, longer than http\.maxRetryAfterMs/);
    assert.equal(srv.count("/d.zarr/rl"), 1);
  });

  test("a connection dropped before the headers, or in the middle of the body, is retried", async () => {
    srv.script("/d.zarr/drop", [{ drop: "before-headers" }, { drop: "mid-body", length: 100 }, { status: 200, body: "whole" }]);
    assert.equal(dec(await store().get("drop")), "whole");
    assert.equal(srv.count("/d.zarr/drop"), 3);
    srv.script("/d.zarr/drop", [{ drop: "before-headers" }]);
    const err = await rejection(store({ ...FAST, retries: 1 }).get("drop"));
    assert.ok(err instanceof StoreError);
    assert.match(err.message, /GET .*\/d\.zarr\/drop failed: .*\(2 attempts\)/);
  });

  test("401 and 403 are an AccessDeniedError naming the key, not retried; 404 is a missing key", async () => {
    for (const status of [401, 403]) {
      srv.script("/d.zarr/c/0/0", [{ status, body: "<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>" }]);
      const err = await rejection(store().get("c/0/0"));
      assert.ok(err instanceof AccessDeniedError);
      assert.equal(err.code, "ACCESS_DENIED");
      assert.equal(err.key, "c/0/0");
      assert.equal(err.status, status);
      assert.match(err.message, /AccessDenied: Access Denied.*key "c\/0\/0" was refused/);
      assert.equal(srv.count("/d.zarr/c/0/0"), 1);
      // has() must not answer false for a key it may not look at.
      await assert.rejects(store().has("c/0/0"), AccessDeniedError);
    }
    srv.script("/d.zarr/gone", [{ status: 404 }]);
    assert.equal(await store().get("gone"), undefined);
    assert.equal(await store().getRange("gone", { offset: 0, length: 2 }), undefined);
    assert.equal(srv.count("/d.zarr/gone"), 2);
  });

  test("a 206 without Content-Range says what the server did", async () => {
    srv.script("/d.zarr/part", [{ status: 206, body: "xyz" }]);
    const err = await rejection(store().getRange("part", { offset: 4, length: 3 }));
    assert.ok(err instanceof StoreError);
    assert.match(err.message, /answered 206 Partial Content without a Content-Range header for Range: bytes=4-6/);
    assert.equal(srv.count("/d.zarr/part"), 1);
    srv.script("/d.zarr/part", [{ status: 206, body: "--b\r\n", headers: { "Content-Type": "multipart/byteranges; boundary=b" } }]);
    assert.match((await rejection(store().getRange("part", { offset: 0, length: 3 }))).message, /multipart\/byteranges/);
    srv.script("/d.zarr/part", [{ status: 206, body: "xyz", headers: { "Content-Range": "bytes 0-9/10" } }]);
    assert.match((await rejection(store().getRange("part", { offset: 0, length: 3 }))).message, /Content-Range bytes 0-9\/10 with 3 bytes/);
  });

  test("a suffix answered from the start (as s3rver does) is asked again by absolute range", async () => {
    srv.script("/d.zarr/suffix", [
      { status: 206, body: "0123", headers: { "Content-Range": "bytes 0-3/10" } },
      { status: 206, body: "6789", headers: { "Content-Range": "bytes 6-9/10" } },
    ]);
    assert.equal(dec(await store().getRange("suffix", { offset: -4 })), "6789");
    const asked = srv.requests.slice(-2).map((r) => r.headers.range);
    assert.deepEqual(asked, ["bytes=-4", "bytes=6-9"]);
    // Still wrong the second time: an error, not a third request.
    srv.script("/d.zarr/suffix", [{ status: 206, body: "0123", headers: { "Content-Range": "bytes 0-3/10" } }]);
    assert.match((await rejection(store().getRange("suffix", { offset: -4 }))).message, /did not answer bytes=6-9 when asked twice/);
    assert.equal(srv.count("/d.zarr/suffix"), 2);
  });

  test("the timeout is on by default and bounds every attempt", async () => {
    const d = store().descriptor();
    assert.equal(d.kind === "fetch" ? d.http?.timeoutMs : undefined, 30_000);
    srv.script("/d.zarr/slow", [{ hang: true }]);
    const err = await rejection(store({ ...FAST, timeoutMs: 150, retries: 1 }).get("slow"));
    assert.ok(err instanceof StoreError);
    assert.match(err.message, /timed out after 150 ms \(2 attempts\)/);
    assert.equal(srv.count("/d.zarr/slow"), 2);
  });

  test("the caller's signal cancels a request in flight and a backoff wait", async () => {
    srv.script("/d.zarr/hang", [{ hang: true }]);
    const err = await rejection(store({ ...FAST, timeoutMs: 0 }).get("hang", { signal: AbortSignal.timeout(100) }));
    assert.ok(err instanceof AbortError);
    assert.equal(srv.count("/d.zarr/hang"), 1);
    srv.script("/d.zarr/wait", [{ status: 503, headers: { "Retry-After": "20" } }]);
    const c = new AbortController();
    const pending = store().get("wait", { signal: c.signal });
    setTimeout(() => c.abort(), 100);
    assert.ok((await rejection(pending)) instanceof AbortError);
    assert.equal(srv.count("/d.zarr/wait"), 1);
    const already = AbortSignal.abort();
    assert.ok((await rejection(store().get("a", { signal: already }))) instanceof AbortError);
  });

  test("a 403 on a worker thread arrives as an AccessDeniedError naming the chunk, not as fill values", async () => {
    const meta = {
      zarr_format: 3,
      node_type: "array",
      shape: [4],
      data_type: "uint8",
      chunk_grid: { name: "regular", configuration: { chunk_shape: [2] } },
      chunk_key_encoding: { name: "default", configuration: { separator: "/" } },
      fill_value: 0,
      codecs: [{ name: "bytes" }],
    };
    srv.script("/arr.zarr/zarr.json", [{ status: 200, body: JSON.stringify(meta) }]);
    srv.script("/arr.zarr/c/0", [{ status: 200, body: new Uint8Array([1, 2]) }]);
    srv.script("/arr.zarr/c/1", [{ status: 403, body: "<Error><Code>AccessDenied</Code></Error>" }]);
    const pool = new WorkerPool({ threads: 2 });
    try {
      const a = await openArray(new FetchStore(`${srv.base}/arr.zarr`, { http: FAST }), { mode: "r" });
      const err = await rejection(a.get(null, { pool, threads: 2 }));
      assert.ok(err instanceof AccessDeniedError, `${err.name}: ${err.message}`);
      assert.equal(err.key, "c/1");
      assert.equal(err.status, 403);
    } finally {
      await pool.close();
    }
  });

  test("the policy travels in the descriptor, so a worker's store retries alike", async () => {
    const s = store({ ...FAST, retries: 2, timeoutMs: 5000 });
    const again = storeFromDescriptor(s.descriptor());
    srv.script("/d.zarr/w", [{ status: 500 }]);
    await rejection(again.get("w"));
    assert.equal(srv.count("/d.zarr/w"), 3);
  });
});
