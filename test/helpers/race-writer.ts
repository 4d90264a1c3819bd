/**
 * One writer process of the race workload (run as `node --import tsx race-writer.ts ARGS`):
 * opens the array, puts all of its regions in flight at once, waits for them, prints
 * `{"ms": writeTime}` and exits 0.
 * Args: storeRoot lockDir|redisUrl|- writer round threads workloadJSON [--no-table]
 * storeRoot may be an s3:// URL (reached through the AWS_* environment); a redis:// URL in place
 * of the lock folder takes leases in Redis (RedisSynchronizer) instead of lock files.
 * With `--conditional` (lock folder "-"), partial-chunk writes go by compare-and-swap
 * (`conditionalWrites: true`); `--conditional={"maxAttempts":N,...}` gives the retry policy.
 * With `--loop`, writes round after round until killed, printing "round N" after each.
 * With `--serve`, reads round numbers from stdin, one a line, writes each and answers
 * `{"round": N, "ms": t}`: a test runs several rounds without paying process start-up each time.
 * A round that fails answers `{"round": N, "error": "CODE: message"}` and the writer goes on (an
 * unsynchronised writer may read a chunk another is half-way through writing, where the store's
 * writes are not atomic, as s3rver's are not).
 */
import { createInterface } from "node:readline";
import { openArray, ProcessSynchronizer, RedisSynchronizer, slice } from "../../src/index.js";
import { setChunkLockingForBenchmark } from "../../src/parallel/sync/lock-table.js";
import { raceRegion, raceValue, type RaceWorkload } from "./race-workload.js";

const [root, lockDir, writerArg, roundArg, threadsArg, workloadJson, ...flags] = process.argv.slice(2);
const w = JSON.parse(workloadJson) as RaceWorkload;
const writer = Number(writerArg);
const threads = Number(threadsArg);
if (flags.includes("--no-table")) setChunkLockingForBenchmark(false);
const synchronizer =
  lockDir === "-"
    ? undefined
    : /^rediss?:/.test(lockDir!)
      ? new RedisSynchronizer(lockDir!, { leaseMs: 5000, timeoutMs: 30_000 })
      : new ProcessSynchronizer(lockDir!, { staleMs: 2000, timeoutMs: 30_000 });
const conditionalFlag = flags.find((f) => f === "--conditional" || f.startsWith("--conditional="));
const conditionalWrites = conditionalFlag === undefined ? undefined : conditionalFlag === "--conditional" ? true : JSON.parse(conditionalFlag.slice("--conditional=".length));
const a = await openArray(root, { mode: "r+", synchronizer, conditionalWrites });

async function writeRound(round: number): Promise<void> {
  await Promise.all(
    Array.from({ length: w.perWriter }, (_, r) => {
      const [c0, c1] = raceRegion(w, writer, r);
      const data = new Int32Array(w.rows * (c1 - c0)).fill(raceValue(writer, r, round));
      return a.set([slice(0, w.rows), slice(c0, c1)], { data, shape: [w.rows, c1 - c0] }, { threads });
    }),
  );
}

if (flags.includes("--loop")) {
  for (let round = Number(roundArg); ; round++) {
    await writeRound(round);
    process.stdout.write(`round ${round}\n`);
  }
} else if (flags.includes("--serve")) {
  for await (const line of createInterface({ input: process.stdin })) {
    const round = Number(line);
    const t0 = performance.now();
    try {
      await writeRound(round);
      process.stdout.write(`${JSON.stringify({ round, ms: performance.now() - t0 })}\n`);
    } catch (err) {
      const code = (err as { code?: string }).code ?? "ERROR";
      process.stdout.write(`${JSON.stringify({ round, error: `${code}: ${err instanceof Error ? err.message : String(err)}` })}\n`);
    }
  }
} else {
  const t0 = performance.now();
  await writeRound(Number(roundArg));
  // The benchmark reads this: time spent writing, without process start-up.
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - t0 })}\n`);
}
