/**
 * Child process of the comparison: reads one whole array with parzarr and reports how far memory
 * rose above what the process held before the read. Run alone so that nothing else the benchmark
 * holds (the generated data, other results) counts.
 *
 *   node [loader] peak-memory.(ts|js) ARRAY_DIR THREADS   (THREADS: a number or "default")
 *
 * Prints one JSON line: { outputBytes, rssBefore, peakRss, arrayBuffersBefore, peakArrayBuffers }.
 * peakRss is the kernel's high-water mark (short peaks count too), reset just before the read
 * where Linux allows it: otherwise start-up (module compilation by the loader) would count as the
 * read's memory. arrayBuffers is sampled every millisecond while the read runs.
 */
// The Node platform (folder stores, worker_threads): the benchmark opens arrays by path.
import "../../src/platform/node.js";
import { readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { openArray } from "../../src/hierarchy/open.js";
import type { NDArray } from "../../src/indexing/ndarray.js";
import type { TypedArray } from "../../src/metadata/dtype.js";
import type { OperationOptions } from "../../src/parallel/execution/options.js";

export interface PeakMemoryReport {
  outputBytes: number;
  rssBefore: number;
  peakRss: number;
  arrayBuffersBefore: number;
  peakArrayBuffers: number;
}

/** Resets the process's RSS high-water mark (Linux: "5" to /proc/self/clear_refs); false where it cannot. */
function resetPeakRss(): boolean {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

/** VmHWM from /proc/self/status, in bytes, or undefined where there is none. */
function peakRssSinceReset(): number | undefined {
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync("/proc/self/status", "utf8"));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const [dir, threadsArg] = process.argv.slice(2);
  if (!dir) throw new Error("usage: peak-memory ARRAY_DIR [THREADS|default]");
  const options: OperationOptions = threadsArg === undefined || threadsArg === "default" ? {} : { threads: Number(threadsArg) };
  const arr = await openArray(dir, { mode: "r" });
  // One small read first: code compilation, codec set-up and (with threads) worker start-up are
  // one-time costs, not memory a whole read needs in proportion to its output.
  // A tiny read runs inline unless threads are asked for, so the default setting warms up with
  // the default pool's size: that starts the same workers the whole read will use.
  await arr.get("0:1, 0:1", threadsArg === "0" ? options : { threads: availableParallelism() });
  // Settle what opening and module loading allocated before taking the baseline.
  (globalThis as { gc?: () => void }).gc?.();
  await new Promise((r) => setTimeout(r, 50));
  const resettable = resetPeakRss();
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
    peakRss: (resettable ? peakRssSinceReset() : undefined) ?? process.resourceUsage().maxRSS * 1024,
    arrayBuffersBefore: before.arrayBuffers,
    peakArrayBuffers,
  };
  process.stdout.write(JSON.stringify(report) + "\n");
}

await main();
