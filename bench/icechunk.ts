/**
 * Icechunk (issue 28): a whole write and a whole read of one array in an Icechunk session, by
 * parzarr on its pool (2 threads by default: this thread moves bytes through the session store,
 * workers encode and decode) and by zarrita through the same session store (one thread). The
 * array is 2048 x 2048 float32 random walks (16 MiB) in 256 x 256 chunks, zstd level 1, in an
 * in-memory repository (the WebAssembly build where the native addon does not load). Median of
 * --reps runs each; the ratio is zarrita's time over parzarr's.
 *
 *   npx tsx bench/icechunk.ts [--reps 5] [--threads 2] [--size 2048]
 */
import { parseArgs } from "node:util";
import { Repository, Storage } from "@earthmover/icechunk";
import * as zarrita from "zarrita";
import { WorkerPool, createArray, openArray, openIcechunk } from "../src/index.js";
import { median, randomWalk } from "./pool-data.js";

const { values } = parseArgs({ options: { reps: { type: "string", default: "5" }, threads: { type: "string", default: "2" }, size: { type: "string", default: "2048" } } });
const reps = Number(values.reps);
const threads = Number(values.threads);
const SIZE = Number(values.size);
const CHUNK = 256;
const data = randomWalk([SIZE, SIZE]);
const pool = new WorkerPool({ threads });
const repo = await Repository.create(await Storage.newInMemory());
const codecs = ["bytes", { name: "zstd", configuration: { level: 1, checksum: false } }];

async function timed(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  return median(times);
}

// Writes: each run creates the array anew in a fresh writable session (not committed).
const parzarrWrite = await timed(async () => {
  const store = await openIcechunk(repo, { branch: "main", writable: true });
  const a = await createArray(store, { path: "p", shape: [SIZE, SIZE], chunks: [CHUNK, CHUNK], dtype: "float32", codecs });
  await a.set(null, { data, shape: [SIZE, SIZE] }, { pool });
});
const zarritaWrite = await timed(async () => {
  const session = await repo.writableSession("main");
  const root = zarrita.root(session.store as unknown as zarrita.Mutable);
  await zarrita.create(root);
  const a = await zarrita.create(root.resolve("/z"), {
    shape: [SIZE, SIZE],
    chunkShape: [CHUNK, CHUNK],
    dtype: "float32",
    codecs: [{ name: "bytes", configuration: { endian: "little" } }, { name: "zstd", configuration: { level: 1, checksum: false } }],
  });
  await zarrita.set(a, null, { data, shape: [SIZE, SIZE], stride: [SIZE, 1] });
});

// Reads: one committed array, read whole through one read-only session by each.
const w = await openIcechunk(repo, { branch: "main", writable: true });
const made = await createArray(w, { path: "r", shape: [SIZE, SIZE], chunks: [CHUNK, CHUNK], dtype: "float32", codecs });
await made.set(null, { data, shape: [SIZE, SIZE] }, { pool });
await w.session.commit("bench array");
const ro = await openIcechunk(repo, { branch: "main" });
const parzarrArray = await openArray(ro, { path: "r" });
const parzarrRead = await timed(() => parzarrArray.get(null, { pool }));
const zarritaArray = await zarrita.open(zarrita.root(ro.session.store as unknown as zarrita.Readable).resolve("/r"), { kind: "array" });
const zarritaRead = await timed(() => zarrita.get(zarritaArray));
await pool.close();

const mib = (SIZE * SIZE * 4) / 2 ** 20;
const line = (what: string, p: number, z: number) =>
  console.log(`${what.padEnd(6)} parzarr ${p.toFixed(0).padStart(6)} ms (${(mib / (p / 1000)).toFixed(0)} MiB/s)  zarrita ${z.toFixed(0).padStart(6)} ms  ratio ${(z / p).toFixed(2)}x`);
console.log(`${SIZE}x${SIZE} float32 (${mib} MiB), chunks ${CHUNK}x${CHUNK} zstd:1, Icechunk in memory, parzarr on ${threads} thread(s), median of ${reps}`);
line("write", parzarrWrite, zarritaWrite);
line("read", parzarrRead, zarritaRead);
