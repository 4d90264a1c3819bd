/**
 * The chunk cache over HTTP (issue 17): a 64 MiB v3 array (4096 x 4096 float32 random walks,
 * 512 x 512 chunks, zstd) served from 127.0.0.1 by a server that sends ETags, answers
 * If-None-Match with 304 and counts chunk requests by status. Each read is the whole array, on
 * the pool (2 threads by default), and reported with its time and requests:
 *
 *   no cache             every read fetches and decodes every chunk
 *   cold (cache)         the first read through a cache: the same, plus keeping the chunks
 *   recheck false        a repeated read: no chunk request at all
 *   recheck true         a repeated read revalidating every chunk: only 304s, no decode
 *
 *   npx tsx bench/chunk-cache.ts [--reps 5] [--threads 2]
 */
import { createServer } from "node:http";
import { readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { ChunkCache, WorkerPool, createArray, openArray } from "../src/index.js";
import { median, randomWalk, scratchFolder } from "./pool-data.js";

const { values } = parseArgs({ options: { reps: { type: "string", default: "5" }, threads: { type: "string", default: "2" } } });
const reps = Number(values.reps);
const threads = Number(values.threads);
const SIZE = 4096;
const CHUNK = 512;

const work = scratchFolder("chunk-cache");
const a = await createArray(join(work, "a.zarr"), { shape: [SIZE, SIZE], chunks: [CHUNK, CHUNK], dtype: "float32", codecs: ["bytes", { name: "zstd", configuration: { level: 1 } }] });
await a.set(null, { data: randomWalk([SIZE, SIZE]), shape: [SIZE, SIZE] });

let counts: Record<number, number> = {};
const server = createServer((req, res) => {
  const path = join(work, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
  let status = 200;
  let body: Buffer | undefined;
  let etag = "";
  try {
    const info = statSync(path);
    etag = `"${info.size}-${info.mtimeMs}-${info.ino}"`;
    if (req.headers["if-none-match"] === etag) status = 304;
    else body = readFileSync(path);
  } catch {
    status = 404;
  }
  if (!path.endsWith("zarr.json") && !/\.z(array|attrs|group)$/.test(path)) counts[status] = (counts[status] ?? 0) + 1;
  res.writeHead(status, etag ? { ETag: etag } : {});
  res.end(body);
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/a.zarr`;
const pool = new WorkerPool({ threads });

async function timed(label: string, read: () => Promise<unknown>, prepare?: () => Promise<void>): Promise<void> {
  const times: number[] = [];
  let seen: Record<number, number> = {};
  for (let i = 0; i < reps; i++) {
    await prepare?.();
    counts = {};
    const t0 = performance.now();
    await read();
    times.push(performance.now() - t0);
    seen = counts;
  }
  console.log(`${label.padEnd(16)} ${median(times).toFixed(1).padStart(8)} ms   chunk requests ${JSON.stringify(seen)}`);
}

try {
  const options = { threads, pool };
  const plain = await openArray(url, { mode: "r" });
  await plain.get(null, options); // warm the pool and the server
  await timed("no cache", () => plain.get(null, options));
  let cache = new ChunkCache({ maxBytes: 128 << 20 });
  await timed(
    "cold (cache)",
    async () => (await openArray(url, { mode: "r", cache })).get(null, options),
    async () => {
      cache = new ChunkCache({ maxBytes: 128 << 20 });
    },
  );
  const never = await openArray(url, { mode: "r", cache, recheckCachedData: false });
  await timed("recheck false", () => never.get(null, options));
  const always = await openArray(url, { mode: "r", cache, recheckCachedData: true });
  await timed("recheck true", () => always.get(null, options));
  console.log(`cache: ${JSON.stringify(cache.stats())}`);
} finally {
  await pool.close();
  server.close();
  rmSync(work, { recursive: true, force: true });
}
