/**
 * S3Store against a real S3-speaking server (s3rver) started on 127.0.0.1 by the test: the store
 * contract, listing past one page, sharded arrays read by range, worker threads opening the store
 * from its descriptor, `s3://` URLs through the environment, consolidated metadata in one request,
 * and a v2 hierarchy copied to S3 and back with the CLI, checked by zarr-python.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  consolidateMetadata,
  createArray,
  openArray,
  openGroup,
  S3Store,
  slice,
  WorkerPool,
  ZarrError,
  type NDArray,
} from "../src/index.js";
import { parseS3Url } from "../src/stores/index.js";
import { resolveS3Config } from "../src/stores/s3-config.js";
import { storeFromDescriptor } from "../src/stores/kinds.js";
import { parseListPage, xmlText } from "../src/stores/s3-xml.js";
import { main as cliMain } from "../src/cli/main.js";
import { loadManifest } from "./helpers/manifest.js";
import { FIXTURES, scratchDir } from "./helpers/paths.js";
import { runOracle, zarrPythonSkip } from "./helpers/peers.js";
import { startFaultServer } from "./helpers/fault-server.js";
import { startS3, type TestS3 } from "./helpers/s3.js";

const dec = (b: Uint8Array | undefined) => (b === undefined ? undefined : new TextDecoder().decode(b));
const enc = (s: string) => new TextEncoder().encode(s);

/** A fetch that records what it is asked, for counting requests. */
function countingFetch(log: { method: string; url: string; range: string | null }[]): typeof fetch {
  return async (input, init) => {
    const req = input instanceof Request ? input : new Request(input, init);
    log.push({ method: req.method, url: req.url, range: req.headers.get("range") });
    return fetch(input, init);
  };
}

describe("S3 URLs and configuration", () => {
  test("s3://bucket/prefix is parsed; bad URLs are typed errors", () => {
    assert.deepEqual(parseS3Url("s3://my-bucket"), { bucket: "my-bucket", prefix: "" });
    assert.deepEqual(parseS3Url("s3://my-bucket/a/b.zarr/"), { bucket: "my-bucket", prefix: "a/b.zarr" });
    for (const bad of ["s3://", "s3:///x", "s3://b/../x", "http://b/x"]) {
      assert.throws(() => parseS3Url(bad), (e: unknown) => e instanceof ZarrError, bad);
    }
  });

  test("options first, then the environment, as AWS tools take them", () => {
    const saved = { ...process.env };
    try {
      Object.assign(process.env, {
        AWS_ENDPOINT_URL: "http://env.invalid:9000/",
        AWS_REGION: "eu-west-3",
        AWS_ACCESS_KEY_ID: "AK",
        AWS_SECRET_ACCESS_KEY: "SK",
        AWS_SESSION_TOKEN: "TOK",
      });
      assert.deepEqual(resolveS3Config({}), {
        endpoint: "http://env.invalid:9000",
        region: "eu-west-3",
        credentials: { accessKeyId: "AK", secretAccessKey: "SK", sessionToken: "TOK" },
      });
      const own = { endpoint: "http://own.invalid", region: "us-west-2", credentials: { accessKeyId: "a", secretAccessKey: "b" } };
      assert.deepEqual(resolveS3Config(own), own);
      assert.deepEqual(resolveS3Config({ useEnvironment: false }), { region: "us-east-1" });
      // What a worker gets: resolved values, so it never reads its own environment.
      const d = new S3Store("s3://bkt/p").descriptor();
      assert.equal(d.kind, "s3");
      assert.deepEqual(d.kind === "s3" && [d.endpoint, d.region, d.credentials?.sessionToken], ["http://env.invalid:9000", "eu-west-3", "TOK"]);
    } finally {
      process.env = saved;
    }
  });

  test("the listing XML: entities, pages, and refusal of anything else", () => {
    assert.equal(xmlText("a &amp; b &lt;c&gt; &#38; &#x41;"), "a & b <c> & A");
    const page = parseListPage(
      `<?xml version="1.0"?><ListBucketResult><IsTruncated>true</IsTruncated><Contents><Key>a/x&amp;y</Key></Contents>` +
        `<CommonPrefixes><Prefix>a/b/</Prefix></CommonPrefixes><NextContinuationToken>t1</NextContinuationToken></ListBucketResult>`,
    );
    assert.deepEqual(page, { keys: ["a/x&y"], prefixes: ["a/b/"], continuationToken: "t1" });
    assert.equal(parseListPage("<Error><Code>InternalError</Code></Error>"), undefined);
    assert.equal(parseListPage("<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>"), undefined, "truncated without a token");
  });
});

