/**
 * `parzarr/zarrita` in headless Chromium (issue 28 item 2): a page bundled with zarrita and the
 * entry's browser build reads zarrita arrays over HTTP from 127.0.0.1 (v2 blosc, v3 zstd int64,
 * v3 bool, v3 sharded) on 2 Web Workers and compares every result with zarrita's own `zarr.get`,
 * on seeded random selections; then writes a Map-backed array with `set` against `zarr.set`.
 */
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { copyFile } from "node:fs/promises";
import { join } from "node:path";
import { build } from "esbuild";
import type { Browser } from "puppeteer-core";
import { createArray, slice, type CreateArrayOptions } from "../src/index.js";
import { startStaticServer, type StaticServer } from "../src/cli/static-server.js";
import { buildBrowser } from "../tools/build-browser.js";
import { chromiumSkip, launchChromium } from "./helpers/browser.js";
import { scratchDir } from "./helpers/paths.js";

const skip = chromiumSkip();
const ROOT = new URL("../", import.meta.url).pathname;
const ZSTD: CreateArrayOptions["codecs"] = [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1, checksum: false } }];
const ARRAYS: [string, CreateArrayOptions, (i: number) => number | bigint | boolean][] = [
  ["v2-blosc", { zarrFormat: 2, shape: [70, 50], chunks: [16, 16], dtype: "<f4", compressor: { id: "blosc", cname: "lz4", clevel: 5, shuffle: 1 } }, (i) => Math.sin(i / 7) * 100],
  ["v3-int64", { shape: [40, 33], chunks: [9, 8], dtype: "int64", codecs: ZSTD }, (i) => BigInt(i) * 3n ** 30n],
  ["v3-bool", { shape: [25, 31], chunks: [8, 8], dtype: "bool", codecs: ZSTD }, (i) => i % 3 === 0],
  ["v3-sharded", { shape: [64, 48], chunks: [8, 8], shards: [32, 24], dtype: "uint16", codecs: ZSTD }, (i) => (i * 13) & 0xffff],
];

let browser: Browser | undefined;
let server: StaticServer | undefined;
before(async () => {
  if (skip) return;
  const [data, site] = [scratchDir("parzarr-zarrita-browser-data-"), scratchDir("parzarr-zarrita-browser-site-")];
  for (const [name, options, f] of ARRAYS) {
    const a = await createArray(join(data, name), options);
    const n = options.shape.reduce((x, y) => x * y, 1);
    // The first row is never written: its chunks are missing and read as the fill value.
    await a.set([slice(1, null)], Array.from({ length: n - n / options.shape[0] }, (_, i) => f(i)) as never, { threads: 0 });
  }
  await buildBrowser(join(site, "lib"));
  await build({ entryPoints: [join(ROOT, "test/browser/zarrita-page.ts")], outfile: join(site, "zarrita-page.js"), bundle: true, platform: "browser", format: "esm", target: "es2022", logLevel: "silent", absWorkingDir: ROOT });
  await copyFile(join(ROOT, "test/browser/index.html"), join(site, "index.html"));
  server = await startStaticServer({ mounts: { "/": site, "/data/": data }, isolated: () => true });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

test("zarrita arrays in Chromium: get and set on 2 Web Workers equal zarr.get and zarr.set", { skip }, async () => {
  const page = await browser!.newPage();
  try {
    await page.goto(`${server!.origin}/index.html`);
    const args = { urls: ARRAYS.map(([name]) => `${server!.origin}/data/${name}`), workerUrl: `${server!.origin}/lib/parzarr-worker.js`, seed: 2028 };
    const got = (await page.evaluate(`import("/zarrita-page.js").then((m) => m.run(${JSON.stringify(args)}))`)) as {
      isolated: boolean;
      cases: number;
      mismatches: string[];
      readPeak: number;
      writePeak: number;
    };
    assert.equal(got.isolated, true);
    assert.deepEqual(got.mismatches, []);
    assert.equal(got.cases, ARRAYS.length * 15 + 10);
    assert.ok(got.readPeak > 0, "reads ran on the Web Workers");
    assert.ok(got.writePeak > 0, "writes ran on the Web Workers");
  } finally {
    await page.close();
  }
});
