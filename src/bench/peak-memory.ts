/**
 * Child process of the comparison: reads one whole array with parzarr and reports how far memory
 * rose above what the process held before the read. Run alone so that nothing else the benchmark
 * holds (the generated data, other results) counts.
 *
 *   node [loader] peak-memory.(ts|js) ARRAY_DIR THREADS   (THREADS: a number or "default")
 *
 * Prints one JSON line: { outputBytes, rssBefore, peakRss, arrayBuffersBefore, peakArrayBuffers }.
 * peakRss comes from getrusage's maxrss (the kernel's high-water mark, so short peaks count too);
 * arrayBuffers is sampled every millisecond while the read runs.
 */
import { openArray } from "../hierarchy/open.js";
import type { NDArray } from "../indexing/ndarray.js";
import type { TypedArray } from "../metadata/dtype.js";
import type { OperationOptions } from "../parallel/options.js";

export interface PeakMemoryReport {
  outputBytes: number;
  rssBefore: number;
  peakRss: number;
  arrayBuffersBefore: number;
  peakArrayBuffers: number;
}

async function main(): Promise<void> {
  const [dir, threadsArg] = process.argv.slice(2);
  if (!dir) throw new Error("usage: peak-memory ARRAY_DIR [THREADS|default]");
  const options: OperationOptions = threadsArg === undefined || threadsArg === "default" ? {} : { threads: Number(threadsArg) };
  const arr = await openArray(dir, { mode: "r" });
  // One small read first: code compilation, codec set-up and (with threads) worker start-up are
  // one-time costs, not memory a whole read needs in proportion to its output.
  await arr.get("0:1, 0:1", options);
  // Settle what opening and module loading allocated before taking the baseline.
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 50));
  const before = process.memoryUsage();
  let peakArrayBuffers = before.arrayBuffers;
  const timer = setInterval(() => {
    peakArrayBuffers = Math.max(peakArrayBuffers, process.memoryUsage().arrayBuffers);
  }, 1);
  const result = (await arr.get(null, options)) as NDArray<TypedArray>;
  clearInterval(timer);
  peakArrayBuffers = Math.max(peakArrayBuffers, process.memoryUsage().arrayBuffers);
  const report: PeakMemoryReport = {
    outputBytes: result.data.byteLength,
    rssBefore: before.rss,
    peakRss: process.resourceUsage().maxRSS * 1024,
    arrayBuffersBefore: before.arrayBuffers,
    peakArrayBuffers,
  };
  process.stdout.write(JSON.stringify(report) + "\n");
}

await main();
