/**
 * Whole reads of one bench:compare array into a reused shared `out`, for profiling (issue 31):
 *   node --import tsx --cpu-prof --cpu-prof-dir=prof bench/profile-read.ts blosc-lz4 2 [RUNS=5] [SIZE=8192]
 * profiles every thread (each worker writes its own .cpuprofile); then
 *   node --import tsx bench/profile-steps.ts prof
 * sums them by step. THREADS 0 is inline. Prints this process's CPU per MiB read (all threads,
 * libuv's file reads included, which no profile sees).
 */
import "../src/platform/node.js";
import { resolve } from "node:path";
import { openArray } from "../src/hierarchy/open.js";
import { COMPARE_CODECS, ensureDataset, makeData, type CompareCodec } from "./compare/compare.js";
import { median } from "./compare/measure.js";

const codec = (process.argv[2] ?? "blosc-lz4") as CompareCodec;
const threads = Number(process.argv[3] ?? 0);
const runs = Number(process.argv[4] ?? 5);
const size = Number(process.argv[5] ?? 8192);
if (!COMPARE_CODECS.some((c) => c.codec === codec)) throw new Error(`codec: one of ${COMPARE_CODECS.map((c) => c.codec)}`);
const paths = await ensureDataset(resolve(".bench-data"), size, size, 1024, () => makeData(size, size), console.log);
const arr = await openArray(paths.get(codec)!, { mode: "r" });
const out = new Float32Array(new SharedArrayBuffer(size * size * 4));
await arr.get(null, { out, threads }); // warm
const cpu0 = process.cpuUsage();
const times: number[] = [];
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  await arr.get(null, { out, threads });
  times.push(performance.now() - t);
}
const cpu = process.cpuUsage(cpu0);
const mib = (runs * size * size * 4) / 2 ** 20;
console.log(
  `${codec} threads ${threads}: median ${median(times).toFixed(0)} ms; CPU ${((cpu.user + cpu.system) / 1000 / mib).toFixed(3)} ms/MiB (user ${(cpu.user / 1000 / mib).toFixed(3)}, system ${(cpu.system / 1000 / mib).toFixed(3)})`,
);
process.exit(0);
