/**
 * Whole reads of one bench:compare array into a reused shared `out`, for profiling (issue 31):
 *   node --import tsx --cpu-prof --cpu-prof-dir=prof bench/profile-read.ts blosc-lz4 2 [RUNS=5] [SIZE=8192]
 * profiles every thread (each worker writes its own .cpuprofile); then
 *   node --import tsx bench/profile-steps.ts prof
 * sums them by step. THREADS 0 is inline. Prints this process's CPU per MiB read (all threads,
 * libuv's file reads included, which no profile sees) and, on Linux, each thread's.
 */
import "../src/platform/node.js";
import { readdirSync, readFileSync } from "node:fs";
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
// Touched here first, so that no profile counts the page faults of its first write in the warm-up read.
const out = new Float32Array(new SharedArrayBuffer(size * size * 4)).fill(1);
await arr.get(null, { out, threads }); // warm
const threads0 = threadTimes();
const cpu0 = process.cpuUsage();
const times: number[] = [];
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  await arr.get(null, { out, threads });
  times.push(performance.now() - t);
}
const cpu = process.cpuUsage(cpu0);
const threads1 = threadTimes();
const mib = (runs * size * size * 4) / 2 ** 20;
console.log(
  `${codec} threads ${threads}: median ${median(times).toFixed(0)} ms; CPU ${((cpu.user + cpu.system) / 1000 / mib).toFixed(3)} ms/MiB (user ${(cpu.user / 1000 / mib).toFixed(3)}, system ${(cpu.system / 1000 / mib).toFixed(3)})`,
);
// Per thread (Linux): which thread the CPU went to. The main thread is the calling thread; workers
// are piscina's; libuv's pool runs the file reads' copies from the page cache (system time).
const byName = new Map<string, number>();
for (const [tid, t1] of threads1) {
  const t0 = threads0.get(tid);
  const name = tid === process.pid ? "main" : `${t1.name}:${tid}`;
  byName.set(name, (byName.get(name) ?? 0) + t1.ms - (t0?.ms ?? 0));
}
if (byName.size > 0) {
  const parts = [...byName].filter(([, ms]) => ms > 0).sort((a, b) => b[1] - a[1]);
  console.log(`  per thread, ms/MiB: ${parts.map(([n, ms]) => `${n} ${(ms / mib).toFixed(3)}`).join(", ")}`);
}
process.exit(0);

/** Each thread's user + system CPU in ms (/proc/self/task, clock ticks of 10 ms); empty elsewhere. */
function threadTimes(): Map<number, { name: string; ms: number }> {
  const out = new Map<number, { name: string; ms: number }>();
  let tids: string[];
  try {
    tids = readdirSync("/proc/self/task");
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(Number(tid), { name, ms: (Number(fields[11]) + Number(fields[12])) * 10 });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}