describe("S3Store on s3rver", () => {
  let s3: TestS3;
  let pool: WorkerPool;
  before(async () => {
    s3 = await startS3();
    pool = new WorkerPool({ threads: 2 });
  });
  after(async () => {
    await pool.close();
    await s3.close();
  });
  const store = (prefix = "t", extra: object = {}) => new S3Store(`s3://${s3.bucket}/${prefix}`, { ...s3.options, ...extra });

  test("set, get, has, getSize, ranges, delete; missing keys are undefined", async () => {
    const s = store("basic");
    await s.set("c/0/1", enc("0123456789"));
    await s.set("a b/ü.json", enc("{}"));
    assert.equal(dec(await s.get("c/0/1")), "0123456789");
    assert.equal(dec(await s.get("a b/ü.json")), "{}");
    assert.equal(await s.get("c/0/2"), undefined);
    assert.equal(await s.has("c/0/1"), true);
    assert.equal(await s.has("c/0"), false, "a folder is not a key");
    assert.equal(await s.getSize("c/0/1"), 10);
    assert.equal(await s.getSize("nope"), undefined);
    assert.equal(dec(await s.getRange("c/0/1", { offset: 2, length: 3 })), "234");
    assert.equal(dec(await s.getRange("c/0/1", { offset: 6 })), "6789");
    // s3rver answers a suffix from the start of the object; the store asks again by offset.
    assert.equal(dec(await s.getRange("c/0/1", { offset: -3 })), "789");
    assert.equal(dec(await s.getRange("c/0/1", { offset: -4, length: 2 })), "67");
    assert.equal(dec(await s.getRange("c/0/1", { offset: 8, length: 10 })), "89");
    assert.equal(dec(await s.getRange("c/0/1", { offset: 20, length: 2 })), "");
    assert.equal(dec(await s.getRange("c/0/1", { offset: 3, length: 0 })), "");
    assert.equal(await s.getRange("nope", { offset: 0, length: 1 }), undefined);
    await s.set("c/0/1", enc("new"));
    assert.equal(dec(await s.get("c/0/1")), "new");
    await s.delete("c/0/1");
    await s.delete("c/0/1");
    assert.equal(await s.get("c/0/1"), undefined);
    await assert.rejects(s.get("../x"), (e: unknown) => e instanceof ZarrError && e.code === "INVALID_KEY");
  });

  test("listing goes past one page; listDir and deletePrefix; prefixes stay apart", async () => {
    const s = store("many", { listPageSize: 7 });
    const keys = Array.from({ length: 23 }, (_, i) => `g/k${String(i).padStart(2, "0")}`);
    await Promise.all([...keys, "g/sub/x", "g/sub/y/z", "top"].map((k) => s.set(k, enc(k))));
    await store("many-other").set("g/k00", enc("elsewhere"));
    const log: Parameters<typeof countingFetch>[0] = [];
    const counted = store("many", { listPageSize: 7, fetch: countingFetch(log) });
    assert.deepEqual(await counted.list("g/"), [...keys, "g/sub/x", "g/sub/y/z"]);
    assert.equal(log.length, 4, "25 keys at 7 a page: 4 pages");
    assert.match(log[1]!.url, /continuation-token=/);
    assert.deepEqual(await s.list(""), [...keys, "g/sub/x", "g/sub/y/z", "top"]);
    assert.deepEqual(await s.listDir(""), { keys: ["top"], prefixes: ["g"] });
    const dir = await s.listDir("g/");
    assert.equal(dir.keys.length, 23);
    assert.deepEqual(dir.prefixes, ["sub"]);
    assert.deepEqual(await s.listDir("g/sub/"), { keys: ["x"], prefixes: ["y"] });
    await s.deletePrefix("g/");
    assert.deepEqual(await s.list(""), ["top"]);
    assert.equal(dec(await store("many-other").get("g/k00")), "elsewhere");
  });

  test("read-only stores refuse writes; the policy covers S3 too (SlowDown retried, 403 typed)", async () => {
    await assert.rejects(store("ro", { readOnly: true }).set("x", enc("1")), /read-only/);
    const faults = await startFaultServer();
    try {
      const s = new S3Store("s3://bkt/p", { ...s3.options, endpoint: faults.base, http: { backoffMs: 1 } });
      faults.script("/bkt/p/k", [{ status: 503, body: "<Error><Code>SlowDown</Code></Error>" }, { status: 200, body: "v" }]);
      assert.equal(dec(await s.get("k")), "v");
      assert.equal(faults.count("/bkt/p/k"), 2);
      assert.match(String(faults.requests.at(-1)!.headers.authorization), /^AWS4-HMAC-SHA256 Credential=S3RVER\//);
      faults.script("/bkt/p/k", [{ status: 403, body: "<Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>" }]);
      await assert.rejects(s.get("k"), (e: unknown) => e instanceof ZarrError && e.code === "ACCESS_DENIED" && /"k"/.test(e.message));
      faults.script("/bkt/", [{ status: 200, body: "<html>not a listing</html>" }]);
      await assert.rejects(s.list(""), /did not answer a ListObjectsV2 result/);
    } finally {
      await faults.close();
    }
  });

  test("a sharded array: written, read back inline and on worker threads, inner chunks by range", async () => {
    const a = await createArray(store("sharded"), { shape: [64, 64], chunks: [8, 8], shards: [32, 32], dtype: "int32", codecs: ["zstd"] });
    const data = Int32Array.from({ length: 64 * 64 }, (_, i) => i * 3 - 500);
    await a.set(null, { data, shape: [64, 64] });
    const whole = (await a.get(null, { pool, threads: 2 })) as NDArray;
    assert.deepEqual(whole.data, data);
    // A worker thread opened the store from the descriptor: the same bytes, no main-thread fetch.
    const log: Parameters<typeof countingFetch>[0] = [];
    const r = await openArray(store("sharded", { fetch: countingFetch(log) }), { mode: "r" });
    const part = (await r.get([slice(40, 44), slice(3, 6)], { threads: 0 })) as NDArray;
    assert.deepEqual([...part.data], [40, 41, 42, 43].flatMap((i) => [3, 4, 5].map((j) => (i * 64 + j) * 3 - 500)));
    const ranged = log.filter((l) => l.range !== null);
    assert.ok(ranged.length >= 2, "the shard index and the inner chunk are read by range");
    assert.ok(!log.some((l) => l.method === "GET" && l.range === null && /\/c\//.test(l.url)), "no whole shard is fetched");
  });

  test("s3:// URLs open through the environment; writes from worker threads land in S3", async () => {
    const saved = { ...process.env };
    Object.assign(process.env, s3.env);
    try {
      const url = `s3://${s3.bucket}/env/v2.zarr`;
      const a = await openArray(url, { mode: "w", shape: [30, 40], chunks: [7, 9], dtype: "<f8", zarrFormat: 2 });
      const v = Float64Array.from({ length: 1200 }, (_, i) => i / 4);
      await a.set(null, { data: v, shape: [30, 40] }, { pool, threads: 2 });
      const back = (await (await openArray(url, { mode: "r" })).get()) as NDArray;
      assert.deepEqual(back.data, v);
      assert.ok((await new S3Store(url).list("")).includes("3.4"));
    } finally {
      process.env = saved;
    }
  });

  test("consolidated metadata opens a v2 hierarchy on S3 with one request", async () => {
    const s = store("consolidated");
    const g = await openGroup(s, { mode: "w", zarrFormat: 2 });
    for (const name of ["a", "b", "c"]) await g.createArray(name, { shape: [4], chunks: [2], dtype: "<i2" });
    await consolidateMetadata(s);
    const log: Parameters<typeof countingFetch>[0] = [];
    const counted = store("consolidated", { fetch: countingFetch(log) });
    const opened = await openGroup(counted, { mode: "r", zarrFormat: 2 });
    assert.deepEqual(log.map((l) => l.url.replace(/.*\/consolidated\//, "")), [".zmetadata"]);
    const arrays = await opened.arrays();
    assert.deepEqual(arrays.map(([name, a]) => [name, a.shape]), [["a", [4]], ["b", [4]], ["c", [4]]]);
    assert.equal(log.length, 1, "the children come from the consolidated document");
  });

  // One group of the zarr-python fixture (every numcodecs filter, vlen strings and bytes included):
  // the whole fixture takes minutes through s3rver on a loaded machine.
  test("a v2 hierarchy copied to S3 and back with the CLI is what zarr-python wrote", async (t) => {
    const hier = `${join(FIXTURES, "zarr-python-2.13", "hierarchy.zarr")}#filters`;
    const out = scratchDir("parzarr-s3-cp-");
    const back = join(out, "hierarchy.zarr", "filters");
    const dest = `s3://${s3.bucket}/copies/filters.zarr`;
    // The CLI's entry point in this process (two fewer process start-ups), reaching S3 through
    // the environment as a user's shell would.
    const cp = async (...args: string[]): Promise<string> => {
      let stderr = "";
      const sink = (add: (t: string) => void) => ({ write: (t: string | Uint8Array) => (add(String(t)), true) }) as unknown as NodeJS.WritableStream;
      const saved = { ...process.env };
      Object.assign(process.env, s3.env);
      try {
        const code = await cliMain(["cp", ...args, "-q", "--skip-unreadable"], { stdout: sink(() => {}), stderr: sink((t) => (stderr += t)), env: {} });
        assert.equal(code, 0, `parzarr cp ${args.join(" ")} failed: ${stderr}`);
      } finally {
        process.env = saved;
      }
      return stderr;
    };
    assert.doesNotMatch(await cp(hier, dest), /skipping/);
    await cp(dest, back);
    const entries = loadManifest(join(FIXTURES, "zarr-python-2.13")).filter(
      (e) => e.path.startsWith("hierarchy.zarr/filters/") && !e.unsupported_ok,
    );
    assert.equal(entries.length, 10, "the fixture's filter arrays");
    // Something really went through S3: the array metadata is there.
    assert.ok((await store("copies/filters.zarr").list("")).includes("vlen_utf8/.zarray"));
    const skip = zarrPythonSkip();
    if (skip) return t.skip(skip);
    writeFileSync(join(out, "manifest.json"), JSON.stringify(entries.map((e) => (e.sha256 ? { path: e.path, shape: e.shape, sha256: e.sha256 } : e))));
    const r = runOracle("check", out);
    assert.equal(r.status, 0, `zarr-python check failed:\n${r.stdout}\n${r.stderr}`);
  });

  test("a descriptor reopens the same store", async () => {
    const s = store("desc");
    await s.set("k", enc("v"));
    const again = storeFromDescriptor(s.descriptor());
    assert.ok(again instanceof S3Store);
    assert.equal(dec(await again.get("k")), "v");
  });
});
