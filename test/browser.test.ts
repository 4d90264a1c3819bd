/**
 * parzarr in a real browser: headless Chromium (puppeteer-core) loads the browser build from a
 * server this test starts on 127.0.0.1, once on a cross-origin isolated page (COOP/COEP:
 * SharedArrayBuffer, workers scatter into shared memory) and once without (workers send their
 * chunks back, writes run inline). Every read must equal, byte for byte, what Node reads from the
 * same folders: v2 blosc and zlib, v3 zstd and sharded arrays written here, and the astronaut image
 * z5py wrote (checked against its manifest too).
 */
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "puppeteer-core";
import { MemoryStore, S3Store, createArray, openArray, slice, type CreateArrayOptions, type NDArray, type TypedArray } from "../src/index.js";
import { startStaticServer, type StaticServer } from "../src/cli/static-server.js";
import { buildBrowser } from "../tools/build-browser.js";
import { chromiumSkip, launchChromium } from "./helpers/browser.js";
import { FIXTURES, scratchDir } from "./helpers/paths.js";
import { startS3 } from "./helpers/s3.js";

const skip = chromiumSkip();
const PAGE_DIR = new URL("./browser/", import.meta.url).pathname;
const ASTRONAUT = "z5py.zr/blosc";

interface ReadResult {
  url: string;
  mode: "inline" | "workers" | "default pool";
  shape: number[];
  sha256: string;
  shared: boolean;
  peak: number;
}

function sha256(data: TypedArray): string {
  return createHash("sha256").update(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)).digest("hex");
}

/** Values that depend on position, so that a chunk in the wrong place changes the digest. */
function ramp(n: number, f: (i: number) => number): Float64Array {
  return Float64Array.from({ length: n }, (_, i) => f(i));
}

async function writeArrays(dir: string): Promise<string[]> {
  const made: [string, Parameters<typeof createArray>[1], number[], (i: number) => number][] = [
    ["v2-blosc", { shape: [300, 260], chunks: [64, 64], dtype: "<f4", zarrFormat: 2, compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 } }, [300, 260], (i) => Math.sin(i / 97) * 1000],
    // Rows 0..69 only: the chunks past them are missing and read as the fill value.
    ["v2-zlib", { shape: [100, 90], chunks: [32, 32], dtype: "<i2", zarrFormat: 2, compressor: { id: "zlib", level: 4 }, fillValue: -7 }, [70, 90], (i) => (i * 37) % 30011],
    ["v3-zstd", { shape: [120, 80], chunks: [50, 40], dtype: "float64", codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }] }, [120, 80], (i) => i / 7],
    [
      "v3-sharded",
      {
        shape: [128, 96],
        chunks: [64, 48],
        dtype: "uint16",
        codecs: [
          {
            name: "sharding_indexed",
            configuration: {
              chunk_shape: [16, 16],
              codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "blosc", configuration: { cname: "zstd", clevel: 3, shuffle: "bitshuffle", typesize: 2, blocksize: 0 } }],
              index_codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "crc32c" }],
              index_location: "end",
            },
          },
        ],
      },
      [128, 96],
      (i) => (i * 13) & 0xffff,
    ],
  ];
  for (const [name, options, written, f] of made) {
    const a = await createArray(join(dir, name), options);
    const n = written.reduce((x, y) => x * y, 1);
    await a.set(written.map((s) => slice(0, s)), { data: convert(a.dtype, ramp(n, f)), shape: written }, { threads: 0 });
  }
  return made.map(([name]) => name);
}

function convert(dtype: string, values: ArrayLike<number>): TypedArray {
  if (dtype.includes("f4") || dtype === "float32") return Float32Array.from(values);
  if (dtype.includes("f8") || dtype === "float64") return Float64Array.from(values);
  if (dtype.includes("i2") || dtype === "int16") return Int16Array.from(values);
  if (dtype.includes("u2") || dtype === "uint16") return Uint16Array.from(values);
  throw new Error(`no conversion for ${dtype}`);
}

