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
import { rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ChunkCache, WorkerPool, createArray, openArray } from "../src/index.js";
import { median, randomWalk, scratchFolder } from "./pool-data.js";
import { startEtagServer } from "../test/helpers/etag-server.js";

const { values } = parseArgs({ options: { reps: { type: "string", default: "5" }, threads: { type: "string", default: "2" } } });
const reps = Number(values.reps);
const threads = Number(values.threads);
const SIZE = 4096;
const CHUNK = 512;

const work = scratchFolder("chunk-cache");
const a = await createArray(join(work, "a.zarr"), { shape: [SIZE, SIZE], chunks: [CHUNK, CHUNK], dtype: "float32", codecs: ["bytes", { name: "zstd", configuration: { level: 1 } }] });
await a.set(null, { data: randomWalk([SIZE, SIZE]), shape: [SIZE, SIZE] });

const server = await startEtagServer(work);
const url = `${server.base}/a.zarr`;
const pool = new WorkerPool({ threads });

async function timed(label: string, read: () => Promise<unknown>, prepare?: () => Promise<void>): Promise<void> {
  const times: number[] = [];
  let seen: Record<number, number> = {};
  for (let i = 0; i < reps; i++) {
    await prepare?.();
    server.reset();
    const t0 = performance.now();
    await read();
    times.push(performance.now() - t0);
    seen = server.chunks;
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
  await server.close();
  rmSync(work, { recursive: true, force: true });
}
