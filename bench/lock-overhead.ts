/**
 * The uncontended cost of the in-process chunk lock: withChunkLock around an empty task against
 * the bare task, and a small partial-chunk `set` (MemoryStore, raw bytes, one chunk) with the lock
 * table on and off.
 *
 *   npx tsx bench/lock-overhead.ts
 */
import { Bench } from "tinybench";
import { createArray, MemoryStore, slice } from "../src/index.js";
import { processLockTable, setChunkLockingForBenchmark, withChunkLock } from "../src/parallel/sync/lock-table.js";

const ref = { table: processLockTable(), scope: "memory:bench" };
const empty = async (): Promise<void> => undefined;

const lockOn = await createArray(new MemoryStore(), { shape: [64, 64], chunks: [32, 32], dtype: "float32", codecs: ["bytes"] });
setChunkLockingForBenchmark(false);
const lockOff = await createArray(new MemoryStore(), { shape: [64, 64], chunks: [32, 32], dtype: "float32", codecs: ["bytes"] });
const region = [slice(3, 20), slice(5, 29)];

// Both paths warm before timing: otherwise whichever runs first pays for JIT compilation.
for (let i = 0; i < 300; i++) {
  setChunkLockingForBenchmark(i % 2 === 0);
  await (i % 2 === 0 ? lockOn : lockOff).set(region, 1.5, { threads: 0 });
}

const bench = new Bench({ time: 1000, warmup: true });
bench
  .add("empty task, bare", async () => {
    await empty();
  })
  .add("empty task, withChunkLock", async () => {
    await withChunkLock(ref, "c/0/0", empty);
  })
  // The switch is read when a set plans its tasks: toggle it around each call.
  .add("partial-chunk set, lock table off", async () => {
    setChunkLockingForBenchmark(false);
    await lockOff.set(region, 1.5, { threads: 0 });
  })
  .add("partial-chunk set, lock table on", async () => {
    setChunkLockingForBenchmark(true);
    await lockOn.set(region, 1.5, { threads: 0 });
  });
await bench.run();

const mean = (name: string): number => {
  const r = bench.tasks.find((t) => t.name === name)?.result;
  return r && "latency" in r ? r.latency.mean * 1000 : NaN;
};
console.log("| operation | mean (µs) |");
console.log("| --- | --- |");
for (const t of bench.tasks) console.log(`| ${t.name} | ${mean(t.name).toFixed(2)} |`);
console.log(`\nlock cost per chunk: ${(mean("empty task, withChunkLock") - mean("empty task, bare")).toFixed(2)} µs; ` +
  `partial set with/without: ${(mean("partial-chunk set, lock table on") / mean("partial-chunk set, lock table off")).toFixed(3)}x`);