describe("parzarr in headless Chromium", { skip }, () => {
  let browser: Browser;
  let server: StaticServer;
  let names: string[] = [];
  /** What Node reads, by URL path below /data/ or /fixtures/. */
  const expected = new Map<string, { shape: number[]; sha256: string }>();

  const dirs: string[] = [];
  before(async () => {
    const dataDir = scratchDir();
    const libDir = scratchDir();
    dirs.push(dataDir, libDir);
    names = await writeArrays(dataDir);
    for (const name of names) {
      const r = (await (await openArray(join(dataDir, name), { mode: "r" })).get(null, { threads: 0 })) as NDArray<TypedArray>;
      expected.set(`data/${name}`, { shape: r.shape, sha256: sha256(r.data) });
    }
    const astro = (await (await openArray(join(FIXTURES, "zarr-implementations", ASTRONAUT), { mode: "r" })).get(null, { threads: 0 })) as NDArray<TypedArray>;
    const manifest = JSON.parse(readFileSync(join(FIXTURES, "zarr-implementations", "manifest.json"), "utf8")) as { path: string; sha256: string }[];
    assert.equal(sha256(astro.data), manifest.find((m) => m.path === ASTRONAUT)!.sha256, "Node reads the astronaut the manifest describes");
    expected.set(`fixtures/${ASTRONAUT}`, { shape: astro.shape, sha256: sha256(astro.data) });
    await buildBrowser(libDir);
    const mounts: Record<string, string> = {};
    for (const mode of ["iso", "plain"]) {
      mounts[`/${mode}/`] = PAGE_DIR;
      mounts[`/${mode}/lib/`] = libDir;
      mounts[`/${mode}/data/`] = dataDir;
      mounts[`/${mode}/fixtures/`] = join(FIXTURES, "zarr-implementations");
    }
    server = await startStaticServer({ mounts, isolated: (p) => p.startsWith("/iso/") });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  async function openPage(mode: "iso" | "plain"): Promise<Page> {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${server.origin}/${mode}/index.html`);
    return page;
  }

  function call<T>(page: Page, mode: string, fn: string, args: object): Promise<T> {
    return page.evaluate(`import("/${mode}/probe.js").then((m) => m.${fn}(${JSON.stringify(args)}))`) as Promise<T>;
  }

  const arrayPaths = (): string[] => [...names.map((n) => `data/${n}`), `fixtures/${ASTRONAUT}`];

  async function readAll(mode: "iso" | "plain"): Promise<{ isolated: boolean; sharedArrayBuffer: string; poolShared: boolean; results: ReadResult[] }> {
    const page = await openPage(mode);
    try {
      const lib = `/${mode}/lib/parzarr.js`;
      const workerUrl = `${server.origin}/${mode}/lib/parzarr-worker.js`;
      const arrays = arrayPaths().map((p) => `${server.origin}/${mode}/${p}`);
      return await call(page, mode, "readArrays", { lib, workerUrl, arrays });
    } finally {
      await page.close();
    }
  }

  function checkReads(results: ReadResult[], mode: "iso" | "plain"): void {
    assert.equal(results.length, arrayPaths().length * 3);
    for (const r of results) {
      const path = r.url.slice(`${server.origin}/${mode}/`.length);
      const want = expected.get(path)!;
      const where = `${path} ${r.mode}`;
      assert.deepEqual(r.shape, want.shape, where);
      assert.equal(r.sha256, want.sha256, `${where}: the browser read what Node reads`);
      // Ordinary memory in every mode: with shared memory workers read into reused shared buffers
      // copied into the result (staged-output.ts), without it they send their chunks back.
      assert.equal(r.shared, false, where);
      if (r.mode === "workers") assert.ok(r.peak > 0, `${where}: tasks ran on the Web Workers`);
    }
  }

  test("cross-origin isolated: v2, v3 and sharded arrays over HTTP, inline and on Web Workers, equal Node's reads", async () => {
    const got = await readAll("iso");
    assert.equal(got.isolated, true);
    assert.equal(got.sharedArrayBuffer, "function");
    assert.equal(got.poolShared, true, "workers share memory with the page");
    checkReads(got.results, "iso");
  });

  test("not isolated (no SharedArrayBuffer): reads still run on Web Workers and equal Node's; writes work inline", async () => {
    const got = await readAll("plain");
    assert.equal(got.isolated, false);
    assert.equal(got.sharedArrayBuffer, "undefined");
    assert.equal(got.poolShared, false, "workers send their chunks back");
    checkReads(got.results, "plain");
    const page = await openPage("plain");
    try {
      const values = await call<number[]>(page, "plain", "writeInMemory", { lib: "/plain/lib/parzarr.js" });
      const want = Array.from({ length: 100 }, (_, i) => {
        const [r, c] = [Math.floor(i / 10), i % 10];
        if (c === 3) return 8;
        if (r === 3) return 9;
        return r >= 1 && r < 7 && c >= 2 && c < 9 ? 5 : -1;
      });
      // The two concurrent writes both touch (3, 3): either may land last there.
      assert.ok(values[33] === 8 || values[33] === 9);
      values[33] = want[33];
      assert.deepEqual(values, want);
    } finally {
      await page.close();
    }
  });

  /** The OPFS plan, run in the page and, on a MemoryStore, here. */
  const OPFS_PLAN = {
    create: { shape: [96, 80], chunks: [16, 16], dtype: "float32", fillValue: 0 },
    // Disjoint, unaligned regions whose edges share chunks (rows 32..47): locks keep both.
    writes: [
      [[[5, 40], [3, 70]], 7],
      [[[40, 90], [50, 77]], -3],
    ],
  } as const;

  async function opfsExpected(): Promise<{ values: string; objects: Record<string, string> }> {
    const store = new MemoryStore();
    const a = await createArray(store, { ...OPFS_PLAN.create, shape: [...OPFS_PLAN.create.shape], chunks: [...OPFS_PLAN.create.chunks] });
    const n = 96 * 80;
    const data = Float32Array.from({ length: n }, (_, i) => Math.round(Math.cos(i / 11) * 1000) / 8);
    await a.set(null, { data, shape: [96, 80] }, { threads: 0 });
    for (const [sel, v] of OPFS_PLAN.writes) await a.set(sel.map(([lo, hi]) => slice(lo, hi)), v, { threads: 0 });
    const values = sha256(((await a.get(null, { threads: 0 })) as NDArray<TypedArray>).data);
    const objects: Record<string, string> = {};
    for (const key of await store.list("")) objects[key] = sha256((await store.get(key))!);
    return { values, objects };
  }

  for (const mode of ["iso", "plain"] as const) {
    test(`OPFSStore (${mode === "iso" ? "isolated: written on Web Workers" : "not isolated: written inline"}) reads back what Node writes to memory`, async () => {
      const want = await opfsExpected();
      const page = await openPage(mode);
      try {
        const got = await call<{ isolated: boolean; writePeak: number; inline: string; workers: string; reopened: string; objects: Record<string, string> }>(
          page,
          mode,
          "opfsRoundTrip",
          { lib: `/${mode}/lib/parzarr.js`, workerUrl: `${server.origin}/${mode}/lib/parzarr-worker.js`, root: `parzarr-test-${mode}/a.zarr`, plan: OPFS_PLAN },
        );
        assert.equal(got.isolated, mode === "iso");
        if (mode === "iso") assert.ok(got.writePeak > 0, "the writes ran on the Web Workers");
        else assert.equal(got.writePeak, 0, "without shared memory the writes ran inline");
        assert.equal(got.inline, want.values, "read back inline");
        assert.equal(got.workers, want.values, "read back on workers");
        assert.equal(got.reopened, want.values, "read back through a new store");
        assert.deepEqual(got.objects, want.objects, "the same objects, byte for byte, as Node writes");
      } finally {
        await page.close();
      }
    });
  }

  test("S3Store in the page (isolated): writes on Web Workers that Node reads back, and reads of what Node wrote, inline and on workers", async () => {
    // s3rver on another port than the page: the bucket's CORS rules let the page (and its
    // workers) send signed, ranged requests and read the answers.
    const s3 = await startS3("parzarr", { cors: true });
    try {
      const nodeUrl = `s3://${s3.bucket}/from-node.zarr`;
      const fromNode = await createArray(new S3Store(nodeUrl, s3.options), {
        shape: [300, 260],
        chunks: [64, 64],
        dtype: "<f4",
        zarrFormat: 2,
        compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 },
      });
      const values = Float32Array.from(ramp(300 * 260, (i) => Math.sin(i / 97) * 1000));
      await fromNode.set(null, { data: values, shape: [300, 260] }, { threads: 0 });
      const nodeRead = sha256(((await fromNode.get(null, { threads: 0 })) as NDArray<TypedArray>).data);
      const want = await opfsExpected();
      const url = `s3://${s3.bucket}/from-browser.zarr`;
      const page = await openPage("iso");
      let got: { written: { isolated: boolean; writePeak: number; inline: string; workers: string; reopened: string; objects: Record<string, string> }; read: { inline: string; workers: string; peak: number } };
      try {
        got = await call(page, "iso", "s3RoundTrip", {
          lib: "/iso/lib/parzarr.js",
          workerUrl: `${server.origin}/iso/lib/parzarr-worker.js`,
          url,
          nodeUrl,
          options: s3.options,
          plan: OPFS_PLAN,
        });
      } finally {
        await page.close();
      }
      assert.equal(got.written.isolated, true);
      assert.ok(got.written.writePeak > 0, "the writes ran on the Web Workers");
      for (const [how, sha] of Object.entries({ inline: got.written.inline, workers: got.written.workers, reopened: got.written.reopened })) {
        assert.equal(sha, want.values, `the page read back what it wrote (${how})`);
      }
      assert.deepEqual(got.written.objects, want.objects, "the same objects, byte for byte, as Node writes");
      // Node reads what the page wrote.
      const fromBrowser = (await (await openArray(new S3Store(url, s3.options), { mode: "r" })).get(null, { threads: 0 })) as NDArray<TypedArray>;
      assert.equal(sha256(fromBrowser.data), want.values, "Node reads the page's writes");
      assert.equal(got.read.inline, nodeRead, "the page reads Node's array inline");
      assert.equal(got.read.workers, nodeRead, "the page reads Node's array on Web Workers");
      assert.ok(got.read.peak > 0, "the read ran on the Web Workers");
    } finally {
      await s3.close();
    }
  });

  test("a plain object store (only get and set) on 2 Web Workers (isolated): the page moves the bytes, the workers encode and decode", async () => {
    const codecs: CreateArrayOptions["codecs"] = [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 3, checksum: false } }];
    const plan = { create: { shape: [40, 30], chunks: [8, 7], dtype: "float32", fillValue: -1, codecs }, region: [[3, 17, 1], [2, 29, 3]], value: 7.5 };
    // The same steps in Node, inline, on a Map keyed as the page's.
    const files = new Map<string, Uint8Array>();
    const a = await createArray({ get: async (k: string) => files.get(k), set: async (k: string, v: Uint8Array) => void files.set(k, new Uint8Array(v)) }, plan.create);
    await a.set(null, { data: Float32Array.from({ length: 1200 }, (_, i) => i / 4), shape: [40, 30] }, { threads: 0 });
    await a.set(plan.region.map(([lo, hi, step]) => slice(lo, hi, step)), plan.value, { threads: 0 });
    const values = sha256(((await a.get(null, { threads: 0 })) as NDArray<TypedArray>).data);
    const page = await openPage("iso");
    type Ran = { kind: string; store: string; items: number; fetched: number; status: string; chunks: number; stored: number };
    let got: { isolated: boolean; poolShared: boolean; writes: Ran[]; reads: Ran[]; workers: string; inline: string; objects: Record<string, string> };
    try {
      got = await call(page, "iso", "plainStoreOnWorkers", { lib: "/iso/lib/parzarr.js", workerUrl: `${server.origin}/iso/lib/parzarr-worker.js`, plan });
    } finally {
      await page.close();
    }
    assert.equal(got.isolated, true);
    assert.equal(got.poolShared, true);
    assert.equal(got.workers, values, "read on the Web Workers: what Node reads");
    assert.equal(got.inline, values, "read inline: what Node reads");
    assert.deepEqual(got.objects, Object.fromEntries([...files].map(([k, v]) => [k, sha256(v)])), "the same objects, byte for byte, as Node writes");
    for (const [kind, ran] of [["write", got.writes], ["read", got.reads]] as const) {
      assert.ok(ran.length >= 2, `${kind} tasks on the Web Workers: ${ran.length}`);
      for (const r of ran) {
        assert.deepEqual([r.kind, r.store, r.status], [kind, "caller", "done"], JSON.stringify(r));
        // Reads: every chunk came with the task and the worker decoded it. Writes: the worker
        // encoded every chunk and handed the bytes back to be stored.
        if (kind === "read") assert.equal(r.fetched, r.items);
        else assert.equal(r.stored, r.items);
        assert.equal(r.chunks, r.items, "the worker ran every chunk");
      }
    }
  });

  test("a user's store class of a registered kind (isolated): the Web Workers import its module, open it and read it themselves", async () => {
    const page = await openPage("iso");
    type Ran = { store: string; module: string; items: number; fetched: number; status: string; chunks: number };
    let got: { messages: Ran[]; pageGets: string[]; workers: string; inline: string };
    try {
      got = await call(page, "iso", "registeredStoreOnWorkers", {
        lib: "/iso/lib/parzarr.js",
        workerUrl: `${server.origin}/iso/lib/parzarr-worker.js`,
        moduleUrl: `${server.origin}/iso/http-kind.js`,
        arrayUrl: `${server.origin}/iso/data/v3-zstd`,
      });
    } finally {
      await page.close();
    }
    const want = expected.get("data/v3-zstd")!.sha256;
    assert.equal(got.workers, want, "read on the Web Workers: what Node reads");
    assert.equal(got.inline, want);
    assert.ok(got.messages.length >= 2, `tasks on the Web Workers: ${got.messages.length}`);
    for (const r of got.messages) {
      assert.deepEqual([r.store, r.module, r.fetched, r.status, r.chunks], ["test-http", `${server.origin}/iso/http-kind.js`, 0, "done", r.items], JSON.stringify(r));
    }
    assert.deepEqual(got.pageGets.filter((k) => k.startsWith("/c/")), [], "the page's store object read no chunk");
  });

  test("a Web Worker that dies holding a chunk lock: its write fails, its slot is freed, the next write to that chunk finishes", async () => {
    const page = await openPage("iso");
    try {
      const got = await call<{ caught: boolean; firstOutcome: string; freed: boolean; second: string; probe: number[] }>(page, "iso", "deadWorkerLock", {
        lib: "/iso/lib/parzarr.js",
        workerUrl: `${server.origin}/iso/lib/parzarr-worker.js`,
        root: "parzarr-test-dead-worker/a.zarr",
      });
      assert.equal(got.caught, true, "the worker was caught holding the chunk's slot");
      assert.match(got.firstOutcome, /^failed: .*crashed/, "the dead worker's write fails, saying why");
      assert.equal(got.freed, true, "the pool freed the dead worker's slot");
      assert.equal(got.second, "written", "the next write to the chunk finished");
      const original = (r: number) => (r * 2048 + 7) % 1000; // column 7, in both writes
      for (let r = 0; r < 16; r++) {
        // Rows 0..4: the killed write may or may not have been stored before it died.
        const ok = r >= 5 && r < 15 ? [2] : r < 5 ? [1, original(r)] : [original(r)];
        assert.ok(ok.includes(got.probe[r]!), `row ${r}: ${got.probe[r]} not in ${ok.join(", ")}`);
      }
    } finally {
      await page.close();
    }
  });

  test("browser errors are typed: a path, piscina, a worker URL that does not load (no hang)", async () => {
    const page = await openPage("iso");
    try {
      const got = await call<Record<string, unknown>>(page, "iso", "failures", {
        lib: "/iso/lib/parzarr.js",
        workerUrl: `${server.origin}/iso/lib/parzarr-worker.js`,
        arrayUrl: `${server.origin}/iso/data/v3-zstd`,
      });
      assert.equal(got.path, "UNSUPPORTED");
      assert.equal(got.piscina, "UNSUPPORTED");
      assert.match(String(got.badWorker), /worker/i, "the read failed, naming the worker");
      assert.equal(got.closed, true);
    } finally {
      await page.close();
    }
  });
});
